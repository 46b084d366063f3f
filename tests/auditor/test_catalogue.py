"""The auditor over the catalogue: flawed entries are flagged on their recommended pair, nothing crashes.

The default-budget run of every entry (with timings) is ``python -m benchmarks.tightness`` /
the report; here a smaller budget keeps the suite fast.  Entries the auditor does not flag yet, with
the reason, are listed in ``NOT_FLAGGED``; the test still audits them (no crash) and fails if one of
them starts being flagged, so the list cannot silently go stale.
"""

from __future__ import annotations

import pytest

import dpaudit
from dpaudit.auditor import DEFAULT_SAMPLES, Verdict, audit
from dpaudit.claims import CURVE_KINDS

pytestmark = [pytest.mark.statistical, pytest.mark.slow]

NOT_FLAGGED: dict[str, str] = {
    # claims epsilon 13.57 at delta 1e-5 (true 15.46): with 2 x 10^5 per side even a perfect witness could
    # certify only ~10 at the verdict's level; the audit says "underpowered"
    "gaussian-zcdp-conversion-drops-rho": "epsilon 13.6 at delta 1e-5 is beyond reach at 2 x 10^5 samples",
    # its flaw lives on mass 2^-53 (the float uniform's truncated tail): no sample can reach it; certify
    # refutes it exactly (tests/certifier/test_catalogue.py)
    "geometric-inverse-cdf": "the truncated tail has mass ~2^-53: beyond any sampling, refuted by certify",
}

# A curve claim (zCDP, RDP) is audited at one point of its curve: the (epsilon(delta), delta) it implies
# at CURVE_DELTA.  Measured at 2 x 10^5 per side, seed 1 (verdict-level bounds): gaussian-zcdp-linf-sensitivity
# 3.72 vs the claim's 2.75 (true 6.00, mu = 2), renyi-accountant-wrong-order 1.90 vs 1.785 (true 2.32, mu = 1).
CURVE_DELTA = 1e-2

FLAWED = [m.name for m in dpaudit.catalogue() if m.flawed]

# 2 x 10^5 per side flags the rest; the sparse-vector witnesses need the default budget of 10^6:
# svt-lyu-4's (pattern ⊥^9 ⊤, mass ~0.9 %, log-ratio 0.175 vs claim 0.1) and svt-lyu-3's ("first
# answer at query 5 or later, released value <= t", mass ~0.3 %, log-ratio ~0.25 vs claim 0.1).
# meiser-k-merged breaks probabilistic DP only (loss 1.0137 vs claim 1 on one output of mass 0.73):
# the bad-set test certifies it with power ~1 - 7e-5 at 10^6 (tests/auditor/test_probabilistic.py).
SAMPLES = {"svt-lyu-3": DEFAULT_SAMPLES, "svt-lyu-4": DEFAULT_SAMPLES, "meiser-k-merged": DEFAULT_SAMPLES}

FLOAT_ENTRIES = ["laplace-float-textbook", "laplace-scipy", "laplace-numpy", "gaussian-box-muller", "laplace-histogram-numpy"]
GRID_RELEASED = ["laplace", "laplace-sum", "laplace-mean", "snapping", "geometric", "staircase", "gaussian",
                 "gaussian-analytic"]


@pytest.mark.parametrize("name", FLAWED)
def test_flawed_entry_is_flagged_on_its_pair(name):
    mechanism = dpaudit.get(name)
    samples = 100_000 if name in FLOAT_ENTRIES else SAMPLES.get(name, 200_000)
    point = {"delta": CURVE_DELTA} if mechanism.claim.kind in CURVE_KINDS else {}
    result = audit(mechanism, pair=mechanism.pairs[0] if mechanism.pairs else None, samples=samples, seed=1, **point)
    if name in NOT_FLAGGED:
        assert result.verdict is not Verdict.VIOLATION, f"{name} is flagged now: remove it from NOT_FLAGGED"
    else:
        assert result.verdict is Verdict.VIOLATION, result.reason


@pytest.mark.parametrize("name", FLOAT_ENTRIES)
def test_float_entries_are_flagged_by_the_default_audit_at_1e5(name):
    """Support mismatch certified by the leak families (float-support replay or lattice event).

    Expected bound: the cap of a support mismatch, ln(LCB(p_a) / UCB(0 of N)) with UCB ~ ln(2/alpha_K)/N
    (alpha_K = 0.0258, the last look's share): the Laplace entries' float-support event has p_a ~ 0.6,
    giving ~9.9 at N = 10^5; the float histogram's lattice event on the changed count has p_a ~ 0.43
    (reachability from 1), giving ~9.2; Box-Muller has no replayable noise, and its best lattice event
    ("fl(1 + n) for no double n") has p_a ~ 0.10, giving ln(0.099 N / 4.35) = 7.7 -- it reaches 8
    only from N ~ 1.4 x 10^5 (measured 7.74 at N = 10^5, seed 1).
    """
    mechanism = dpaudit.get(name)
    result = audit(mechanism, pair=mechanism.pairs[0], samples=100_000, seed=1)
    assert result.verdict is Verdict.VIOLATION and result.support_mismatch
    assert result.epsilon_lower_bound >= (7.5 if name == "gaussian-box-muller" else 8.0)
    assert result.findings and result.findings[0].check in ("lattice", "float-support")
    assert "infinite privacy loss" in result.findings[0].reason and result.findings[0].proven_empty
    assert result.elapsed_s < 10


@pytest.mark.parametrize("name", GRID_RELEASED)
def test_grid_released_entries_are_not_flagged_by_the_leak_families(name):
    result = audit(name, samples=20_000, seed=2)
    assert result.verdict is not Verdict.VIOLATION and not result.findings
    assert all(c.family not in ("lattice", "float-support") or c.epsilon_lower_bound <= result.claim.epsilon
               for c in result.candidates)


def test_leak_checks_can_be_switched_off():
    mechanism = dpaudit.get("laplace-numpy")
    result = audit(mechanism, pair=mechanism.pairs[0], samples=20_000, seed=1, checks=None)
    assert result.checks == () and not result.findings
    assert all(c.family not in ("lattice", "float-support") for c in result.candidates)


def test_svt_lyu_4_is_found_without_its_pair_at_the_default_budget():
    # Successive halving over the candidate pairs (the recommended ones and Ding et al.'s patterns),
    # each scored by the expected verified bound on held-out rows.  Measured over seeds 100..107 at
    # the default budget: flagged in 8 of 8 (5 of 8 when the pairs were scored by the strict search
    # bound; tests/auditor/test_screening.py runs the three seeds that missed).  This is a
    # regression test of that path at one seed, not a power estimate.
    result = audit("svt-lyu-4", samples=DEFAULT_SAMPLES, seed=1)
    assert result.verdict is Verdict.VIOLATION and result.pairs_screened > 2
