"""``certify`` on every catalogue entry with a one-run sampler, against the exact oracle: never wrong.

For each entry (listed from the registry: ``Mechanism.one_run is not None``), on its own pairs:

* every enumerated interval ``[low, high]`` contains the exact probability of its output, written from
  the entry's definition (:mod:`tests.certifier.oracle`; for float code, the 2^-53 grid law of the
  float the definition computes), and every output the oracle gives mass to but the enumeration did not
  list has at most the unexplored mass (:func:`checks.assert_intervals_contain`);
* ``epsilon_up`` >= the exact epsilon of the pair where that is finite, and (``epsilon_up``, ``delta_up``)
  is a valid certificate: the exact hockey-stick delta at ``epsilon_up`` is at most ``delta_up``;
* ``delta_at_claim`` brackets the exact delta at the claimed epsilon;
* an entry whose claim is true is never refuted; a flawed one (rr-miscalibrated, exponential-no-factor-2,
  geometric-by-trials with its draw count observed, meiser-k-merged as probabilistic DP) is refuted.

Exact (no sampling): nothing here is statistical.  Each call is bounded by ``TOLERANCE`` and
``TIME_LIMIT`` (the whole file runs in about 10 s on two cores).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import dpaudit
from dpaudit.mechanisms import registry
from dpaudit.mechanisms.catalogue import (
    discrete_gaussian,
    exponential,
    geometric,
    meiser,
    net_mechanism,
    randomized_response,
    thresholded_histogram,
)
from dpaudit.mechanisms.catalogue import snapping as snapping_module
from dpaudit.mechanisms.catalogue.flawed import calibration, floating_point, timing

from . import oracle
from .checks import as_law, assert_claim_bracket_sound, assert_epsilon_sound, assert_intervals_contain, exact_epsilon
from .oracle import MP, Truncated

TOLERANCE = 1e-10
TIME_LIMIT = 10.0
WIDTH = 80  # the window of infinite laws: tails below 1e-30 (Laplace, a = e^-1) and 1e-300 (Gaussian)


def _ones(data: Any) -> int:
    """The count the geometric and Gaussian entries release: the records equal to 1."""
    return list(data).count(1)


def _merged(law: dict[int, Any]) -> dict[int, Any]:
    """Meiser's T: outputs 0 and 1 become 0, 2 and 3 become 1 and 2."""
    out: dict[int, Any] = {}
    for y, p in law.items():
        out[0 if y <= 1 else y - 1] = out.get(0 if y <= 1 else y - 1, 0) + p
    return out


def _net_law(data: Any) -> dict[tuple[int, ...], Any]:
    """The net mechanism from its definition (Blum, Ligett & Roth 2008): the exponential mechanism over the
    count vectors of sum 3 on {0, 1, 2}, log-weight eps N u(D, h) / 2, u = -max_q |q(D)/N - q(h)/3| over
    the point queries and [x <= 1]."""
    queries = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0))
    net = [h for h in itertools.product(range(4), repeat=3) if sum(h) == 3]
    counts = [list(data).count(v) for v in range(3)]
    n = len(data)

    def answer(q: tuple[int, ...], histogram: Any, size: int) -> Fraction:
        return Fraction(sum(w * c for w, c in zip(q, histogram)), size)

    scaled = [-n * max(abs(answer(q, counts, n) - answer(q, h, 3)) for q in queries) for h in net]
    law = oracle.exponential_pmf([u / 2 for u in scaled])
    return {net[i]: p for i, p in law.items()}


def _keep_miscalibrated(data: Any) -> dict[int, Any]:
    """rr-miscalibrated (epsilon = 0.5): the coin keeps the bit when random() < 1/(1 + e^(-2 eps)), that
    probability computed in float (numpy) -- the grid law of that double (NOTES.md Part 3)."""
    keep = oracle.grid_bernoulli(float(1.0 / (1.0 + np.exp(-2.0 * 0.5))))
    assert abs(oracle._mpf(keep) - MP.e / (1 + MP.e)) < 2.0**-52  # the double is the definition's number
    return {data: keep, 1 - data: 1 - keep}


def _no_factor_2(data: Any) -> dict[int, Any]:
    """exponential-no-factor-2: numpy's choice on weights exp(eps (u - max u)) normalised, in float: the CDF
    cumsum / last, inverted with random() -- the grid law of that float CDF (oracle.grid_categorical)."""
    u = np.asarray(data, dtype=float)
    weights = np.exp(1.0 * (u - u.max()))
    cdf = np.cumsum(weights / weights.sum())
    law = oracle.grid_categorical(tuple((cdf / cdf[-1]).tolist()))
    exact = oracle.exponential_mechanism_pmf([Fraction(x) for x in data], 1, factor=1)
    assert all(abs(oracle._mpf(law.get(i, 0)) - exact[i]) < 2.0**-50 for i in exact)
    return law


