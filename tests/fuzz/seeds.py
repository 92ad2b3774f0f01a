"""The real inputs the fuzz tests start from, written by the fixtures the rest of the suite
trusts: the benchmark and episode exporters, BiManiBench's and EmbodiedBench's writers as
tests/bimanual_corpus.py plays them, the bimanual log corpus, the documented MG-VQA
transcript, the synthetic and the real-structure JRDB roots, prediction files for the
project's questions and spatial items, and work packages made with `create_package` and
worked in through the CLI and the store.

Each builder returns a `Seed`: the project an input is imported into (a template copied for
each example), the input files or folders by name, and the command that imports one.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mutations import SeedFile, package_rows, seed_files

from app.cli import main
from store import open_project

ROOT = Path(__file__).resolve().parents[2]
TINY_JRDB = dict(frames=2, people=3, objects=2, points_per_sweep=200)


@dataclass
class Seed:
    """Inputs of one kind: `inputs` name -> a file or folder; `argv(input, db)` imports one
    into the project file `db` (a copy of `target`)."""

    name: str
    target: Path
    inputs: dict[str, Path]
    argv: Callable[[Path, Path], list]
    files: dict[str, dict[str, SeedFile]] = field(default_factory=dict)
    rows: dict[str, dict] = field(default_factory=dict)  # packages: their tables' rows

    def __post_init__(self) -> None:
        self.files = {name: seed_files(path) for name, path in self.inputs.items()}


def _empty_project(folder: Path) -> Path:
    path = folder / "empty.reasonscope"
    open_project(path, create=True).close()
    return path


def _cli(*argv) -> None:
    code = main([str(a) for a in argv])
    assert code == 0, f"building a fuzz seed: reasonscope {' '.join(map(str, argv))} -> {code}"


def jrdb_project(folder: Path):
    """A small imported synthetic JRDB sequence (tests/hoi_fixtures.py), its root beside it."""
    from hoi_fixtures import build_hoi_project

    from app.demo.jrdb_synth import SynthConfig

    return build_hoi_project(folder, SynthConfig(**TINY_JRDB))


def _with_jrdb_questions(base, path: Path) -> Path:
    from question_fixtures import jrdb_questions

    shutil.copyfile(base.db, path)
    with open_project(path) as p:
        p.questions.add_many(jrdb_questions(p, base.sequence_id).values())
    return path


# -- import benchmark --------------------------------------------------------------------------
def benchmark_seed(folder: Path) -> Seed:
    """Two generated MG-VQA questions with their scene, three JRDB-Reasoning questions as
    the suite's fixture stores them and three the query engine generated (with their
    patterns), as `export benchmark` writes them; imported into the JRDB project without
    questions."""
    from question_fixtures import write_question_project

    base = jrdb_project(folder / "jrdb")
    tabletop = write_question_project(folder / "tabletop.reasonscope")
    jrdb = _with_jrdb_questions(base, folder / "jrdb-questions.reasonscope")
    for task in (("vg", "--spatial", "pair"), ("vqa-count",), ("vqa-wh",)):  # with patterns
        generate = ("questions", "generate", "--benchmark", "jrdb", "--subject", "human")
        _cli(*generate, "--task", *task, "--n", "1", "--seed", "1", "--db", jrdb)
    out = folder / "benchmark.jsonl"
    parts = []
    for db in (tabletop, jrdb):
        _cli("export", "benchmark", "--status", "any", "--out", out, "--db", db)
        parts.append(out.read_text())
    out.write_text("".join(parts))
    return Seed("benchmark", base.db, {"questions": out}, _import("benchmark"))


def _import(kind: str, *extra: str) -> Callable[[Path, Path], list]:
    return lambda source, db: ["import", kind, source, *extra, "--db", db]


# -- import episodes ---------------------------------------------------------------------------
def episodes_seed(folder: Path) -> Seed:
    """Episodes as `export episodes` writes them: one MG-VQA episode recorded with ToolEnv
    (a find, a grasp into the basket, an answer; 256 px views) and the bimanual corpus's
    BiManiBench and EmbodiedBench episodes, as imported."""
    from bimanual_corpus import imported_project
    from episode_fixtures import record_episode, small_scene

    recorded = folder / "recorded.reasonscope"
    records, state = small_scene()
    with open_project(recorded, create=True) as project:
        sid = project.scenes.add({"name": "boxes", "camera": {}, "state": state, "bodies": records})
        question = project.questions.add(
            {"benchmark": "mgvqa", "task": "count", "scene_id": sid, "text": "How many boxes?"}
            | {"answer": 3}
        )
        calls = [
            ("find_object", {"at": "blue_box"}),
            ("grasp", {"mask_id": "mask_1"}),
            ("answer_question", {"answer": "3"}),
        ]
        record_episode(project, question, sid, "alpha", calls)
    inputs = {}
    for name, db in (("mgvqa", recorded), ("bimanual", imported_project(folder))):
        inputs[name] = folder / f"{name}-episodes.jsonl"
        _cli("export", "episodes", "--out", inputs[name], "--db", db)
    return Seed("episodes", _empty_project(folder), inputs, _import("episodes"))


def mgvqa_seed(folder: Path) -> Seed:
    """The transcript docs/mgvqa-transcripts.md documents, as a file and as a folder of a
    file and a list of two (another question, in perception mode)."""
    text = (ROOT / "docs" / "mgvqa-transcripts.md").read_text()
    example = json.loads(re.search(r"```json\n(.*?)\n```", text, re.S).group(1))
    one = folder / "transcript.json"
    one.write_text(json.dumps(example, indent=2))
    many = folder / "transcripts"
    many.mkdir()
    (many / "a.json").write_text(json.dumps(example, indent=2))
    other = dict(example, question_id="count-0043", mode="perception")
    (many / "b.json").write_text(json.dumps([other, dict(other, question_id="count-0044")]))
    return Seed(
        "mgvqa",
        _empty_project(folder),
        {"file": one, "folder": many},
        _import("episodes", "--format", "mgvqa"),
    )


def bimanibench_seed(folder: Path) -> Seed:
    """BiManiBench runs as its harness writes them (high-level and fine-control, played by
    tests/bimanual_corpus.py), and the corpus's run with replies as models write them."""
    from bimanual_corpus import make_corpus, write_bimanibench_run, write_bimanibench_vla_run

    inputs = {"run": folder / "run", "vla": folder / "vla"}
    write_bimanibench_run(inputs["run"])
    write_bimanibench_vla_run(inputs["vla"])
    inputs["corpus"] = make_corpus(folder / "corpus", fixed=False) / "bimanibench"
    return Seed(
        "bimanibench",
        _empty_project(folder),
        inputs,
        _import("episodes", "--format", "bimanibench"),
    )


