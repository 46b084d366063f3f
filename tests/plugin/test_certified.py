"""``dp.assert_certified``: passes on a correct one-run sampler (returning the result), fails on a refuted one
with the result's lines, and fails on an unknown verdict with its reason (a certificate was asked for).

Inner runs are subprocesses (see test_audits.py); every certification here is exact and instantaneous."""

from __future__ import annotations

BODY = '''
import random

import dpaudit


def rr(bit, rng: random.Random):                      # randomized response, epsilon = ln 3
    return bit if rng.random() < 0.5 else rng.randrange(2)


def test_rr_certified(dp):
    result = dp.assert_certified(rr, epsilon=1.0986122886681098, pair=(1, 0))
    assert result.certified and abs(result.epsilon_up - 1.0986122886681098) < 1e-9


def test_catalogue_rr_certified(dp):
    assert dp.assert_certified("rr").verdict.value == "certified"


def test_rr_miscalibrated(dp):
    dp.assert_certified("rr-miscalibrated")


def test_rr_below_its_epsilon(dp):
    dp.assert_certified(rr, epsilon=1.0, pair=(1, 0))


def test_geometric_pure(dp):
    dp.assert_certified("geometric")
'''


def test_assert_certified(pytester):
    pytester.makepyfile(test_certify=BODY)
    result = pytester.runpytest_subprocess()
    result.assert_outcomes(passed=2, failed=3)
    out = result.stdout.str()
    assert "dpaudit: rr-miscalibrated is refuted by exact path enumeration" in out
    assert "REFUTED: rr-miscalibrated against 0.5-DP (output observed)" in out
    assert "  witness: output 0: P[. | 0] in [0.731059, 0.731059]" in out
    assert "dpaudit: rr is refuted by exact path enumeration" in out
    assert "dpaudit: geometric was not certified (unknown): the hockey-stick delta at epsilon=1 (read with" in out
    # each failure says what reruns it: the command (deterministic, no seed) and the test
    assert "reproduce: dpaudit certify rr-miscalibrated\n" in out
    assert "reproduce: dpaudit certify test_certify.py:rr --a 1 --b 0 --epsilon 1" in out
    assert "or: pytest 'test_certify.py::test_rr_below_its_epsilon'" in out
