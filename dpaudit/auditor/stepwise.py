"""Audited epsilon lower bounds after each step of a mechanism that releases one output column per step.

For DP-SGD's white-box release (one column per step: the noisy update's projection on the canary
direction) the first t columns are the output of the first t steps, so a lower bound on their
epsilon is a lower bound on the epsilon of t steps.  At q = 1 the columns are a composition of
Gaussian mechanisms with shifts s_j and noise sigma_j, whose likelihood-ratio statistic is the
weighted sum

    Z_t = sum_{j <= t} w_j x_j,   w_j = s_j / sigma_j^2

(Neyman-Pearson; Dong, Roth & Su 2022, Cor. 3.3): with equal noise, the plain sum of the first t
columns.  The weights are the plug-in ones, w_j = (mean_a(x_j) - mean_b(x_j)) / var(x_j),
estimated on a *selection* half of the samples, and the events are the half-lines {Z_t > c}
(order a, b) and {Z_t < c} (order b, a).  The selection half also picks the order and c (the best
Clopper-Pearson union bound over a grid of quantiles); the other, *verification* half, untouched by
the choice, gives the bound

    epsilon_t >= ln((LCB(p_first(S)) - delta) / UCB(p_second(S)))

(:func:`dpaudit.auditor.bounds.union_bound`), each at confidence 1 - (1 - confidence) / k for the
k steps bounded, so all k bounds hold together at ``confidence`` (Bonferroni).  This is the
two-stage scheme of Jagielski, Ullman & Oprea (NeurIPS 2020) and Nasr et al. (USENIX Security 2023),
applied step by step.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InvalidArgument
from . import bounds

__all__ = ["StepBounds", "step_bounds"]

_QUANTILES = np.linspace(0.5, 0.9995, 64)


@dataclass(frozen=True)
class StepBounds:
    """Lower bounds on epsilon(delta) after the first t steps, for each t in ``steps``."""

    steps: tuple[int, ...]
    epsilon_lower: tuple[float, ...]
    confidence: float
    per_step_confidence: float
    delta: float
    verification_size: int


def _weights(selection_a: np.ndarray, selection_b: np.ndarray) -> np.ndarray:
    """w_j = (mean_a - mean_b) / pooled variance, per column (0 for a column that does not vary)."""
    shift = selection_a.mean(axis=0) - selection_b.mean(axis=0)
    variance = 0.5 * (selection_a.var(axis=0) + selection_b.var(axis=0))
    return np.divide(shift, variance, out=np.zeros_like(shift), where=variance > 0)


def _choose(z_a: np.ndarray, z_b: np.ndarray, level: float, delta: float) -> tuple[float, bool]:
    """The threshold c and order (True: {Z > c} with a first; False: {Z < c} with b first) of the best
    union bound on the selection half."""
    pooled = np.concatenate([z_a, z_b])
    best, choice = -np.inf, (float(np.median(pooled)), True)
    n_a, n_b = len(z_a), len(z_b)
    for a_first, cuts in ((True, np.quantile(pooled, _QUANTILES)), (False, np.quantile(pooled, 1.0 - _QUANTILES))):
        if a_first:
            ka, kb = (z_a[:, None] > cuts).sum(axis=0), (z_b[:, None] > cuts).sum(axis=0)
            found = bounds.union_bound(ka, n_a, kb, n_b, level, delta)
        else:
            ka, kb = (z_a[:, None] < cuts).sum(axis=0), (z_b[:, None] < cuts).sum(axis=0)
            found = bounds.union_bound(kb, n_b, ka, n_a, level, delta)
        i = int(np.argmax(found))
        if found[i] > best:
            best, choice = float(found[i]), (float(cuts[i]), a_first)
    return choice


def step_bounds(
    rows_a: np.ndarray, rows_b: np.ndarray, steps: tuple[int, ...], delta: float, confidence: float
) -> StepBounds:
    """Lower bounds on epsilon(delta) of the first t columns, t in ``steps``, holding together at ``confidence``.

    ``rows_a``, ``rows_b``: (n, T) outputs of M(a) and M(b); the first half of each selects the
    event, the second half verifies it (module docstring).
    """
    rows_a, rows_b = np.asarray(rows_a, dtype=float), np.asarray(rows_b, dtype=float)
    if rows_a.ndim != 2 or rows_b.ndim != 2 or rows_a.shape[1] != rows_b.shape[1]:
        raise InvalidArgument(f"rows of shapes {rows_a.shape} and {rows_b.shape} must be (n, T) with the same T")
    if not steps or min(steps) < 1 or max(steps) > rows_a.shape[1]:
        raise InvalidArgument(f"steps={steps!r} must lie in 1..{rows_a.shape[1]} (the number of columns)")
    if min(len(rows_a), len(rows_b)) < 4:
        raise InvalidArgument(f"{len(rows_a)} and {len(rows_b)} rows per side: at least 4 are needed to split in halves")
    if not 0.0 < confidence < 1.0:
        raise InvalidArgument(f"confidence={confidence!r} must lie strictly between 0 and 1")
    level = 1.0 - (1.0 - confidence) / len(steps)
    half_a, half_b = len(rows_a) // 2, len(rows_b) // 2
    select_a, verify_a = rows_a[:half_a], rows_a[half_a:]
    select_b, verify_b = rows_b[:half_b], rows_b[half_b:]
    weights = _weights(select_a, select_b)
    lower = []
    for t in steps:
        w = weights[:t]
        cut, a_first = _choose(select_a[:, :t] @ w, select_b[:, :t] @ w, level, delta)
        z_a, z_b = verify_a[:, :t] @ w, verify_b[:, :t] @ w
        if a_first:
            found = bounds.union_bound((z_a > cut).sum(), len(z_a), (z_b > cut).sum(), len(z_b), level, delta)
        else:
            found = bounds.union_bound((z_b < cut).sum(), len(z_b), (z_a < cut).sum(), len(z_a), level, delta)
        lower.append(float(found))
    return StepBounds(tuple(int(t) for t in steps), tuple(lower), confidence, level, delta, min(len(verify_a), len(verify_b)))
