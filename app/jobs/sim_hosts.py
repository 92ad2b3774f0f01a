"""Simulation in worker processes, for runs whose threads wait on a model endpoint.

PyBullet, rendering and PNG encoding hold Python's GIL. A run that keeps K episodes in
flight in threads (`run-agent --concurrency K`) then spends its time with the threads
waiting on one another rather than on the endpoint. `SimHosts(W)` starts W processes
that each host episodes' worlds: a thread of this process plays its model's side of
an episode (requests, replies, parsing) and sends every tool call, image and state
capture to its episode's host as a `RemoteEnv`, so the threads only wait on the
network and the simulation uses W cores.

A host is a one-process `ProcessPoolExecutor`: its calls run in order in that process,
where the episode's `ToolEnv` lives from `open` to `close`. An episode goes to the host
with the fewest open episodes. Work without waits (the scripted agents) is sent whole
(`SimHosts.run`). A host that dies fails the episodes it held; the run goes on.
"""

from __future__ import annotations

import itertools
import multiprocessing
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from sim.camera import CameraSpec

# -- in the host process --------------------------------------------------------------------
_ENVS: dict[int, Any] = {}  # episode id -> (world or None, ToolEnv)


def _status(env) -> dict[str, Any]:
    return {
        "done": env.done,
        "outcome": env.outcome,
        "correct": env.correct,
        "answer": env.answer,
    }


def _host_open(
    episode: int,
    question,
    scene: dict[str, Any],
    mode: str,
    camera: CameraSpec,
    gripper: str | None,
    first_view,
    perception: dict[str, Any] | None,
) -> dict[str, Any]:
    from sim.tabletop.scenes import world_from_records
    from sim.tabletop.toolenv import ToolEnv
    from sim.tabletop.vlm_perception import make_perceiver, spec_segmenter

    world = world_from_records(scene["bodies"], scene["state"], gripper=gripper)
    try:
        # an image-only perceiver is asked by the episode's thread (`RemoteEnv.call`)
        env = ToolEnv(
            world,
            question,
            mode,
            camera=camera,
            first_view=first_view,
            perceiver=make_perceiver(perception),
            segmenter=spec_segmenter(perception),
        )
    except Exception:
        world.close()
        raise
    _ENVS[episode] = (world, env)
    return {"steps": list(env.steps), "gripper": env.gripper, **_status(env)}


def _host_call(
    episode: int,
    name: str,
    arguments: dict[str, Any],
    model_text: dict | None,
    raw: str,
    given: Any = None,
) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    _, env = _ENVS[episode]
    first = len(env.steps)
    result = env.call(name, arguments, model_text=model_text, raw_output=raw, given=given)
    return result, env.steps[first:], _status(env)


