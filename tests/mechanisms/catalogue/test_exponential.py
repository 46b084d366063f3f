"""Exponential mechanism, report noisy max and peeling top-k: samplers against exact laws, with power."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import integrate, stats

from dpaudit.errors import InvalidArgument, InvalidDataset
from dpaudit.mechanisms.catalogue.exponential import exponential_mechanism, report_noisy_max, report_noisy_max_2, top_k
from dpaudit.mechanisms.registry import get
from tests.gof import ALPHA, discrete_pvalue
from tests.mechanisms.catalogue._discrete_pmf import declared_pmf

N = 20_000
SEED = 20261122

# Power of each 30 %-off twin (epsilon 1.3 against the epsilon = 1 law), noncentrality
# lambda = N sum (p1 - p0)^2 / p0 at N = 20000 against the ALPHA critical value:
#   exponential on (0, 4, 4): 256 (2 df, 27.6);  report-noisy-max-2 on (3, 0): 384 (1 df, 23.9);
#   report-noisy-max on (3, 0, 0, 0, 0): 820 (4 df, 33.4);  top-2 of (4, 3, 2, 1, 0): 1095 (19 df, 63.7).
# All are more than 5 noncentral sd above the critical value: power ~ 1.


def em_pmf(u, epsilon, sensitivity=1.0):
    """P[r] = exp(eps u_r / (2 Delta)) / sum_j exp(eps u_j / (2 Delta)), computed directly."""
    w = np.exp(epsilon * (np.asarray(u, float) - max(u)) / (2 * sensitivity))
    return dict(enumerate((w / w.sum()).tolist()))


@pytest.mark.statistical
@pytest.mark.parametrize("u", [(0.0, 4.0, 4.0), (1.0, 0.0, 0.0), (-1.0, 5.0, 5.0), (0.5, -2.25, 3.0)])
def test_exponential_fits_declared_pmf_and_the_direct_formula(u):
    mechanism = get("exponential")
    samples = mechanism.sample(u, N, np.random.default_rng(SEED))
    declared = declared_pmf(mechanism.density(), u, range(3))
    direct = em_pmf(u, 1.0)
    assert all(declared[r] == pytest.approx(direct[r], rel=1e-12) for r in range(3))
    assert discrete_pvalue(samples, declared) > ALPHA


@pytest.mark.statistical
def test_exponential_fit_rejects_epsilon_off_by_30_percent():
    samples = exponential_mechanism(epsilon=1.3).sample((0.0, 4.0, 4.0), N, np.random.default_rng(SEED))
    assert discrete_pvalue(samples, declared_pmf(get("exponential").density(), (0.0, 4.0, 4.0), range(3))) < ALPHA


def test_exponential_pairs_are_near_worst_case_and_neighbouring():
    # The first recommended pair has privacy loss 0.959 at output 0 (epsilon = 1): close to the supremum.
    mechanism = get("exponential")
    (a, b), _ = mechanism.pairs
    mechanism.neighbours.check(a, b)
    loss = np.log(em_pmf(a, 1.0)[0] / em_pmf(b, 1.0)[0])
    assert 0.95 < loss < 1.0


# ---- report noisy max ---------------------------------------------------------------------------------


def noisy_max_pmf(u, scale):
    """P[argmax = i] = int f(z) prod_{j != i} F(u_i - u_j + z) dz for Laplace(scale) f, F (quadrature)."""
    u = np.asarray(u, float)
    law = stats.laplace(scale=scale)
    out = {}
    for i in range(u.size):
        others = np.delete(u, i)

        def integrand(z, i=i, others=others):
            return law.pdf(z) * np.prod(law.cdf(u[i] - others + z))

        kinks = sorted({0.0, *(others - u[i]).tolist()})
        out[i] = sum(  # integrate piece by piece between the kinks of the Laplace pdf and cdfs
            integrate.quad(integrand, lo, hi, limit=400, epsabs=1e-13)[0]
            for lo, hi in zip([-np.inf, *kinks], [*kinks, np.inf])
        )
    return out


@pytest.mark.statistical
def test_report_noisy_max_fits_its_exact_law():
    u = (3.0, 0.0, 0.0, 0.0, 0.0)
    samples = get("report-noisy-max").sample(u, N, np.random.default_rng(SEED))
    pmf = noisy_max_pmf(u, 2.0)
    assert sum(pmf.values()) == pytest.approx(1.0, abs=1e-9)
    assert discrete_pvalue(samples, pmf) > ALPHA


@pytest.mark.statistical
def test_report_noisy_max_fit_rejects_epsilon_off_by_30_percent():
    u = (3.0, 0.0, 0.0, 0.0, 0.0)
    samples = report_noisy_max(epsilon=1.3).sample(u, N, np.random.default_rng(SEED))
    assert discrete_pvalue(samples, noisy_max_pmf(u, 2.0)) < ALPHA


def test_report_noisy_max_2_closed_form_is_the_integral():
    # Derive P[y = 0 | u] = int f(z0) P[Z1 < d + z0] dz0 with sympy (Laplace(2), epsilon = 1), split at
    # the kinks z0 = 0 and z0 = -d, and compare exactly with the declared Piecewise.
    import sympy

    density = get("report-noisy-max-2").density().at_instance()
    y, (u0, u1) = density.outputs[0], density.inputs
    z, b = sympy.Symbol("z", real=True), sympy.Integer(2)
    pdf = sympy.exp(-sympy.Abs(z) / b) / (2 * b)

    def cdf(x):
        return sympy.Piecewise((sympy.exp(x / b) / 2, x < 0), (1 - sympy.exp(-x / b) / 2, True))

    for d in (sympy.Integer(1), sympy.Rational(-1, 2)):
        kinks = sorted({sympy.Integer(0), -d})
        bounds = [-sympy.oo, *kinks, sympy.oo]
        derived = sum(sympy.integrate(pdf * cdf(d + z), (z, lo, hi)) for lo, hi in zip(bounds, bounds[1:]))
        declared = density.expr.subs({y: 0, u0: d, u1: 0})
        assert sympy.simplify(derived - declared) == 0
    # P[y = 0 | (1, 0)] = 1 - 5 e^(-1/2) / 8 at epsilon = 1 (report-noisy-max-2, dpaudit/mechanisms/catalogue/exponential.py)
    assert sympy.simplify(density.expr.subs({y: 0, u0: 1, u1: 0}) - (1 - 5 * sympy.exp(-sympy.Rational(1, 2)) / 8)) == 0


@pytest.mark.statistical
def test_report_noisy_max_2_fits_declared_pmf_and_has_power():
    density = get("report-noisy-max-2").density()
    pmf = declared_pmf(density, (3.0, 0.0), (0, 1))
    assert pmf == pytest.approx(noisy_max_pmf((3.0, 0.0), 2.0), abs=1e-9)
    good = get("report-noisy-max-2").sample((3.0, 0.0), N, np.random.default_rng(SEED))
    off = report_noisy_max_2(epsilon=1.3).sample((3.0, 0.0), N, np.random.default_rng(SEED))
    assert discrete_pvalue(good, pmf) > ALPHA
    assert discrete_pvalue(off, pmf) < ALPHA


# ---- peeling top-k --------------------------------------------------------------------------------------


def top_k_pmf(u, epsilon, k):
    """P[(i_1..i_k)] = prod_j exp(eps u_{i_j}/2) / sum_{r not yet chosen} exp(eps u_r/2), by enumeration."""
    u = np.asarray(u, float)
    table = {}
    for sequence in itertools.permutations(range(u.size), k):
        left, p = list(range(u.size)), 1.0
        for i in sequence:
            p *= np.exp(epsilon * u[i] / 2) / np.exp(epsilon * u[left] / 2).sum()
            left.remove(i)
        table[sequence] = p
    return table


@pytest.mark.statistical
@pytest.mark.parametrize("u", [(4.0, 3.0, 2.0, 1.0, 0.0), (1.0, 0.0, 0.0, 0.0, 0.0)])
def test_top_k_fits_its_enumerated_law(u):
    samples = get("top-k").sample(u, N, np.random.default_rng(SEED))
    assert samples.shape == (N, 2)
    assert np.all(samples[:, 0] != samples[:, 1])
    assert discrete_pvalue(samples, top_k_pmf(u, 1.0, 2)) > ALPHA


@pytest.mark.statistical
def test_top_k_fit_rejects_epsilon_off_by_30_percent():
    u = (4.0, 3.0, 2.0, 1.0, 0.0)
    samples = top_k(epsilon=1.3).sample(u, N, np.random.default_rng(SEED))
    assert discrete_pvalue(samples, top_k_pmf(u, 1.0, 2)) < ALPHA


def test_top_k_claims_composition():
    assert top_k(epsilon=0.5, k=3).claim.epsilon == pytest.approx(1.5)


@pytest.mark.parametrize(
    "call",
    [lambda: top_k(k=6), lambda: exponential_mechanism(epsilon=0), lambda: report_noisy_max(k=0), lambda: report_noisy_max_2(sensitivity=-1)],
)
def test_invalid_parameters_are_refused(call):
    with pytest.raises(InvalidArgument):
        call()


@pytest.mark.parametrize("name, data", [("exponential", (1.0, 2.0)), ("top-k", (1.0,) * 4), ("report-noisy-max", (np.nan,) * 5)])
def test_malformed_utilities_are_refused(name, data):
    with pytest.raises(InvalidDataset):
        get(name).sampler(data, 3, np.random.default_rng(0))
