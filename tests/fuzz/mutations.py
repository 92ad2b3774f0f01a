"""What the fuzz tests do to a real input before importing it: plain-data `Mutation`s, the
hypothesis strategies that draw them from a seed's files, and `apply` that makes them.

A mutation is data (file, op, where, value) and prints as a Python literal, so a failing
example hypothesis finds is pasted into a test module's REGRESSIONS as it is and replayed
against the same seed.

Ops on JSON (a file that is one JSON value, or JSON Lines, `where` starting with the line):
  set        the value at `where` becomes VALUES[value] (another type, huge, NaN, empty, 1 MB)
  delete     the key or item at `where` goes
  dup_item   the list item at `where` appears twice
Ops on any file (`value` a position in per mille of the file, or (position, xor byte)):
  truncate   the file is cut short there
  flip       one byte is xor-ed
  bad_utf8   bytes that are not UTF-8 are inserted there
  dup_line   the line there is written twice;   drop_line   it goes
  not_image  the file's bytes become text;       as_image    a tiny PNG's bytes
  empty      the file is emptied;                remove      the file is deleted
Ops on a SQLite file (a work package): `row` sets column `where[2]` of the row with rowid
`where[1]` in table `where[0]` to ROW_VALUES[value] with plain sqlite3.
"""

from __future__ import annotations

import io
import json
import math
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from PIL import Image

LONG = "x" * (1 << 20)  # a 1 MB string
DEEP = "\x00deep\x00"  # stands for JSON nested 100,000 deep (json.dumps cannot write it)
DEEP_TEXT = "[" * 100_000 + "]" * 100_000
VALUES: dict[str, Any] = {
    "null": None,
    "true": True,
    "false": False,
    "zero": 0,
    "minus_one": -1,
    "half": 0.5,
    "1e308": 1e308,
    "-1e308": -1e308,
    "10**30": 10**30,
    "-10**30": -(10**30),
    "2**63": 2**63,
    "nan": math.nan,
    "inf": math.inf,
    "-inf": -math.inf,
    "empty_str": "",
    "space": " ",
    "str": "x",
    "number_str": "1",
    "long_str": LONG,
    "empty_list": [],
    "list": [1, "a", None],
    "empty_dict": {},
    "dict": {"a": 1},
    "deep": DEEP,
}
ROW_VALUES: dict[str, Any] = {
    "null": None,
    "empty_str": "",
    "space": " ",
    "str": "x",
    "not_json": "{",
    "json_list": "[]",
    "json_dict": "{}",
    "json_null": "null",
    "number_str": "1",
    "zero": 0,
    "minus_one": -1,
    "half": 1.5,
    "max_int": 2**63 - 1,
    "min_int": -(2**63),
    "1e308": 1e308,
    "inf": math.inf,
    "-inf": -math.inf,
    "long_str": LONG,
    "blob": b"\x00\xff\xfe",
}
JSON_OPS = ("set", "set", "set", "delete", "dup_item")
BYTE_OPS = ("truncate", "flip", "bad_utf8", "empty", "remove")
LINE_OPS = ("dup_line", "drop_line")
IMAGE_OPS = ("not_image", "truncate", "flip", "empty", "remove")
TEXT_OPS = ("as_image",)
NOT_UTF8 = b"\xff\xfe\xc3\x28"


@dataclass(frozen=True)
class Mutation:
    file: str  # relative to the input folder; "" when the input is the file itself
    op: str
    where: tuple = ()
    value: Any = None


@dataclass(frozen=True)
class SeedFile:
    """A seed file as the strategies see it: its kind and, for JSON, its parsed value
    (JSON Lines as the list of its lines' values)."""

    kind: str  # "json", "jsonl", "image", "text", "sqlite"
    value: Any = None


def tiny_png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def classify(path: Path) -> SeedFile:
    """What a seed file is, from its bytes."""
    data = path.read_bytes()
    if data.startswith(b"SQLite format 3\x00"):
        return SeedFile("sqlite")
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
        return SeedFile("image")
    except Exception:  # noqa: BLE001  (PIL raises many kinds: not an image)
        pass
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return SeedFile("text")
    try:
        return SeedFile("json", json.loads(text))
    except (ValueError, RecursionError):
        pass
    try:
        lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    except (ValueError, RecursionError):
        return SeedFile("text")
    return SeedFile("jsonl", lines) if lines else SeedFile("text")


