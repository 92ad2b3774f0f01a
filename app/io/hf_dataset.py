"""A benchmark as a Hugging Face dataset folder, and read back (docs/sharing.md).

The folder is what `datasets.load_dataset(DIR)` loads offline with no loading script:
`data/<split>-0000i-of-0000n.parquet` shards with typed features (`FEATURES`) and a
`README.md` dataset card whose YAML header names the configs, data files and features
(`app.io.hf_card`). Each row is one question: its fields typed where they have one shape
(ids, texts, difficulty, steps, evidence, status, agreement, tags), JSON text where they
have several (the answer, the criteria, the scene with its exact simulator state), and
its images as `datasets.Image`: for MG-VQA the top-down view Direct mode sends the model
(the same PNG, rendered at `MODEL_IMAGE_SIZE`), for JRDB the stitched panorama frames the
question names. Rows are written a few at a time, so memory stays flat however many
questions there are; the folder appears only when it is complete.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from annotation.formats.benchmark import FORMAT, FormatError, validate
from app.io.benchmark import question_tags, selected_questions, store_records
from store import ProjectError, open_for_reading

INSTALL_HINT = (
    "the Hugging Face dataset format needs datasets and pyarrow, which are not installed: "
    "pip install 'reasonscope[hf]' (or pip install datasets pyarrow)"
)
SHARD_BYTES = 256 * 2**20  # the Hub's viewer and loaders like shards of a few hundred MB
ROWS_PER_GROUP = 16  # a Parquet row group: a few questions' images in memory at a time
SPLIT_NAME = re.compile(r"^\w+(\.\w+)*$")  # what the Hub accepts as a split name


class HubSetupError(Exception):
    """`datasets` or `pyarrow` is missing: one line saying what to install."""


def hf_modules():
    """(datasets, pyarrow, pyarrow.parquet), or HubSetupError with the pip line."""
    try:
        import datasets
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise HubSetupError(INSTALL_HINT) from None
    return datasets, pyarrow, pyarrow.parquet


def features(datasets) -> Any:
    """The dataset's typed columns (`datasets.Features`), in the order a reader sees them."""
    v, seq = datasets.Value, datasets.List
    return datasets.Features(
        {
            "id": v("string"),
            "version": v("int32"),
            "benchmark": v("string"),
            "task": v("string"),
            "question": v("string"),
            "options": seq(v("string")),
            "answer": v("string"),  # JSON text: an integer, a string or an object by task
            "difficulty": {"S": v("int32"), "R": v("int32"), "T": v("int32"), "D": v("int32")},
            "steps": seq(
                {
                    "description": v("string"),
                    "entity_ids": seq(v("string")),
                    "details": v("string"),  # JSON text: the step's other fields
                }
            ),
            "evidence_ids": seq(v("string")),
            "status": v("string"),
            "agreement": {
                "verdicts": v("int32"),
                "decisions": seq(v("string")),
                "agreed": v("bool"),
            },
            "tags": seq(v("string")),
            "images": seq(datasets.Image()),
            "image_ids": seq(v("string")),
            "seed": v("int64"),
            "sequence": v("string"),
            "criteria": v("string"),  # JSON text
            "scene": v("string"),  # JSON text: camera, bodies, exact state (null for JRDB)
        }
    )


# -- rows ---------------------------------------------------------------------------------
def _steps(steps: list) -> list[dict[str, Any]]:
    out = []
    for step in steps:
        if not isinstance(step, dict):
            raise ValueError(f"a step is not an object: {step!r}")
        rest = {k: v for k, v in step.items() if k not in ("description", "entity_ids")}
        ids = step.get("entity_ids")
        out.append(
            {
                "description": step.get("description"),
                "entity_ids": None if ids is None else [str(i) for i in ids],
                "details": json.dumps(rest),
            }
        )
    return out


def question_row(q, scene: dict | None, sequence: str | None, agreement: dict, images) -> dict:
    """One question as a dataset row; `images` are (image id, PNG or JPEG bytes) pairs."""
    if q.options is not None and not all(isinstance(o, str) for o in q.options):
        raise ValueError(f"question {q.uid}: options that are not text: {q.options!r}")
    return {
        "id": q.uid,
        "version": q.version,
        "benchmark": q.benchmark,
        "task": q.task,
        "question": q.text,
        "options": q.options,
        "answer": json.dumps(q.answer),
        "difficulty": q.difficulty.as_dict() if q.difficulty else None,
        "steps": _steps(list(q.steps)),
        "evidence_ids": [str(e) for e in q.evidence_ids],
        "status": q.status,
        "agreement": agreement,
        "tags": question_tags(q),
        "images": [{"bytes": data, "path": name} for name, data in images],
        "image_ids": [name for name, _ in images],
        "seed": q.seed,
        "sequence": sequence,
        "criteria": json.dumps(q.criteria),
        "scene": None if scene is None else json.dumps(scene),
    }


