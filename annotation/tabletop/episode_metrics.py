"""What recorded MG-VQA episodes add up to: success, manipulation effort, failure patterns.

Pure functions over `Episode`/`Step` pairs (annotation.models); no database, no
simulator, no screen. `episode_metrics` is the `episodes` key of
`reasonscope metrics --json` and what the Results mode draws.

Episodes are grouped into rows by (model, agent, mode, run settings). The run settings
(`run_settings`: prompt variant, image size, gripper, perceiver, perception model,
segmenter, step limit) change what a number means, so two runs that differ in one are never added up
together: each is a row of its own, with its settings printed (`run_label`). A row whose
agent or model is named ``chance`` is an image-blind baseline: it is counted like any
other row and flagged ``"baseline": true`` so tables can set it apart.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotation.averages import AVERAGE_RULE, full_mean, pct
from annotation.models import Episode, Step
from annotation.runs import Run, plain_setting, run_label

TASK_ORDER = ("count", "find", "beneath", "compare")
MODE_ORDER = ("direct", "perception", "manipulation")
MANIPULATION_TOOLS = ("grasp", "push")
BASELINE_NAMES = ("chance",)
NEXT_MANIPULATIONS = ("push", "grasp", "none")
REGROUNDING = ("scene_and_seg", "seg_only", "no_seg")
COUNT_OUTCOMES = ("under", "exact", "over", "invalid", "unanswered")
TURN_KINDS = ("tool", "action", "answer", "format_error")


#: The header fields of an episode that make a run (in this order), each read as
#: `run_settings` reads it; store/episode_queries.py groups on the same fields.
RUN_KEYS = (
    "prompt_variant",
    "image_size",
    "gripper",
    "perceiver",
    "perception_model",
    "segmenter",
    "max_steps",
)


def run_settings(header: dict[str, Any]) -> Run:
    """The settings of the run an episode belongs to, from its header: ((key, value), ...)
    in `RUN_KEYS` order, unrecorded ones left out."""
    header = header if isinstance(header, dict) else {}
    camera = header.get("camera") if isinstance(header.get("camera"), dict) else {}
    width, height = camera.get("width"), camera.get("height")
    variant = header.get("prompt_variant")
    if variant is None:
        variant = "plain"  # unrecorded: as every model run before the variants was
    values = {
        "prompt_variant": variant or None,  # "": the scripted agents have no prompt
        "image_size": f"{width}x{height}" if width and height else None,
        "gripper": header.get("gripper") or None,
        "perceiver": header.get("perceiver") or None,
        "perception_model": header.get("perception_model") or None,
        "segmenter": header.get("segmenter") or None,
        "max_steps": header.get("max_steps"),
    }
    return tuple((k, plain_setting(values[k])) for k in RUN_KEYS if values[k] not in (None, ""))


#: The choices behind the `episodes` numbers, reported with them (`settings`).
EPISODE_SETTINGS = {
    "tasks": "the benchmark's four tasks (count, find, beneath, compare) and any other "
    "task recorded",
    "average": f"Avg. per row: {AVERAGE_RULE}",
    "mode_average": "per mode: the mean of each task's mean over the mode's non-baseline "
    "rows, then the mean of those task columns",
    "success": "the episode's recorded outcome; else its scored answer; an episode "
    "without either (no answer, an unreadable last reply) counts as a failure",
    "unreadable_replies": "recorded as format-error steps; they score nothing",
    "baseline": "rows whose model or agent is named chance, set apart, not averaged",
    "runs": "episodes that differ in a run setting (prompt variant, image size, gripper, "
    "perceiver, perception model, step limit) are separate rows, never added up together; "
    "a mode's means are per run when its rows come from more than one",
}


def is_baseline(episode: Episode) -> bool:
    """True for the image-blind chance baseline (agent or model named "chance")."""
    return _baseline(episode.model, episode.agent)


def _baseline(model: str, agent: str) -> bool:
    return agent.strip().lower() in BASELINE_NAMES or model.strip().lower() in BASELINE_NAMES


def _ordered(values: Iterable[str], canonical: Sequence[str]) -> list[str]:
    """Known names in their canonical order first, then the rest alphabetically."""
    values = set(values)
    known = [v for v in canonical if v in values]
    return known + sorted(values - set(canonical))


def _tool_steps(steps: Sequence[Step]) -> list[Step]:
    return [s for s in sorted(steps, key=lambda s: s.index) if s.kind == "tool"]


def manipulation_calls(steps: Sequence[Step]) -> int:
    """Grasp and push calls in an episode, whether or not the simulator carried them out."""
    return sum(1 for s in steps if s.kind == "tool" and s.name in MANIPULATION_TOOLS)


def model_turns(steps: Sequence[Step]) -> int:
    """Replies the model gave: tool calls, actions, answers and unreadable replies."""
    return sum(1 for s in steps if s.kind in TURN_KINDS)


def final_answer(steps: Sequence[Step]) -> Step | None:
    """The last answer step, or None when the episode ended without one."""
    answers = [s for s in sorted(steps, key=lambda s: s.index) if s.kind == "answer"]
    return answers[-1] if answers else None


def replay_correct(result: Any) -> bool | None:
    """An answer step's scored verdict (`result.replay.correct`), or None without one."""
    if isinstance(result, dict):
        replay = result.get("replay")
        if isinstance(replay, dict) and isinstance(replay.get("correct"), bool):
            return replay["correct"]
    return None