def seed_files(root: Path) -> dict[str, SeedFile]:
    """Every file of a seed (a folder, or one file as "")."""
    if root.is_file():
        return {"": classify(root)}
    return {
        p.relative_to(root).as_posix(): classify(p) for p in sorted(root.rglob("*")) if p.is_file()
    }


# -- strategies --------------------------------------------------------------------------
@st.composite
def json_path(draw, value: Any, *, lines: bool) -> tuple:
    """A path into `value`, descending one level at a time (stopping anywhere below the
    top; JSON Lines always pick a line)."""
    path: list = []
    while isinstance(value, (dict, list)) and value:
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        must = lines and not path
        choice = draw(st.integers(0 if must else -1, len(keys) - 1))
        if choice < 0:
            break
        path.append(keys[choice])
        value = value[keys[choice]]
    return tuple(path)


@st.composite
def mutation(draw, files: dict[str, SeedFile]) -> Mutation:
    """One mutation of one of `files` (grouped by kind first, so images do not crowd out
    the label files)."""
    kinds = sorted({f.kind for f in files.values()})
    kind = draw(st.sampled_from(kinds))
    name = draw(st.sampled_from(sorted(n for n, f in files.items() if f.kind == kind)))
    seed = files[name]
    ops = {  # values changed more often than files broken: those get past the parsers
        "json": JSON_OPS * 3 + BYTE_OPS + TEXT_OPS,
        "jsonl": JSON_OPS * 3 + BYTE_OPS + LINE_OPS + TEXT_OPS,
        "image": IMAGE_OPS,
        "text": BYTE_OPS + LINE_OPS + TEXT_OPS,
        "sqlite": ("truncate", "flip"),
    }[kind]
    op = draw(st.sampled_from(ops))
    if op in ("set", "delete", "dup_item"):
        where = draw(json_path(seed.value, lines=kind == "jsonl"))
        value = draw(st.sampled_from(sorted(VALUES))) if op == "set" else None
        return Mutation(name, op, where, value)
    if op == "flip":
        return Mutation(name, op, (), (draw(st.integers(0, 999)), draw(st.integers(1, 255))))
    if op in ("truncate", "bad_utf8", "dup_line", "drop_line"):
        return Mutation(name, op, (), draw(st.integers(0, 999)))
    return Mutation(name, op)


def mutations(files: dict[str, SeedFile], most: int = 3):
    return st.lists(mutation(files), min_size=1, max_size=most)


@st.composite
def row_edit(draw, rows: dict[str, dict[str, list]]) -> Mutation:
    """A row of a package's table changed with sqlite3: `rows` is table -> {"rowids": [...],
    "columns": [...]} of the package's non-empty tables."""
    table = draw(st.sampled_from(sorted(rows)))
    rowid = draw(st.sampled_from(rows[table]["rowids"]))
    column = draw(st.sampled_from(rows[table]["columns"]))
    return Mutation("", "row", (table, rowid, column), draw(st.sampled_from(sorted(ROW_VALUES))))


# -- applying ----------------------------------------------------------------------------
def apply(root: Path, mutations_: list[Mutation] | tuple[Mutation, ...]) -> None:
    """Make each mutation in turn; one that no longer fits (its path is gone) does nothing."""
    for m in mutations_:
        path = root / m.file if m.file else root
        if not path.is_file():
            continue
        if m.op == "row":
            _edit_row(path, *m.where, ROW_VALUES[m.value])
        elif m.op in ("set", "delete", "dup_item"):
            _edit_json(path, m)
        elif m.op == "remove":
            path.unlink()
        else:
            path.write_bytes(_edit_bytes(path.read_bytes(), m))


