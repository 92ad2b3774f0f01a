"""Without the hf extra (datasets, pyarrow), the Hugging Face format exits 2 with the pip line,
the way the cluster extra does; nothing is written."""

from __future__ import annotations

import sys

import pytest

from app.cli import main
from store import open_project


@pytest.fixture
def no_hf(monkeypatch):
    for name in ("datasets", "pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)  # import raises ImportError


def test_export_says_the_pip_line(no_hf, tmp_path, capsys):
    db = tmp_path / "p.reasonscope"
    open_project(db, create=True).close()
    out = tmp_path / "dataset"
    argv = ["export", "benchmark", "--db", str(db), "--format", "hf", "--out", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'reasonscope[hf]'" in err
    assert not out.exists()


def test_import_of_a_folder_says_the_pip_line(no_hf, tmp_path, capsys):
    db = tmp_path / "p.reasonscope"
    open_project(db, create=True).close()
    (tmp_path / "dataset" / "data").mkdir(parents=True)
    assert main(["import", "benchmark", str(tmp_path / "dataset"), "--db", str(db)]) == 2
    assert "pip install 'reasonscope[hf]'" in capsys.readouterr().err
