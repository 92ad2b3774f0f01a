"""Dual-arm demo content: an evaluation log written the way BiManiBench / ST-BiBench lays
it out, imported with the real importer, plus episodes recorded in our own world.

The log is made here rather than shipped: each scripted planner reply is executed
in a seeded `BimanualEnv` (the same set-up replay in sim uses, with the log's
episode number as the seed), and the views after every step become its
`obsimg_NNNN.jpg` files; `success_record.txt` / `failed_record.txt` say what
happened. The replies show what real planners do wrong (the wrong arm, a plan out
of order, a parameter of the wrong kind, an unreadable reply, JSON that needs
repairs), so Replay and Results have something to show and to label.

`write_listed_images` also makes the test corpus's images (tests/bimanual_corpus.py).
"""

from __future__ import annotations

import hashlib
import io
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from annotation.bimanual.actions import BY_NAME
from annotation.model_output import repair_json
from annotation.progress import Progress

RUN_TIME = "2025-06-01_120000"
LOG_CAMERAS = ("head", "third")
LOG_IMAGE_SIZE = (320, 240)
LABELLER = "Ada (annotator)"

Reply = Callable[[list[dict]], str]  # the task's reference plan -> a raw reply


def write_listed_images(root: Path, listing: Path) -> None:
    """Write every image a listing names (one path a line, relative to `root`; `#` starts a
    comment): 32 x 32, one colour per name, except names marked `same` (one shared colour)."""
    for line in listing.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, *flags = line.split()
        colour = (90, 90, 90) if "same" in flags else tuple(hashlib.md5(name.encode()).digest()[:3])
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        Image.new("RGB", (32, 32), colour).save(path)


# -- scripted replies -----------------------------------------------------------------------
def as_reply_action(item: dict) -> dict:
    """A plan action as a planner writes it: its action id, place_actor's options in kwargs."""
    params = dict(item["parameters"])
    kwargs = {k: params.pop(k) for k in ("constrain",) if k in params}
    if kwargs:
        params["kwargs"] = kwargs
    spec = BY_NAME.get(item["action_name"])
    return {
        "action_id": spec.id if spec else "",
        "action_name": item["action_name"],
        "parameters": params,
    }


def chunks(plan: list[dict]) -> list[list[dict]]:
    """The plan cut where an arm goes home: one reply's worth each."""
    out: list[list[dict]] = [[]]
    for action in plan:
        out[-1].append(action)
        if action["action_name"] == "back_to_origin":
            out.append([])
    return [c for c in out if c]


def reply(seen: str, thinking: str, plan_words: str, plan: list[dict]) -> str:
    return json.dumps(
        {
            "visual_state_description": seen,
            "reasoning_and_reflection": thinking,
            "language_plan": plan_words,
            "executable_plan": [as_reply_action(a) for a in plan],
        },
        indent=1,
    )


def part(n: int, seen: str, thinking: str, words: str, wrap: Callable[[str], str] = str) -> Reply:
    """The n-th chunk of the reference plan, said with these words (`wrap` garbles it)."""
    return lambda plan: wrap(reply(seen, thinking, words, chunks(plan)[n]))


def fenced(text: str) -> str:
    return "Here is the plan.\n```json\n" + text.replace("]\n}", "],\n}") + "\n```"


def no_commas(text: str) -> str:
    return text.replace('",\n "reasoning', '"\n "reasoning')


def cut(text: str) -> str:
    return text[: text.rindex("}", 0, len(text) - 10)]


def edited(
    n: int, change: Callable[[list[dict]], list[dict]], seen: str, thinking: str, words: str
) -> Reply:
    return lambda plan: reply(
        seen,
        thinking,
        words,
        change([dict(a, parameters=dict(a["parameters"])) for a in chunks(plan)[n]]),
    )


def _other_arm(actions: list[dict]) -> list[dict]:
    for a in actions:
        a["parameters"]["arm_tag"] = "right" if a["parameters"]["arm_tag"] == "left" else "left"
    return actions


def _place_first(actions: list[dict]) -> list[dict]:
    return [a for a in actions if a["action_name"] == "place_actor"] + actions


def _far(actions: list[dict]) -> list[dict]:
    actions[0]["parameters"]["pre_grasp_dis"] = "far"
    return actions


