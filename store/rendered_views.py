"""First views rendered once and shared: a cache keyed by what goes into the pixels.

`sim.tabletop.first_view` renders a scene's first view and names it by a content hash
(`view_key`); this repository keeps it: the PNG bytes of each view in `images` and the
state in `states` (both stored once by content), the segmentation and the body names in
`rendered_views`. Nothing here is anyone's work: a missing or dropped row is rendered
again, with the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from store.base import Repository, dumps, loads
from store.episodes import ImageRepository
from store.errors import utc_now
from store.state_blobs import state_json
from store.states import StateRepository


@dataclass(frozen=True)
class StoredView:
    """A stored first view, as `sim.tabletop.first_view.FirstView` holds it."""

    key: str
    scene_id: int | None
    width: int
    height: int
    images: dict[str, bytes]  # view name -> PNG bytes
    state: dict[str, Any]
    segmentation: bytes  # `FirstView.segmentation_blob()`
    names: dict[int, str]
    gripper: str


class RenderedViewRepository(Repository):
    def __init__(self, project, *, images: ImageRepository, states: StateRepository) -> None:
        super().__init__(project)
        self.images = images
        self.states = states

    def get(self, key: str) -> StoredView | None:
        row = self.db.execute(
            "SELECT key, scene_id, width, height, images, state_sha256, segmentation, names, "
            "gripper FROM rendered_views WHERE key = ?",
            [key],
        ).fetchone()
        if row is None:
            return None
        state = self.states.text(row[5])
        shas = loads(row[4], {})
        if state is None or not all(self.images.has(sha) for sha in shas.values()):
            return None  # a part went missing: render it again
        return StoredView(
            key=row[0],
            scene_id=row[1],
            width=row[2],
            height=row[3],
            images={view: self.images.get(sha)[1] for view, sha in shas.items()},
            state=loads(state),
            segmentation=row[6],
            names={int(uid): name for uid, name in loads(row[7], {}).items()},
            gripper=row[8],
        )

    def put(self, view: StoredView) -> None:
        """Store a first view (again: the same key replaces the row). Joins the caller's
        transaction."""
        with self.project.write():
            shas = {
                name: self.images.put(png, "image/png", view.width, view.height)
                for name, png in sorted(view.images.items())
            }
            state_sha = self.states.put(state_json(view.state))
            self.db.execute(
                "INSERT OR REPLACE INTO rendered_views(key, scene_id, width, height, images, "
                "state_sha256, segmentation, names, gripper, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    view.key,
                    view.scene_id,
                    view.width,
                    view.height,
                    dumps(shas),
                    state_sha,
                    view.segmentation,
                    dumps({str(uid): name for uid, name in sorted(view.names.items())}),
                    view.gripper,
                    utc_now(),
                ],
            )

    def count(self) -> int:
        return self.db.execute("SELECT count(*) FROM rendered_views").fetchone()[0]
