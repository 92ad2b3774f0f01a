"""One progress bar over several parts, weighted by their usual time."""

from __future__ import annotations

import pytest


def test_parts_weighted_by_their_usual_time_share_the_bar():
    from annotation.progress import PART_SCALE, Progress

    seen: list[int] = []
    overall = Progress(lambda d, _t, _m: seen.append(d))
    weights = [1.0, 3.0]  # the second part usually takes three times as long
    overall.part(0, 2, "quick", weights).report(1, 1)
    overall.part(1, 2, "slow", weights).report(1, 2)
    assert seen == [PART_SCALE // 4, PART_SCALE // 4 + 3 * PART_SCALE // 8]
    with pytest.raises(ValueError, match="2 parts need 2"):
        overall.part(0, 2, "bad", [1.0])
