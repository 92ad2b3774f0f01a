"""Model endpoints at scale: `run-agent --agent openai` with --concurrency (episodes really in
flight at once at the server), several models in one run (--model, --endpoints), latency and
tokens on the stored steps, the end-of-run report of retries and failures, and MG-VQA runs on
Ray (identical to one worker) with --resume."""

from __future__ import annotations

import json
import threading
import time

import pytest
from model_server import serve

from app.cli import main
from app.jobs.endpoints import answer_reply
from store import open_project

QUESTIONS = 4


def world_record() -> dict:
    """A small robot-free scene (quick to rebuild): two red boxes on the table."""
    from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld

    x, y = WORKSPACE_CENTRE
    with TabletopWorld(with_robot=False) as world:
        for i, dx in enumerate((-0.08, 0.08)):
            world.add_primitive(
                f"box{i}",
                "box",
                (0.03, 0.03, 0.03),
                (x + dx, y, TABLE_TOP_Z + 0.03),
                rgba=(0.9, 0.1, 0.1, 1),
                mass=0.2,
                name="red box",
            )
        world.step(30)
        return {
            "name": "two boxes",
            "benchmark": "mgvqa",
            "seed": 0,
            "generator": "tests",
            "camera": TOP_DOWN.as_dict(),
            "state": world.capture_state(),
            "bodies": world.body_records(),
        }


@pytest.fixture(scope="module")
def scene() -> dict:
    return world_record()


@pytest.fixture
def db(tmp_path, scene):
    path = tmp_path / "endpoints.reasonscope"
    with open_project(path, create=True) as project, project.write():
        sid = project.scenes.add(scene)
        for i in range(QUESTIONS):
            project.questions.add(
                {
                    "benchmark": "mgvqa",
                    "task": "count",
                    "text": f"How many red boxes are on the table? ({i})",
                    "options": None,
                    "answer": 2,
                    "criteria": {},
                    "scene_id": sid,
                }
            )
    return path


@pytest.fixture
def endpoint_env(monkeypatch):
    def point_at(url: str) -> None:
        monkeypatch.setenv("REASONSCOPE_OPENAI_BASE_URL", url)
        monkeypatch.setenv("REASONSCOPE_OPENAI_MODEL", "env-model")

    return point_at


def run(capsys, db, *args) -> tuple[int, dict | str, str]:
    code = main(
        ["run-agent", "--db", str(db), "--questions", "any", "--image-size", "128", *map(str, args)]
    )
    out = capsys.readouterr()
    return code, (json.loads(out.out) if "--json" in args and out.out else out.out), out.err


def episodes(db) -> list:
    with open_project(db) as project:
        return [project.episodes.get(i) for i in project.episodes.ids()]


def barrier(k: int, then, limit: float = 20.0):
    """A script that holds each request until k are in flight at the server (or `limit`
    seconds pass), then answers with `then`: all k overlap, or the run was not concurrent."""
    holder: dict = {}

    def script(body, n):
        end = time.monotonic() + limit
        while holder["server"].max_in_flight < k and time.monotonic() < end:
            time.sleep(0.01)
        return then(body, n)

    return holder, script


# -- concurrency ---------------------------------------------------------------------------
def test_k_episodes_are_in_flight_at_once(capsys, db, endpoint_env):
    holder, script = barrier(QUESTIONS, lambda body, n: answer_reply("2"))
    with serve(script) as (server, url):
        holder["server"] = server
        endpoint_env(url)
        code, report, err = run(
            capsys,
            db,
            "--agent",
            "openai",
            "--mode",
            "direct",
            "--concurrency",
            QUESTIONS,
            "--json",
        )
    assert code == 0, err
    assert server.max_in_flight == QUESTIONS and len(server.requests) == QUESTIONS
    assert report["episodes"] == QUESTIONS and report["correct"] == QUESTIONS
    assert report["backend"] == f"in-process, {QUESTIONS} threads"
    stored = episodes(db)
    assert [e.question_id for e in stored] == sorted(e.question_id for e in stored)  # in order