def embodiedbench_seed(folder: Path) -> Seed:
    """EB-ALFRED step logs and EB-Manipulation results as EmbodiedBench's evaluators write
    them (tests/bimanual_corpus.py), and the corpus's step logs."""
    from bimanual_corpus import make_corpus, write_alfred_run, write_manipulation_run

    inputs = {"alfred": folder / "alfred", "manipulation": folder / "manipulation"}
    write_alfred_run(inputs["alfred"])
    write_manipulation_run(inputs["manipulation"])
    inputs["corpus"] = make_corpus(folder / "corpus") / "embodiedbench"
    return Seed(
        "embodiedbench",
        _empty_project(folder),
        inputs,
        _import("episodes", "--format", "embodiedbench"),
    )


# -- import jrdb -------------------------------------------------------------------------------
def jrdb_seed(folder: Path) -> Seed:
    """The synthetic sequence's whole root (2D, 3D, objects, activity, calibration, both
    sweeps) and the real-structure activity file's root (tests/jrdb_activity_fixture.py)."""
    from jrdb_activity_fixture import FIXTURE, make_root

    base = jrdb_project(folder / "synthetic")
    real = make_root(folder / "real", json.loads(FIXTURE.read_text()))
    return Seed(
        "jrdb",
        _empty_project(folder),
        {"synthetic": base.db.parent / "jrdb", "real": real},
        _import("jrdb"),
    )


# -- import predictions, spatial-predictions -----------------------------------------------------
def predictions_seed(folder: Path) -> Seed:
    """A model's answers to the three JRDB-Reasoning questions (a VG box with per-step
    answers, a count, a Wh word under another model's name)."""
    base = jrdb_project(folder / "jrdb")
    target = _with_jrdb_questions(base, folder / "questions.reasonscope")
    with open_project(target) as p:
        questions = {q.task: q for q in p.questions.page(limit=10).rows}
    vg = questions["vg"]
    rows = [
        {"question_id": vg.uid, "box": vg.answer["boxes"][0], "steps": [[vg.answer["boxes"][0]]]},
        {"question_id": questions["vqa-count"].uid, "answer": questions["vqa-count"].answer},
        {"question_id": questions["vqa-wh"].uid, "answer": "young_adulthood", "model": "other"},
    ]
    out = folder / "predictions.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return Seed("predictions", target, {"predictions": out}, _import("predictions", "--model", "m"))