def _at(size: int, per_mille: int) -> int:
    return min(size, size * per_mille // 1000)


def _edit_bytes(data: bytes, m: Mutation) -> bytes:
    if m.op == "truncate":
        return data[: _at(len(data), m.value)]
    if m.op == "flip":
        if not data:
            return data
        at = min(len(data) - 1, _at(len(data), m.value[0]))
        return data[:at] + bytes([data[at] ^ m.value[1]]) + data[at + 1 :]
    if m.op == "bad_utf8":
        at = _at(len(data), m.value)
        return data[:at] + NOT_UTF8 + data[at:]
    if m.op in ("dup_line", "drop_line"):
        lines = data.splitlines(keepends=True)
        if not lines:
            return data
        at = min(len(lines) - 1, _at(len(lines), m.value))
        line = lines[at] if lines[at].endswith(b"\n") else lines[at] + b"\n"
        lines[at : at + 1] = [line, line] if m.op == "dup_line" else []
        return b"".join(lines)
    if m.op == "not_image":
        return b"this is not an image\n"
    if m.op == "as_image":
        return tiny_png()
    if m.op == "empty":
        return b""
    raise ValueError(f"unknown op {m.op!r}")


def _dumps(value: Any) -> str:
    text = json.dumps(value)  # NaN and Infinity as Python's json writes them
    return text.replace(json.dumps(DEEP), DEEP_TEXT)


def _edit_json(path: Path, m: Mutation) -> None:
    seed = classify(path)
    if seed.kind not in ("json", "jsonl") or not m.where and seed.kind == "jsonl":
        return
    if seed.kind == "json":
        value = _changed(seed.value, m)
        if value is not _GONE:
            path.write_text(_dumps(value) + "\n", encoding="utf-8")
        return
    raw = path.read_text(encoding="utf-8").splitlines()
    numbered = [i for i, line in enumerate(raw) if line.strip()]
    line = m.where[0]
    if not isinstance(line, int) or line >= len(numbered):
        return
    inner = Mutation(m.file, m.op, m.where[1:], m.value)
    if not inner.where and m.op != "set":  # the whole line: delete or duplicate it
        at = numbered[line]
        raw[at : at + 1] = [] if m.op == "delete" else [raw[at], raw[at]]
    else:
        value = _changed(seed.value[line], inner)
        if value is _GONE:
            return
        raw[numbered[line]] = _dumps(value)
    path.write_text("\n".join(raw) + "\n", encoding="utf-8")


_GONE = object()


def _changed(value: Any, m: Mutation) -> Any:
    """`value` with the mutation made at m.where, or _GONE when the path is not there."""
    if not m.where:
        return VALUES[m.value] if m.op == "set" else _GONE
    *parents, last = m.where
    holder = value
    for key in parents:
        try:
            holder = holder[key]
        except (KeyError, IndexError, TypeError):
            return _GONE
    if isinstance(holder, dict) and last in holder:
        if m.op == "set":
            holder[last] = VALUES[m.value]
        elif m.op == "delete":
            del holder[last]
        else:
            return _GONE
    elif isinstance(holder, list) and isinstance(last, int) and last < len(holder):
        if m.op == "set":
            holder[last] = VALUES[m.value]
        elif m.op == "delete":
            del holder[last]
        else:
            holder.insert(last, holder[last])
    else:
        return _GONE
    return value


def _edit_row(path: Path, table: str, rowid: int, column: str, value: Any) -> None:
    conn = sqlite3.connect(path)
    try:
        conn.execute(f'UPDATE "{table}" SET "{column}" = ? WHERE rowid = ?', (value, rowid))
        conn.commit()
    except (sqlite3.Error, ValueError):  # a constraint (NOT NULL, CHECK), or a garbled file
        conn.rollback()
    finally:
        conn.close()


def package_rows(path: Path) -> dict[str, dict[str, list]]:
    """table -> {"rowids", "columns"} of every non-empty table of a SQLite file."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            )
        ]
        out = {}
        for table in tables:
            rowids = [r for (r,) in conn.execute(f'SELECT rowid FROM "{table}" LIMIT 50')]
            if rowids:
                columns = [c[1] for c in conn.execute(f'PRAGMA table_info("{table}")')]
                out[table] = {"rowids": rowids, "columns": columns}
        return out
    finally:
        conn.close()
