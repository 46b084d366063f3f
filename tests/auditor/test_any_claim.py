"""``audit(target, claim=...)``: any claim kind audited as written, for a plain function or in place of a
Mechanism's own claim; a curve claim takes the same path as a declared one (:mod:`dpaudit.auditor.curve`)."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

import dpaudit
from dpaudit import (
    AddRemove,
    ApproxDP,
    GaussianDP,
    InvalidArgument,
    Mechanism,
    PrivacyCurve,
    ProbabilisticDP,
    PureDP,
    RenyiDP,
    ZeroConcentratedDP,
)
from dpaudit.auditor.result import AuditResult, Verdict, without_timings

RHO = 0.5
DELTA_F = 1.0  # the sensitivity of the count under add/remove
SIGMA = DELTA_F / math.sqrt(2 * RHO)  # Bun & Steinke 2016, Prop. 1.6: N(0, sigma^2) on a Delta-sensitive query is Delta^2 / (2 sigma^2)-zCDP
PAIR = ([1, 0, 1], [1, 0, 1, 1])  # sizes 3 and 4: add/remove, inferred from the pair


def noisy_count(data, n, rng):
    # Released on a 2^-16 grid: a raw float sum + noise leaks through its low bits (Mironov 2012), which
    # the leak checks would rightly report; the grid keeps the test about the claim.
    return np.rint((np.sum(data) + rng.normal(0.0, SIGMA, size=n)) * 2.0**16) / 2.0**16


def _audit(target, claim, samples=20_000, seed=1, **options):
    return dpaudit.audit(target, claim=claim, pair=PAIR, samples=samples, seed=seed, executor="in-process",
                         verdict_confidence=1 - 1e-6, **options)


def _outcome(result: AuditResult) -> dict:
    """The result without its timings and the source of its relation (a plain function's is inferred from
    the pair, a Mechanism's its own: the same add/remove either way)."""
    document = without_timings(result.as_dict())
    document["neighbours"] = document["neighbours"]["relation"]
    return document


# ---------------------------------------------------------------- statistical: validity and power


@pytest.mark.statistical
def test_a_plain_function_calibrated_to_rho_passes_its_zcdp_claim():
    # Validity: sigma = Delta / sqrt(2 rho) is exactly rho-zCDP, so a refutation needs one of the curve's
    # simultaneous bounds (joint level 1 - 1e-6) to fail: probability <= 1e-6 whatever the seed.  The
    # budget reaches the working point (4.73, 1e-5): at 2 x 10^4 per side the verdict is pass, not underpowered.
    result = _audit(noisy_count, ZeroConcentratedDP(RHO))
    assert result.verdict is Verdict.PASS, result.reason
    assert result.claim == ZeroConcentratedDP(RHO) and result.decided_by == ""
    assert result.curve is not None and not result.curve_check.refuted
    assert result.curve_check.working_point == ZeroConcentratedDP(RHO).to_approx(1e-5).as_dict()


@pytest.mark.statistical
def test_the_same_function_claimed_at_a_quarter_of_its_rho_is_flagged_on_the_curve():
    # Power: the true curve is 1-GDP.  At epsilon = 0.5 its delta is Phi(0) - e^0.5 Phi(-1) = 0.238 on the
    # threshold event output > q + 1; 0.125-zCDP allows 0.104 there (CKS 2020, Cor. 13).  The curve's
    # one-sided Clopper-Pearson bounds are Bonferroni over 196 at alpha 1e-6 (z = 5.73 each), so at N = 2 x 10^4
    # the lower bound on delta is about 0.238 - 5.73 (0.0035 + e^0.5 x 0.0026) = 0.194, whose own standard
    # deviation is 0.0055: the claim is refuted with a margin of 16 sd on any seed (measured: 0.207 on seed 1).
    claim = ZeroConcentratedDP(RHO / 4)
    result = _audit(noisy_count, claim)
    assert result.verdict is Verdict.VIOLATION, result.reason
    assert result.claim == claim and result.decided_by == "curve"
    witness = result.curve_check.witness
    assert witness["delta_lower_bound"] > witness["claimed_delta"] == pytest.approx(claim.delta_at_epsilon(witness["epsilon"]))
    assert f"refutes {claim}" in result.reason


# ---------------------------------------------------------------- the path a claim takes


@pytest.mark.parametrize("claim", [ZeroConcentratedDP(RHO), GaussianDP(1.0), RenyiDP(2.0, 1.0),
                                   GaussianDP(1.0).curve((0.0, 1.0, 2.0))], ids=str)
def test_a_curve_claim_given_is_audited_exactly_as_the_same_claim_declared(claim):
    # claim= only states the claim: the draws, the curve stage and the verdict are those of a Mechanism
    # that declares it, and a Mechanism's own claim (here pure) is replaced by it.
    declared = Mechanism.from_callable(noisy_count, claim=claim, neighbours=AddRemove())
    given = _audit(noisy_count, claim, samples=5_000)
    assert _outcome(given) == _outcome(_audit(declared, None, samples=5_000))
    replaced = _audit(replace(declared, claim=PureDP(1.0)), claim, samples=5_000)
    assert _outcome(replaced) == _outcome(given)
    assert given.claim == claim and given.curve is not None and given.curve_check


@pytest.mark.parametrize("claim", [PureDP(3.0), ApproxDP(2.0, 1e-4), ProbabilisticDP(2.0, 1e-4)], ids=str)
def test_a_point_claim_given_is_audited_as_written(claim):
    result = _audit(noisy_count, claim, samples=2_000)
    assert result.claim == claim and not result.curve_check and result.curve is None
    assert (claim.kind == "probabilistic") == any("P-DP implies A-DP" in note for note in result.notes)


def test_epsilon_or_delta_name_the_point_of_a_given_curve_claim():
    claim = ZeroConcentratedDP(RHO)
    at_delta = _audit(noisy_count, claim, samples=2_000, delta=1e-3)
    assert at_delta.claim == claim.to_approx(1e-3) and not at_delta.curve_check
    at_epsilon = _audit(noisy_count, claim, samples=2_000, epsilon=2.0)
    assert at_epsilon.claim == ApproxDP(2.0, claim.delta_at_epsilon(2.0))


def test_the_claim_audited_survives_json():
    result = _audit(noisy_count, ZeroConcentratedDP(RHO), samples=2_000)
    again = AuditResult.from_dict(json.loads(json.dumps(result.as_dict())))
    assert again == result and again.claim == ZeroConcentratedDP(RHO)


# ---------------------------------------------------------------- refusals: one line naming the argument


@pytest.mark.parametrize("options, message", [
    ({"claim": PureDP(1.0), "epsilon": 1.0}, r"^claim=1-DP states its epsilon and delta itself; epsilon=1.0 would"),
    ({"claim": ApproxDP(1.0, 1e-5), "delta": 1e-6}, r"^claim=\(1, 1e-05\)-DP states .* delta=1e-06 would restate"),
    ({"claim": ZeroConcentratedDP(RHO), "epsilon": 1.0, "delta": 1e-5},
     r"^claim=0.5-zCDP with epsilon=1.0 and delta=1e-05: give one of them"),
    ({"claim": "0.5-zCDP"}, r"^claim='0.5-zCDP' must be PureDP, ApproxDP, .* or PrivacyCurve, e.g. dpaudit.ZeroConcentratedDP\(0.5\)$"),
    ({"claim": {"kind": "zcdp", "rho": 0.5}}, r"^claim=\{'kind': 'zcdp', 'rho': 0.5\} must be PureDP"),
    ({"claim": ZeroConcentratedDP(RHO), "delta": 0.0}, r"^delta=0.0 must lie in \(0, 1\)"),
    ({"claim": PrivacyCurve((1.0,), (0.1,)), "delta": 1e-3}, r"implies no finite epsilon at delta=0.001"),
])
def test_a_malformed_claim_argument_is_refused_by_name(options, message):
    with pytest.raises(InvalidArgument, match=message):
        dpaudit.audit(noisy_count, pair=PAIR, samples=1_000, executor="in-process", **options)


def test_a_plain_function_needs_epsilon_or_a_claim():
    with pytest.raises(InvalidArgument, match=r"target=\S+ is a plain function, which carries no claim: give epsilon= \(or claim=\)"):
        dpaudit.audit(noisy_count, pair=PAIR, samples=1_000)
