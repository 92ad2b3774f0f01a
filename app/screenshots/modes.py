"""`make screenshots`: how each mode is shown before its picture is taken (a person
selected, a question open, a grasp step, ...), as a person would leave it."""

from __future__ import annotations

from pathlib import Path

from app.screenshots.tools import settle


def verify_jrdb(app, window, out: Path) -> list[Path]:
    """Verify questions on a JRDB-Reasoning question: the evidence view (answer row, then a
    step), and the Scene graph dock with the question's evidence highlighted."""
    from PySide6.QtCore import Qt

    window.set_mode("verify")
    verify, state = window.mode("verify"), window.mode("verify").state
    state.show_list("queue")  # new candidates wait in the first-round queue
    rows = [i for i, q in enumerate(state.questions) if q.benchmark == "jrdb" and q.task == "vg"]
    if not rows:
        return []  # a demo without JRDB questions
    rows.sort(
        key=lambda i: -(state.questions[i].difficulty.D if state.questions[i].difficulty else 0)
    )
    state.open_row(rows[0])
    view = verify.jrdb.view
    for _ in range(100):  # the panorama is read off the GUI thread
        if view.detail.has_image:
            break
        settle(app, 100)
    state.toggle(1)
    settle(app, 400)
    paths = [
        out / "03-verify-jrdb.png",
        out / "03-verify-jrdb-step.png",
        out / "03-verify-jrdb-graph.png",
    ]
    window.grab().save(str(paths[0]))
    few = [i for i, r in enumerate(view.rows) if not r.answer and 1 < len(r.keys) < 5]
    view.select_row(few[0] if few else 1)
    settle(app, 400)
    window.grab().save(str(paths[1]))
    view.select_row(0)
    mode = window.mode_window("verify")
    graph = mode.docks["graph"]
    graph.raise_()
    mode.resizeDocks([graph], [max(graph.height(), 460)], Qt.Orientation.Vertical)
    for _ in range(150):  # the JRDB graph is read off the GUI thread
        settle(app, 100)
        if graph.widget().graph.entities:
            break
    settle(app, 300)
    window.grab().save(str(paths[2]))
    mode.docks["question"].raise_()
    state.toggle(1)
    return paths


def verify_compare(app, window, path: Path) -> list[Path]:
    """Verify questions on a Compare question (the demo's waits for adjudication): the
    fourth criterion, volumes distinct, shows; 1 to 3 ticked, 4 not yet, so Approve waits."""
    window.set_mode("verify")
    verify, state = window.mode("verify"), window.mode("verify").state
    for name in ("queue", "adjudication"):
        rows = [i for i, q in enumerate(state.lists[name]) if q.task == "compare"]
        if rows:
            state.show_list(name)
            state.open_row(rows[0])
            break
    else:
        return []  # a demo without a Compare question this person may verify
    for _ in range(300):  # the scene restores off the GUI thread
        if verify.loaded is not None or state.scene is None:
            break
        settle(app, 100)
    for criterion in (1, 2, 3):
        state.toggle(criterion)
    settle(app, 400)
    window.grab().save(str(path))
    state.show_list("queue")
    return [path]


def study_image(app, study) -> None:
    """Let Human study's image arrive (a tabletop scene renders off the GUI thread)."""
    for _ in range(300):
        if study.task is None and study.wanted is None:
            break
        settle(app, 100)
    settle(app, 300)


def study_seam(app, window, path: Path) -> Path:
    """The baseline's panorama zoomed on its seam, with a box drawn across it (as a
    person draws one around someone standing right behind the robot)."""
    from annotation.jrdb.dataset import PANORAMA_WIDTH

    image = window.mode("study").image
    image.panorama.zoom_by(3.0)
    image.panorama.view.centerOn(PANORAMA_WIDTH, 240)
    image.show_boxes([[PANORAMA_WIDTH - 70.0, 150.0, 120.0, 240.0]])
    settle(app)
    window.grab().save(str(path))
    image.show_boxes([])
    image.panorama.fit()
    return path


def select_person(app, annotate) -> None:
    """Leave Annotate HOI on the demo sequence with someone near objects selected, the points
    coloured by entity."""
    state = annotate.state
    if state.frame is None:
        return  # a demo without a sequence shows the mode's empty state
    for _ in range(300):  # the cloud is read, and the relations computed, off the GUI thread
        if annotate.shown == state.frame.id:
            break
        settle(app, 100)
    relations = annotate.session.project.sequences.relations(state.frame.id)
    objects = set(state.objects_in_frame())

    def near_objects(person: int) -> int:
        return sum(
            r.reference_entity_id == person
            and r.subject_entity_id in objects
            and r.distance_bin in ("very-close", "close")
            for r in relations
        )

    people = state.people_in_frame()
    if people:
        state.select(max(people, key=near_objects))
    annotate.cloud.set_colour_mode("entity")
    annotate.actions["colour"].setText("Colour: entity")
    settle(app, 600)


def cuboid_views(app, window, path: Path) -> Path:
    """Annotate HOI with an object's 3D box open for the mouse (Ctrl+B): the Box dock and the
    cuboid views under the cloud; then the docks as they were, the person selected again."""
    from PySide6.QtCore import Qt

    annotate = window.mode("annotate")
    state, mode = annotate.state, window.mode_window("annotate")
    chosen = state.selected
    boxed = [i for i in state.objects_in_frame() if state.box_3d(i) is not None]
    if boxed:  # the largest: a table or a chair shows its legs and the floor around them
        box = max((state.box_3d(i) for i in boxed), key=lambda b: b.l * b.w * b.h)
        state.select(box.entity_id)
    annotate.boxes.show_panel()
    dock = annotate.boxes.views_dock
    mode.resizeDocks([dock], [250], Qt.Orientation.Vertical)
    settle(app, 800)
    window.grab().save(str(path))
    dock.hide()
    if "hoi_labels" in mode.docks:
        mode.docks["hoi_labels"].raise_()
    state.select(chosen)
    settle(app, 300)
    return path