def spatial_seed(folder: Path) -> Seed:
    """Replies to the three spatial grounding settings' items (`spatial generate`): a reply
    as models write it, one naming arms in `results`, one that cannot be read."""
    target = _empty_project(folder)
    out = folder / "items"
    _cli(
        *("spatial", "generate", "--setting", "all", "--n", "1", "--seed", "7"),
        *("--out", out, "--image-size", "64", "--db", target),
    )
    items = [json.loads(line) for line in (out / "items.jsonl").read_text().splitlines()]
    sparse, dense, cluttered = items[:3]
    body = ", ".join(f"{{object: {n}, use_arm: {a.upper()}}}" for n, a in sparse["answers"].items())
    rows = [
        {"id": sparse["id"], "reply": f"{{visual_state_description: blocks, results: [{body}]}}"},
        {
            "id": dense["id"],
            "results": [{"object": n, "use_arm": a} for n, a in dense["answers"].items()],
        },
        {"id": cluttered["id"], "reply": "I cannot see any blocks."},
    ]
    predictions = folder / "spatial.jsonl"
    predictions.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return Seed(
        "spatial-predictions",
        target,
        {"replies": predictions},
        _import("spatial-predictions", "--model", "m"),
    )


# -- pack merge ----------------------------------------------------------------------------------
PACK_PEOPLE = {"verifier": "Vic", "reviewer": "Rey", "annotator": "Ada", "rater": "Ray"}
PACK_PEOPLE |= {"human-baseline": "Hal"}


def pack_seed(folder: Path) -> Seed:
    """The human-study project (tests/question_fixtures.py) with two HOI labels, and one
    package per role made with `create_package` and worked in: verdicts and reviews given
    with `reasonscope verify` / `review --db PACK --as NAME`, a box moved, a person drawn and
    labelled with `reasonscope annotate`, ratings and answers through the store as the
    Human study mode saves them."""
    from question_fixtures import build_study_project

    from app.work_packages.create import PackageRequest, create_package

    db = build_study_project(folder / "study")
    sequence = _add_hoi_labels(db)
    packs = {}
    for role, person in PACK_PEOPLE.items():
        request = PackageRequest(person, role)
        if role == "reviewer":
            request.labels = True
        elif role == "annotator":
            request.sequence, request.frames = sequence, (0, 1)
        else:
            request.questions = "pending"
        packs[role] = folder / f"{person}-{role}.rspack"
        create_package(db, request, packs[role])
    _work(packs, sequence)
    seed = Seed("pack-merge", db, packs, lambda pack, db: ["pack", "merge", pack, "--db", db])
    seed.rows = {role: package_rows(path) for role, path in packs.items()}
    return seed


def _add_hoi_labels(db: Path) -> str:
    with open_project(db) as p:
        sequence = p.sequences.list()[0]
        frames = p.sequences.frames(sequence.id)
        entities = p.sequences.entities(sequence.id)
        person = next(e for e in entities if e.kind == "human")
        thing = next(e for e in entities if e.kind == "object")
        ana = p.annotators.sign_in("ana")
        for frame in frames:
            p.hoi.add_label(
                frame_id=frame.id,
                subject_entity_id=person.id,
                object_entity_id=thing.id,
                category="human-object",
                predicate="holding",
                difficulty=2,
                annotator=ana,
            )
        return sequence.name


def _work(packs: dict[str, Path], sequence: str) -> None:
    def as_(role: str, *argv) -> None:
        _cli(*argv, "--db", packs[role], "--as", PACK_PEOPLE[role])

    as_("verifier", "verify", "1", "--decision", "approve", "--criteria", "1,2,3")
    as_("verifier", "verify", "2", "--decision", "reject", "--criteria", "2,3", "--reason", "two")
    as_("verifier", "verify", "4", "--decision", "correct", "--criteria", "1,2,3", "--text", "Hm?")
    as_("reviewer", "review", "1", "--decision", "accept", "--difficulty", "2")
    as_("reviewer", "review", "2", "--decision", "reject", "--comment", "not holding it")
    with open_project(packs["annotator"]) as p:
        entity = next(
            e for e in p.sequences.entities(p.sequences.list()[0].id) if e.kind == "human"
        )
    as_("annotator", "annotate", "box", sequence, "0", entity.key, "--box", "100,50,40,120")
    drawn = ("add-entity", sequence, "1", "--kind", "person", "--box", "800,120,70,210")
    as_("annotator", "annotate", *drawn)
    labelled = ("--kind", "walking", "--difficulty", "1")
    as_("annotator", "annotate", "label", sequence, "1", entity.key, *labelled)
    with open_project(packs["rater"]) as p:
        ray = p.annotators.sign_in("Ray")
        while (q := p.reasoning.next_to_rate(ray)) is not None:
            p.reasoning.rate(q.id, ray, 1 + q.id % 5)
    with open_project(packs["human-baseline"]) as p:
        hal = p.annotators.sign_in("Hal")
        while (q := p.reasoning.next_to_answer(hal)) is not None:
            p.reasoning.answer(q.id, hal, [10, 10, 40, 80] if q.task == "vg" else 2)
