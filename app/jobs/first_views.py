"""First views of a run's scenes: found in the project by content, else rendered once.

`first_views(project, scenes, camera, ...)` gives every scene's `FirstView` for this
camera, gripper and set of views: the stored one when the project has it (a run, a
repeat or another model rendered it before, or `--prerender` did at generation or
import), else rendered now (in the run's simulation processes when it has them) and
stored, so that the next run sends the same bytes without touching the simulator.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from annotation.progress import Progress
from sim.camera import CameraSpec
from sim.tabletop.first_view import FirstView, render_first_view, view_key
from sim.tabletop.world import MODEL_IMAGE_SIZE, TOP_DOWN, TOP_DOWN_VIEW
from store import Project
from store.rendered_views import StoredView


def scene_data(project: Project, scene_id: int) -> dict[str, Any]:
    """What a worker needs of a stored scene to rebuild it: its body records and state."""
    scene = project.scenes.get(scene_id)
    return {"bodies": [b.as_record() for b in scene.bodies], "state": scene.state}


def as_stored(view: FirstView, scene_id: int | None) -> StoredView:
    h, w = view.segmentation.shape
    return StoredView(
        key=view.key,
        scene_id=scene_id,
        width=w,
        height=h,
        images=dict(view.images),
        state=view.state,
        segmentation=view.segmentation_blob(),
        names=dict(view.names),
        gripper=view.gripper,
    )


def from_stored(stored: StoredView) -> FirstView:
    return FirstView(
        key=stored.key,
        images=dict(stored.images),
        state=stored.state,
        segmentation=FirstView.segmentation_from(stored.segmentation),
        names=dict(stored.names),
        gripper=stored.gripper,
    )


def _render_job(job: dict[str, Any]) -> FirstView:
    return render_first_view(job["scene"], job["camera"], job["gripper"], job["views"])


def first_views(
    project: Project,
    scenes: Mapping[int, dict[str, Any]],
    camera: CameraSpec,
    *,
    gripper: str | None = None,
    views: Sequence[str] = (TOP_DOWN_VIEW,),
    progress: Progress | None = None,
    hosts=None,
) -> dict[int, FirstView]:
    """Scene id -> its first view (`scenes`: id -> `scene_data`); the missing ones are
    rendered (on `hosts`, `app.jobs.sim_hosts.SimHosts`, when given) and stored."""
    progress = progress or Progress()
    out: dict[int, FirstView] = {}
    missing: dict[int, str] = {}
    for scene_id, scene in scenes.items():
        key = view_key(scene, camera, gripper, views)
        stored = project.rendered_views.get(key)
        if stored is not None:
            out[scene_id] = from_stored(stored)
        else:
            missing[scene_id] = key
    jobs = [
        {"scene": scenes[sid], "camera": camera, "gripper": gripper, "views": tuple(views)}
        for sid in missing
    ]
    if hosts is not None and len(jobs) > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(len(hosts)) as pool:
            rendered = pool.map(lambda job: hosts.run(_render_job, job), jobs)
            _keep(project, missing, rendered, out, progress)
    else:
        _keep(project, missing, map(_render_job, jobs), out, progress)
    return out


def _keep(project, missing, rendered, out, progress) -> None:
    total = len(missing)
    for n, (scene_id, view) in enumerate(zip(missing, rendered, strict=True), start=1):
        with project.write():
            project.rendered_views.put(as_stored(view, scene_id))
        out[scene_id] = view
        progress.report(n, total, f"first views rendered: {n} of {total}")


def prerender(
    project: Project,
    scene_ids: Sequence[int],
    *,
    image_size: int = MODEL_IMAGE_SIZE,
    progress: Progress | None = None,
) -> int:
    """Render and store the Direct-mode first view (top-down, the default size, each
    scene's own gripper) of every scene that lacks it; return how many were rendered."""
    camera = TOP_DOWN.with_size(image_size, image_size)
    before = project.rendered_views.count()
    scenes = {sid: scene_data(project, sid) for sid in dict.fromkeys(scene_ids)}
    first_views(project, scenes, camera, progress=progress)
    return project.rendered_views.count() - before


def prerender_questions(
    db,
    question_ids: Sequence[int] | None = None,
    *,
    image_size: int = MODEL_IMAGE_SIZE,
    progress: Progress | None = None,
) -> int:
    """`--prerender`: the Direct-mode first view of the scenes of these MG-VQA questions
    (None: every current one with a scene), rendered and stored where missing; how many
    were rendered."""
    from store import open_project

    with open_project(db) as project:
        if question_ids is None:
            scene_ids = project.questions.scene_ids("mgvqa")
        else:
            chosen = [project.questions.get(qid) for qid in question_ids]
            scene_ids = [q.scene_id for q in chosen if q.scene_id is not None]
        return prerender(project, scene_ids, image_size=image_size, progress=progress)
