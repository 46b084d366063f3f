"""Declared structures: bad declarations are refused, and each entry's declaration describes its sampler
(the parts' laws against the entry's outputs, or the very same code path).

Goodness of fit at ``ALPHA = 1e-6`` (tests.gof), seeded; each fit has a twin that must reject a law
off by 30 % (powers noted beside each twin).
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest
import sympy
from scipy import stats

from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue.exponential import exponential_mechanism, top_k
from dpaudit.mechanisms.catalogue.mwem import mwem, mwem_transcript
from dpaudit.mechanisms.catalogue.net_mechanism import (
    DEFAULT_QUERIES,
    histogram_net,
    net_errors,
    net_mechanism,
)
from dpaudit.mechanisms.registry import get
from dpaudit.mechanisms.catalogue.smooth_sensitivity import (
    median_local_sensitivity,
    smooth_median,
)
from dpaudit.mechanisms.structure import (
    AdmissibleNoise,
    Part,
    SequentialComposition,
    WishartNoise,
)
from dpaudit.mechanisms.catalogue.wishart import covariance, wishart
from tests.gof import ALPHA, continuous_pvalue, density_function, discrete_pvalue
from tests.mechanisms.catalogue.test_smooth_sensitivity import _local_sensitivity

SEED = 20261125
N = 20_000


def _part(**changes):
    fields = {"label": "p", "mechanism": exponential_mechanism(), "input": "u", "input_sensitivity": 1.0, "sensitivity_reason": "r"}
    return Part(**{**fields, **changes})


def _noise(**changes):
    fields = {"noise_density": lambda: None, "alpha": 0.1, "beta": 0.1, "smooth_bound": len, "local_sensitivity": len,
              "datasets": ((0.0,),), "neighbours": lambda x: (), "statistic": "f"}
    return AdmissibleNoise(**{**fields, **changes})


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: _part(mechanism=len), "mechanism=<built-in function len> of part 'p' must be a Mechanism"),
        (lambda: _part(input_sensitivity=-1.0), "input_sensitivity=-1.0"),
        (lambda: _part(repeat=0), "repeat=0"),
        (lambda: SequentialComposition((), "x"), "must be a non-empty sequence of Part"),
        (lambda: SequentialComposition((len,), "x"), "must be a non-empty sequence of Part"),
        (lambda: _noise(alpha=0.0), "alpha=0.0"),
        (lambda: _noise(datasets=()), "datasets=()"),
        (lambda: WishartNoise(dimension=3, dof=2, scale=1.0, size=4), "dof=2 must be >= dimension=3"),
        (lambda: WishartNoise(dimension=2, dof=3, scale=float("nan"), size=4), "scale=nan"),
    ],
)
def test_bad_declarations_are_refused_with_the_field_named(build, words):
    with pytest.raises(InvalidArgument, match=re.escape(words)):
        build()


# --- top-k: the ordered pair's law from the parts' declared densities ------------------------------

UTILITIES = (4.0, 3.0, 2.0, 1.0, 0.0)


def _peeling_law(mechanism):
    """P[(i, j)] = p_1(i | u) p_2(j | u without i), each p_r the declared density of round r's part."""
    first, second = (part.mechanism.density() for part in mechanism.structure.parts)
    law = {}
    for i in range(5):
        rest = [r for r in range(5) if r != i]
        p_i = float(density_function(first, UTILITIES)(i))
        for position, j in enumerate(rest):
            law[(i, j)] = p_i * float(density_function(second, tuple(UTILITIES[r] for r in rest))(position))
    return law


@pytest.mark.statistical
def test_top_k_outputs_follow_the_composition_of_its_parts():
    out = get("top-k").sample(UTILITIES, N, np.random.default_rng(SEED))
    assert discrete_pvalue(out, _peeling_law(get("top-k"))) > ALPHA


@pytest.mark.statistical
def test_top_k_fit_rejects_parts_at_epsilon_off_by_30_percent():
    # noncentrality 1095 on 19 df against the critical value 63.7 (tests/mechanisms/catalogue/test_exponential.py)
    out = top_k(epsilon=1.3).sample(UTILITIES, N, np.random.default_rng(SEED))
    assert discrete_pvalue(out, _peeling_law(get("top-k"))) < ALPHA


# --- net mechanism: the sampler is its part's sampler ---------------------------------------------


@pytest.mark.parametrize("data", [(0, 0, 0, 0), (0, 1, 2, 2), (2, 2, 1)])
def test_net_mechanism_draws_are_its_parts_draws(data):
    m = get("net-mechanism")
    (part,) = m.structure.parts
    counts = np.bincount(np.asarray(data), minlength=3)
    scaled = [float(-counts.sum() * e) for e in net_errors(tuple(counts), histogram_net(3, 3), DEFAULT_QUERIES)]
    entry = m.sample(data, 500, np.random.default_rng(SEED))
    indices = part.mechanism.sample(scaled, 500, np.random.default_rng(SEED))
    assert np.array_equal(entry, np.asarray(histogram_net(3, 3))[indices])


def test_net_mechanism_input_sensitivity_is_read_from_the_queries():
    assert net_mechanism(queries=((1, 1, 1), (1, 1, 1))).structure.parts[0].input_sensitivity == 0.0
    assert get("net-mechanism").structure.parts[0].input_sensitivity == 1.0


# --- MWEM: round 1's selection and measurement against the declared parts --------------------------