def episode_success(episode: Episode, steps: Sequence[Step]) -> bool:
    """The episode's own verdict; failing that, the scored answer step's; otherwise False."""
    if episode.success is not None:
        return episode.success
    answer = final_answer(steps)
    correct = None if answer is None else replay_correct(answer.result)
    return bool(correct)


def question_truth(header: dict[str, Any]) -> Any:
    """The stored answer of an episode's question (`header.question.answer`, unwrapped from
    {"answer": ...}), or None."""
    q = header.get("question") if isinstance(header, dict) else None
    return unwrap_answer(q.get("answer") if isinstance(q, dict) else None)


def unwrap_answer(truth: Any) -> Any:
    """A question's stored answer: the value, or the "answer" of {"answer": ...}."""
    return truth.get("answer") if isinstance(truth, dict) else truth


def presence_of(truth: Any) -> str | None:
    """ "present" for a yes, "absent" for a no, else None."""
    word = str(truth).strip().lower() if truth is not None else ""
    return {"yes": "present", "no": "absent"}.get(word)


def find_presence(episode: Episode) -> str | None:
    """ "present" or "absent" for a Find question whose stored answer is yes or no, else None."""
    return presence_of(question_truth(episode.header))


def as_number(value: Any) -> int | None:
    """An integer read from an answer ("3", 3, 3.0), or None when it is not one."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None
    text = str(value).strip()
    try:
        return int(text)
    except ValueError:
        pass
    try:
        number = float(text)
    except ValueError:
        return None
    return int(number) if number.is_integer() else None


def compare_count(truth: Any, answered: bool, given: Any) -> str | None:
    """One of COUNT_OUTCOMES for a Count answer `given` (`answered`: there was an answer
    step), or None when the truth is not a number."""
    truth = as_number(truth)
    if truth is None:
        return None
    if not answered:
        return "unanswered"
    given = as_number(given)
    if given is None:
        return "invalid"
    return "under" if given < truth else "over" if given > truth else "exact"


def count_outcome(episode: Episode, steps: Sequence[Step]) -> str | None:
    """How a Count answer compares with the truth: one of COUNT_OUTCOMES.

    None when the question's answer is unknown or not a number, so nothing can be compared.
    """
    answer = final_answer(steps)
    given = None if answer is None else answer.arguments.get("answer")
    return compare_count(question_truth(episode.header), answer is not None, given)


@dataclass(frozen=True)
class Recovery:
    """What an agent did after its first failed grasp.

    `next_manipulation` is "push", "grasp" or "none" (no further grasp or push:
    it answered, or ran out of steps). For a push, `regrounding` says whether a
    perceive_scene call came between the failed grasp and the find_object call
    that preceded the push ("scene_and_seg"), only a find_object did
    ("seg_only"), or the push reused a mask segmented before the failure ("no_seg").
    """

    next_manipulation: str
    regrounding: str | None = None


def classify_recovery(steps: Sequence[Step]) -> Recovery | None:
    """The recovery after the first failed grasp, or None when no grasp failed."""
    return classify_tool_calls([(s.name, s.ok) for s in _tool_steps(steps)])


def classify_tool_calls(tools: Sequence[tuple[str, bool | None]]) -> Recovery | None:
    """`classify_recovery` over an episode's tool calls as (name, ok), in order."""
    failed = next(
        (i for i, (name, ok) in enumerate(tools) if name == "grasp" and ok is False), None
    )
    if failed is None:
        return None
    nxt = next(
        (j for j in range(failed + 1, len(tools)) if tools[j][0] in MANIPULATION_TOOLS),
        None,
    )
    if nxt is None:
        return Recovery("none")
    if tools[nxt][0] == "grasp":
        return Recovery("grasp")
    finds = [k for k in range(failed + 1, nxt) if tools[k][0] == "find_object"]
    if not finds:
        return Recovery("push", "no_seg")
    scene = any(tools[k][0] == "perceive_scene" for k in range(failed + 1, finds[-1]))
    return Recovery("push", "scene_and_seg" if scene else "seg_only")


