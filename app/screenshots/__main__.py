"""`make screenshots`: one PNG per mode, with the demo project, into build/screenshots/.

Run under a display (xvfb-run); it builds the demo project in a scratch
folder so it never touches the user's own.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from app.screenshots.shots import take_screenshots


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=Path("build/screenshots"))
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        for var, name in (
            ("REASONSCOPE_DATA_DIR", "data"),
            ("REASONSCOPE_CONFIG_DIR", "config"),
            ("REASONSCOPE_LOG_DIR", "logs"),
        ):
            os.environ[var] = str(Path(scratch) / name)
        os.environ.setdefault("QT_QPA_PLATFORM", "xcb")
        for path in take_screenshots(args.out):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
