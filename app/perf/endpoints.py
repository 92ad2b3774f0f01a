"""Perf cases of model runs at scale: episodes in flight against a slow model endpoint.

The first two play MG-VQA questions with `run-agent --agent openai` (`app.jobs.agents.run_agent`,
as the command calls it) against a local fake endpoint (`app.jobs.endpoints.FakeEndpoint`)
that answers every request after 1 s and counts the requests it has in flight. The
questions sit on full generated scenes (robot, textured table, 8-15 objects) at the
default image size: what users run.

`run_agent_concurrency`: Direct mode, `--concurrency 8` against 1. The project's first
views were rendered when it was made, as `questions generate --prerender` does, so the
runs send the stored images and never rebuild a scene.

`run_agent_manipulation`: Manipulation mode, `--concurrency 8 --workers 2` (two
simulation processes) against a serial run. The fake model plays a fixed search through
the conversation: perceive the scene, segment the first object it was told of, grasp
it, answer. Every tool call simulates (restore, render, plan, step), in the hosts.

`run_agent_jrdb`: `run-agent --benchmark jrdb` (`app.jobs.reasoning_run.run_jrdb`) on a
synthetic JRDB sequence's questions at the default image size (VG panoramas resized to
0.5 and sent as PNG, VQA ones as their JPEG files), `--concurrency 8` against 1.
"""

from __future__ import annotations

import json
import time

from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from sim.tabletop.world import MODEL_IMAGE_SIZE

ORDER = 400  # where these cases run in `reasonscope bench` (see app.perf.harness)

NAME = "run_agent_concurrency"
GOAL = ">= 6x (--concurrency 8 vs 1), >= 6 in flight"
TOOL_NAME = "run_agent_manipulation"
TOOL_GOAL = ">= 3x (--concurrency 8 --workers 2 vs serial)"
QUESTIONS = {False: 24, True: 16}
TOOL_QUESTIONS = {False: 12, True: 8}
SCENES = {False: 4, True: 3}
CONCURRENCY = 8
TOOL_WORKERS = 2
DELAY_S = 1.0  # the fake endpoint's time per reply


def _project(path, n: int, scenes: int) -> float:
    """A project of `scenes` full generated scenes and `n` Count questions (status pending:
    the runs take --questions any) on them, with their first views prerendered; the
    seconds the prerendering took."""
    from app.jobs.first_views import prerender
    from sim.tabletop.scenes import generate_scene, scene_record
    from store import open_project

    with open_project(path, create=True) as project:
        scene_ids = []
        for seed in range(scenes):
            report(f"{NAME}: generating scene {seed + 1} of {scenes}")
            scene = generate_scene(seed)
            try:
                with project.write():
                    scene_ids.append(project.scenes.add(scene_record(scene)))
            finally:
                scene.world.close()
        with project.write():
            for i in range(n):
                project.questions.add(
                    {
                        "benchmark": "mgvqa",
                        "task": "count",
                        "text": f"How many objects are on the table? ({i})",
                        "options": None,
                        "answer": 1,
                        "criteria": {},
                        "scene_id": scene_ids[i % scenes],
                    }
                )
        start = time.perf_counter()
        prerender(project, scene_ids)
        return time.perf_counter() - start


def _run(path, url: str, n: int, mode: str, concurrency: int, workers: int = 1):
    from app.jobs.agents import run_agent
    from sim.llm import OpenAIConfig

    config = OpenAIConfig(url, f"fake-vlm-{mode}-k{concurrency}-w{workers}")
    start = time.perf_counter()
    summary = run_agent(
        path,
        "openai",
        mode,
        questions="any",
        models=[config],
        image_size=MODEL_IMAGE_SIZE,
        concurrency=concurrency,
        workers=workers,
    )
    seconds = time.perf_counter() - start
    if summary.episodes != n or summary.errors or summary.failed:
        raise RuntimeError(
            f"{NAME}: {summary.episodes} of {n} episodes, errors "
            f"{summary.errors[:1]}, failed {summary.failed[:1]}"
        )
    return seconds, summary.as_dict()


def _warm_client(url: str) -> None:
    """Make the endpoint's `openai` client before either clock starts: a run makes it once
    per endpoint and process (importing `openai`, about 0.5 s, and its HTTP client, about
    0.2 s), then both runs share it; the case measures requests in flight, not that."""
    from sim.llm import OpenAIConfig, openai_client

    openai_client(OpenAIConfig(url, "warm-up"))


