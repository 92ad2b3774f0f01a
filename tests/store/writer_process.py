"""A stand-in annotator for the reliability tests: N autosaved HOI labels, one at a time.

    python tests/store/writer_process.py DB N TAG

Opens the project DB (it must exist), signs in annotator "writer TAG", gets or
creates sequence "writer-TAG" with frame 0 and two entities, then saves N labels
with `project.hoi.add_label`, predicate "TAG-i". After each save returns, it prints
i and flushes, so every index a parent has read is a label that was committed.

Several copies may run against the same file at once: each TAG has its own
sequence, sign-in tolerates races, and the sequence set-up runs in one write
transaction, so a copy killed half-way leaves nothing half-made behind.

If WRITER_START_AT is set (a `time.time()` value), the writer waits until then
before opening the project, so that tests can make copies collide on purpose.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from store import ProjectError, open_project  # noqa: E402


def _fixture(project, tag: str) -> tuple[int, int, int]:
    """(frame id, person id, object id) for this tag, created once, atomically."""
    name = f"writer-{tag}"
    with project.write():
        sequence = project.sequences.find(name)
        if sequence is None:
            seq_id = project.sequences.add(name, f"/synthetic/{name}").id
            frame_id = project.sequences.add_frame(seq_id, 0).id
            person = project.sequences.add_entity(seq_id, "pedestrian:1", "human", "pedestrian")
            thing = project.sequences.add_entity(seq_id, "cup:1", "object", "cup")
            return frame_id, person, thing
        frame_id = project.sequences.frames(sequence.id)[0].id
        ids = project.sequences.entity_ids(sequence.id)
        return frame_id, ids["pedestrian:1"], ids["cup:1"]


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: writer_process.py DB N TAG", file=sys.stderr)
        return 2
    path, n, tag = argv[0], int(argv[1]), argv[2]
    start_at = float(os.environ.get("WRITER_START_AT", "0"))
    while time.time() < start_at:
        time.sleep(0.0005)
    try:
        project = open_project(path)
    except ProjectError as exc:
        print(exc, file=sys.stderr)
        return 1
    with project:
        annotator = project.annotators.sign_in(f"writer {tag}")
        frame_id, person, thing = _fixture(project, tag)
        for i in range(n):
            project.hoi.add_label(
                frame_id=frame_id,
                subject_entity_id=person,
                object_entity_id=thing,
                category="object",
                predicate=f"{tag}-{i}",
                difficulty=1 + i % 3,
                annotator=annotator,
            )
            sys.stdout.write(f"{i}\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
