"""The empirical privacy curve: lower confidence bounds on delta(epsilon) for every epsilon at once.

For neighbours (a, b) and any set S of outputs, (epsilon, delta)-DP requires
P_a(S) - e^epsilon P_b(S) <= delta (Dwork & Roth 2014, Def. 2.4), so the privacy curve -- the
hockey-stick divergence delta(epsilon) = sup_S [P_a(S) - e^epsilon P_b(S)] over both orders of the
pair (Balle et al. 2018, "Privacy amplification by subsampling", Thm. 1) -- is bounded below by the
value of any event.  The curve here is the maximum over a finite family of m *oriented* events
(S, first side, second side), fixed before the counting samples are drawn:

    delta_LB(epsilon) = max_i [ L_i - e^epsilon U_i ]^+,
    epsilon_LB(delta) = max_i ln((L_i - delta) / U_i),

where L_i is the one-sided Clopper-Pearson lower bound (Clopper & Pearson 1934) on the first side's
P(S_i) and U_i the upper bound on the second side's, from n fresh samples per side, each at level
1 - alpha / (2 m).

**Simultaneous confidence (Bonferroni).**  The 2m bounds L_1..L_m, U_1..U_m each fail with
probability at most alpha / (2m), so with probability at least 1 - alpha all of them hold at once.
On that event L_i <= P_first(S_i) and U_i >= P_second(S_i) for every i, hence for *every* epsilon
delta_LB(epsilon) <= P_first(S_i) - e^epsilon P_second(S_i) <= delta(epsilon): the whole curve lies
below the true curve with probability >= 1 - alpha, and so does every quantity derived from the
(L_i, U_i) alone -- epsilon_LB(delta) for every delta, and the two bounds below -- with no further
correction.  The two levels of the audit (the estimate at ``confidence``, the verdict at
``verdict_confidence``) are two such families of bounds on the same counts.

**Gaussian DP (Dong, Roth & Su 2022, Def. 2.6 and Cor. 2.13).**  mu-GDP says the trade-off function
of (M(a), M(b)) is at least G_mu(x) = Phi(Phi^-1(1 - x) - mu); for the test that rejects when the
output lies in S (type I error P_b(S), type II 1 - P_a(S)) that is P_a(S) <= Phi(Phi^-1(P_b(S)) + mu),
i.e. Phi^-1(P_a(S)) - Phi^-1(P_b(S)) <= mu.  Phi^-1 increases, so

    mu_LB = max_i Phi^-1(L_i) - Phi^-1(U_i)

is a lower confidence bound on the smallest mu the mechanism satisfies; it is the largest mu whose
curve delta_mu(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2) lies below
L_i - e^epsilon U_i at some epsilon (the two statements are dual, Dong, Roth & Su 2022, Prop. 2.12).

**Zero-concentrated DP (Bun & Steinke 2016, Def. 1.1).**  rho-zCDP says D_alpha(M(a) || M(b)) <=
rho alpha for every alpha > 1.  Rényi divergence cannot grow under post-processing (van Erven &
Harremoës 2014, Thm. 9), so D_alpha(Bern(P_a(S)) || Bern(P_b(S))) <= rho alpha; for q <= p the
binary divergence d_alpha(p || q) increases in p and decreases in q (it is quasi-convex in each
argument with its minimum 0 at p = q), so on the event above, for L_i >= U_i,

    rho_LB = max_i sup_alpha d_alpha(L_i || U_i) / alpha

(sup over a grid of alpha; any alpha gives a valid bound) is a lower confidence bound on rho, and
d_alpha(L_i || U_i) one on the Rényi divergence of order alpha.

Only the counting samples enter the bounds; the events (thresholds at the pooled pilot sample's tail
quantiles, :func:`threshold_family`, plus the audit's verified events) are chosen before they are drawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._codec import from_json, to_json
from .. import bounds
from ..events.sets import Feature, Threshold

__all__ = ["ALPHA_GRID", "CURVE_POINTS", "TAIL_THRESHOLDS", "CurveEvent", "EmpiricalCurve", "binary_renyi",
           "measure_curve", "threshold_family"]

TAIL_THRESHOLDS = 24
CURVE_POINTS = 64
ALPHA_GRID = tuple(float(a) for a in np.geomspace(1.0 + 1e-3, 1e3, 160))


@dataclass(frozen=True)
class CurveEvent:
    """One oriented event of the curve's family and its two Clopper-Pearson bounds at each level.

    ``forward`` means the first side is M(a): ``lower`` bounds P_a(S) from below and ``upper``
    P_b(S) from above; else the roles are swapped.  ``verdict_lower``/``verdict_upper`` are the same
    bounds at the verdict's level.
    """

    event: str
    event_spec: dict[str, Any]
    forward: bool
    hits: tuple[int, int]
    lower: float
    upper: float
    verdict_lower: float
    verdict_upper: float

    def as_dict(self) -> dict[str, Any]:
        return {"event": self.event, "event_spec": self.event_spec, "forward": self.forward, "hits": list(self.hits),
                "lower": self.lower, "upper": self.upper, "verdict_lower": self.verdict_lower,
                "verdict_upper": self.verdict_upper}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "CurveEvent":
        return cls(data["event"], dict(data["event_spec"]), bool(data["forward"]), tuple(data["hits"]),
                   float(data["lower"]), float(data["upper"]), float(data["verdict_lower"]),
                   float(data["verdict_upper"]))


def binary_renyi(p: np.ndarray, q: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """d_alpha(p || q) = ln(p^alpha q^(1-alpha) + (1-p)^alpha (1-q)^(1-alpha)) / (alpha - 1), alpha > 1.

    The Rényi divergence of order alpha between Bernoulli(p) and Bernoulli(q) (Rényi 1961; van Erven
    & Harremoës 2014, Eq. (1)), computed in logs; inf when q = 0 < p or q = 1 > p.  Broadcasts.
    """
    p, q, alpha = np.broadcast_arrays(np.asarray(p, float), np.asarray(q, float), np.asarray(alpha, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(p > 0, alpha * np.log(np.where(p > 0, p, 1.0)) + (1 - alpha) * np.log(q), -np.inf)
        second = np.where(p < 1, alpha * np.log1p(-np.where(p < 1, p, 0.0)) + (1 - alpha) * np.log1p(-q), -np.inf)
        return np.logaddexp(first, second) / (alpha - 1)


@dataclass(frozen=True)
class EmpiricalCurve:
    """Lower confidence bounds on the privacy curve of one pair, simultaneous over the curve (module docstring).

    Attributes
    ----------
    pair : (a, b)
        The neighbouring inputs.
    sample_sizes : (int, int)
        Counting samples per side (fresh; the events were fixed before they were drawn).
    confidence, verdict_confidence : float
        Simultaneous levels of the two families of bounds (every L_i, U_i at 1 - alpha / (2 m)).
    events : tuple of CurveEvent
        The m oriented events and their bounds.
    epsilons, delta_lower, verdict_delta_lower : tuple of float
        The curve tabulated: delta_LB(epsilon) on ``CURVE_POINTS`` epsilons (for plots; the
        methods evaluate it exactly anywhere).
    mu_lower_bound, verdict_mu_lower_bound : float
        Lower confidence bounds on mu of Gaussian DP, floored at 0.
    rho_lower_bound, verdict_rho_lower_bound : float
        Lower confidence bounds on rho of zero-concentrated DP, floored at 0.
    method : str
        The construction, in one sentence.
    """

    pair: tuple[Any, Any]
    sample_sizes: tuple[int, int]
    confidence: float
    verdict_confidence: float
    events: tuple[CurveEvent, ...]
    epsilons: tuple[float, ...]
    delta_lower: tuple[float, ...]
    verdict_delta_lower: tuple[float, ...]
    mu_lower_bound: float
    verdict_mu_lower_bound: float
    rho_lower_bound: float
    verdict_rho_lower_bound: float
    method: str

    def bounds(self, verdict: bool = False) -> tuple[np.ndarray, np.ndarray]:
        lower = np.array([e.verdict_lower if verdict else e.lower for e in self.events], dtype=float)
        upper = np.array([e.verdict_upper if verdict else e.upper for e in self.events], dtype=float)
        return lower, upper

    def delta_lower_bound(self, epsilon: float, verdict: bool = False) -> float:
        """delta_LB(epsilon) = max_i [L_i - e^epsilon U_i]^+ (at the verdict's level when ``verdict``)."""
        lower, upper = self.bounds(verdict)
        return _delta_at(lower, upper, epsilon)

    def epsilon_lower_bound(self, delta: float, verdict: bool = False) -> float:
        """epsilon_LB(delta) = max_i ln((L_i - delta) / U_i), floored at 0 (at the verdict's level when ``verdict``)."""
        lower, upper = self.bounds(verdict)
        return _epsilon_at(lower, upper, delta)

    def worst_event(self, delta: float, verdict: bool = False) -> CurveEvent | None:
        """The event that gives :meth:`epsilon_lower_bound` at ``delta`` (None when no event beats delta)."""
        lower, upper = self.bounds(verdict)
        values = _log_ratios(lower, upper, delta)
        return self.events[int(np.argmax(values))] if values.size and np.isfinite(values.max()) else None

    def as_dict(self) -> dict[str, Any]:
        return to_json({
            "pair": self.pair, "sample_sizes": self.sample_sizes, "confidence": self.confidence,
            "verdict_confidence": self.verdict_confidence, "events": [e.as_dict() for e in self.events],
            "epsilons": self.epsilons, "delta_lower": self.delta_lower, "verdict_delta_lower": self.verdict_delta_lower,
            "mu_lower_bound": self.mu_lower_bound, "verdict_mu_lower_bound": self.verdict_mu_lower_bound,
            "rho_lower_bound": self.rho_lower_bound, "verdict_rho_lower_bound": self.verdict_rho_lower_bound,
            "method": self.method,
        })

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "EmpiricalCurve":
        return cls(
            pair=from_json(data["pair"]), sample_sizes=tuple(data["sample_sizes"]),
            confidence=float(data["confidence"]), verdict_confidence=float(data["verdict_confidence"]),
            events=tuple(CurveEvent.from_dict(e) for e in data["events"]),
            epsilons=tuple(float(x) for x in data["epsilons"]),
            delta_lower=tuple(float(x) for x in data["delta_lower"]),
            verdict_delta_lower=tuple(float(x) for x in data["verdict_delta_lower"]),
            mu_lower_bound=float(data["mu_lower_bound"]), verdict_mu_lower_bound=float(data["verdict_mu_lower_bound"]),
            rho_lower_bound=float(data["rho_lower_bound"]),
            verdict_rho_lower_bound=float(data["verdict_rho_lower_bound"]), method=str(data["method"]),
        )


def _delta_at(lower: np.ndarray, upper: np.ndarray, epsilon: float) -> float:
    if lower.size == 0:
        return 0.0
    return float(max(0.0, np.max(lower - math.exp(epsilon) * upper)))


def _log_ratios(lower: np.ndarray, upper: np.ndarray, delta: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(lower > delta, np.log(np.where(lower > delta, lower - delta, 1.0)) - np.log(upper), -np.inf)


def _epsilon_at(lower: np.ndarray, upper: np.ndarray, delta: float) -> float:
    values = _log_ratios(lower, upper, delta)
    return float(max(0.0, values.max())) if values.size else 0.0


def mu_lower_bound(lower: np.ndarray, upper: np.ndarray) -> float:
    """mu_LB = max_i Phi^-1(L_i) - Phi^-1(U_i), floored at 0 (Dong, Roth & Su 2022; module docstring)."""
    from scipy.special import ndtri

    if lower.size == 0:
        return 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        values = np.where(lower > 0, ndtri(np.clip(lower, 0, 1)) - ndtri(np.clip(upper, 0, 1)), -np.inf)
    values = np.nan_to_num(values, nan=-np.inf)
    return float(max(0.0, values.max()))


def rho_lower_bound(lower: np.ndarray, upper: np.ndarray) -> float:
    """rho_LB = max_i max_alpha d_alpha(L_i || U_i) / alpha over ``ALPHA_GRID``, L_i >= U_i (module docstring)."""
    keep = (lower > upper) & (lower > 0)
    if not np.any(keep):
        return 0.0
    alpha = np.asarray(ALPHA_GRID)[:, None]
    values = binary_renyi(lower[keep][None, :], upper[keep][None, :], alpha) / alpha
    return float(max(0.0, np.nanmax(values)))


def threshold_family(pilot_a: np.ndarray, pilot_b: np.ndarray, feature: Feature,
                     count: int = TAIL_THRESHOLDS, smallest_mass: float | None = None) -> list[Threshold]:
    """Threshold events ``feature <= t`` and ``feature > t`` at the pooled pilot's tail quantiles.

    The tail masses run geometrically from 1/2 down to ``smallest_mass`` (default: one pooled pilot
    output), ``count`` on each side; duplicate cuts are dropped.  The privacy loss of a monotone
    likelihood ratio (Laplace, Gaussian, geometric noise) is largest in the tails, and the event
    that bounds delta(epsilon) best sits at a tail mass that shrinks with delta.
    """
    pooled = np.sort(np.r_[feature.values(pilot_a), feature.values(pilot_b)].astype(float))
    if pooled.size < 2:
        return []
    floor = 1.0 / pooled.size if smallest_mass is None else max(smallest_mass, 1.0 / pooled.size)
    masses = np.geomspace(0.5, floor, count)
    low = np.unique(pooled[np.clip(np.floor(masses * pooled.size).astype(int) - 1, 0, pooled.size - 1)])
    high = np.unique(pooled[np.clip(np.ceil((1 - masses) * pooled.size).astype(int), 0, pooled.size - 1)])
    top = pooled[-1]
    events = [Threshold(feature, float(t), True) for t in low if t < top]
    events += [Threshold(feature, float(t), False) for t in high if t < top]
    return list(dict.fromkeys(events))


def measure_curve(events: list[Any], hits_a: list[int], hits_b: list[int], sizes: tuple[int, int],
                  pair: tuple[Any, Any], confidence: float, verdict_confidence: float) -> EmpiricalCurve:
    """The :class:`EmpiricalCurve` from the hit counts of ``events`` on fresh samples of both sides.

    Each event enters in both orientations (M(a) first and M(b) first), so m = 2 len(events) oriented
    events and 2m one-sided Clopper-Pearson bounds, each at 1 - alpha / (2m) (module docstring).
    """
    na, nb = int(sizes[0]), int(sizes[1])
    m = 2 * len(events)
    ka, kb = np.asarray(hits_a, dtype=float), np.asarray(hits_b, dtype=float)

    def oriented(level: float) -> tuple[np.ndarray, np.ndarray]:
        per_bound = 1.0 - (1.0 - level) / max(1, 2 * m)
        lower = np.r_[bounds.cp_lower(ka, na, per_bound), bounds.cp_lower(kb, nb, per_bound)]
        upper = np.r_[bounds.cp_upper(kb, nb, per_bound), bounds.cp_upper(ka, na, per_bound)]
        return lower, upper

    lower, upper = oriented(confidence)
    verdict_lower, verdict_upper = oriented(verdict_confidence)
    records = tuple(
        CurveEvent(event.describe(), to_json(event.as_dict()), forward,
                   (int(ka[i]), int(kb[i])) if forward else (int(kb[i]), int(ka[i])),
                   float(lower[j]), float(upper[j]), float(verdict_lower[j]), float(verdict_upper[j]))
        for j, (i, event, forward) in enumerate(
            [(i, e, True) for i, e in enumerate(events)] + [(i, e, False) for i, e in enumerate(events)])
    )
    top = _epsilon_at(lower, upper, 0.0)
    epsilons = tuple(float(x) for x in np.linspace(0.0, max(top, 1e-3) * 1.05, CURVE_POINTS))
    return EmpiricalCurve(
        pair=pair, sample_sizes=(na, nb), confidence=confidence, verdict_confidence=verdict_confidence,
        events=records, epsilons=epsilons,
        delta_lower=tuple(_delta_at(lower, upper, e) for e in epsilons),
        verdict_delta_lower=tuple(_delta_at(verdict_lower, verdict_upper, e) for e in epsilons),
        mu_lower_bound=mu_lower_bound(lower, upper), verdict_mu_lower_bound=mu_lower_bound(verdict_lower, verdict_upper),
        rho_lower_bound=rho_lower_bound(lower, upper),
        verdict_rho_lower_bound=rho_lower_bound(verdict_lower, verdict_upper),
        method=(f"Clopper-Pearson bounds on {len(events)} events in both orientations, Bonferroni over the "
                f"{2 * m} one-sided bounds: simultaneous over the whole curve"),
    )
