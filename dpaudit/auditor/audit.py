"""``audit()``: a two-stage Monte Carlo lower bound on the epsilon a mechanism realises.

1. **Search stage** (``search_samples`` per side, see :func:`search_budget`).  When no pair is given,
   half of it is shared equally among the candidate pairs of :mod:`.pairs` (screening, at least
   ``MIN_SCREEN`` per pair); the pair whose best event scores highest wins, and the rest (at least
   half), fresh, plus the winner's screening samples choose the events (:mod:`.search`).  With a
   given pair all of it goes to event selection.
2. **Verification stage** (``samples`` per side).  Fresh samples -- Poisson(N) of them per side, which
   makes the joint ratio test exact (:mod:`.bounds`) -- are drawn in chunks and only the hit counts
   of the ``candidates`` best events are kept.  Each bound is computed at confidence
   1 - alpha/candidates (Bonferroni), so all of them hold jointly; Holm-adjusted p-values of
   H0: epsilon <= claimed are reported beside them.  Only verification bounds are ever reported.

The verdict is *violation* when the reported bound exceeds the claimed epsilon at the claimed delta;
otherwise *underpowered* when :func:`.bounds.reach` falls below ``REACH_FRACTION`` of the claim,
else *pass*.  Probabilistic-DP claims are audited as approximate DP: (epsilon, delta)-P-DP implies
(epsilon, delta)-A-DP (Meiser 2018, Lemma 1), so a refuted A-DP claim refutes the P-DP claim.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from .._validation import (
    check_nonnegative_finite,
    check_nonnegative_int,
    check_one_of,
    check_positive_int,
    check_probability_open,
    check_unit_interval,
)
from ..errors import InvalidArgument
from ..mechanisms.base import Mechanism
from ..mechanisms.targets import resolve
from . import bounds
from .pairs import candidate_pairs
from .result import AuditResult, Verdict, VerifiedEvent, from_plain, plain
from .sampling import Clock, count_hits, draw, fresh_seed, generators, stage_seeds
from .search import Scored, search_events

__all__ = ["DEFAULT_SAMPLES", "MIN_SAMPLES", "REACH_FRACTION", "audit", "search_budget"]

DEFAULT_SAMPLES = 1_000_000
MIN_SAMPLES = 100
REACH_FRACTION = 0.9
MIN_SCREEN = 200
SEARCH_EVENTS = 10_000


def search_budget(samples: int) -> int:
    """Search-stage samples per side: N/5, at least min(N, 20 000), at most 500 000."""
    return min(max(samples // 5, min(samples, 20_000)), 500_000)


def _pick_method(method: str, delta: float) -> str:
    check_one_of("method", method, bounds.METHODS)
    if method == "auto":
        return "joint" if delta == 0 else "union"
    if method == "joint" and delta > 0:
        raise InvalidArgument(f"method={method!r} bounds epsilon at delta = 0 only; the claim has delta={delta!r}")
    return method


def _search(
    mechanism: Mechanism,
    pairs: list[tuple[Any, Any]],
    n_search: int,
    node: np.random.SeedSequence,
    clock: Clock,
    score,
) -> tuple[tuple[Any, Any], list[Scored], int]:
    """Screen the pairs, then choose events on the winner: (pair, events best first, samples per side)."""
    nodes = node.spawn(len(pairs) + 1)
    kept: tuple[np.ndarray, np.ndarray] | None = None
    winner, spent = 0, 0
    if len(pairs) > 1:
        per_pair = max(MIN_SCREEN, n_search // (2 * len(pairs)))
        best = -math.inf
        for i, (a, b) in enumerate(pairs):
            rng_a, rng_b = generators(nodes[i])
            rows_a, rows_b = draw(mechanism, a, per_pair, rng_a, clock), draw(mechanism, b, per_pair, rng_b, clock)
            found = search_events(rows_a, rows_b, score)
            objective = found[0].objective if found else -math.inf
            if objective > best or kept is None:
                best, winner, kept = objective, i, (rows_a, rows_b)
        spent = per_pair * len(pairs)
    a, b = pairs[winner]
    fresh = max(n_search - spent, n_search // 2)
    rng_a, rng_b = generators(nodes[-1])
    rows_a, rows_b = draw(mechanism, a, fresh, rng_a, clock), draw(mechanism, b, fresh, rng_b, clock)
    if kept is not None:
        rows_a, rows_b = np.concatenate([kept[0], rows_a]), np.concatenate([kept[1], rows_b])
    return (a, b), search_events(rows_a, rows_b, score), spent + fresh


def _distinct(found: list[Scored], count: int) -> list[Scored]:
    chosen: list[Scored] = []
    seen: set[tuple[str, bool]] = set()
    for scored in found:
        key = (repr(scored.event.as_dict()), scored.forward)
        if key not in seen:
            seen.add(key)
            chosen.append(scored)
        if len(chosen) == count:
            break
    return chosen


def audit(
    target: Any,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    pair: tuple[Any, Any] | None = None,
    samples: int | None = None,
    seed: int | None = None,
    confidence: float = 0.95,
    method: str = "auto",
    candidates: int = 1,
) -> AuditResult:
    """Lower-bound, with confidence ``confidence``, the epsilon that ``target`` realises.

    Parameters
    ----------
    target : Mechanism, str or callable
        A Mechanism, a catalogue name, ``package.module:attr``, ``file.py:attr``, or a plain function
        ``f(data, n, rng)`` (n runs, vectorised) or ``f(data, rng)`` (one run, batched).
    epsilon, delta : float, optional
        The claim to audit; default the mechanism's own.  Required (epsilon) for a plain callable;
        ``delta`` defaults to 0 then.
    pair : (a, b), optional
        Neighbouring inputs; when absent they are searched (:mod:`dpaudit.auditor.pairs`).
    samples : int, optional
        Verification samples per side (default ``DEFAULT_SAMPLES``); the search stage spends
        :func:`search_budget` more per side.
    seed : int, optional
        Seed of the ``SeedSequence`` behind every draw; drawn from OS entropy and recorded if absent.
    confidence : float
        Joint confidence of the reported bounds, in (0, 1).
    method : {"auto", "joint", "union"}
        The bound (:mod:`dpaudit.auditor.bounds`); ``"auto"`` takes ``"joint"`` at delta = 0 (the
        tighter of the two, measured by ``benchmarks/tightness.py``) and ``"union"`` otherwise.
    candidates : int
        How many of the best search-stage events to verify (Bonferroni-corrected).

    Returns
    -------
    AuditResult
        ``epsilon_lower_bound`` is a lower confidence bound on the realised epsilon at the claimed
        delta: P[epsilon_true >= bound] >= ``confidence`` for every mechanism and every seed choice.
    """
    started = time.perf_counter()
    confidence = check_probability_open("confidence", confidence)
    if epsilon is not None:
        epsilon = check_nonnegative_finite("epsilon", epsilon)
    if delta is not None:
        delta = check_unit_interval("delta", delta)
    n = DEFAULT_SAMPLES if samples is None else check_positive_int("samples", samples)
    if n < MIN_SAMPLES:
        raise InvalidArgument(f"samples={samples!r} must be at least {MIN_SAMPLES}")
    candidates = check_positive_int("candidates", candidates)
    seed = fresh_seed() if seed is None else check_nonnegative_int("seed", seed)
    mechanism = resolve(target, epsilon=epsilon, delta=delta)
    claim = mechanism.claim
    claim_delta = float(claim.delta)
    chosen_method = _pick_method(method, claim_delta)
    pairs, notes = candidate_pairs(mechanism, pair)
    if claim.kind == "probabilistic":
        notes.append("probabilistic DP audited as approximate DP (P-DP implies A-DP)")

    level = bounds.bonferroni_confidence(confidence, candidates)
    # The search maximises a bound that holds simultaneously over the events it scores
    # (Bonferroni over SEARCH_EVENTS): with the verification level instead, the maximum over
    # thousands of noisy small-mass events is biased upwards (winner's curse) and picks tails.
    search_level = bounds.bonferroni_confidence(confidence, SEARCH_EVENTS)

    def score(ka, na, kb, nb):
        return bounds.epsilon_lower_bound(chosen_method, ka, na, kb, nb, search_level, claim_delta)

    clock = Clock()
    search_node, verify_node = stage_seeds(seed)
    (a, b), found, n_search = _search(mechanism, pairs, search_budget(n), search_node, clock, score)
    chosen = _distinct(found, candidates)

    size_node, pair_node = verify_node.spawn(2)
    sizes = np.random.default_rng(size_node).poisson(n, size=2)
    m_a, m_b = int(sizes[0]), int(sizes[1])
    verified: list[dict[str, Any]] = []
    if chosen:
        tests = [s.event.contains for s in chosen]
        rng_a, rng_b = generators(pair_node)
        hits_a = count_hits(mechanism, a, m_a, rng_a, clock, tests)
        hits_b = count_hits(mechanism, b, m_b, rng_b, clock, tests)
        for s, ha, hb in zip(chosen, hits_a, hits_b):
            ka, kb, na, nb, first, second = (ha, hb, m_a, m_b, a, b) if s.forward else (hb, ha, m_b, m_a, b, a)
            scale = (na, nb) if chosen_method == "union" else (n, n)
            bound = float(bounds.epsilon_lower_bound(chosen_method, ka, scale[0], kb, scale[1], level, claim_delta))
            p = bounds.p_value(chosen_method, ka, scale[0], kb, scale[1], claim.epsilon, claim_delta)
            verified.append(
                dict(scored=s, pair=(first, second), hits=(ka, kb), sizes=(na, nb), bound=bound, p=p)
            )
    _, holm = bounds.holm_adjusted([v["p"] for v in verified], confidence)
    records = tuple(
        VerifiedEvent(
            pair=from_plain(plain(v["pair"])),
            event=v["scored"].event.describe(),
            event_spec=plain(v["scored"].event.as_dict()),
            family=v["scored"].family,
            search_bound=float(v["scored"].objective),
            hits=v["hits"],
            sample_sizes=v["sizes"],
            epsilon_lower_bound=v["bound"],
            p_value=v["p"],
            holm_p_value=h,
        )
        for v, h in zip(verified, holm)
    )
    reach = bounds.reach(chosen_method, n, claim.epsilon, claim_delta, level)
    if records:
        best = max(records, key=lambda r: r.epsilon_lower_bound)
        raw_bound, (ka, kb), (na, nb) = best.epsilon_lower_bound, best.hits, best.sample_sizes
        event, spec, reported_pair = best.event, best.event_spec, best.pair
    else:
        raw_bound, ka, kb, na, nb = -math.inf, 0, 0, m_a, m_b
        event, spec, reported_pair = "none: the outputs took one value on the search samples", {}, from_plain(plain((a, b)))
    bound = max(raw_bound, 0.0)
    support_mismatch = bool(records) and kb == 0 and ka > 0
    if support_mismatch:
        notes.append("support mismatch: epsilon = inf suspected; the bound is capped by the sample size")
    delta_lb = None
    if claim.kind != "pure":
        delta_lb = float(bounds.delta_lower_bound(ka, na, kb, nb, claim.epsilon, level)) if records else 0.0
    verdict, reason = _verdict(bound, raw_bound, claim.epsilon, reach, n, event)
    return AuditResult(
        target=mechanism.name,
        claim=claim,
        verdict=verdict,
        reason=reason,
        epsilon_lower_bound=bound,
        delta_lower_bound=delta_lb,
        confidence=confidence,
        samples=n,
        search_samples=n_search,
        sample_sizes=(int(na), int(nb)),
        hits=(int(ka), int(kb)),
        event=event,
        event_spec=spec,
        pair=reported_pair,
        seed=seed,
        method=chosen_method,
        support_mismatch=support_mismatch,
        epsilon_reach=max(reach, 0.0),
        pairs_screened=len(pairs),
        candidates=records,
        elapsed_s=time.perf_counter() - started,
        mechanism_s=clock.mechanism_s,
        vectorised=not hasattr(mechanism.sampler, "one_run"),
        notes=tuple(notes),
    )


def _verdict(bound: float, raw: float, epsilon: float, reach: float, n: int, event: str) -> tuple[Verdict, str]:
    if raw > epsilon:
        return Verdict.VIOLATION, f"the verified bound {bound:.4g} exceeds the claimed epsilon {epsilon:g} on the event {event}"
    if reach < REACH_FRACTION * epsilon:
        return Verdict.UNDERPOWERED, (
            f"no violation found, but with {n} samples per side even a perfect witness could certify only "
            f"{max(reach, 0.0):.4g} < {REACH_FRACTION:g} x {epsilon:g}; increase samples"
        )
    return Verdict.PASS, f"no violation: the verified bound {bound:.4g} does not exceed the claimed epsilon {epsilon:g}"
