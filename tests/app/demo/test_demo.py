"""Building the demo project: one progress bar across its parts."""

from __future__ import annotations


def test_the_demo_build_reports_one_bar_that_never_goes_back(tmp_path):
    from annotation.progress import PART_SCALE, Progress
    from app.demo import DEMO_PART_SECONDS, DEMO_PARTS, build_demo

    assert set(DEMO_PART_SECONDS) == {name for name, _ in DEMO_PARTS}  # a weight each
    seen: list[tuple[int, int, str]] = []
    build_demo(tmp_path / "demo.reasonscope", Progress(lambda d, t, m: seen.append((d, t, m))))
    values = [d for d, _t, _m in seen]
    assert values == sorted(values) and values[-1] == PART_SCALE  # one bar, never back to 0
    assert {t for _d, t, _m in seen} == {PART_SCALE}
    part = f"Demo: episodes (part 5 of {len(DEMO_PARTS)})"
    assert any(m.startswith(part) for _d, _t, m in seen)
