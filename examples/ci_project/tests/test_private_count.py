"""The correct mechanism: passes its audit (a proof-free, black-box check of the claim)."""

import pytest

from noisy_stats import private_count
from noisy_stats.counts import EPSILON


@pytest.mark.dp(epsilon=EPSILON, pair=([1, 0, 1], [1, 0, 1, 1]))
def test_private_count_keeps_its_claim():
    return private_count


def test_private_count_with_the_fixture(dp):
    dp.assert_private(private_count, epsilon=EPSILON, pair=([0, 0], [0, 0, 1]))
