"""The plugin's marker on a training function with a canary relation (DP-SGD, white-box canary).

At 2 x 10^4 samples per side and confidence 1 - 1e-6: the correct step (claim = its exact epsilon
4.3772) passes; the step with noise sigma C / 4 (true epsilon 4.38 at a claim of 0.93, the gallery's
``dp-sgd-noise-batch-mean``) is flagged -- its event bound at 10^5 is 1.3 at 0.999 (benchmarks/dp_sgd.py),
and at 2 x 10^4 the threshold test still clears 0.93 by a wide margin (true mu = 1 vs claimed 0.25).
"""

from __future__ import annotations

import pytest

BODY = '''
import numpy as np
import pytest

import dpaudit
from dpaudit.mechanisms.catalogue.dp_sgd import CANARY, DATASET, TrainingConfig, train

CORRECT = TrainingConfig(noise_multipliers=(1.0,))
FLAWED = TrainingConfig(noise_multipliers=(4.0,), noise_divisor=4.0)


def correct_step(data, rng: np.random.Generator):
    return train(CORRECT, data, 1, rng)[0]


def flawed_step(data, rng: np.random.Generator):
    return train(FLAWED, data, 1, rng)[0]


PAIR = (DATASET, DATASET + (CANARY,))


@pytest.mark.dp(epsilon=4.3772, delta=1e-5, pair=PAIR, neighbours=dpaudit.Canary(CANARY))
def test_correct_step():
    return correct_step


@pytest.mark.dp(epsilon=0.9264, delta=1e-5, pair=PAIR, neighbours=dpaudit.Canary(CANARY))
def test_flawed_step():
    return flawed_step
'''


@pytest.mark.slow
def test_marker_audits_a_training_step_on_a_canary(pytester):
    pytester.makepyfile(test_sgd=BODY)
    result = pytester.runpytest_subprocess("--dp-samples=20000")
    result.assert_outcomes(passed=1, failed=1)
    out = result.stdout.str()
    assert "dpaudit: privacy violation by 'flawed_step'" in out
    assert "canary" in out