def _home(actions: list[dict]) -> list[dict]:
    return [
        {"action_name": "back_to_origin", "parameters": {"arm_tag": arm}}
        for arm in ("left", "right")
    ]


@dataclass(frozen=True)
class DemoLog:
    """One logged episode: a planner, a task, its seed (= the log's episode number), its
    replies, and the error labels a person gave (step index -> (category, subcategory))."""

    model: str
    task: str
    seed: int
    replies: tuple[Reply, ...]
    labels: dict[int, tuple[str, str]] = field(default_factory=dict)


UNSURE = "I am not sure which arm should act.\nUSE_ARM: (LEFT OR RIGHT)"
DEMO_LOGS = (
    DemoLog(
        "vlm-large",
        "stack_blocks_two",
        0,
        (
            part(
                0,
                "A red block on the left, a green block on the right.",
                "Nothing is done yet: the left arm is nearer the red block.",
                "Grasp the red block with the left arm, lift it, place it at the centre, go home.",
            ),
            part(
                1,
                "The red block is at the centre; the green block is on the right.",
                "The red block is placed. The right arm stacks the green block on it.",
                "Grasp the green block with the right arm and stack it on the red one.",
                fenced,
            ),
        ),
    ),
    DemoLog(
        "vlm-large",
        "handover_block",
        1,
        (
            edited(
                0,
                _other_arm,
                "A tall red block on the left and a blue pad on the right.",
                "The block has to end on the pad, which is on the right: the right arm grasps it.",
                "Grasp the red block with the right arm and lift it.",
            ),
            part(
                0,
                "The red block has not moved.",
                "The right arm could not reach it: the left "
                "arm grasps it and holds it at the middle.",
                "Left arm: grasp, lift, hold.",
            ),
        ),
        {0: ("perceptual_reasoning", "end_effector_allocation")},
    ),
    DemoLog(
        "vlm-small",
        "stack_blocks_two",
        1,
        (
            lambda plan: UNSURE,
            edited(
                0,
                _place_first,
                "Two blocks on the table.",
                "Place the red block at the centre.",
                "Place the red block, then grasp it.",
            ),
            part(
                0,
                "Two blocks on the table.",
                "Grasp first, then place.",
                "Grasp, lift and place the red block.",
                no_commas,
            ),
            edited(
                1,
                _far,
                "The red block is at the centre.",
                "Now the green block.",
                "Grasp the green block from far away.",
            ),
        ),
        {
            0: ("format", ""),
            1: ("strategic_planning", "action_sequencing"),
            3: ("strategic_planning", "action_parameters"),
        },
    ),
    DemoLog(
        "vlm-small",
        "blocks_ranking_rgb",
        0,
        (
            part(
                0,
                "Red, green and blue blocks.",
                "Start with the red block.",
                "Put the red block at the left of the row.",
                cut,
            ),
            edited(
                1,
                _home,
                "The red block is in the row.",
                "The row looks complete.",
                "Send both arms home: the task is done.",
            ),
        ),
        {1: ("perceptual_reasoning", "state_estimation")},
    ),
)


# -- writing the log -------------------------------------------------------------------------
def _jpeg(png: bytes) -> bytes:
    out = io.BytesIO()
    Image.open(io.BytesIO(png)).convert("RGB").save(out, format="JPEG", quality=88)
    return out.getvalue()


