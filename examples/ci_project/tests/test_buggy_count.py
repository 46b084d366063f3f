"""The buggy mechanism: its audit fails, and the message says by how much and how to reproduce."""

import pytest

from noisy_stats import buggy_count
from noisy_stats.counts import EPSILON


@pytest.mark.dp(epsilon=EPSILON, pair=([1, 0, 1], [1, 0, 1, 1]))
def test_buggy_count_keeps_its_claim():
    return buggy_count