@perf_case(NAME, goal=GOAL)
def run_agent_concurrency(quick: bool) -> PerfResult:
    """Direct mode on full scenes at the default size: `--concurrency 8` vs 1 against a
    fake endpoint answering each request after 1 s; the speed-up and the most requests
    the endpoint had in flight."""
    from app.jobs.endpoints import fake_endpoint

    n = QUESTIONS[quick]
    with scratch_folder() as folder:
        path = folder / "endpoints.reasonscope"
        prerender_s = _project(path, n, SCENES[quick])
        with fake_endpoint(delay=DELAY_S) as fake:
            _warm_client(fake.url)
            report(f"{NAME}: {n} episodes, --concurrency {CONCURRENCY}")
            fast, report_fast = _run(path, fake.url, n, "direct", CONCURRENCY)
            most = fake.max_in_flight
            report(f"{NAME}: {n} episodes, --concurrency 1")
            slow, _ = _run(path, fake.url, n, "direct", 1)
    ratio = slow / fast
    latency = report_fast["endpoint"]["mean_latency_s"]
    return PerfResult(
        NAME,
        ratio,
        "x",
        GOAL,
        ratio >= 6 and most >= 6,
        f"{n} MG-VQA episodes (Direct mode, {MODEL_IMAGE_SIZE} px, full scenes, one request "
        f"each) against a fake endpoint answering after {DELAY_S:g} s: {slow:.1f} s one at "
        f"a time, {fast:.1f} s with --concurrency {CONCURRENCY} (at most {most} requests in "
        f"flight at the server; mean latency {latency:.2f} s); the first views of "
        f"{SCENES[quick]} scenes were prerendered once in {prerender_s:.1f} s",
    )


def search_script(body: dict, n: int):
    """The fake model's side of a Manipulation episode, read off the conversation: perceive,
    segment the first object perceived, grasp it, answer. As the perception model (the
    run's default `--perceiver vlm`), it names one object at the image's most salient
    pixel (`fake_scene_graph`)."""
    from app.jobs.endpoints import answer_reply, tool_reply
    from sim.tabletop.vlm_perception import SCENE_GRAPH_PROMPT

    messages = body.get("messages") or []
    if messages and messages[0].get("content") == SCENE_GRAPH_PROMPT:
        return fake_scene_graph(messages)
    turn = sum(1 for m in messages if m.get("role") == "assistant")
    if turn == 0:
        return tool_reply("perceive_scene", {})
    if turn == 1:
        seen = _last_tool_result(messages)
        objects = seen.get("objects") or [{"point": [512, 512]}]
        return tool_reply("find_object", {"point": objects[0]["point"]})
    if turn == 2:
        return tool_reply("grasp", {"mask_id": "mask_1"})
    return answer_reply("1")


def _last_tool_result(messages: list) -> dict:
    for m in reversed(messages):
        if m.get("role") == "tool":
            try:
                return json.loads(m.get("content") or "{}")
            except json.JSONDecodeError:
                return {}
    return {}


@perf_case(TOOL_NAME, goal=TOOL_GOAL)
def run_agent_manipulation(quick: bool) -> PerfResult:
    """Manipulation mode on full scenes at the default size: `--concurrency 8 --workers 2`
    vs a serial run, against a fake endpoint answering each request after 1 s."""
    from app.jobs.endpoints import fake_endpoint

    n = TOOL_QUESTIONS[quick]
    with scratch_folder() as folder:
        path = folder / "manipulation.reasonscope"
        _project(path, n, SCENES[quick])
        with fake_endpoint(search_script, delay=DELAY_S) as fake:
            _warm_client(fake.url)
            report(f"{TOOL_NAME}: {n} episodes, --concurrency {CONCURRENCY} --workers 2")
            fast, report_fast = _run(
                path, fake.url, n, "manipulation", CONCURRENCY, workers=TOOL_WORKERS
            )
            most = fake.max_in_flight
            report(f"{TOOL_NAME}: {n} episodes, one at a time")
            slow, _ = _run(path, fake.url, n, "manipulation", 1)
    ratio = slow / fast
    requests = report_fast["endpoint"]["requests"]
    return PerfResult(
        TOOL_NAME,
        ratio,
        "x",
        TOOL_GOAL,
        ratio >= 3,
        f"{n} MG-VQA episodes (Manipulation mode, {MODEL_IMAGE_SIZE} px, full scenes; "
        f"perceive (asking the perception model), find, grasp, answer: {requests} requests) "
        "against a fake endpoint "
        f"answering after {DELAY_S:g} s: {slow:.1f} s one at a time, {fast:.1f} s with "
        f"--concurrency {CONCURRENCY} --workers {TOOL_WORKERS} (simulation processes started "
        f"within the run; at most {most} requests in flight at the server)",
    )


def fake_scene_graph(messages: list) -> tuple:
    """A perception reply for the image in `messages`: one object at the pixel whose colour
    differs most from the image's median colour (the table), smoothed over 9 x 9 pixels."""
    import base64
    import io

    import numpy as np
    from PIL import Image
    from scipy import ndimage

    from app.jobs.endpoints import text_reply

    url = next(
        part["image_url"]["url"]
        for m in messages
        if isinstance(m.get("content"), list)
        for part in m["content"]
        if part.get("type") == "image_url"
    )
    with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as image:
        rgb = np.asarray(image.convert("RGB"), dtype=np.float32)
    distance = np.abs(rgb - np.median(rgb.reshape(-1, 3), axis=0)).sum(axis=2)
    v, u = np.unravel_index(np.argmax(ndimage.uniform_filter(distance, 9)), distance.shape)
    graph = {
        "description": "A table with an object.",
        "objects": [{"name": "object", "point": [int(u), int(v)]}],
        "relations": [],
    }
    return text_reply(json.dumps(graph), usage=(800, 40))