def row_record(row: dict[str, Any]) -> dict[str, Any]:
    """A dataset row back as the reasonscope-benchmark/1 record it was made from."""
    steps = []
    for s in row["steps"] or []:
        step = {}
        if s["description"] is not None:
            step["description"] = s["description"]
        if s["entity_ids"] is not None:
            step["entity_ids"] = list(s["entity_ids"])
        steps.append({**step, **json.loads(s["details"])})
    record = {
        "format": FORMAT,
        "id": row["id"],
        "version": row["version"],
        "benchmark": row["benchmark"],
        "task": row["task"],
        "question": row["question"],
        "options": None if row["options"] is None else list(row["options"]),
        "answer": json.loads(row["answer"]),
        "evidence_ids": list(row["evidence_ids"]),
        "steps": steps,
        "difficulty": dict(row["difficulty"]) if row["difficulty"] else {},
        "criteria": json.loads(row["criteria"]),
        "seed": row["seed"],
        "verification": {"status": row["status"]},
        "scene": None if row["scene"] is None else json.loads(row["scene"]),
    }
    if row["sequence"] is not None:
        record["sequence"] = row["sequence"]
    return record


# -- what a row needs from the project ----------------------------------------------------
def agreement_by_uid(project) -> dict[str, dict[str, Any]]:
    """Each question's first-round verdicts: how many, their decisions, whether they agree
    (null until the pair is complete), keyed by question uid over all its versions."""
    uids: dict[int, str] = {}
    decisions: dict[str, list[str]] = {}
    for row_id, _, _, verdict in project.verifications.first_round_verdicts():
        if row_id not in uids:
            uids[row_id] = project.questions.get(row_id).uid
        decisions.setdefault(uids[row_id], []).append(verdict.decision)
    return {
        uid: {"verdicts": len(d), "decisions": d, "agreed": len(set(d[:2])) == 1}
        for uid, d in decisions.items()
    }


NO_VERDICTS = {"verdicts": 0, "decisions": [], "agreed": None}


def model_view_png(scene_bodies: list[dict], state: dict) -> bytes:
    """The top-down image Direct mode sends the model, as the same PNG bytes: rebuilt and
    rendered as `app.jobs.agents.play_episode` does, encoded by `sim.llm.image_data_url`."""
    from sim.llm import image_data_url
    from sim.render import render
    from sim.tabletop.scenes import world_from_records
    from sim.tabletop.world import MODEL_IMAGE_SIZE, TOP_DOWN

    world = world_from_records(scene_bodies, state)
    try:
        rgb = render(world, TOP_DOWN.with_size(MODEL_IMAGE_SIZE, MODEL_IMAGE_SIZE)).rgb
    finally:
        world.close()
    return base64.b64decode(image_data_url(rgb).split(",", 1)[1])


def stored_view_png(project, bodies: list[dict], state: dict) -> bytes:
    """The model's top-down view: the project's stored first view (a run or `--prerender`
    rendered it, the same bytes), else rendered now (`model_view_png`)."""
    from sim.tabletop.first_view import view_key
    from sim.tabletop.world import MODEL_IMAGE_SIZE, TOP_DOWN, TOP_DOWN_VIEW

    camera = TOP_DOWN.with_size(MODEL_IMAGE_SIZE, MODEL_IMAGE_SIZE)
    stored = project.rendered_views.get(view_key({"bodies": bodies, "state": state}, camera, None))
    if stored is not None and TOP_DOWN_VIEW in stored.images:
        return stored.images[TOP_DOWN_VIEW]
    return model_view_png(bodies, state)


def question_images(project, q, frames_by_image: dict[str, str]) -> list[tuple[str, bytes]]:
    """(image id, bytes) of a question's images: MG-VQA's model view, JRDB's named frames
    (those whose stitched image is on this machine)."""
    if q.scene_id is not None:
        scene = project.scenes.get(q.scene_id)
        bodies = [b.as_record() for b in scene.bodies]
        return [(f"{q.uid}-top_down.png", stored_view_png(project, bodies, scene.state))]
    out = []
    for image_id in (q.criteria or {}).get("image_ids") or []:
        path = frames_by_image.get(str(image_id))
        if path and os.path.isfile(path):
            out.append((str(image_id), Path(path).read_bytes()))
    return out


def _frames_by_image(project, sequence_id: int | None, cache: dict) -> dict[str, str]:
    """Image file name -> path of a sequence's frames (looked up once per sequence)."""
    if sequence_id is None:
        return {}
    if sequence_id not in cache:
        cache[sequence_id] = {
            os.path.basename(f.image_path): f.image_path
            for f in project.sequences.frames(sequence_id)
            if f.image_path
        }
    return cache[sequence_id]