def _by_trials_output(data: Any) -> Truncated:
    """The geometric by trials, output only: the two-sided geometric with a = 1/2, P[q + z] = (1/3) 2^-|z|;
    outside |z| <= W the mass is 2 (1/3) 2^-(W+1) / (1 - 1/2) = (4/3) 2^-(W+1)."""
    q = _ones(data)
    pmf = {q + z: Fraction(1, 3) * Fraction(1, 2) ** abs(z) for z in range(-WIDTH, WIDTH + 1)}
    return Truncated(pmf, Fraction(4, 3) * Fraction(1, 2) ** (WIDTH + 1))


def _by_trials_joint(data: Any) -> Truncated:
    pmf = oracle.geometric_by_trials_joint_pmf(_ones(data), 2 * WIDTH)
    return Truncated(pmf, 1 - sum(pmf.values()))


def _grid_runs(value_at: Callable[[int], Any], lo: int, hi: int) -> dict[Any, int]:
    """How many integers j in [lo, hi) give each value of ``value_at``, a monotone function of j:
    runs found by bisection, directly on the code's own float formula (no enumerator involved)."""
    counts: dict[Any, int] = {}
    while lo < hi:
        value = value_at(lo)
        left, right = lo, hi  # the first j in (lo, hi] whose value differs
        while right - left > 1:
            middle = (left + right) // 2
            if value_at(middle) == value:
                left = middle
            else:
                right = middle
        counts[value] = counts.get(value, 0) + right - lo
        lo = right
    return counts


def _inverse_cdf_law(data: Any) -> dict[Any, Fraction]:
    """The float law of ``geometric-inverse-cdf`` (epsilon 1): u = j 2^-53, the code's own formula, counted."""
    a = math.exp(-1.0)
    log_a = math.log(a)
    q = _ones(data)
    grid = 2**53
    split = next(j for j in _bisect_first(lambda j: j * 2.0**-53 * (1.0 + a) >= 1.0, 0, grid))
    law: dict[Any, Fraction] = {}
    for lo, hi in ((0, split), (split, grid)):
        runs = _grid_runs(lambda j: q + floating_point._inverse_cdf_geometric(j * 2.0**-53, a, log_a), lo, hi)
        for value, count in runs.items():
            law[value] = law.get(value, Fraction(0)) + Fraction(count, grid)
    return law


def _bisect_first(predicate: Callable[[int], bool], lo: int, hi: int):
    """Yields the smallest j in [lo, hi) with ``predicate(j)`` (monotone: false then true)."""
    while lo < hi:
        middle = (lo + hi) // 2
        if predicate(middle):
            hi = middle
        else:
            lo = middle + 1
    yield lo


def _snapping_law(data: Any) -> dict[Any, Fraction]:
    """The float law of ``snapping`` (epsilon 0.5, B = 100): sign, exponent e and mantissa m counted.

    P(sign) = 1/2, P(e = k) = 2^-(k+1) (k < 1021; 2^-1021 at 1021), m uniform on 2^52 values, and the
    output a monotone function of m for fixed (sign, e): its runs are counted by bisection."""
    q = _ones(data)
    law: dict[Any, Fraction] = {}
    for sign_bit in (0, 1):
        sign = -1.0 if sign_bit else 1.0
        for e in range(1022):
            p_e = Fraction(1, 2 ** (e + 1)) if e < 1021 else Fraction(1, 2**1021)

            def output(m: int, e: int = e, sign: float = sign) -> float:
                u = (2**52 + m) * 2.0 ** -(53 + e)
                noisy = min(max(q, -100.0), 100.0) + sign * 2.0 * math.log(u)
                return min(max(round(noisy / 2.0) * 2.0, -100.0), 100.0)

            for value, count in _grid_runs(output, 0, 2**52).items():
                law[value] = law.get(value, Fraction(0)) + Fraction(1, 2) * p_e * Fraction(count, 2**52)
    return law


@dataclass(frozen=True)
class Row:
    """One catalogue entry: the mechanism built with explicit parameters, the exact law of one run on an
    input, whether the exact pure epsilon is finite, and whether the claim holds (else: refuted)."""

    name: str
    build: Callable[[], Any]
    law: Callable[[Any], Any]
    finite_epsilon: bool
    claim_holds: bool
    observe: str = "output"
    options: tuple[tuple[str, Any], ...] = ()


