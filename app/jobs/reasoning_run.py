"""A model behind an OpenAI-compatible endpoint answers the project's JRDB-Reasoning questions.

`run_jrdb(db, models=...)` (`reasonscope run-agent --benchmark jrdb --agent openai`) sends
each selected question with its stitched panorama (a video question: the frames of its
window, in order) as JRDB-Reasoning's evaluation scripts ask their model
(`annotation.jrdb.reasoning_prompts`), reads the reply as they do, and stores it as a
prediction scored by the same code as an imported one (`project.reasoning.
record_run_prediction`), with the raw reply, the request's latency and tokens, and the
run's settings. `--concurrency K` keeps K requests in flight (threads of this process,
`app.jobs.batch`); each result is stored by this thread, in question order, as it comes.
A reply that cannot be read is stored as a wrong answer saying why; a request that fails
after its retries is reported for its question, nothing stored, and the run goes on.
"""

from __future__ import annotations

import dataclasses
import io
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from annotation.jrdb.question_frames import question_frames
from annotation.jrdb.reasoning_prompts import (
    PROMPT,
    VG_IMAGE_SCALE,
    VG_MAX_TOKENS,
    VIDEO_VG,
    VQA_IMAGE_SCALE,
    VQA_MAX_TOKENS,
    read_vg_reply,
    read_vg_track_reply,
    read_vqa_reply,
    vg_messages,
    video_note,
    video_track_note,
    vqa_messages,
)
from annotation.progress import Progress
from app.jobs.agents import QUESTION_SETS, RunSummary
from app.jobs.batch import run_batch
from sim.llm import DEFAULT_RETRY, EndpointStats, ModelError, OpenAIConfig, RetryPolicy
from store import Project, ProjectError, open_project

JRDB_TASKS = ("vg", "vqa-wh", "vqa-count")


def run_settings(image_scale: float | None = None) -> dict[str, Any]:
    """The settings a run's predictions are recorded with: the prompt and the image scale
    of VG and of VQA questions (the scripts' 0.5 and 1 unless `image_scale` is given)."""
    return {
        "prompt": PROMPT,
        "vg_image_scale": VG_IMAGE_SCALE if image_scale is None else float(image_scale),
        "vqa_image_scale": VQA_IMAGE_SCALE if image_scale is None else float(image_scale),
        "video_vg": VIDEO_VG,
    }


def run_model_name(label: str, settings: dict[str, Any]) -> str:
    """The model name a run's predictions are stored and reported under: the endpoint's
    name, with the settings that differ from the scripts' after it ("qwen (image scale
    1)"), so that runs made differently are separate rows of every table."""
    default = run_settings()
    if settings == default:
        return label
    scales = {settings["vg_image_scale"], settings["vqa_image_scale"]}
    parts = [f"image scale {s:g}" for s in sorted(scales)] if len(scales) == 1 else []
    parts = parts or [
        f"VG image scale {settings['vg_image_scale']:g}",
        f"VQA image scale {settings['vqa_image_scale']:g}",
    ]
    if settings["prompt"] != default["prompt"]:
        parts.insert(0, f"prompt {settings['prompt']}")
    return f"{label} ({', '.join(parts)})"


@dataclass
class ReasoningRunSummary(RunSummary):
    """A JRDB run's tally: `episodes` counts the predictions stored, `correct` the right
    ones; `unreadable` the replies that could not be read (stored as wrong)."""

    unreadable: int = 0

    def as_dict(self) -> dict[str, Any]:
        out = super().as_dict()
        out["predictions"] = out.pop("episodes")
        del out["episode_ids"]  # predictions are found by model and question, not by id
        out["accuracy"] = out.pop("success_rate")
        out["unreadable"] = self.unreadable
        return out


def select_jrdb_questions(
    project: Project,
    which: str = "approved",
    *,
    task: str | None = None,
    limit: int | None = None,
) -> list:
    """The current jrdb questions a run asks, in the order they were made: approved and
    corrected ones (`which` "approved", as `export benchmark` exports them) or every one
    but the excluded (`which` "any"); of one task when given; the first `limit`."""
    if which not in QUESTION_SETS:
        raise ProjectError(f"--questions {which}: choose from {', '.join(QUESTION_SETS)}")
    if task is not None and task not in JRDB_TASKS:
        raise ProjectError(f"--task {task}: jrdb tasks are {', '.join(JRDB_TASKS)}")
    out, cursor = [], None
    while True:
        page = project.questions.page(benchmark="jrdb", task=task, after=cursor, limit=500)
        for q in page.rows:
            if q.task not in JRDB_TASKS or q.status == "excluded":
                continue
            if which == "approved" and q.status not in ("approved", "corrected"):
                continue
            out.append(q)
        cursor = page.next_cursor
        if cursor is None or (limit is not None and len(out) >= limit):
            break
    return out[:limit] if limit is not None else out