def _host_format_error(
    episode: int, raw: str, why: str, model_text: dict | None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    _, env = _ENVS[episode]
    first = len(env.steps)
    env.record_format_error(raw, why, model_text)
    return env.steps[first:], _status(env)


def _host_png(episode: int, view: str) -> bytes:
    return _ENVS[episode][1].observation_png(view)


def _host_close(episode: int) -> None:
    world, _ = _ENVS.pop(episode, (None, None))
    if world is not None:
        world.close()


def _host_run(work, job: dict[str, Any]) -> Any:
    return work(job)


def _host_ready() -> bool:
    """Import what episodes need, so the first episode does not pay for it."""
    import sim.tabletop.scenes  # noqa: F401
    import sim.tabletop.toolenv  # noqa: F401

    return True


# -- in this process ------------------------------------------------------------------------
class SimHosts:
    """W simulation processes; use as a context manager (they stop on leaving)."""

    def __init__(self, workers: int) -> None:
        if workers < 1:
            raise ValueError(f"--workers {workers}: need at least one")
        context = multiprocessing.get_context("spawn")  # no inherited threads or GL state
        self.hosts = [
            ProcessPoolExecutor(max_workers=1, mp_context=context) for _ in range(workers)
        ]
        self.load = [0] * workers
        self.lock = threading.Lock()
        self.ids = itertools.count(1)

    def __enter__(self) -> SimHosts:
        for ready in [h.submit(_host_ready) for h in self.hosts]:
            ready.result()
        return self

    def __exit__(self, *exc: object) -> None:
        for host in self.hosts:
            host.shutdown(wait=True, cancel_futures=True)

    def __len__(self) -> int:
        return len(self.hosts)

    def _take(self) -> int:
        with self.lock:
            n = min(range(len(self.hosts)), key=lambda i: self.load[i])
            self.load[n] += 1
            return n

    def _give_back(self, n: int) -> None:
        with self.lock:
            self.load[n] -= 1

    def run(self, work, job: dict[str, Any]) -> Any:
        """`work(job)` in the least busy host (work and job are pickled: plain data)."""
        n = self._take()
        try:
            return self.hosts[n].submit(_host_run, work, job).result()
        finally:
            self._give_back(n)

    def open(
        self,
        question,
        scene,
        mode,
        camera,
        gripper=None,
        first_view=None,
        perception=None,
        perceiver=None,
    ) -> RemoteEnv:
        """An episode's `ToolEnv`, built in the least busy host, driven from here; an
        image-only `perceiver` is asked from here (the thread waits, not the host)."""
        n = self._take()
        try:
            return RemoteEnv(
                self.hosts[n],
                next(self.ids),
                question,
                scene,
                mode,
                camera,
                gripper,
                first_view,
                perception,
                perceiver,
            )
        except BaseException:
            self._give_back(n)
            raise

    def release(self, env: RemoteEnv) -> None:
        """Close an episode's world in its host and free the host's slot."""
        try:
            env.host.submit(_host_close, env.episode).result()
        finally:
            self._give_back(self.hosts.index(env.host))


class RemoteEnv:
    """What an agent sees of a `ToolEnv` hosted in a `SimHosts` process: the same calls;
    the recorded steps are mirrored here as they come back."""

    def __init__(
        self,
        host: ProcessPoolExecutor,
        episode: int,
        question,
        scene: dict[str, Any],
        mode: str,
        camera: CameraSpec,
        gripper: str | None,
        first_view,
        perception: dict[str, Any] | None = None,
        perceiver=None,
    ) -> None:
        from sim.tabletop.toolenv import MODES

        self.host, self.episode = host, episode
        self.question, self.mode, self.camera = question, mode, camera
        self.tools = MODES[mode]
        self.perceiver = perceiver if getattr(perceiver, "image_only", False) else None
        opened = self._ask(
            _host_open, question, scene, mode, camera, gripper, first_view, perception
        )
        self.steps: list[dict[str, Any]] = opened["steps"]
        self.gripper: str = opened["gripper"]
        self._update(opened)

    def _ask(self, fn, *args: Any) -> Any:
        future: Future = self.host.submit(fn, self.episode, *args)
        return future.result()

    def _update(self, status: dict[str, Any]) -> None:
        self.done: bool = status["done"]
        self.outcome: str = status["outcome"]
        self.correct: bool | None = status["correct"]
        self.answer: dict[str, Any] | None = status["answer"]

    def call(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        model_text: dict[str, Any] | None = None,
        raw_output: str = "",
    ) -> dict[str, Any]:
        given = None
        if name == "perceive_scene" and self.perceiver is not None and name in self.tools:
            from sim.tabletop.toolenv import perceive_image
            from sim.tabletop.world import TOP_DOWN_VIEW

            if not self.done:  # the image from the host, the model's reading from here
                size = (self.camera.width, self.camera.height)
                given = perceive_image(self.perceiver, self.observation_png(TOP_DOWN_VIEW), size)
        result, steps, status = self._ask(
            _host_call, name, dict(arguments or {}), model_text, raw_output, given
        )
        self.steps.extend(steps)
        self._update(status)
        return result

    def record_format_error(self, raw_output: str, why: str, model_text: dict | None = None):
        steps, status = self._ask(_host_format_error, raw_output, why, model_text)
        self.steps.extend(steps)
        self._update(status)

    def observation_png(self, view: str) -> bytes:
        return self._ask(_host_png, view)