ROWS = [
    Row("rr-two-coin", randomized_response.rr_two_coin, lambda x: oracle.rr_pmf(Fraction(1, 2), x), True, True),
    Row("rr", lambda: randomized_response.rr(p=0.5), lambda x: oracle.rr_pmf(Fraction(1, 2), x), True, True),
    Row("k-rr", lambda: randomized_response.k_rr(epsilon=1.0, k=4), lambda x: oracle.k_rr_pmf(Fraction(1), 4, x),
        True, True),
    Row("rappor", lambda: randomized_response.rappor(epsilon=1.0, k=4),
        lambda x: oracle.rappor_pmf(Fraction(1), 4, x), True, True),
    Row("geometric", lambda: geometric.geometric(epsilon=1.0),
        lambda d: oracle.geometric_pmf(Fraction(1), _ones(d), WIDTH), True, True),
    # rho = 0.5: sigma^2 = 1; a zCDP claim is a curve, certified at one point of it (epsilon = 1)
    Row("discrete-gaussian", lambda: discrete_gaussian.discrete_gaussian(rho=0.5),
        lambda d: oracle.discrete_gaussian_pmf(Fraction(1), WIDTH, _ones(d)), False, True,
        options=(("epsilon", 1.0),)),
    Row("exponential", lambda: exponential.exponential_mechanism(epsilon=1.0, k=3),
        lambda u: oracle.exponential_mechanism_pmf([Fraction(x) for x in u], 1), True, True),
    Row("top-k", lambda: exponential.top_k(epsilon=1.0, k=2, candidates=5),
        lambda u: oracle.top_k_pmf([Fraction(x) / 2 for x in u], 2), True, True),
    Row("meiser-k", lambda: meiser.meiser_k(epsilon=1.0, delta=0.01),
        lambda x: oracle.meiser_k_pmf(Fraction(1), Fraction(1, 100), x), False, True),
    Row("meiser-k-merged", lambda: meiser.meiser_k_merged(epsilon=1.0, delta=0.01),
        lambda x: _merged(oracle.meiser_k_pmf(Fraction(1), Fraction(1, 100), x)), False, False),
    Row("net-mechanism", lambda: net_mechanism.net_mechanism(epsilon=1.0), _net_law, True, True),
    Row("thresholded-histogram", lambda: thresholded_histogram.thresholded_histogram(epsilon=1.0, tau=5, universe=3),
        lambda d: oracle.thresholded_histogram_pmf(Fraction(1), 5, [list(d).count(v) for v in range(3)],
                                                   width=WIDTH // 2), False, True),
    Row("rr-miscalibrated", lambda: calibration.rr_miscalibrated(epsilon=0.5), _keep_miscalibrated, True, False),
    Row("exponential-no-factor-2", lambda: calibration.exponential_no_factor_2(epsilon=1.0, k=3), _no_factor_2,
        True, False),
    Row("geometric-by-trials", timing.geometric_by_trials, _by_trials_output, True, True),
    Row("geometric-by-trials", timing.geometric_by_trials, _by_trials_joint, False, False, observe="draws"),
    # float code, its exact law counted on the 2^-53 grid: the tails truncated, epsilon inf
    Row("geometric-inverse-cdf", lambda: floating_point.geometric_inverse_cdf(epsilon=1.0), _inverse_cdf_law,
        False, False, options=(("tolerance", 0.0),)),  # every path: the truncated tail is where it breaks
    Row("snapping", lambda: snapping_module.snapping(epsilon=0.5, bound=100.0), _snapping_law, True, True,
        options=(("delta", 1e-9),)),
]


def test_the_rows_are_every_entry_with_a_one_run_sampler():
    with_one_run = {name for name in registry.names() if registry.get(name).one_run is not None}
    assert {row.name for row in ROWS} == with_one_run


def test_each_row_builds_its_registered_entry():
    # the explicit parameters are the registry's defaults, so the rows test what `dpaudit certify NAME` runs
    for row in ROWS:
        built, registered = row.build(), registry.get(row.name)
        assert (built.name, built.claim, built.pairs) == (registered.name, registered.claim, registered.pairs)


@pytest.fixture(scope="module", params=ROWS, ids=[f"{row.name}-{row.observe}" for row in ROWS])
def certified(request):
    row: Row = request.param
    options = {"tolerance": TOLERANCE, "time_limit": TIME_LIMIT, **dict(row.options)}
    result = dpaudit.certify(row.build(), observe=row.observe, **options)
    return row, result


def test_every_interval_contains_the_exact_probability(certified):
    row, result = certified
    assert_intervals_contain(result, row.law)


def test_epsilon_up_is_at_least_the_exact_epsilon_and_the_certificate_holds(certified):
    row, result = certified
    assert_epsilon_sound(result, row.law, row.finite_epsilon)
    assert result.epsilon_low <= result.epsilon_up


def test_the_delta_at_the_claim_is_bracketed(certified):
    row, result = certified
    assert_claim_bracket_sound(result, row.law)


def test_a_true_claim_is_never_refuted_and_a_flawed_one_is(certified):
    row, result = certified
    if row.claim_holds:
        assert not result.refuted, result.reason
    else:
        assert result.refuted, result.reason
        assert result.witness is not None and result.witness.ratio_low > result.claim.epsilon


def test_the_pure_entries_are_bracketed_within_1e_9_of_their_exact_epsilon(certified):
    # where the exact epsilon is finite, the bracket closes on it: the enumeration is exact, not a bound
    row, result = certified
    if not row.finite_epsilon:
        return
    exact = max(float(exact_epsilon(as_law(row.law(a)), as_law(row.law(b)))) for a, b in result.pairs)
    assert result.epsilon_low <= exact * (1 + 1e-12)
    assert math.isclose(result.epsilon_up, exact, rel_tol=1e-9), (result.epsilon_up, exact)
