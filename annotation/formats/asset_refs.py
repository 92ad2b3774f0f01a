"""The form of an asset reference (`<scheme>:<path>`, `primitive:<shape>`), as scenes and
benchmark files write it; checked without looking for the file (that is
`sim.assets.resolve_asset`, which also says what each scheme's paths are relative to)."""

from __future__ import annotations

from pathlib import PurePosixPath

from annotation.formats.json_text import brief

FILE_SCHEMES = ("pybullet_data", "airo_models", "resources")
PRIMITIVE_SCHEME = "primitive"
PRIMITIVE_SHAPES = ("box", "cylinder", "sphere")
#: How many sizes each primitive takes: box half extents, cylinder [radius, height], sphere [radius]
PRIMITIVE_SIZES = {"box": 3, "cylinder": 2, "sphere": 1}


def parse_ref(ref: str) -> tuple[str, str]:
    """Split ``ref`` into ``(scheme, rest)`` after checking its form (not the file)."""
    if not isinstance(ref, str) or ":" not in ref:
        raise ValueError(f"bad asset reference {brief(ref)}: expected '<scheme>:<path>'")
    scheme, _, rest = ref.partition(":")
    if scheme == PRIMITIVE_SCHEME:
        if rest not in PRIMITIVE_SHAPES:
            raise ValueError(
                f"bad asset reference {brief(ref)}: primitive shape must be one of "
                f"{', '.join(PRIMITIVE_SHAPES)}"
            )
        return scheme, rest
    if scheme not in FILE_SCHEMES:
        known = ", ".join((*FILE_SCHEMES, PRIMITIVE_SCHEME))
        raise ValueError(
            f"bad asset reference {brief(ref)}: unknown scheme {brief(scheme)} (known: {known})"
        )
    if not rest or "\\" in rest:
        raise ValueError(
            f"bad asset reference {brief(ref)}: expected a '/'-separated relative path"
        )
    rel = PurePosixPath(rest)
    if rel.is_absolute() or ".." in rel.parts or rest.startswith("~"):
        raise ValueError(f"bad asset reference {brief(ref)}: path must stay inside {scheme}")
    return scheme, rest
