"""`make screenshots`, continued: work packages (File > Work packages) and the scene editor
(Explore scenes > Edit scene, Author question)."""

from __future__ import annotations

from pathlib import Path

from app.screenshots.tools import open_question, settle


def package_shots(app, window, out: Path) -> list[Path]:
    """File > Work packages: the create dialog; Eve's package (from the demo) opened as
    she sees it; her verdict merged back, with the report."""
    import shutil

    from annotation.verification import Verdict, asked_criteria

    written = [out / "08-package-create.png", out / "08-package-verify.png"]
    dialog = window.work_packages.create_dialog()
    dialog.person.setCurrentText("Fay (verifier)")
    dialog.limit.setValue(2)
    settle(app)
    dialog.grab().save(str(written[0]))
    dialog.reject()
    demo = window.session.path
    sent = [p for p in window.session.project.packages.list() if not p["merged_at"]]
    if not sent:
        return written[:1]
    package = out / "eve-verifier.rspack"
    shutil.copy(sent[0]["file"], package)
    window.open_path(package)
    window.set_mode("verify")
    open_question(app, window.mode("verify"))
    window.grab().save(str(written[1]))
    eve = window.session.annotator
    question = window.mode("verify").state.current
    criteria = {**dict.fromkeys(asked_criteria(question.task), True), "evidence_withheld": False}
    rejected = Verdict(**criteria, decision="reject", reason="the mug shows")
    window.session.project.verifications.submit(question.id, eve, rejected, 30.0)
    window.open_path(demo)
    window.session.sign_in("Ada (annotator)")
    window.work_packages.merge_dialog(package)
    settle(app)
    written.append(out / "08-package-merge.png")
    window.message_box.grab().save(str(written[-1]))
    window.message_box.close()
    package.unlink()
    shutil.rmtree(package.with_name(package.name + ".files"), ignore_errors=True)
    window.set_mode("results")
    window.mode("results").tabs.setCurrentWidget(window.mode("results").team_results)
    settle(app)
    written.append(out / "08-results-team-after-merge.png")
    window.grab().save(str(written[-1]))
    return written


def editor_shots(app, window, out: Path) -> list[Path]:
    """A demo scene being edited: the catalog, an object added and selected, the live
    visibility list, and the Author question dock with its objects clicked."""
    window.set_mode("explore")
    explore = window.mode("explore")
    explore.scene_list.select_row(0)
    for _ in range(200):
        if explore.state.loaded is not None:
            break
        settle(app, 100)
    editing = explore.editing
    if not editing.start():
        return []
    cube = editing.add("yellow cube", (0.12, 0.02))
    settle(app, 700)  # the catalog's pictures arrive
    panel = editing.authoring.panel
    panel.task.setCurrentIndex(1)  # Find
    explore.state.select(cube)
    editing.authoring.add_selected()
    panel.tags.setText("hard")
    settle(app)
    path = out / "01-explore-edit.png"
    window.grab().save(str(path))
    editing.undo()
    editing.stop()
    explore.state.select("")
    return [path]
