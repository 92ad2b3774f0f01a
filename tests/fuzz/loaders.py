"""What the GUI loads from a project, run headless on what an import stored: the Replay,
Verify, Results and Annotate state objects and the Qt-free loaders beside them.

`load_everything(db)` opens the project as the app does and walks it the way a person
would: every episode opened in `ReplayState` and stepped through (each step's panel text,
its views decoded, the episode's camera and world from `app.modes.replay.loading`), every
question of both Verify queues opened in `VerifyState` (its panel text, its scene restored
by `sim.tabletop.restore.load_scene`, a JRDB question's evidence read), every Results
table built, and every JRDB sequence shown frame by frame in `JrdbViewState` with its
lidar sweeps merged. It returns the first problem as one line, or None.
"""

from __future__ import annotations

import io
import traceback
from pathlib import Path

VERIFIER = "fuzz verifier"
MODEL_IMAGE_SIZE = 64  # Verify restores scenes at this size here (the check is the restore)


def load_everything(db: Path) -> str | None:
    from store import open_project

    try:
        with open_project(db) as project:
            for load in (load_results, load_replay, load_verify, load_annotate):
                load(project)
    except Exception:  # noqa: BLE001  (what the contract is about)
        return "loading what was stored: " + traceback.format_exc()
    return None


# -- Results ---------------------------------------------------------------------------------
def load_results(project) -> None:
    """Every Results page's numbers (as ResultsMode.refresh reads them) and table."""
    from app.jobs.metrics import (
        project_bimanual_metrics,
        project_episode_metrics,
        project_hoi_metrics,
        project_reasoning_metrics,
        project_verification_metrics,
    )
    from app.jobs.tables import TABLES, metric_table, to_csv, to_latex
    from app.modes.results.team import team_rows

    metrics = {
        "verification": project_verification_metrics(project),
        "episodes": project_episode_metrics(project),
        "hoi": project_hoi_metrics(project),
        "reasoning": project_reasoning_metrics(project),
        "bimanual": project_bimanual_metrics(project),
    }
    for tag in project.episode_queries.episode_tags():
        project_episode_metrics(project, tag)
    team_rows(project)
    for name in TABLES:
        table = metric_table(metrics, name)
        to_csv(table)
        to_latex(table)


# -- Replay ----------------------------------------------------------------------------------
def load_replay(project) -> None:
    """Every episode opened in the Replay state, each step shown."""
    from widgets.replay.state import ReplayState

    state = ReplayState(project.episodes)
    state.refresh()
    for episode in list(state.episodes):
        state.open(episode.id)
        _show_steps(project, state)
        _load_world(project, state)
        state.close()


def _show_steps(project, state) -> None:
    from app.modes.replay.bimanual import is_bimanual
    from widgets.replay.bimanual_step import bimanual_step_html, bimanual_step_title
    from widgets.replay.step_panel import step_html, step_title
    from widgets.replay.timeline import Tick

    bimanual = is_bimanual(state.episode)
    for i, step in enumerate(state.step_dicts):
        state.seek(i)
        Tick.of(i, step)
        if bimanual:
            bimanual_step_title(i, state.last_index, step)
            bimanual_step_html(step)
        else:
            step_title(i, state.last_index, step)
            step_html(step, [], {})
        for sha in step_views(step).values():
            _decode(project, sha)
    state.next_bookmark()
    state.previous_bookmark()


def step_views(step: dict) -> dict[str, str]:
    """The stored views a step shows (as the bimanual observation panel reads them): its
    `result.images` {view: sha256}, else its `image_sha256` as the head view."""
    result = step.get("result") if isinstance(step.get("result"), dict) else {}
    shas = dict(result.get("images") or {})
    if not shas and step.get("image_sha256"):
        shas = {"head": step["image_sha256"]}
    return shas


def _decode(project, sha: str) -> None:
    """A view's bytes, as the panel gets them (an image missing from the project is shown
    as none; one that does not decode as a blank: neither is an error)."""
    from PIL import Image

    from store import ProjectError

    try:
        _mime, data = project.images.get(sha)
    except ProjectError:
        return
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
    except Exception:  # noqa: BLE001  (Qt shows an undecodable image as a null image)
        return


def _load_world(project, state) -> None:
    """The Replay's off-thread load (`load_episode`): the camera, and the scene's worlds or
    the dual-arm world when the episode has states to restore."""
    from app.modes.replay.loading import load_episode

    episode = state.episode
    scene = project.scenes.get(episode.scene_id) if episode.scene_id is not None else None
    loaded = load_episode(episode, list(state.step_dicts), scene)
    try:
        if loaded.view is not None:
            for i in range(len(state.step_dicts)):
                loaded.view.seek(i)
    finally:
        loaded.close()


# -- Verify ----------------------------------------------------------------------------------
def load_verify(project) -> None:
    """Every question of both Verify queues opened, its panel filled and its scene (or its
    JRDB frames) loaded; then every other current question (approved, excluded: Explore
    and the exports show them) described and its scene restored the same way."""
    from widgets.verify.state import VerifyState

    verifier = project.annotators.sign_in(VERIFIER)
    state = VerifyState(project.verifications, verifier, scenes=project.scenes)
    seen: set[int] = set()
    restored: set[int] = set()
    for name in list(state.lists):
        state.show_list(name)
        for row in range(len(state.questions)):
            state.open_row(row)
            state.corrections()
            _show_question(project, state.current, restored)
            seen.add(state.current.id)
    after = None
    while True:
        page = project.questions.page(after=after, limit=200)
        for question in page.rows:
            if question.id not in seen:
                _show_question(project, question, restored)
        if page.next_cursor is None:
            return
        after = page.next_cursor


def _show_question(project, question, restored: set[int]) -> None:
    from app.modes.verify.jrdb import read_evidence
    from sim.tabletop.restore import load_scene
    from widgets.verify.jrdb_evidence_rows import answer_words, evidence_rows, is_jrdb
    from widgets.verify.state import format_answer
    from widgets.verify.text import describe_answer, describe_difficulty, steps_html, task_words

    task_words(question.task)
    format_answer(question.answer)
    describe_answer(question.answer)
    describe_difficulty(question)
    steps_html(question.steps)
    if is_jrdb(question):
        evidence_rows(question)
        answer_words(question)
        if question.sequence_id is not None:
            read_evidence(project, question)
    if question.scene_id is not None and question.scene_id not in restored:
        restored.add(question.scene_id)
        loaded = load_scene(project.scenes.get(question.scene_id), image_size=MODEL_IMAGE_SIZE)
        loaded.world.close()


# -- Annotate (JRDB sequences) ----------------------------------------------------------------
def load_annotate(project) -> None:
    """Every JRDB sequence shown frame by frame, each frame's sweeps merged."""
    from app.io.jrdb import frame_points
    from store import ProjectError
    from widgets.jrdb.state import JrdbViewState

    state = JrdbViewState()
    for sequence in project.sequences.list():
        state.load(project, sequence.id)
        for i, frame in enumerate(state.frames):
            state.set_frame(i)
            for entity_id in state.people_in_frame() + state.objects_in_frame():
                state.label(entity_id)
                state.labels_of(entity_id)
            try:
                frame_points(sequence, frame)
            except ProjectError:
                pass  # the Annotate mode says so in one line and shows the frame without them
