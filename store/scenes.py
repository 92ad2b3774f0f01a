"""Simulator scenes and their bodies."""

from __future__ import annotations

from typing import Any

from annotation.models import Annotator, Body, Scene, SceneSummary
from store.base import Repository, dumps, loads
from store.errors import ProjectError, utc_now

_BODY_COLUMNS = (
    "body_key, name, category, asset, size, scale, rgba, texture, position, orientation, fixed, "
    "joints, role, label_patch"
)


def _body(r: tuple) -> Body:
    return Body(
        key=r[0],
        name=r[1],
        category=r[2],
        asset=r[3],
        size=tuple(loads(r[4])) if r[4] else None,
        scale=r[5],
        rgba=tuple(loads(r[6])) if r[6] else None,
        texture=r[7],
        position=tuple(loads(r[8])),
        orientation=tuple(loads(r[9])),
        fixed=bool(r[10]),
        joints=loads(r[11], {}),
        role=r[12],
        label_patch=loads(r[13]) if r[13] else None,
    )


class SceneRepository(Repository):
    def add(self, scene: dict[str, Any], annotator: Annotator | None = None) -> int:
        """Store one scene (name, benchmark, seed, generator, camera, state, bodies); return its id.

        `bodies` are benchmark-export records (id, name, category, role, asset, size,
        scale, rgba, texture, position, orientation, fixed, joints). One transaction.
        """
        bodies = scene.get("bodies") or []
        if not bodies:
            raise ValueError("a scene needs its bodies")
        objects = sum(1 for b in bodies if b.get("role", "object") == "object")
        with self.project.write():
            cur = self.db.execute(
                "INSERT INTO scenes(name, benchmark, seed, generator, camera, state, created_at, "
                "created_by, object_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    scene.get("name") or f"scene seed {scene.get('seed')}",
                    scene.get("benchmark", "mgvqa"),
                    scene.get("seed"),
                    scene.get("generator", ""),
                    dumps(scene.get("camera", {})),
                    dumps(scene.get("state", {})),
                    utc_now(),
                    annotator.id if annotator else None,
                    objects,
                ],
            )
            scene_id = cur.lastrowid
            for b in bodies:
                self.db.execute(
                    f"INSERT INTO scene_bodies(scene_id, {_BODY_COLUMNS}) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [
                        scene_id,
                        b["id"],
                        b.get("name", b["id"]),
                        b.get("category", ""),
                        b["asset"],
                        dumps(b["size"]) if b.get("size") else None,
                        float(b.get("scale", 1.0)),
                        dumps(b["rgba"]) if b.get("rgba") else None,
                        b.get("texture"),
                        dumps(list(b["position"])),
                        dumps(list(b["orientation"])),
                        int(bool(b.get("fixed"))),
                        dumps(b.get("joints", {})),
                        b.get("role", "object"),
                        dumps(b["label_patch"]) if b.get("label_patch") else None,
                    ],
                )
            self._audit(annotator, "create", "scenes", scene_id, {"seed": scene.get("seed")})
        return scene_id

    def get(self, scene_id: int) -> Scene:
        row = self.db.execute(
            "SELECT id, name, benchmark, seed, camera, state, created_at, generator, object_count "
            "FROM scenes WHERE id = ?",
            [scene_id],
        ).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no scene with id {scene_id}")
        bodies = self.db.execute(
            f"SELECT {_BODY_COLUMNS} FROM scene_bodies WHERE scene_id = ? ORDER BY id", [scene_id]
        ).fetchall()
        return Scene(
            id=row[0],
            name=row[1],
            benchmark=row[2],
            seed=row[3],
            camera=loads(row[4], {}),
            state=loads(row[5], {}),
            created_at=row[6],
            bodies=tuple(_body(b) for b in bodies),
            generator=row[7],
            object_count=row[8],
        )

    def list(
        self,
        *,
        min_objects: int | None = None,
        max_objects: int | None = None,
        seed: int | None = None,
        limit: int = 10_000,
    ) -> list[SceneSummary]:
        where, params = [], []
        if min_objects is not None:
            where.append("object_count >= ?")
            params.append(min_objects)
        if max_objects is not None:
            where.append("object_count <= ?")
            params.append(max_objects)
        if seed is not None:
            where.append("seed = ?")
            params.append(seed)
        sql = (
            "SELECT id, name, seed, object_count, created_at, (SELECT asset FROM scene_bodies b "
            "WHERE b.scene_id = scenes.id AND b.body_key = 'robot_gripper') FROM scenes"
        )
        if where:
            sql += " WHERE " + " AND ".join(where)
        rows = self.db.execute(sql + " ORDER BY id LIMIT ?", [*params, limit]).fetchall()
        return [SceneSummary(*r) for r in rows]

    def ids(self) -> list[int]:
        return [r[0] for r in self.db.execute("SELECT id FROM scenes ORDER BY id")]

    # -- the scene editor's unsaved work ----------------------------------------------------
    def save_draft(self, scene_id: int | None, draft: dict[str, Any]) -> None:
        """Keep the scene editor's unsaved state (after every edit), one draft per scene
        opened for editing, so a crash or a switch to another scene loses nothing."""
        with self.project.write():
            self.db.execute(
                "INSERT INTO project_meta(key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                [f"scene_draft:{scene_id}", dumps(draft)],
            )

    def draft(self, scene_id: int | None) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT value FROM project_meta WHERE key = ?", [f"scene_draft:{scene_id}"]
        ).fetchone()
        return loads(row[0]) if row else None

    def clear_draft(self, scene_id: int | None) -> None:
        with self.project.write():
            self.db.execute("DELETE FROM project_meta WHERE key = ?", [f"scene_draft:{scene_id}"])
