"""Exact output probabilities of programs: against closed forms from elsewhere, total mass, and the
generated sampler's frequencies."""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy

from dpaudit.mechanisms.density import symbol
from dpaudit.mechanisms.catalogue.flawed.sparse_vector import svt5_density
from dpaudit.mechanisms.programs import Noise, NoisyMaxProgram, ThresholdProgram
from dpaudit.mechanisms.registry import get
from dpaudit.proofs.programs.probabilities import output_probability

eps, sens = symbol("epsilon"), symbol("Delta")
ONE = {eps: 1, sens: 1}


def _svt(k=3, **fields):
    base = {"threshold": 1, "threshold_noise": Noise("laplace", 2 * sens / eps), "query_noise": Noise("laplace", 4 * sens / eps),
                "cutoff": 2, "instance": ONE}
    base.update(fields)
    return ThresholdProgram("svt", k, **base)


def _all_outputs(program):
    if isinstance(program, NoisyMaxProgram):
        return range(program.queries)
    return itertools.product((0, 1, -1), repeat=program.queries)


PROGRAMS = [
    _svt(),
    _svt(resample_threshold=True),
    _svt(cutoff=None),
    _svt(cutoff=1, threshold_noise=None),
    _svt(cutoff=None, query_noise=None),
    _svt(threshold_noise=Noise("exponential", 2 * sens / eps), query_noise=Noise("exponential", 1 * sens / eps)),
    NoisyMaxProgram("rnm", 3, instance=ONE),
    NoisyMaxProgram("rnm-exp", 4, noise=Noise("exponential", 2 * sens / eps), instance=ONE),
]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: str(p).replace("\n", " ")[:60])
def test_probabilities_of_all_outputs_sum_to_one(program):
    q = tuple(Fraction(v) for v in (0, 2, 1, -1)[: program.queries])
    with mpmath.workdps(60):
        total = sum(output_probability(program, q, o) for o in _all_outputs(program))
        assert abs(total - 1) < mpmath.mpf(10) ** -45


def test_report_noisy_max_2_matches_its_closed_form_at_50_digits():
    """P[idx 0 | (1, 0)] = 1 - (1 + d/(2b)) e^(-d/b) / 2 with d = 1, b = 2 (report-noisy-max-2's pmf)."""
    program = get("report-noisy-max-2").program()
    with mpmath.workdps(60):
        expected = 1 - (1 + mpmath.mpf(1) / 4) * mpmath.exp(mpmath.mpf(-1) / 2) / 2
        assert abs(output_probability(program, (1, 0), 0) - expected) < mpmath.mpf(10) ** -50


@pytest.mark.parametrize("pattern", [(1, 0, 1, 0), (0, 0, 0, 1), (1, 1, 1, 1), (0, 1, 0, 0)])
def test_svt5_matches_its_declared_pmf(pattern):
    """Lyu Alg. 5 (no query noise) against the closed-form pmf its catalogue entry declares."""
    q = (0, 2, 1, -1)
    density = svt5_density(4, 0.1, 1.0)
    values = {**dict(zip(density.outputs, pattern)), **dict(zip(density.inputs, q)), **density.instance}
    values = {k: sympy.nsimplify(v, rational=True) for k, v in values.items()}
    expected = sympy.N(density.expr.xreplace(values), 50)
    program = ThresholdProgram("svt5", 4, threshold=1, threshold_noise=Noise("laplace", 2 * sens / eps), cutoff=None,
                               instance={eps: Fraction(1, 10), sens: 1})
    with mpmath.workdps(60):
        assert abs(output_probability(program, q, pattern) - mpmath.mpf(str(expected))) < mpmath.mpf(10) ** -40


@pytest.mark.parametrize("program", [_svt(resample_threshold=True), NoisyMaxProgram("rnm", 3, instance=ONE)], ids=str)
def test_generated_sampler_frequencies_match_the_probabilities(program):
    """Every output's frequency in 2e5 seeded runs lies within 5.5 binomial standard deviations of its
    exact probability (two-sided normal tail 3.8e-8 per output, < 1e-6 over the <= 27 outputs)."""
    n = 200_000
    q = (0, 2, 1)
    runs = program.sample(q, n, np.random.default_rng(7))
    for output in _all_outputs(program):
        p = float(output_probability(program, q, output))
        seen = np.all(runs == np.array(output), axis=1).mean() if runs.ndim == 2 else (runs == output).mean()
        assert abs(seen - p) <= 5.5 * np.sqrt(p * (1 - p) / n) + 1e-12, (output, seen, p)


def test_a_value_event_is_the_window_of_the_noisy_answer():
    """Lyu Alg. 3, one query: P[top with value <= v] = int p(r) (F(v - q) - F(T + r - q))^+ dr, checked by quadrature."""
    program = ThresholdProgram("v", 1, threshold=0, threshold_noise=Noise("laplace", 2 * sens / eps),
                               query_noise=Noise("laplace", 2 * sens / eps), release="value", instance=ONE)
    with mpmath.workdps(30):
        F = lambda x: mpmath.exp(x / 2) / 2 if x < 0 else 1 - mpmath.exp(-x / 2) / 2
        p = lambda r: mpmath.exp(-abs(r) / 2) / 4
        expected = mpmath.quad(lambda r: p(r) * max(0, F(mpmath.mpf(1) - 0) - F(r)), [-mpmath.inf, 0, 1])
        assert abs(output_probability(program, (0,), (("<=", 1),)) - expected) < mpmath.mpf(10) ** -20
