"""Refutation of a noise scale that changes between neighbours (proofs.structures.scale_change), and its mutants."""

from __future__ import annotations

import dataclasses
import math

import mpmath
import numpy as np
import pytest
import sympy
from click.testing import CliRunner

import dpaudit
from dpaudit.cli import main
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.registry import get
from dpaudit.mechanisms.structure import AdmissibleNoise
from dpaudit.proofs import Verdict, prove

BUDGET = 30.0
NAME = "clamped-mean-wrong-sensitivity"
z = sympy.Symbol("z", real=True)


def _with(**changes):
    m = get(NAME)
    return dataclasses.replace(m, structure=dataclasses.replace(m.structure, **changes))


def test_the_entry_is_refuted_at_the_documented_pair_with_exact_tails():
    witness = prove(NAME, time_budget=BUDGET).counterexample
    assert witness is not None and witness.inputs == ((1.0,), (1.0, 0.0))
    # Released y >= k g is unrounded v >= c = k g - g/2 (g = 2^-16); Laplace tails at c, centres 1 and 1/2,
    # scales 1 and 1/2, recomputed here by hand: ratio e^(-(c - 1) + 2 (c - 1/2)) = e^c > e^1.
    threshold = sympy.Rational(witness.extra["threshold"])
    assert float(threshold) == float(witness.output_set.split(">=")[1])
    with mpmath.workdps(50):
        c = mpmath.mpf(threshold.p) / threshold.q - mpmath.mpf(2) ** -17
        p, p_prime = mpmath.exp(-(c - 1)) / 2, mpmath.exp(-(c - mpmath.mpf(1) / 2) * 2) / 2
        assert p > mpmath.e * p_prime
        assert abs(mpmath.log(p / p_prime) - witness.log_ratio) < 1e-12
        assert abs(p - witness.mass) < 1e-15


@pytest.mark.statistical
def test_the_sampler_releases_the_witness_tails():
    witness = prove(NAME, time_budget=BUDGET).counterexample
    m, t = get(NAME), float(sympy.Rational(witness.extra["threshold"]))
    n = 10**5
    # Hoeffding: |p_hat - p| <= sqrt(ln(2 / 1e-7) / (2n)) = 0.0092 except with probability 1e-7 per input
    tolerance = math.sqrt(math.log(2 / 1e-7) / (2 * n))
    for data, key in zip(witness.inputs, ("P[M(x) in S]", "P[M(x') in S]")):
        hits = np.mean(m.sample(list(data), n, np.random.default_rng(20261125)) >= t)
        assert abs(hits - float(witness.extra[key])) <= tolerance


@pytest.mark.statistical
def test_the_auditor_flags_the_entry_at_the_witness_pair():
    witness = prove(NAME, time_budget=BUDGET).counterexample
    # The witness event {y >= t} has loss ln(0.1839 / 0.0249) = 2.0 > 1.  At 10^5 samples per side Hoeffding
    # puts each proportion within sqrt(ln(2 / 1e-7) / 2e5) = 0.0092 (probability 1e-7 each), so the event
    # alone certifies ln(0.1747 / 0.0341) = 1.63 > 1: the budget leaves the auditor room to choose its own
    # event on its search split (at this seed it reports 1.50, "output > 3.87").
    audit = dpaudit.audit(NAME, pair=tuple(map(list, witness.inputs)), samples=10**5, seed=20261125,
                          confidence=1 - 1e-6, executor="in-process", progress=False)
    assert audit.verdict.value == "violation"


def _replace_one(data, records):
    return [data[:i] + (r,) + data[i + 1:] for i in range(len(data)) for r in records]


@pytest.mark.parametrize(
    "changes",
    [
        # the scale of a fixed size n = 3: the same for every neighbour
        {"smooth_bound": lambda data: 1.0 / 3},
        # the correct clamped mean under Replace neighbours: sizes, hence scales, never change
        {"neighbours": lambda data: _replace_one(tuple(data), (0.0, 0.5, 1.0)),
         "datasets": tuple((1.0,) * k + (0.0,) * (3 - k) for k in range(4))},
        # heavy tails: Cauchy noise with scales 1 vs 1/2 has loss -> ln 2 < 1 in both tails
        {"noise_density": lambda: (1 / (sympy.pi * (1 + z**2)), z)},
    ],
    ids=["fixed-size", "replace-neighbours", "cauchy-bounded-loss"],
)
def test_the_rule_does_not_refute_what_it_must_not(changes):
    result = prove(_with(**changes), time_budget=BUDGET)
    assert result.verdict is not Verdict.REFUTED and result.counterexample is None


def test_gaussian_noise_with_a_changing_scale_is_refuted():
    gaussian = sympy.exp(-(z**2) / 2) / sympy.sqrt(2 * sympy.pi)
    result = prove(_with(noise_density=lambda: (gaussian, z)), time_budget=BUDGET)
    assert result.refuted and "tail event" in result.method


def test_an_output_map_without_its_grid_stops_the_rule():
    # rounding (or any post-processing) unstated in numbers: the unrounded tails prove nothing
    result = prove(_with(grid=None), time_budget=BUDGET)
    assert result.verdict is Verdict.UNKNOWN and result.counterexample is None


def test_a_grid_needs_its_output_words():
    s = get(NAME).structure
    with pytest.raises(InvalidArgument, match="grid=.*needs output"):
        AdmissibleNoise(**{**{f.name: getattr(s, f.name) for f in dataclasses.fields(s)}, "output": ""})


def test_cli_prints_the_witness():
    result = CliRunner().invoke(main, ["prove", NAME])
    assert result.exit_code == 1, result.output
    for words in ("REFUTED", "inputs: [[1], [1, 0]]", "released y >=", "P[M(x') in S]"):
        assert words in result.output


def test_the_lower_tail_is_used_when_the_clamp_bound_cuts_the_upper_one():
    # B = 1.9 < 2: no released value reaches the first upper threshold; on the lower side
    # P[v <= c] = e^(-(1 - c)) / 2 vs e^(-2 (1/2 - c)) / 2, ratio e^-c > e^1 once c < -1 (search reaches -1.5)
    witness = prove(_with(grid=(2.0**-16, 1.9)), time_budget=BUDGET).counterexample
    assert witness is not None and "released y <=" in witness.output_set
    threshold = sympy.Rational(witness.extra["threshold"])
    assert -1.9 <= threshold < -1
    with mpmath.workdps(50):
        c = mpmath.mpf(threshold.p) / threshold.q + mpmath.mpf(2) ** -17
        p, p_prime = mpmath.exp(-(1 - c)) / 2, mpmath.exp(-2 * (mpmath.mpf(1) / 2 - c)) / 2
        assert p > mpmath.e * p_prime and abs(mpmath.log(p / p_prime) - witness.log_ratio) < 1e-12


def test_no_threshold_beyond_the_clamp_bound_is_used():
    # B = 2^-20 < g: only the grid point 0 is in [-B, B]; it is the threshold of a search point v only for
    # g/2 <= |v| <= 3g/2, and the points tried here (centres and scales are multiples of 1/12) never are
    result = prove(_with(grid=(2.0**-16, 2.0**-20)), time_budget=BUDGET)
    assert result.verdict is Verdict.UNKNOWN and result.counterexample is None
