"""`make screenshots`: every mode with the demo project, in the order a person meets them,
then the Results tabs, the shortcut sheet, work packages, the scene editor and sign-in."""

from __future__ import annotations

from pathlib import Path

from app.screenshots.modes import (
    cuboid_views,
    generator_step,
    graph_tab,
    open_grasp_step,
    replay_bimanual,
    select_person,
    study_image,
    study_seam,
    verify_compare,
    verify_jrdb,
)
from app.screenshots.tools import open_question, settle


def take_screenshots(out: Path, *, size: tuple[int, int] = (1280, 860)) -> list[Path]:
    from app.demo import build_demo
    from app.gui import create_application
    from app.main_window import MainWindow
    from app.paths import demo_project_path
    from app.screenshots.authoring import editor_shots, package_shots

    out.mkdir(parents=True, exist_ok=True)
    build_demo(demo_project_path())
    app = create_application()
    window = MainWindow()
    window.resize(*size)
    window.show()
    window.open_path(demo_project_path())
    window.session.sign_in("Ada (annotator)")
    # what the window shows first: the opening mode's busy page while it is built
    written = [out / "00-opening.png"]
    window.grab().save(str(written[0]))
    select_explore_body(app, window)
    written += mode_shots(app, window, out)
    written += verify_jrdb(app, window, out)
    written += verify_compare(app, window, out / "03-verify-compare.png")
    written += replay_bimanual(app, window, out / "04-replay-bimanual.png")
    written += results_tabs(app, window, out)
    written += shortcut_sheet(app, window, out / "06-shortcuts.png")
    written += package_shots(app, window, out)
    written += editor_shots(app, window, out)
    written += sign_in(app, window, out / "07-sign-in.png")
    window.close()
    return written


def select_explore_body(app, window) -> None:
    """Show a scene with a body selected, as a person would leave it."""
    explore = window.mode("explore")
    if not explore.state.scenes:
        return
    explore.scene_list.select_row(0)
    deadline = 0
    while explore.state.loaded is None and deadline < 200:
        settle(app, 100)
        deadline += 1
    objects = explore.state.loaded.world.objects() if explore.state.loaded else []
    if objects:
        explore.state.select(objects[0].key)
    explore.image.overlay_box.setChecked(True)


def mode_shots(app, window, out: Path) -> list[Path]:
    """One picture per mode (NN-key.png), with the extra views some modes have."""
    from app.modes import MODES

    written = []
    for i, spec in enumerate(MODES, start=1):
        window.set_mode(spec.key)
        window.mode(spec.key)  # built now if it was not: the picture is the mode, not its busy page
        settle(app)
        if spec.key == "annotate":
            select_person(app, window.mode("annotate"))
        elif spec.key == "verify":
            open_question(app, window.mode("verify"))
        elif spec.key == "replay":
            open_grasp_step(app, window.mode("replay"))
        elif spec.key == "study":
            study_image(app, window.mode("study"))
        path = out / f"{i:02d}-{spec.key}.png"
        window.grab().save(str(path))
        written.append(path)
        if spec.key == "annotate":
            written.append(cuboid_views(app, window, out / f"{i:02d}-annotate-cuboid.png"))
            written.append(generator_step(app, window, out / f"{i:02d}-annotate-generator.png"))
        if spec.key == "study":  # the other task: answering a JRDB question as the baseline
            window.mode("study").set_task("answer")
            study_image(app, window.mode("study"))
            written.append(out / f"{i:02d}-study-baseline.png")
            window.grab().save(str(written[-1]))
            written.append(study_seam(app, window, out / f"{i:02d}-study-seam.png"))
            window.mode("study").set_task("rate")
        if "graph" in window.mode_window(spec.key).docks:  # the same, the Scene graph tab in front
            graph_png = out / f"{i:02d}-{spec.key}-graph.png"
            written.append(graph_tab(app, window, spec.key, graph_png))
    return written


def results_tabs(app, window, out: Path) -> list[Path]:
    """The other Results tabs (episodes, HOI labels, ...), then the Bimanual tab's lower
    half: spatial grounding."""
    from PySide6.QtWidgets import QScrollArea

    written = []
    window.set_mode("results")
    tabs = window.mode("results").tabs
    for index in range(1, tabs.count()):
        tabs.setCurrentIndex(index)
        settle(app)
        name = tabs.tabText(index).lower().replace(" ", "-")
        path = out / f"05-results-{name}.png"
        window.grab().save(str(path))
        written.append(path)
    bimanual = window.mode("results").bimanual_results
    tabs.setCurrentWidget(bimanual)
    scroll = bimanual.findChild(QScrollArea)
    scroll.verticalScrollBar().setValue(scroll.verticalScrollBar().maximum())
    settle(app)
    path = out / "05-results-spatial.png"
    window.grab().save(str(path))
    written.append(path)
    tabs.setCurrentIndex(0)
    return written


def shortcut_sheet(app, window, path: Path) -> list[Path]:
    """The F1 sheet of a mode with many keys of its own."""
    window.set_mode("annotate")
    settle(app)
    window.show_shortcuts()
    settle(app)
    window.shortcut_sheet.grab().save(str(path))
    window.shortcut_sheet.close()
    return [path]


def sign_in(app, window, path: Path) -> list[Path]:
    window.request_sign_in()
    settle(app)
    window.sign_in_dialog.grab().save(str(path))
    window.sign_in_dialog.reject()
    return [path]