def test_latency_and_tokens_are_on_the_first_step_of_each_reply(capsys, db, endpoint_env):
    def script(body, n):
        if n % 2:  # two tool calls in one reply: perceive, then find
            calls = [("perceive_scene", "{}"), ("find_object", '{"point": [64, 64]}')]
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": f"c{i}", "type": "function", "function": {"name": k, "arguments": a}}
                    for i, (k, a) in enumerate(calls)
                ],
            }
            return 200, {
                "choices": [{"index": 0, "message": message}],
                "usage": {"prompt_tokens": 500, "completion_tokens": 40},
            }
        return answer_reply("2", usage=(900, 8))

    with serve(script, delay=0.05) as (server, url):
        endpoint_env(url)
        code, report, err = run(  # the oracle perceiver: every request here is the agent's
            capsys,
            db,
            *("--agent", "openai", "--mode", "perception", "--perceiver", "oracle"),
            *("--limit", 1, "--json"),
        )
    assert code == 0, err
    (episode,) = episodes(db)
    with open_project(db) as project:
        steps = project.episodes.steps(episode.id)
    assert [s.name for s in steps] == [
        "observe",
        "perceive_scene",
        "find_object",
        "answer_question",
    ]
    assert [(s.tokens_in, s.tokens_out) for s in steps] == [
        (None, None),
        (500, 40),
        (None, None),
        (900, 8),
    ]
    assert steps[0].latency_s is None and steps[2].latency_s is None
    assert steps[1].latency_s >= 0.05 and steps[3].latency_s >= 0.05
    endpoint = report["models"]["env-model"]["endpoint"]
    assert (endpoint["requests"], endpoint["tokens_in"], endpoint["tokens_out"]) == (2, 1400, 48)
    assert endpoint["mean_latency_s"] >= 0.05


# -- the report: retries and failures ------------------------------------------------------
def test_the_report_counts_retries_and_requests_that_failed(capsys, db, endpoint_env):
    lock = threading.Lock()
    seen: dict[str, int] = {}

    def script(body, n):
        text = body["messages"][1]["content"][0]["text"]
        with lock:
            seen[text] = seen.get(text, 0) + 1
        if "(0)" in text and seen[text] == 1:
            return 429, {"error": {"message": "rate limited"}}, {"Retry-After": "0"}
        if "(1)" in text:
            return 400, {"error": {"message": "image too large"}}
        return answer_reply("2")

    with serve(script) as (server, url):
        endpoint_env(url)
        code, out, err = run(
            capsys, db, "--agent", "openai", "--mode", "direct", "--limit", 2, "--concurrency", 2
        )
    assert code == 0, err  # an endpoint failing is an episode outcome, not a crash
    assert "2 episodes recorded, 1 succeeded (direct)" in out
    assert "env-model: 2 episodes, 1 succeeded, 1 errors, 0 failed items" in out
    assert "requests 3, retries 1 (429 x1), failed after retries 1" in out
    assert "error: env-model on count question 2: model request failed after 1 attempt" in out
    stored = episodes(db)
    assert [e.outcome for e in stored] == ["answered", "error"]
    assert "HTTP 400" in stored[1].header["error"]


# -- several models in one run -------------------------------------------------------------
def test_two_models_in_one_command(capsys, db, endpoint_env):
    with serve(lambda body, n: answer_reply("2")) as (server, url):
        endpoint_env(url)
        code, report, err = run(
            capsys,
            db,
            "--agent",
            "openai",
            "--mode",
            "direct",
            "--limit",
            2,
            "--model",
            "model-a",
            "--model",
            "model-b",
            "--concurrency",
            2,
            "--json",
        )
    assert code == 0, err
    assert sorted(b["model"] for b in server.requests) == ["model-a"] * 2 + ["model-b"] * 2
    assert [e.model for e in episodes(db)] == ["model-a", "model-a", "model-b", "model-b"]
    assert set(report["models"]) == {"model-a", "model-b"}
    assert all(
        m["episodes"] == 2 and m["endpoint"]["requests"] == 2 for m in report["models"].values()
    )
    assert report["endpoint"]["requests"] == 4