#: the tool calls `classify_tool_calls` looks at (others never change its answer)
RECOVERY_TOOLS = ("grasp", "push", "find_object", "perceive_scene")


@dataclass(frozen=True)
class EpisodeFacts:
    """What `n` alike episodes of one (model, agent, mode) add to their row: the per-episode
    figures `episode_metrics` reads, so that a store can hand them over grouped."""

    model: str
    agent: str
    mode: str
    task: str
    success: bool
    calls: int = 0  # grasp + push calls of each episode
    turns: int = 0  # model replies of each episode
    presence: str | None = None  # Find: "present", "absent" or None (unknown)
    count: str | None = None  # Count: one of COUNT_OUTCOMES, None without a numeric truth
    steps: int = 0  # summed over the n episodes
    format_error_steps: int = 0  # summed
    with_format_errors: int = 0  # how many of the n episodes have one
    n: int = 1
    run: Run = ()  # the run's settings (`run_settings`)


def episode_facts(episode: Episode, steps: Sequence[Step]) -> EpisodeFacts:
    """One episode's facts (n = 1)."""
    task = episode.task
    bad = sum(1 for s in steps if s.kind == "format_error")
    return EpisodeFacts(
        episode.model,
        episode.agent,
        episode.mode,
        task,
        success=episode_success(episode, steps),
        calls=manipulation_calls(steps),
        turns=model_turns(steps),
        presence=find_presence(episode) if task == "find" else None,
        count=count_outcome(episode, steps) if task == "count" else None,
        steps=len(steps),
        format_error_steps=bad,
        with_format_errors=int(bad > 0),
        run=run_settings(episode.header),
    )


@dataclass
class _Row:
    model: str
    agent: str
    mode: str
    run: Run
    baseline: bool
    outcomes: dict[str, list[int]] = field(default_factory=dict)  # task -> [n, successes]
    calls: Counter = field(default_factory=Counter)  # calls -> episodes
    calls_by_task: dict[str, Counter] = field(default_factory=dict)
    turns: Counter = field(default_factory=Counter)
    turns_by_task: dict[str, Counter] = field(default_factory=dict)
    find: dict[str, list[int]] = field(
        default_factory=lambda: {"present": [0, 0], "absent": [0, 0], "unknown": [0, 0]}
    )
    count: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COUNT_OUTCOMES, 0))
    count_skipped: int = 0
    recovery: Counter = field(default_factory=Counter)  # Recovery -> episodes
    steps: int = 0
    format_error_steps: int = 0

    def add(self, f: EpisodeFacts) -> None:
        wins = f.n if f.success else 0
        cell = self.outcomes.setdefault(f.task, [0, 0])
        cell[0] += f.n
        cell[1] += wins
        self.calls[f.calls] += f.n
        self.calls_by_task.setdefault(f.task, Counter())[f.calls] += f.n
        self.turns[f.turns] += f.n
        self.turns_by_task.setdefault(f.task, Counter())[f.turns] += f.n
        if f.task == "find":
            cell = self.find[f.presence or "unknown"]
            cell[0] += f.n
            cell[1] += wins
        elif f.task == "count":
            if f.count is None:
                self.count_skipped += f.n
            else:
                self.count[f.count] += f.n
        self.steps += f.steps
        self.format_error_steps += f.format_error_steps

    def as_dict(self, tasks: Sequence[str]) -> dict[str, Any]:
        success = {t: _rate(*self.outcomes.get(t, (0, 0))) for t in tasks}
        average, missing = full_mean({t: v["success_pct"] for t, v in success.items()}, tasks)
        count_n = sum(self.count.values())
        failed = sum(self.recovery.values())
        nxt = {
            k: sum(n for r, n in self.recovery.items() if r.next_manipulation == k)
            for k in NEXT_MANIPULATIONS
        }
        reg = {
            k: sum(n for r, n in self.recovery.items() if r.regrounding == k) for k in REGROUNDING
        }
        return {
            "model": self.model,
            "agent": self.agent,
            "mode": self.mode,
            "run": dict(self.run),
            "run_label": run_label(self.run),
            "baseline": self.baseline,
            "n": sum(self.calls.values()),
            "success": success,
            "average_pct": average,
            "complete": not missing,
            "missing_tasks": missing,
            "manipulation": {
                **_spread(self.calls, "calls"),
                "acted_episodes": sum(n for c, n in self.calls.items() if c > 0),
                "by_task": {
                    t: _spread(self.calls_by_task.get(t, Counter()), "calls") for t in tasks
                },
            },
            "turns": {
                **_spread(self.turns, "turns"),
                "by_task": {
                    t: _spread(self.turns_by_task.get(t, Counter()), "turns") for t in tasks
                },
            },
            "find": {
                "present": _rate(*self.find["present"]),
                "absent": _rate(*self.find["absent"]),
                "unknown": self.find["unknown"][0],
            },
            "count": {
                "n": count_n,
                **self.count,
                **{f"{k}_pct": pct(v, count_n) for k, v in self.count.items()},
                "skipped": self.count_skipped,
            },
            "recovery": {
                "failed_grasp_episodes": failed,
                "next": nxt,
                "next_pct": {k: pct(v, failed) for k, v in nxt.items()},
                "regrounding": reg,
                "regrounding_pct": {k: pct(v, nxt["push"]) for k, v in reg.items()},
            },
            "steps": self.steps,
            "format_error_steps": self.format_error_steps,
        }


