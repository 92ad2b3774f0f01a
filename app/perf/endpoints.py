"""Perf case of model runs at scale: episodes in flight against a slow model endpoint.

`run_agent_concurrency` plays the same MG-VQA questions with `run-agent --agent openai`
(`app.jobs.agents.run_agent`, as the command calls it) against a local fake endpoint
(`app.jobs.endpoints.FakeEndpoint`) that answers every request with a valid final
answer after 1 s, once with `--concurrency 8` and once with 1, and reports the speed-up.
The questions sit on two generated scenes in a scratch project, without the robot and on
a plain table, so the little simulation an episode does (about 0.1 s, under the GIL) is
not what is measured; docs/model-endpoints.md gives the figure with full scenes.
"""

from __future__ import annotations

import time

from app.perf.harness import PerfResult, perf_case, report, scratch_folder

ORDER = 400  # where these cases run in `reasonscope bench` (see app.perf.harness)

NAME = "run_agent_concurrency"
GOAL = ">= 6x (--concurrency 8 vs 1)"
QUESTIONS = {False: 24, True: 16}
CONCURRENCY = 8
DELAY_S = 1.0  # the fake endpoint's time per reply
IMAGE_SIZE = 128  # the agent's observation (the request carries it as a PNG)


def _project(path, n: int) -> None:
    """A project of two small generated scenes and `n` Count questions (status pending:
    the run takes --questions any) on them."""
    from sim.tabletop.scenes import generate_scene, scene_record
    from store import open_project

    with open_project(path, create=True) as project:
        scene_ids = []
        for seed in (0, 1):
            report(f"{NAME}: generating scene {seed + 1} of 2")
            scene = generate_scene(seed, objects=(3, 4), textures=(), with_robot=False)
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
                        "scene_id": scene_ids[i % 2],
                    }
                )


def _run(path, url: str, n: int, concurrency: int) -> tuple[float, dict]:
    from app.jobs.agents import run_agent
    from sim.llm import OpenAIConfig

    config = OpenAIConfig(url, f"fake-vlm-k{concurrency}")
    start = time.perf_counter()
    summary = run_agent(
        path,
        "openai",
        "direct",
        questions="any",
        models=[config],
        image_size=IMAGE_SIZE,
        concurrency=concurrency,
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
    """`run-agent --agent openai --concurrency 8` vs 1 on the same questions against a
    fake endpoint answering each request after 1 s: the speed-up."""
    from app.jobs.endpoints import fake_endpoint

    n = QUESTIONS[quick]
    with scratch_folder() as folder:
        path = folder / "endpoints.reasonscope"
        _project(path, n)
        with fake_endpoint(delay=DELAY_S) as fake:
            _warm_client(fake.url)
            report(f"{NAME}: {n} episodes, --concurrency {CONCURRENCY}")
            fast, report_fast = _run(path, fake.url, n, CONCURRENCY)
            most = fake.max_in_flight
            report(f"{NAME}: {n} episodes, --concurrency 1")
            slow, _ = _run(path, fake.url, n, 1)
    ratio = slow / fast
    latency = report_fast["endpoint"]["mean_latency_s"]
    return PerfResult(
        NAME,
        ratio,
        "x",
        GOAL,
        ratio >= 6,
        f"{n} MG-VQA episodes (Direct mode, {IMAGE_SIZE} px, one request each) against a fake "
        f"endpoint answering after {DELAY_S:g} s: {slow:.1f} s one at a time, {fast:.1f} s "
        f"with --concurrency {CONCURRENCY} (at most {most} requests in flight at the "
        f"server; mean latency {latency:.2f} s)",
    )