def test_an_endpoints_file_names_each_model(capsys, db, tmp_path, monkeypatch):
    monkeypatch.setenv("BIG_KEY", "sk-big")
    with serve(lambda body, n: answer_reply("2")) as (server, url):
        path = tmp_path / "endpoints.toml"
        path.write_text(
            f'[[endpoint]]\nname = "small"\nbase_url = "{url}"\nmodel = "m-7b"\n\n'
            f'[[endpoint]]\nname = "big"\nbase_url = "{url}"\nmodel = "m-72b"\n'
            'api_key_env = "BIG_KEY"\ntimeout = 30\n'
        )
        code, report, err = run(
            capsys,
            db,
            "--agent",
            "openai",
            "--mode",
            "direct",
            "--limit",
            1,
            "--endpoints",
            path,
            "--json",
        )
    assert code == 0, err
    assert [e.model for e in episodes(db)] == ["small", "big"]
    assert [b["model"] for b in server.requests] == ["m-7b", "m-72b"]
    assert "Authorization" not in server.headers[0]
    assert server.headers[1]["Authorization"] == "Bearer sk-big"
    assert list(report["models"]) == ["small", "big"]


@pytest.mark.parametrize(
    "text, needle",
    [
        ('[[endpoint]]\nname = "a"\n', "endpoint 1: no model"),
        ('[[endpoint]]\nmodel = "a"\napi_key = "sk-1"\n', "api_key_env"),
        (
            '[[endpoint]]\nmodel = "a"\nbase_url = "http://h/v1"\nthreads = 3\n',
            "unknown key threads",
        ),
        (
            '[[endpoint]]\nmodel = "a"\nbase_url = "http://h/v1"\napi_key_env = "NO_SUCH_VAR"\n',
            "NO_SUCH_VAR",
        ),
        (
            '[[endpoint]]\nmodel = "a"\nbase_url = "http://h/v1"\n\n[[endpoint]]\nmodel = "a"\n'
            'base_url = "http://h/v1"\n',
            "twice: a",
        ),
        ("[[endpoint]\nmodel = 1\n", "not TOML"),
        ("", "no endpoints"),
    ],
)
def test_a_bad_endpoints_file_is_refused_in_one_line(capsys, db, tmp_path, text, needle):
    path = tmp_path / "endpoints.toml"
    path.write_text(text)
    code, _, err = run(capsys, db, "--agent", "openai", "--mode", "direct", "--endpoints", path)
    assert code == 2 and needle in err and str(path) in err and len(err.splitlines()) == 1
    assert episodes(db) == []


def test_endpoints_as_json_and_options_that_do_not_fit(capsys, db, tmp_path):
    path = tmp_path / "endpoints.json"
    path.write_text(json.dumps({"endpoint": [{"model": "m", "base_url": "http://h/v1"}]}))
    from app.jobs.endpoints import load_endpoints

    (config,) = load_endpoints(path, env={})
    assert (config.label, config.base_url, config.api_key) == ("m", "http://h/v1", "")
    for args, needle in (
        (["--agent", "search", "--model", "x"], "are for --agent openai"),
        (["--agent", "openai", "--model", "x", "--endpoints", path], "one way or the other"),
        (["--agent", "openai", "--concurrency", 0], "--concurrency 0"),
        (["--agent", "openai", "--timeout", 0], "--timeout 0"),
        (["--agent", "openai", "--retries", -1], "--retries -1"),
    ):
        code, _, err = run(capsys, db, "--mode", "direct", *args)
        assert code == 2 and needle in err and len(err.splitlines()) == 1


# -- MG-VQA on Ray, and --resume -----------------------------------------------------------
def _episodes_as_data(db) -> list:
    with open_project(db) as project:
        return [
            (
                {k: v for k, v in e.header.items() if k != "uid"} | {"question": None},
                [
                    (s.kind, s.name, s.arguments, s.result, s.ok, s.state)
                    for s in project.episodes.steps(e.id)
                ],
            )
            for e in (project.episodes.get(i) for i in project.episodes.ids())
        ]