def _rate(n: int, wins: int) -> dict[str, Any]:
    return {"n": n, "successes": wins, "success_pct": pct(wins, n)}


def _median(histogram: Counter) -> float:
    """`statistics.median` of the values a {value: times} histogram stands for."""
    n = sum(histogram.values())
    lower, upper = (n - 1) // 2, n // 2  # the middle positions (equal when n is odd)
    seen, low = 0, None
    for value in sorted(histogram):
        seen += histogram[value]
        if low is None and seen > lower:
            low = value
        if seen > upper:
            return float(value) if low == value else (low + value) / 2
    raise ValueError("median of nothing")


def _spread(histogram: Counter, what: str) -> dict[str, float | None]:
    n = sum(histogram.values())
    if not n:
        return {f"mean_{what}": None, f"median_{what}": None}
    total = sum(v * k for v, k in histogram.items())
    return {f"mean_{what}": total / n, f"median_{what}": _median(histogram)}


def episode_metrics(episodes: Iterable[tuple[Episode, Sequence[Step]]]) -> dict[str, Any]:
    """Every episode figure of a project, as plain JSON-able data.

    Shape (percentages are 0-100 floats, or null when their denominator is 0)::

        {"n": int,                                  # episodes counted
         "tasks": [str], "modes": [str],            # canonical order, then the rest
         "rows": [{                                 # one per (model, agent, mode, run)
             "model": str, "agent": str, "mode": str,
             "run": {key: value}, "run_label": str,  # the run's settings (`run_settings`)
             "baseline": bool,                      # agent or model named "chance"
             "n": int,
             "success": {task: {"n", "successes", "success_pct"}},   # every task listed
             "average_pct": float | null,           # mean over every task of "tasks";
                                                    # null when the row lacks one
             "complete": bool, "missing_tasks": [str],  # tasks without episodes
             "manipulation": {"mean_calls", "median_calls",   # grasp + push per question
                              "acted_episodes",      # episodes with >= 1 grasp or push
                              "by_task": {task: {"mean_calls", "median_calls"}}},
             "turns": {"mean_turns", "median_turns",          # model replies per question
                       "by_task": {task: {"mean_turns", "median_turns"}}},
             "find": {"present": {"n", "successes", "success_pct"},
                      "absent": {...}, "unknown": int},       # Find episodes only
             "count": {"n", "under", "exact", "over", "invalid", "unanswered",
                       "under_pct", ..., "unanswered_pct",
                       "skipped": int},              # Count episodes without a numeric truth
             "recovery": {"failed_grasp_episodes": int,
                          "next": {"push", "grasp", "none"}, "next_pct": {...},
                          "regrounding": {"scene_and_seg", "seg_only", "no_seg"},
                          "regrounding_pct": {...}},          # share of the push episodes
             "steps": int, "format_error_steps": int}],
         "mode_means": {mode: {task: float | null, "average": float | null}},
                                                    # "mode, run label" keys when a mode
                                                    # has rows of several runs
         "settings": {...},                          # the choices behind the numbers
         "format_errors": [{"model", "agent", "episodes", "steps",
                            "format_error_steps", "episodes_with_format_errors"}]}

    `tasks` is the benchmark's four tasks (`TASK_ORDER`) and any other task the
    episodes have: the Avg. of the MG-VQA paper is over all of them, so a row that
    lacks a task has no average (it is incomplete; each cell has its n). Rows come
    baseline first, then by model, agent and mode, never ranked by a partial average.
    `mode_means[mode][task]` is the mean of the per-model success rates of the
    non-baseline rows of a mode that have episodes of the task, and its "average"
    is the mean of those task columns (null when a column is).
    An episode's success is its own `success`; when that is null, the scored
    answer step's `result.replay.correct`; otherwise it counts as a failure.
    """
    facts: list[EpisodeFacts] = []
    recoveries: Counter = Counter()
    for episode, steps in episodes:
        facts.append(episode_facts(episode, steps))
        recovery = classify_recovery(steps)
        if recovery is not None:
            run = run_settings(episode.header)
            recoveries[(episode.model, episode.agent, episode.mode, run, recovery)] += 1
    return summarize_episodes(facts, recoveries)


