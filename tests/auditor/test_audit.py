"""audit(): interface, determinism, JSON round trip, verdicts, callables and bad targets."""

from __future__ import annotations

import importlib
import json
import math
from dataclasses import replace

import numpy as np
import pytest

import dpaudit
from dpaudit import InvalidArgument, MechanismError, NotNeighbouring, UnknownMechanism
from dpaudit.auditor import AuditResult, Verdict, audit
from tests.auditor import fixtures


def _same(r1: AuditResult, r2: AuditResult) -> bool:
    return replace(r1, elapsed_s=0.0, mechanism_s=0.0) == replace(r2, elapsed_s=0.0, mechanism_s=0.0)


def test_public_face():
    assert dpaudit.audit is audit and dpaudit.AuditResult is AuditResult


def test_same_seed_same_result_and_json_round_trip():
    first = audit("laplace", samples=5_000, seed=7)
    assert _same(first, audit("laplace", samples=5_000, seed=7))
    assert not _same(first, audit("laplace", samples=5_000, seed=8))
    text = json.dumps(first.as_dict())
    back = AuditResult.from_dict(json.loads(text))
    assert back == first
    assert first.seed == 7 and first.samples == 5_000 and first.confidence == 0.95
    assert first.verdict_confidence == 0.999 and first.verdict_epsilon_lower_bound <= first.epsilon_lower_bound
    assert first.search_samples == 5_000 and first.pairs_screened > 1
    assert abs(first.sample_sizes[0] - 5_000) < 5 * math.sqrt(5_000)  # Poisson(N) sizes


def test_seed_is_drawn_and_recorded_when_absent():
    result = audit(fixtures.laplace(), samples=2_000)
    assert isinstance(result.seed, int)
    assert _same(result, audit(fixtures.laplace(), samples=2_000, seed=result.seed))


@pytest.mark.statistical
def test_laplace_with_scale_too_small_by_1_2_is_flagged_at_1e6():
    # True epsilon 1.2 at claim 1: the joint bound's gap at N = 10^6 is about 0.005 (oracle-event limit
    # 0.9955 at eps = 1, benchmarks/README.md).
    result = audit(fixtures.laplace(1.0, scale_factor=1 / 1.2), pair=(0.0, 1.0), samples=10**6, seed=11)
    assert result.verdict is Verdict.VIOLATION
    assert 1.0 < result.epsilon_lower_bound <= 1.2
    assert "exceeds" in result.reason


@pytest.mark.statistical
def test_tightness_on_laplace_at_1e5():
    # Goal 0.971 at N = 10^5: 99 % of the oracle-event limit ~0.981 of the Clopper-Pearson union bound at
    # alpha = 0.05 (computed by benchmarks/tightness.py, tabulated in benchmarks/README.md).
    result = audit("laplace", samples=10**5, seed=20261122)
    assert result.verdict is Verdict.PASS
    assert result.epsilon_lower_bound >= 0.971


def test_support_mismatch_is_reported():
    result = audit(fixtures.one_sided(), samples=20_000, seed=3)
    assert result.verdict is Verdict.VIOLATION
    assert result.support_mismatch and result.hits[1] == 0
    assert any("epsilon = inf suspected" in note for note in result.notes)
    assert math.isfinite(result.epsilon_lower_bound)


def test_a_proven_support_mismatch_decides_a_pure_claim_without_a_bound():
    # laplace-numpy claimed 5-DP at 200 samples per side: 185 fresh outputs of M(a) lie where an exact
    # replay proves P_b(S) = 0, an infinite loss; the bound is capped by the sample size (ln(185 /
    # ln(1/alpha')) ~ 3.3 < 5), so only the certificate can decide, and without it the audit cannot.
    mechanism = dpaudit.get("laplace-numpy")
    kwargs = dict(epsilon=5.0, pair=mechanism.pairs[0], samples=200, search_samples=5_000, seed=1, executor="in-process")
    result = audit(mechanism, **kwargs)
    assert result.verdict is Verdict.VIOLATION and result.decided_by == "certificate"
    assert result.verdict_epsilon_lower_bound < 5.0 and "proved by the float-support check" in result.reason
    finding = result.findings[0]
    assert finding.decided_by == "certificate" and finding.proven_empty and finding.hits[0] > 0
    without = audit(mechanism, **kwargs, checks=None)
    assert without.verdict is not Verdict.VIOLATION and not without.findings


def test_answer_patterns_without_query_noise_are_flagged():
    result = audit(fixtures.answer_pattern(noisy_queries=False), samples=20_000, seed=4)
    assert result.verdict is Verdict.VIOLATION and result.support_mismatch


def test_approximate_dp_reports_delta_and_uses_the_union_bound():
    result = audit(fixtures.gaussian(), samples=20_000, seed=5)
    assert result.method == "union" and result.delta_lower_bound is not None
    assert result.verdict is Verdict.PASS
    broken = audit(fixtures.gaussian(sigma_factor=0.3), samples=50_000, seed=5)
    assert broken.verdict is Verdict.VIOLATION and broken.delta_lower_bound > 1e-5


def test_underpowered_when_the_budget_cannot_reach_the_claim():
    # With 200 samples per side a perfect witness of a 0.1-DP mechanism certifies < 0.09.
    result = audit(fixtures.laplace(0.1), samples=200, seed=6)
    assert result.verdict is Verdict.UNDERPOWERED and result.epsilon_reach < 0.09
    assert "increase samples" in result.reason