# -- JRDB-Reasoning questions asked of a model ----------------------------------------------
JRDB_NAME = "run_agent_jrdb"
JRDB_GOAL = ">= 6x (--concurrency 8 vs 1), >= 6 in flight"
JRDB_QUESTIONS = {False: 24, True: 16}  # half VG, a quarter each Count and Wh


def _jrdb_project(folder, n: int):
    """An imported synthetic JRDB sequence (3760 x 480 panoramas, as JRDB's) with about `n`
    questions (pending: the runs take --questions any); the project's path and how many."""
    from annotation.query.model import Preferences
    from app.demo.jrdb_synth import SynthConfig, write_sequence
    from app.io.jrdb import import_jrdb
    from app.jobs.reasoning import generate_jrdb_questions
    from store import open_project

    root, path = folder / "jrdb", folder / "jrdb.reasonscope"
    write_sequence(root, SynthConfig(frames=8, people=5, objects=4, points_per_sweep=300))
    open_project(path, create=True).close()
    import_jrdb(path, root)
    for k, (task, share) in enumerate((("vg", 2), ("vqa-count", 4), ("vqa-wh", 4))):
        report(f"{JRDB_NAME}: generating {task} questions")
        prefs = Preferences(task=task, modality="image", subject="human", spatial="single")
        generate_jrdb_questions(path, prefs=prefs, n=n // share, seed=k)
    with open_project(path) as project:
        return path, len(project.questions.page(benchmark="jrdb", limit=1000).rows)


def _jrdb_run(path, url: str, n: int, concurrency: int):
    from app.jobs.reasoning_run import clear_image_cache, run_jrdb
    from sim.llm import OpenAIConfig

    clear_image_cache()  # each run encodes its panoramas itself
    config = OpenAIConfig(url, f"fake-vl-k{concurrency}")
    start = time.perf_counter()
    summary = run_jrdb(path, models=[config], questions="any", concurrency=concurrency)
    seconds = time.perf_counter() - start
    if summary.episodes != n or summary.errors or summary.failed:
        raise RuntimeError(
            f"{JRDB_NAME}: {summary.episodes} of {n} predictions, errors "
            f"{summary.errors[:1]}, failed {summary.failed[:1]}"
        )
    return seconds, summary.as_dict()


def jrdb_script(body: dict, n: int):
    """A reply in the format each request asks for: a box for VG, a word for VQA."""
    from app.jobs.endpoints import text_reply

    if body["messages"][0]["role"] == "system":
        return text_reply('[{"bbox_2d": [700, 60, 745, 150]}]')
    return text_reply("2")


@perf_case(JRDB_NAME, goal=JRDB_GOAL)
def run_agent_jrdb(quick: bool) -> PerfResult:
    """`run-agent --benchmark jrdb` at the default image size (VG panoramas at 0.5, VQA
    ones as they are): `--concurrency 8` vs 1 against a fake endpoint answering each
    request after 1 s; the speed-up and the most requests in flight."""
    from app.jobs.endpoints import fake_endpoint

    with scratch_folder() as folder:
        path, n = _jrdb_project(folder, JRDB_QUESTIONS[quick])
        with fake_endpoint(jrdb_script, delay=DELAY_S) as fake:
            _warm_client(fake.url)
            # the first box scored imports scipy's solver (0.2 s), once per process: both
            # runs start with it, as they do with the client
            import scipy.optimize  # noqa: F401

            report(f"{JRDB_NAME}: {n} questions, --concurrency {CONCURRENCY}")
            fast, report_fast = _jrdb_run(path, fake.url, n, CONCURRENCY)
            most = fake.max_in_flight
            report(f"{JRDB_NAME}: {n} questions, --concurrency 1")
            slow, _ = _jrdb_run(path, fake.url, n, 1)
    ratio = slow / fast
    latency = report_fast["endpoint"]["mean_latency_s"]
    return PerfResult(
        JRDB_NAME,
        ratio,
        "x",
        JRDB_GOAL,
        ratio >= 6 and most >= 6,
        f"{n} JRDB-Reasoning questions (VG, Count and Wh on 3760 x 480 panoramas; VG sent at "
        f"0.5 as PNG, VQA as the JPEG files) against a fake endpoint answering after "
        f"{DELAY_S:g} s: {slow:.1f} s one at a time, {fast:.1f} s with --concurrency "
        f"{CONCURRENCY} (at most {most} requests in flight at the server; mean latency "
        f"{latency:.2f} s); panoramas encoded afresh in each run",
    )