def write_demo_log(root: Path, logs=DEMO_LOGS, progress: Progress | None = None) -> list[Path]:
    """Run each log's replies in a seeded `BimanualEnv` and write what a BiManiBench run
    leaves behind under `root`; return the run folders."""
    from sim.bimanual.env import BimanualEnv

    progress = progress or Progress()
    runs: dict[tuple[str, str], Path] = {}
    for n, log in enumerate(logs):
        progress.report(n, len(logs), f"Demo: {log.model} on {log.task} (a logged run)")
        run = runs.setdefault(
            (log.model, log.task),
            root / "eval_result" / "high_level" / log.task / "vlmpolicy" / log.model / RUN_TIME,
        )
        folder = run / "obsimg" / "round0" / f"episode{log.seed}"
        folder.mkdir(parents=True, exist_ok=True)
        (run / "model_name.txt").write_text(f"Model used: {log.model}\n")
        with BimanualEnv(
            log.task,
            log.seed,
            cameras=LOG_CAMERAS,
            image_size=LOG_IMAGE_SIZE,
            max_steps=len(log.replies),
        ) as env:
            plan = env.task.reference_plan(env.world)
            text, failed, success = [], [], None
            for i, make in enumerate(log.replies):
                raw = make(plan)
                # the harness logs a reply after its fix_json: what can be read, as plain JSON
                value, _repairs, unreadable = repair_json(raw)
                text.append(
                    f"step {i}: ***************\n{raw if unreadable else json.dumps(value)}\n"
                )
                feedback = env.step(raw)
                step = env.steps[-1]
                if step["kind"] == "action" and step["ok"] is False:
                    failed.append(
                        f"Task {log.task} failed at round 0, episode {log.seed}, "
                        f"action count {i}, action it:0: {feedback}\n"
                    )
                if env.success:
                    success = i
                    break
            for i, shots in enumerate(env.images):
                for view, png in shots.items():
                    name = f"obsimg_{i:04d}.jpg" if view == "head" else f"obsimg_{view}_{i:04d}.jpg"
                    (folder / name).write_bytes(_jpeg(png))
        (folder / "vlmout.txt").write_text("".join(text))
        with open(run / "failed_record.txt", "a") as f:
            f.writelines(failed)
        with open(run / "success_record.txt", "a") as f:
            if success is not None:
                f.write(
                    f"Task {log.task} success at round 0, episode {log.seed}, "
                    f"action count {success}\n"
                )
    return list(runs.values())


# -- the demo part ------------------------------------------------------------------------------
def import_demo_log(project, root: Path) -> list[int]:
    """Read the log with the real BiManiBench reader and store it in one transaction."""
    from app.io.bimanual.bimanibench import read_bimanibench
    from app.io.bimanual.common import image_size

    episodes = read_bimanibench(root)
    ids = []
    with project.write():
        for ep in episodes:
            for data, mime in ep.images.values():
                project.images.put(data, mime, *image_size(data))
            ids.append(project.episodes.add(ep.header, ep.steps, source="demo log").id)
    return ids


def add_bimanual_demo(
    project,
    progress: Progress | None = None,
    *,
    logs: tuple[DemoLog, ...] | None = None,
    references: tuple[tuple[str, int], ...] = (("stack_blocks_two", 2),),
    replay: bool = True,
) -> dict[str, list[int]]:
    """The demo's dual-arm content: the logged runs (`logs`, default all of DEMO_LOGS),
    imported and labelled as a person would; the reference plans of (task, seed)
    `references` recorded in our world; and, with `replay`, a replay in sim of the logged
    handover that used the wrong arm. Returns the episode ids added, by kind."""
    from app.jobs.bimanual import record_reference_episode, replay_in_sim

    logs = DEMO_LOGS if logs is None else logs
    progress = progress or Progress()
    imported: list[int] = []
    if logs:
        with tempfile.TemporaryDirectory(prefix="reasonscope-bimanual-") as scratch:
            write_demo_log(Path(scratch), logs, progress)
            imported = import_demo_log(project, Path(scratch))
    ada = project.annotators.sign_in(LABELLER)
    by_key = {}
    for episode_id in imported:
        e = project.episodes.get(episode_id)
        by_key[(e.model, e.task, e.header.get("episode"))] = e
    for log in logs:
        episode = by_key.get((log.model, log.task, log.seed))
        for index, (category, sub) in log.labels.items():
            if episode is not None and index < episode.step_count:
                project.episodes.add_label(episode.id, index, category, sub, "", ada)
    recorded = []
    for n, (task, seed) in enumerate(references):
        progress.report(n, len(references), f"Demo: the reference plan of {task}")
        recorded.append(record_reference_episode(project, task, seed))
    replays = []
    wrong_arm = by_key.get(("vlm-large", "handover_block", 1))
    if replay and wrong_arm is not None:
        progress.report(0, 1, "Demo: replaying the logged handover in sim")
        replays.append(replay_in_sim(project, wrong_arm.id, save=True).episode_id)
    return {"imported": imported, "reference": recorded, "replay_in_sim": replays}
