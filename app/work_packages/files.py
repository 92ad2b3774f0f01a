"""The files a work package carries (panoramas, point clouds), unpacked beside it so the
package works offline with nothing else (docs/work-packages.md#work)."""

from __future__ import annotations

from pathlib import Path

from store import Project, ProjectError
from store.package_io import package_files


def unpack_files(project: Project) -> Path | None:
    """Write the package's carried files under `<package>.files/<sequence>/` (those missing
    or different) and point each sequence's root there; the folder, or None when the
    package carries no files."""
    files = package_files(project.path)
    if not files:
        return None
    folder = project.path.with_name(project.path.name + ".files")
    roots: dict[int, Path] = {}
    for sequence_id, rel, data in files:
        if sequence_id not in roots:
            name = project.sequences.get(sequence_id).name
            root = folder / name
            if (
                any(c in name for c in "/\\")
                or name in ("", ".", "..")
                or (not root.resolve().is_relative_to(folder.resolve()))
            ):
                raise ProjectError(f"{project.path}: sequence name {name!r} is not a folder name")
            roots[sequence_id] = root
        target = (roots[sequence_id] / rel).resolve()
        if not target.is_relative_to(roots[sequence_id].resolve()):
            raise ProjectError(f"{project.path}: carried file {rel!r} points outside its folder")
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(target.name + ".part")
        part.write_bytes(data)
        part.replace(target)
    for sequence_id, root in roots.items():
        if project.sequences.get(sequence_id).root != str(root):
            project.sequences.set_root(sequence_id, str(root))
    return folder