def generator_step(app, window, path: Path) -> Path:
    """Annotate HOI with the question generator in front: a clique question, a step selected
    (its boxes emphasised in the image and the cloud, the rest dimmed)."""
    from annotation.query.model import Preferences

    annotate = window.mode("annotate")
    gen = annotate.generator
    annotate.state.select(None)
    gen.raise_dock()
    gen.panel.set_preferences(Preferences("vg", "image", "both", "clique"), seed=0)
    gen.panel.request_generate()
    for _ in range(300):  # the graph is read (relations computed) off the GUI thread
        if gen.task is None:
            break
        settle(app, 100)
    steps = gen.question.steps if gen.question is not None else ()
    few = [i for i, s in enumerate(steps) if 1 < len(s.entity_ids) < 5]
    gen.panel.select_step(few[0] if few else len(steps) - 1)
    settle(app, 800)
    window.grab().save(str(path))
    return path


def graph_tab(app, window, key: str, path: Path) -> Path:
    """Grab mode `key` with its Scene graph dock raised (its graph computed) and made
    taller, as a person looking at it would; then put back the dock that was in front. In
    Verify, on a question with a stored scene."""
    from PySide6.QtCore import Qt

    mode = window.mode_window(key)
    state = window.mode("verify").state
    if key == "verify" and (state.current is None or state.current.scene_id is None):
        for name, questions in state.lists.items():
            rows = [i for i, q in enumerate(questions) if q.scene_id is not None]
            if rows:
                state.show_list(name)
                state.open_row(rows[0])
                break
    graph = mode.docks["graph"]
    front = [d for d in mode.tabifiedDockWidgets(graph) if not d.visibleRegion().isEmpty()]
    graph.raise_()
    mode.resizeDocks([graph], [max(graph.height(), 460)], Qt.Orientation.Vertical)
    for _ in range(150):  # simulator graphs are computed off the GUI thread
        settle(app, 100)
        if graph.widget().graph.entities:
            break
    settle(app, 300)
    window.grab().save(str(path))
    for dock in front:
        dock.raise_()
    return path


def replay_bimanual(app, window, path: Path) -> list[Path]:
    """Replay episodes on dual-arm episodes at a step with a failed action: the replay in
    sim of a logged run if there is one (it has the world's states), then an imported log
    as it came (its stored views only; `-log` after the name)."""
    window.set_mode("replay")
    replay = window.mode("replay")
    state = replay.state
    dual = [e for e in state.episodes if e.benchmark == "bimanual"]
    if not dual:
        return []  # a demo without dual-arm episodes
    in_sim = next((e for e in dual if e.agent == "replay-in-sim"), dual[0])
    logged = [e for e in dual if e.agent in ("bimanibench", "embodiedbench")]
    project = window.session.project
    failed = [e for e in logged if any(s.ok is False for s in project.episodes.steps(e.id))]
    log = (failed or logged or [None])[0]
    written = []
    for episode, target in ((in_sim, path), (log, path.with_name(path.stem + "-log.png"))):
        if episode is None:
            continue
        replay.episodes.select_row(state.episodes.index(episode))
        for _ in range(600):  # the dual-arm world is built off the GUI thread
            if replay.view.loaded is not None and not replay.view.loading:
                break
            settle(app, 100)
        state.seek(state.bookmarks[0] if state.bookmarks else 0)
        settle(app, 600)
        window.grab().save(str(target))
        written.append(target)
    return written


def grasp_step(project, episode_id: int) -> tuple[int, int] | None:
    """(rank, index) of the episode's most telling grasp step: a failed grasp whose fingers
    closed (planned vs actual gripper, rank 0), else one that closed (1), else any (2)."""
    grasps = [s for s in project.episodes.steps(episode_id) if s.name == "grasp"]

    def closed(s) -> bool:
        return bool(((s.result or {}).get("replay") or {}).get("tool_at_close"))

    for rank, chosen in enumerate(
        (
            [s for s in grasps if closed(s) and s.ok is False],
            [s for s in grasps if closed(s)],
            grasps,
        )
    ):
        if chosen:
            return rank, chosen[0].index
    return None


def open_grasp_step(app, replay) -> None:
    """Leave Replay episodes on a grasp step: the mask, the points, the plan, the fingers."""
    state = replay.state
    project = replay.session.project
    found = [(e.id, grasp_step(project, e.id)) for e in state.episodes]
    with_grasp = sorted(((g[0], e, g[1]) for e, g in found if g is not None))
    if not found:
        return  # a demo without episodes shows the mode's empty list
    _rank, episode_id, index = (with_grasp or [(0, found[0][0], 0)])[0]
    replay.episodes.select_row([e.id for e in state.episodes].index(episode_id))
    for _ in range(300):  # the scene restores off the GUI thread
        if replay.view.loaded is not None:
            break
        settle(app, 100)
    state.seek(index)
    for _ in range(300):  # the image and the points render off the GUI thread
        if replay.cloud.point_count or not with_grasp:
            break
        settle(app, 100)
    settle(app, 400)