def dataset_rows(project, *, status: str, tag: str | None) -> Iterator[tuple[dict, Any]]:
    """(row, question) for each question to export, one at a time."""
    agreement = agreement_by_uid(project)
    frames: dict = {}
    for q, scene, sequence in selected_questions(project, status=status, tag=tag):
        images = question_images(project, q, _frames_by_image(project, q.sequence_id, frames))
        yield question_row(q, scene, sequence, agreement.get(q.uid, NO_VERDICTS), images), q


# -- writing ------------------------------------------------------------------------------
class ShardWriter:
    """Parquet shards of one split, a new one when the current passes `SHARD_BYTES`."""

    def __init__(self, folder: Path, split: str, schema, pq) -> None:
        self.folder, self.split, self.schema, self.pq = folder, split, schema, pq
        self.paths: list[Path] = []
        self._writer = None

    def write(self, table) -> None:
        if self._writer is None or self.paths[-1].stat().st_size > SHARD_BYTES:
            self._close()
            self.paths.append(self.folder / f"{self.split}-{len(self.paths):05d}.parquet")
            self._writer = self.pq.ParquetWriter(self.paths[-1], self.schema)
        self._writer.write_table(table)

    def _close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def finish(self) -> list[Path]:
        """Close the last shard; name them all `<split>-0000i-of-0000n.parquet`."""
        self._close()
        n = len(self.paths)
        named = [
            p.with_name(f"{self.split}-{i:05d}-of-{n:05d}.parquet")
            for i, p in enumerate(self.paths)
        ]
        for old, new in zip(self.paths, named, strict=True):
            old.rename(new)
        return named


def export_hf_dataset(
    db: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    split: str = "test",
    status: str = "approved",
    tag: str | None = None,
    license_id: str = "unknown",
    progress=None,
) -> dict[str, Any]:
    """Write the folder `out` (which must not exist or be empty); return what was written:
    {"questions", "images", "shards", "bytes"}."""
    from app.io.hf_card import CardStats, write_card

    datasets, pa, pq = hf_modules()
    out = Path(out)
    if not SPLIT_NAME.match(split):
        raise ProjectError(f"--split {split}: a split name is letters, digits and _ only")
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ProjectError(f"{out}: already exists and is not an empty folder")
    feats = features(datasets)
    work = Path(
        tempfile.mkdtemp(prefix=f".{out.name}-", dir=out.parent if out.parent.exists() else None)
    )
    try:
        (work / "data").mkdir()
        shards = ShardWriter(work / "data", split, feats.arrow_schema, pq)
        stats, batch = CardStats(), []
        with open_for_reading(db) as project:
            stats.add_agreement(project)
            for row, q in dataset_rows(project, status=status, tag=tag):
                stats.add(q, row)
                batch.append(row)
                if len(batch) >= ROWS_PER_GROUP:
                    shards.write(pa.Table.from_pylist(batch, schema=feats.arrow_schema))
                    batch = []
                if progress is not None:
                    progress.report(stats.questions, 0, f"{stats.questions} questions written")
        if batch or not shards.paths:
            shards.write(pa.Table.from_pylist(batch, schema=feats.arrow_schema))
        paths = shards.finish()
        size = sum(p.stat().st_size for p in paths)
        write_card(work / "README.md", feats, stats, split=split, license_id=license_id, size=size)
        if out.exists():
            out.rmdir()
        work.rename(out)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return {
        "questions": stats.questions,
        "images": stats.images,
        "shards": len(paths),
        "bytes": size,
    }


# -- reading ------------------------------------------------------------------------------
def read_hf_records(folder: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """The records of every shard under `folder`/data, checked as benchmark lines are; a
    bad row raises `ProjectError` naming its shard and row."""
    datasets, pa, pq = hf_modules()
    folder = Path(folder)
    shards = sorted((folder / "data").glob("*.parquet"))
    if not shards:
        raise ProjectError(f"{folder}: no data/*.parquet (is it a Hugging Face dataset folder?)")
    wanted = [n for n in features(datasets) if n not in ("images",)]
    records = []
    for shard in shards:
        try:
            parquet = pq.ParquetFile(shard)
            missing = [n for n in wanted if n not in parquet.schema_arrow.names]
            if missing:
                raise ProjectError(f"{shard}: no column {missing[0]!r} (not a ReasonScope export)")
            number = 0
            for batch in parquet.iter_batches(columns=wanted, batch_size=256):
                for row in batch.to_pylist():
                    number += 1
                    try:
                        records.append(validate(row_record(row)))
                    except (FormatError, ValueError, TypeError, KeyError) as exc:
                        raise ProjectError(f"{shard}:row {number}: {exc}") from None
        except (OSError, pa.ArrowException) as exc:
            raise ProjectError(f"{shard}: not a readable Parquet file ({exc})") from None
    return records


def import_hf_dataset(db: str | os.PathLike[str], folder: str | os.PathLike[str]) -> int:
    """Read a dataset folder `export_hf_dataset` wrote into the project, in one transaction:
    every row is checked first, then all are stored or none."""
    return store_records(db, read_hf_records(folder), folder)