def question_job(
    project: Project, q, options: dict[str, Any], settings: dict[str, Any], frames_of: dict
) -> dict[str, Any]:
    """What asking one question needs, as plain data: its text (and options), the image
    files in order, the scale they are sent at, and which image a VG answer is in."""
    if q.sequence_id not in frames_of:
        sequence = project.sequences.get(q.sequence_id)
        frames_of[q.sequence_id] = (sequence.root, project.sequences.frames(q.sequence_id))
    root, frames = frames_of[q.sequence_id]
    images = [str(Path(root) / f.image_path) for f in question_frames(q, frames) if f.image_path]
    if not images:
        raise ProjectError(f"question {q.uid}: its frames have no panorama")
    video = ((q.criteria or {}).get("preferences") or {}).get("modality") == "video"
    vg = q.task == "vg"
    text = q.text
    track_ids = None
    if vg and len(images) > 1 and (q.answer or {}).get("track"):
        track_ids = [os.path.basename(path) for path in images]
        text += video_track_note(len(images))
    elif vg and len(images) > 1:  # a video question stored before tracks: its answer frame
        image_ids = (q.criteria or {}).get("image_ids") or []
        answer_image = (q.answer or {}).get("image_id")
        position = image_ids.index(answer_image) if answer_image in image_ids else len(images) - 1
        text += video_note(len(images), position)
    return {
        "uid": q.uid,
        "task": q.task,
        "video": video,
        "text": text,
        "options": options.get(q.uid),
        "images": images,
        "scale": settings["vg_image_scale" if vg else "vqa_image_scale"],
        "max_tokens": VG_MAX_TOKENS if vg else VQA_MAX_TOKENS,
        "track_ids": track_ids,
    }


@lru_cache(maxsize=64)
def _image(path: str, scale: float, stamp: tuple[int, int]) -> tuple[str, tuple[int, int]]:
    """A panorama as the model is sent it (a data URL) and its own size. At scale 1 the
    file's bytes as they are (the VQA script hands the model the file); else resized as
    the VG script does (`image.resize((int(w * s), int(h * s)))`, Pillow's default
    filter) and sent as PNG, which keeps those pixels."""
    import base64

    from PIL import Image

    data = Path(path).read_bytes()
    with Image.open(io.BytesIO(data)) as image:
        size = image.size
        if scale == 1:
            mime = Image.MIME.get(image.format or "", "image/jpeg")
        else:
            small = image.convert("RGB").resize((int(size[0] * scale), int(size[1] * scale)))
            buffer = io.BytesIO()
            small.save(buffer, format="PNG")
            data, mime = buffer.getvalue(), "image/png"
    return f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}", size


_ENCODING: dict[tuple[str, float], threading.Lock] = {}
_ENCODING_LOCK = threading.Lock()


def image_url(path: str, scale: float) -> tuple[str, tuple[int, int]]:
    """`_image`, cached per file, scale and the file's modification: frames are shared by
    many questions, and each is encoded once, even when several threads ask for it at
    the same moment (the others wait for it rather than encode it again)."""
    st = os.stat(path)
    with _ENCODING_LOCK:
        lock = _ENCODING.setdefault((path, float(scale)), threading.Lock())
    with lock:
        return _image(path, float(scale), (st.st_mtime_ns, st.st_size))


def clear_image_cache() -> None:
    """Forget the encoded panoramas (the bench encodes them afresh for each run)."""
    _image.cache_clear()


