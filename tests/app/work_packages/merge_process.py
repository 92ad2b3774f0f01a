"""A merge to be killed: `python merge_process.py PROJECT PACKAGE PAUSE_AT`.

Runs `merge_package` and, once PAUSE_AT rows of work have been taken in (inside the
merge's one transaction), prints "paused" and sleeps, so the test can kill -9 it there.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.work_packages.merge import merge_package  # noqa: E402


def main() -> None:
    project, package, pause_at = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])

    def progress(done: int, _total: int) -> None:
        if done == pause_at:
            print("paused", flush=True)
            time.sleep(60)

    merge_package(project, package, progress=progress)
    print("merged", flush=True)


if __name__ == "__main__":
    main()