def test_plain_callables_vectorised_and_one_run():
    def vectorised(q, n, rng):
        return q + rng.laplace(0, 1, size=n)

    def one_run(q, rng):
        return q + rng.laplace(0, 1)

    fast = audit(vectorised, epsilon=1.0, samples=2_000, seed=1)
    slow = audit(one_run, epsilon=1.0, samples=2_000, seed=1)
    assert fast.vectorised and not slow.vectorised
    assert fast.claim == dpaudit.PureDP(1.0) and 0 < slow.mechanism_s <= slow.elapsed_s
    with pytest.raises(InvalidArgument,
                       match=r"target=vectorised is a plain function, which carries no claim: give epsilon="):
        audit(vectorised, samples=2_000, seed=1)


def test_multiple_candidates_are_corrected_and_reported():
    result = audit(fixtures.laplace(1.0, 0.5), pair=(0.0, 1.0), samples=20_000, seed=9, candidates=3)
    assert len(result.candidates) == 3 and result.bounds_by_scope.candidates == 3
    assert all(c.holm_p_value >= c.p_value for c in result.candidates)
    assert result.epsilon_lower_bound == max(max(c.epsilon_lower_bound for c in result.candidates), 0.0)
    assert result.verdict is Verdict.VIOLATION


def test_probabilistic_claims_are_audited_as_approximate():
    mech = replace(fixtures.gaussian(), claim=dpaudit.ProbabilisticDP(1.0, 1e-5))
    result = audit(mech, samples=2_000, seed=1)
    assert result.claim.kind == "probabilistic" and any("P-DP implies A-DP" in n for n in result.notes)


@pytest.mark.parametrize(
    "kwargs,error",
    [
        (dict(epsilon=-1.0), InvalidArgument),
        (dict(delta=1.5), InvalidArgument),
        (dict(confidence=1.0), InvalidArgument),
        (dict(verdict_confidence=0.0), InvalidArgument),
        (dict(samples=10), InvalidArgument),
        (dict(search_samples=10), InvalidArgument),
        (dict(search_samples=2.5), InvalidArgument),
        (dict(seed=-3), InvalidArgument),
        (dict(method="bayes"), InvalidArgument),
        (dict(pair=(0.0, 5.0)), NotNeighbouring),
        (dict(pair="ab"), InvalidArgument),
        (dict(method="joint", delta=1e-3), InvalidArgument),
    ],
)
def test_bad_arguments(kwargs, error):
    with pytest.raises(error):
        audit(fixtures.laplace(), **{"samples": 1_000, "seed": 1, **kwargs})


def test_unknown_name():
    with pytest.raises(UnknownMechanism):
        audit("no-such-mechanism", samples=1_000, seed=1)


def _raises(q, n, rng):
    raise RuntimeError("boom")


def _nan(q, n, rng):
    out = rng.random(n)
    out[n // 2] = np.nan
    return out


def _varying_shape(q, n, rng):
    return rng.random((n, 2 if q > 0.5 else 3))


def _unhashable(q, rng):
    return {1, 2} if rng.random() < 0.5 else {3}


@pytest.mark.parametrize("function,words", [(_raises, "boom"), (_nan, "NaN"), (_varying_shape, "varying shapes"),
                                            (_unhashable, "type set")])
def test_misbehaving_targets_raise_mechanism_error(function, words):
    with pytest.raises(MechanismError, match=words):
        audit(function, epsilon=1.0, samples=1_000, seed=1)


def test_search_budget_grows_with_n_up_to_its_memory_cap():
    from dpaudit.auditor import search_budget

    # N/2 up to 10^6 for every width (no audit up to the default N changed); beyond, 2 x 10^6 rows or
    # 2 x 10^7 numbers per side, whichever is fewer, never below 5 x 10^5.
    assert [search_budget(n) for n in (100, 10**4, 10**5, 10**6)] == [100, 10_000, 50_000, 500_000]
    assert all(search_budget(10**6, width) == 500_000 for width in (1, 10, 100, 10_000))
    assert search_budget(10**7) == search_budget(10**7, 10) == 2_000_000
    assert search_budget(10**7, 20) == 1_000_000 and search_budget(10**7, 1_000) == 500_000


def test_a_wide_output_searches_within_the_memory_cap(monkeypatch):
    audit_module = importlib.import_module("dpaudit.auditor.audit")

    # The caps scaled down 500-fold: (1 000, 4 000) rows, 40 000 numbers.  Rows of 50 numbers then
    # search 1 000 rows (40 000 / 50 = 800, raised to the floor) where N/2 would be 10 000.
    monkeypatch.setattr(audit_module, "SEARCH_ROWS", (1_000, 4_000))
    monkeypatch.setattr(audit_module, "SEARCH_VALUES", 40_000)
    wide = dpaudit.Mechanism.from_callable(lambda q, n, rng: q + rng.laplace(0.0, 1.0, (n, 50)),
                                           claim=dpaudit.PureDP(1.0), vectorised=True)
    result = audit(wide, pair=(0.0, 1.0), samples=20_000, seed=1, executor="in-process", learned=False)
    assert result.search_samples == 1_000
    narrow = dpaudit.Mechanism.from_callable(lambda q, n, rng: q + rng.laplace(0.0, 1.0, n),
                                             claim=dpaudit.PureDP(1.0), vectorised=True)
    assert audit(narrow, pair=(0.0, 1.0), samples=20_000, seed=1, executor="in-process").search_samples == 4_000


@pytest.mark.parametrize("name", ["early_stopping", "learned", "curve"])
def test_a_yes_no_option_that_is_not_one_is_named(name):
    with pytest.raises(InvalidArgument, match=f"{name}=array"):
        audit("rr", samples=200, seed=1, executor="in-process", **{name: np.array([1.0, 2.0])})
    with pytest.raises(InvalidArgument, match="curve="):
        dpaudit.report("rr", samples=200, seed=1, executor="in-process", plots=False, curve=np.array([1.0, 2.0]))