def ask_question(job: dict[str, Any]) -> dict[str, Any]:
    """Send one question (a `question_job` with "config" and "retry") and read the reply:
    plain data back, {"raw", "answer", "problem", "latency_s", "tokens_in", "tokens_out",
    "endpoint"}, or {"error", "endpoint"} when the request failed after its retries."""
    from sim.llm import chat_completion, message_text

    images = [image_url(p, job["scale"]) for p in job["images"]]
    urls = [url for url, _ in images]
    if job["task"] == "vg":
        messages = vg_messages(job["text"], urls)
    else:
        messages = vqa_messages(job["text"], job["options"], urls)
    config: OpenAIConfig = job["config"]
    if config.max_tokens is None:  # the script's max_new_tokens
        config = dataclasses.replace(config, max_tokens=job["max_tokens"])
    stats = EndpointStats()
    try:
        completion = chat_completion(config, messages, retry=job["retry"], stats=stats)
    except ModelError as exc:
        return {"error": str(exc), "endpoint": stats.as_dict()}
    raw = message_text(completion.message.get("content"))
    if job["task"] == "vg" and job.get("track_ids"):
        width, height = images[-1][1]
        reading = read_vg_track_reply(raw, width, height, job["scale"], job["track_ids"])
    elif job["task"] == "vg":
        width, height = images[-1][1]
        reading = read_vg_reply(raw, width, height, job["scale"])
    else:
        reading = read_vqa_reply(raw, job["task"], job["options"])
    return {
        "raw": raw,
        "answer": reading.answer,
        "problem": reading.problem,
        **completion.step_figures(),
        "endpoint": stats.as_dict(),
    }


def run_jrdb(
    db: str | os.PathLike[str],
    *,
    models: Sequence[OpenAIConfig],
    questions: str = "approved",
    task: str | None = None,
    limit: int | None = None,
    image_scale: float | None = None,
    retry: RetryPolicy | None = None,
    concurrency: int | None = None,
    resume: bool = False,
    progress: Progress | None = None,
) -> ReasoningRunSummary:
    """Ask every selected question of every model (`select_jrdb_questions`) and store the
    replies as predictions (module docstring); `resume` skips questions the model already
    has a prediction of, made with these settings. ProjectError before anything is sent
    when there is no question, or a model's stored predictions were made another way
    (`project.reasoning.run_settings_problem`)."""
    progress = progress or Progress()
    summary = ReasoningRunSummary()
    settings = run_settings(image_scale)
    with open_project(db) as project:
        chosen = select_jrdb_questions(project, questions, task=task, limit=limit)
        if not chosen:
            raise ProjectError(
                f"{db}: no {'approved ' if questions == 'approved' else ''}JRDB-Reasoning "
                f"questions{f' of task {task}' if task else ''} to ask"
                + (" (--questions any asks unverified ones too)" if questions == "approved" else "")
            )
        from app.io.jrdb_reasoning import exported_options

        options = exported_options(project, chosen, "any" if questions == "any" else "approved")
        frames_of: dict = {}
        base = [question_job(project, q, options, settings, frames_of) for q in chosen]
        jobs = []
        for config in models:
            name = run_model_name(config.label, settings)
            problem = project.reasoning.run_settings_problem(name, settings)
            if problem:
                raise ProjectError(problem)
            summary.model(name, "openai")
            summary.endpoints[name] = EndpointStats()
            done = project.reasoning.run_predicted(name, settings) if resume else set()
            summary.skipped += sum(1 for j in base if j["uid"] in done)
            jobs += [
                {**j, "config": config, "retry": retry or DEFAULT_RETRY, "model": name}
                for j in base
                if j["uid"] not in done
            ]

        def keep(job: dict[str, Any], result: dict[str, Any]) -> None:
            name = job["model"]
            summary.endpoints[name].add(result["endpoint"])
            tally = summary.model(name, "openai")
            what = f"{name} on {job['task']} question {job['uid']}"
            if "error" in result:
                tally["errors"] += 1
                summary.errors.append(f"{what}: {result['error']}")
                return
            try:
                score = project.reasoning.record_run_prediction(
                    name,
                    job["uid"],
                    result["answer"],
                    source=f"run-agent {name}",
                    settings=settings,
                    raw_output=result["raw"],
                    unreadable=result["problem"],
                    latency_s=result["latency_s"],
                    tokens_in=result["tokens_in"],
                    tokens_out=result["tokens_out"],
                )
            except ValueError as exc:  # the question went, or the model's predictions changed
                summary.fail(name, what, str(exc))
                return
            summary.episodes += 1
            summary.correct += int(score.correct)
            summary.unreadable += int(result["problem"] is not None)
            by_task = summary.by_task.setdefault(job["task"], [0, 0])
            by_task[0] += int(score.correct)
            by_task[1] += 1
            tally["episodes"] += 1
            tally["correct"] += int(score.correct)

        batch = run_batch(
            jobs,
            ask_question,
            keep,
            progress=progress,
            noun="prediction",
            describe=lambda j: f"{j['model']} on {j['task']} question {j['uid']}",
            concurrency=concurrency,
        )
        summary.backend = batch.backend
        by_what = {f"{j['model']} on {j['task']} question {j['uid']}": j["model"] for j in jobs}
        for item, why in batch.failed:
            summary.fail(by_what.get(item, ""), item, why)
    return summary