COUNTS = (8, 0, 0)
Q = np.asarray(DEFAULT_QUERIES, dtype=float)


def _mwem_round_one(epsilon):
    """The first round's indices and measurement noise from the entry's own transcript (T = 2)."""
    t = mwem_transcript(COUNTS, Q, 2, epsilon, N, np.random.default_rng(SEED))
    return t.selected[:, 0], t.measured[:, 0] - (Q @ np.asarray(COUNTS, float))[t.selected[:, 0]]


def _mwem_part_laws():
    select, measure = (part.mechanism.density() for part in get("mwem").structure.parts)
    scores = tuple(np.abs(Q @ np.full(3, 8 / 3) - Q @ np.asarray(COUNTS, float)).tolist())  # A_0 = N/U
    pmf = {i: float(density_function(select, scores)(i)) for i in range(4)}
    return pmf, density_function(measure, 0.0)


@pytest.mark.statistical
def test_mwem_round_one_follows_the_declared_parts():
    selected, noise = _mwem_round_one(1.0)
    pmf, pdf = _mwem_part_laws()
    assert discrete_pvalue(selected, pmf) > ALPHA
    assert continuous_pvalue(noise, pdf) > ALPHA


@pytest.mark.statistical
def test_mwem_part_fits_reject_epsilon_off_by_30_percent():
    # Lap(4/1.3) vs Lap(4): KS distance 0.048 against the critical value sqrt(ln(2/ALPHA)/(2N)) = 0.019;
    # the selection law at T = 2 moves too little at N = 20000 to test (scores differ by 8/3 only),
    # so the twin checks the measurement, the part that carries half of each round's budget.
    _, noise = _mwem_round_one(1.3)
    assert continuous_pvalue(noise, _mwem_part_laws()[1]) < ALPHA


def test_mwem_parts_run_at_eps_over_2T():
    parts = mwem(epsilon=1.0, rounds=4).structure.parts
    assert [p.mechanism.claim.epsilon for p in parts] == [0.125, 0.125] and [p.repeat for p in parts] == [4, 4]


# --- smooth-sensitivity median: (A(x) - med(x)) alpha / S(x) has the declared density h ----------

DATA = (0.0, 0.25, 0.5, 0.75, 1.0)


def _scaled_noise(mechanism):
    s = mechanism.structure
    out = mechanism.sample(DATA, N, np.random.default_rng(SEED))
    return (out - 0.5) * s.alpha / s.smooth_bound(DATA)


@pytest.mark.statistical
def test_smooth_median_noise_has_the_declared_density():
    m = get("smooth-sensitivity-median")
    h, z = m.structure.noise_density()
    assert continuous_pvalue(_scaled_noise(m), sympy.lambdify(z, h, "numpy")) > ALPHA


@pytest.mark.statistical
def test_smooth_median_fit_rejects_a_declared_alpha_off_by_30_percent():
    # The sampler at epsilon = 1.3 scales Z by S/alpha' with alpha' = 1.3/8 (and S at beta' = 1.3/10),
    # read with the declaration at epsilon = 1: a scale error of ~30 %, KS distance ~ 0.07 >> 0.019.
    m = get("smooth-sensitivity-median")
    h, z = m.structure.noise_density()
    wrong = dataclasses.replace(smooth_median(epsilon=1.3), structure=m.structure)
    assert continuous_pvalue(_scaled_noise(wrong), sympy.lambdify(z, h, "numpy")) < ALPHA


@pytest.mark.parametrize("data", [(0.0,), (0.0, 1.0), (0.0, 0.0, 0.25, 1.0), (0.5, 0.5, 0.5, 0.75, 1.0), (1.0, 0.0, 0.3)])
def test_median_local_sensitivity_matches_brute_force(data):
    assert median_local_sensitivity(data, 1.0) == pytest.approx(_local_sensitivity(data))


def test_smooth_median_declaration_is_the_samplers_code():
    m = get("smooth-sensitivity-median")
    assert m.structure.alpha == 1 / 8 and m.structure.beta == 1 / 10
    assert len(m.structure.datasets) == 251  # multisets of 1..5 records from {0, 1/4, 1/2, 3/4, 1}


# --- Wishart: tr(W)/c ~ chi^2 with dof * d degrees of freedom ------------------------------------

RECORDS = ((1.0, 0.0), (0.0, 1.0), (0.6, 0.8), (0.0, 0.0))


def _trace_over_scale(mechanism, declared):
    out = mechanism.sample(RECORDS, N, np.random.default_rng(SEED))
    a = covariance(RECORDS, 2)
    return (out[:, 0] - a[0, 0] + out[:, 2] - a[1, 1]) / declared.scale


@pytest.mark.statistical
def test_wishart_noise_has_the_declared_dof_and_scale():
    m = get("wishart")
    s = m.structure
    assert stats.kstest(_trace_over_scale(m, s), stats.chi2(s.dof * s.dimension).cdf).pvalue > ALPHA


@pytest.mark.statistical
def test_wishart_fit_rejects_a_scale_off_by_30_percent():
    # the sampler at epsilon = 1/1.3 has c larger by 1.3: tr(W)/c is chi^2_6 scaled by 1.3, KS ~ 0.1 >> 0.019
    s = get("wishart").structure
    assert stats.kstest(_trace_over_scale(wishart(epsilon=1 / 1.3), s), stats.chi2(s.dof * s.dimension).cdf).pvalue < ALPHA
