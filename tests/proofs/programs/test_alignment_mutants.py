"""Soundness of the alignment prover: wrong sparse-vector and noisy-max programs are never proved.

Each mutant changes one thing in a correct program (AboveThreshold, Lyu et al. Alg. 1 and 2, report
noisy max) so that the claim no longer holds: a noise scale too small, the threshold noise or the
query noise dropped, the cutoff dropped or raised without rescaling, the noisy value released, the
winner's value released, one-sided noise, or a claim below the alignment's cost.  Every one must come
out refuted or unknown -- never proved; each of these is in fact refuted, with a witness whose ratio
exceeds e^epsilon.  (At small k several "mutants" are private after all -- e.g. AboveThreshold with
half the threshold noise over 3 queries costs 4 x epsilon/4 by shifting each query noise -- and the
prover rightly proves them, so the mutants use 8 or 10 queries.)
"""

from __future__ import annotations

import math

import pytest
import sympy

from dpaudit.mechanisms.density import symbol
from dpaudit.mechanisms.programs import Noise, NoisyMaxProgram, ThresholdProgram
from dpaudit.proofs import Verdict, prove

eps, sens = symbol("epsilon"), symbol("Delta")
HALF = sympy.Rational(1, 2)


def _at(name, k=8, threshold=0, rho=2, nu=4, cutoff=1, epsilon=eps, **changes):
    """AboveThreshold (rho ~ Lap(2 Delta/eps), nu ~ Lap(4 Delta/eps), c = 1), with ``changes``."""
    fields = {
        "threshold": threshold,
        "threshold_noise": None if rho is None else Noise("laplace", rho * sens / eps),
        "query_noise": None if nu is None else Noise("laplace", nu * sens / eps),
        "cutoff": cutoff,
        "epsilon": epsilon,
        "instance": {eps: 1, sens: 1},
    }
    fields.update(changes)
    return ThresholdProgram(name, k, **fields)


def _rnm(name, k=3, scale=2, distribution="laplace", release="index", epsilon=eps):
    return NoisyMaxProgram(name, k, noise=Noise(distribution, scale * sens / eps), release=release, epsilon=epsilon,
                           instance={eps: 1, sens: 1})


MUTANTS = [
    # noise scales too small
    _at("at-threshold-noise-halved", rho=1),
    _at("at-threshold-noise-quartered", rho=HALF),
    _at("at-query-noise-halved", nu=2),
    _at("at-query-noise-quartered", nu=1),
    _at("at-both-noises-halved", rho=1, nu=2),
    _at("at-query-noise-halved-k10", k=10, nu=2),
    _at("at-threshold-noise-halved-T1", threshold=1, rho=1),
    # noise dropped
    _at("at-no-threshold-noise", rho=None),
    _at("at-no-query-noise", nu=None),
    _at("at-no-query-noise-no-cutoff", nu=None, cutoff=None),
    _at("at-no-threshold-noise-k10", k=10, rho=None),
    # cutoff dropped or raised without rescaling the query noise
    _at("at-missing-cutoff", cutoff=None),
    _at("at-missing-cutoff-k5", k=5, cutoff=None),
    _at("at-cutoff-2-unscaled", cutoff=2),
    _at("at-cutoff-3-unscaled", cutoff=3),
    _at("lyu1-query-noise-not-scaled-by-c", cutoff=2, nu=4),
    _at("lyu1-missing-cutoff-k10", k=10, cutoff=None, nu=2),
    _at("lyu2-query-not-scaled-by-c", cutoff=2, nu=2, rho=4, resample_threshold=True),
    _at("at-no-query-noise-T1", threshold=1, nu=None),
    _at("at-query-noise-quartered-k10", k=10, nu=1),
    _at("lyu4-lee-clifton", threshold=1, rho=4, nu=sympy.Rational(4, 3)),
    # released values
    _at("at-releases-noisy-value", release="value"),
    _at("lyu3-roth", threshold=1, rho=2, nu=2, release="value"),
    _at("at-releases-noisy-value-k5", k=5, release="value"),
    # a claim smaller than what the alignment costs ("wrong alignment cost")
    _at("at-claims-half", epsilon=eps / 2),
    _at("lyu1-claims-half", cutoff=2, nu=8, epsilon=eps / 2),
    _at("lyu3-roth-c2", threshold=1, rho=2, nu=4, cutoff=2, release="value"),
    # report noisy max
    _rnm("rnm-scale-halved", scale=1),
    _rnm("rnm-scale-quartered", scale=HALF),
    _rnm("rnm-scale-halved-k5", k=5, scale=1),
    _rnm("rnm-releases-value", release="value"),
    _rnm("rnm-releases-value-k4", k=4, release="value"),
    _rnm("rnm-scale-halved-k2", k=2, scale=1),
    _rnm("rnm-releases-value-k5", k=5, release="value"),
    _rnm("rnm-exponential-releases-value", distribution="exponential", release="value"),
    _rnm("rnm-exponential-scale-halved", distribution="exponential", scale=1),
    _rnm("rnm-claims-half", epsilon=eps / 2),
]


def test_there_are_at_least_thirty_mutants():
    assert len(MUTANTS) >= 30
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)


@pytest.mark.parametrize("program", MUTANTS, ids=lambda m: m.name)
def test_each_mutant_is_refuted_never_proved(program):
    result = prove(program.mechanism(), time_budget=30.0)
    assert result.verdict is not Verdict.PROVED, str(result)
    # each one is demonstrably wrong: the search finds a witness (unknown would be sound, but weaker)
    assert result.verdict is Verdict.REFUTED, str(result)
    witness = result.counterexample
    a, b = witness.inputs
    assert len(a) == len(b) == program.queries and all(abs(x - y) <= 1 for x, y in zip(a, b))
    p1, p2 = witness.extra["probability_first"], witness.extra["probability_second"]
    assert p1 > 0 and witness.log_ratio > witness.bound
    assert p2 == 0 or math.log(p1 / p2) == pytest.approx(witness.log_ratio, rel=1e-9)