def summarize_episodes(
    facts: Iterable[EpisodeFacts], recoveries: Iterable[tuple[tuple, int]] | Counter = ()
) -> dict[str, Any]:
    """`episode_metrics` from grouped facts, and the recoveries after a failed grasp as
    {(model, agent, mode, run, Recovery): episodes} (or such pairs)."""
    rows: dict[tuple[str, str, str, Run], _Row] = {}
    errors: dict[tuple[str, str], dict[str, int]] = {}
    tasks: set[str] = set()
    modes: set[str] = set()
    total = 0
    for f in facts:
        total += f.n
        key = (f.model, f.agent, f.mode, f.run)
        row = rows.get(key)
        if row is None:
            row = rows[key] = _Row(*key, baseline=_baseline(f.model, f.agent))
        tasks.add(f.task)
        modes.add(f.mode)
        row.add(f)
        e = errors.setdefault(
            (f.model, f.agent),
            {"episodes": 0, "steps": 0, "format_error_steps": 0, "episodes_with_format_errors": 0},
        )
        e["episodes"] += f.n
        e["steps"] += f.steps
        e["format_error_steps"] += f.format_error_steps
        e["episodes_with_format_errors"] += f.with_format_errors
    pairs = recoveries.items() if isinstance(recoveries, Counter) else recoveries
    for (model, agent, mode, run, recovery), n in pairs:
        rows[(model, agent, mode, run)].recovery[recovery] += n

    task_list = _ordered({*tasks, *TASK_ORDER}, TASK_ORDER) if total else []
    mode_list = _ordered(modes, MODE_ORDER)

    def order(r: _Row) -> tuple:
        mode_rank = mode_list.index(r.mode)
        return (not r.baseline, r.model.lower(), r.agent.lower(), mode_rank, run_label(r.run))

    row_dicts = [r.as_dict(task_list) for r in sorted(rows.values(), key=order)]
    return {
        "n": total,
        "tasks": task_list,
        "modes": mode_list,
        "rows": row_dicts,
        "mode_means": _mode_means(row_dicts, task_list, mode_list),
        "settings": EPISODE_SETTINGS,
        "format_errors": [
            {"model": model, "agent": agent, **counts}
            for (model, agent), counts in sorted(
                errors.items(), key=lambda kv: (kv[0][0].lower(), kv[0][1].lower())
            )
        ],
    }


def _mode_means(
    rows: list[dict[str, Any]], tasks: list[str], modes: list[str]
) -> dict[str, dict[str, float | None]]:
    """Per mode, or per mode and run when the mode's rows come from several runs (keyed
    "mode, run label")."""
    out: dict[str, dict[str, float | None]] = {}
    for mode in modes:
        models = [r for r in rows if r["mode"] == mode and not r["baseline"]]
        runs = list(dict.fromkeys(r["run_label"] for r in models))
        for run in runs:
            alike = [r for r in models if r["run_label"] == run]
            means: dict[str, float | None] = {}
            for task in tasks:
                rates = [
                    r["success"][task]["success_pct"] for r in alike if r["success"][task]["n"]
                ]
                means[task] = statistics.fmean(rates) if rates else None
            means["average"] = full_mean(means, tasks)[0]
            out[mode if len(runs) == 1 else f"{mode}, {run}"] = means
    return out
