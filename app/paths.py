"""Where ReasonScope keeps the demo project, settings and logs.

Each folder follows the platform's conventions (platformdirs) and can be
redirected with an environment variable, which the tests use.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "reasonscope"


def _dir(env: str, default: str) -> Path:
    path = Path(os.environ.get(env) or default)
    path.mkdir(parents=True, exist_ok=True)
    return path


def data_dir() -> Path:
    return _dir("REASONSCOPE_DATA_DIR", platformdirs.user_data_dir(APP))


def config_dir() -> Path:
    return _dir("REASONSCOPE_CONFIG_DIR", platformdirs.user_config_dir(APP))


def log_dir() -> Path:
    return _dir("REASONSCOPE_LOG_DIR", platformdirs.user_log_dir(APP))


def demo_project_path() -> Path:
    return data_dir() / "demo.reasonscope"