def test_mgvqa_runs_on_two_workers_like_on_one_and_resume(capsys, tmp_path, scene, ray_local):
    got = []
    for workers in (1, 2):
        db = tmp_path / f"w{workers}.reasonscope"
        with open_project(db, create=True) as project, project.write():
            sid = project.scenes.add(scene)
            for task, text, options, answer in (
                ("count", "How many red boxes are on the table?", None, 2),
                (
                    "find",
                    "Is there a red box on the table? If so, point to it.",
                    ["yes", "no"],
                    {"answer": "yes"},
                ),
                ("count", "How many blue boxes are on the table?", None, 0),
            ):
                project.questions.add(
                    {
                        "benchmark": "mgvqa",
                        "task": task,
                        "text": text,
                        "options": options,
                        "answer": answer,
                        "criteria": {"measured": {"target": "red box"}},
                        "scene_id": sid,
                    }
                )
        args = ["--agent", "search", "--mode", "perception", "--seed", 5, "--workers", workers]
        code, _, err = run(capsys, db, *args, "--limit", 2 if workers == 2 else 3)
        assert code == 0, err
        got.append(_episodes_as_data(db))
    assert got[1] == got[0][:2]  # the same episodes, bar their uids (and their questions')
    code, out, err = run(capsys, db, *args, "--resume")  # the third question only
    assert code == 0, err
    assert "1 episodes recorded" in out and "2 already recorded" in out
    assert _episodes_as_data(db) == got[0]
    assert [e.question_id for e in episodes(db)] == [1, 2, 3]


def test_model_episodes_on_ray_with_more_in_flight_than_cpus(capsys, db, endpoint_env, ray_local):
    holder, script = barrier(3, lambda body, n: answer_reply("2"))
    with serve(script) as (server, url):
        holder["server"] = server
        endpoint_env(url)
        code, report, err = run(
            capsys,
            db,
            "--agent",
            "openai",
            "--mode",
            "direct",
            "--workers",
            2,
            "--concurrency",
            3,
            "--json",
        )
    assert code == 0, err
    assert server.max_in_flight == 3  # three tasks at once on two CPUs
    assert report["episodes"] == QUESTIONS and report["endpoint"]["requests"] == QUESTIONS
    assert all(e.model == "env-model" and e.outcome == "answered" for e in episodes(db))


def test_bimanual_models_in_one_run_in_flight_together(capsys, tmp_path, endpoint_env):
    db = tmp_path / "bimanual.reasonscope"
    open_project(db, create=True).close()
    plan = json.dumps(
        {
            "visual_state_description": "",
            "reasoning_and_reflection": "",
            "language_plan": "wait",
            "executable_plan": [],
        }
    )
    message = {"role": "assistant", "content": plan}
    holder, script = barrier(
        2,
        lambda body, n: (
            200,
            {
                "choices": [{"index": 0, "message": message}],
                "usage": {"prompt_tokens": 800, "completion_tokens": 30},
            },
        ),
    )
    with serve(script) as (server, url):
        holder["server"] = server
        endpoint_env(url)
        code = main(
            [
                "run-agent",
                "--benchmark",
                "bimanual",
                "--agent",
                "openai",
                "--task",
                "stack_blocks_two",
                "--max-steps",
                "1",
                "--image-size",
                "96",
                "--model",
                "vlm-a",
                "--model",
                "vlm-b",
                "--concurrency",
                "2",
                "--json",
                "--db",
                str(db),
            ]
        )
    out = capsys.readouterr()
    assert code == 0, out.err
    report = json.loads(out.out)
    assert server.max_in_flight == 2 and set(report["models"]) == {"vlm-a", "vlm-b"}
    with open_project(db) as project:
        stored = [project.episodes.get(i) for i in project.episodes.ids()]
        steps = [project.episodes.steps(e.id) for e in stored]
    assert [e.model for e in stored] == ["vlm-a", "vlm-b"]
    assert all(
        (s[1].tokens_in, s[1].tokens_out) == (800, 30)
        and s[1].latency_s > 0
        and s[0].latency_s is None
        for s in steps
    )
