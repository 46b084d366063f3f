"""Goodness-of-fit helpers: does a sampler draw from its declared density?

Every catalogue test uses these at the same level, ``ALPHA = 1e-6``: a correct sampler fails with
probability at most 1e-6 per test (the test is also seeded, so it is deterministic), and each fit
test has a power twin that must *reject* the sampler with its noise scale off by 30 %.

* continuous scalar outputs: Kolmogorov-Smirnov (``scipy.stats.kstest``) against the CDF obtained by
  numerically integrating the declared density (scipy ``quad`` for the tails, cumulative trapezoid
  on a 2*10^5-point grid in between; integration error < 1e-7, far below the KS critical value);
* discrete outputs: Pearson chi-square (``scipy.stats.chisquare``) against the declared pmf, bins
  with expected count < 5 merged into one, the unobserved rest of the support in a tail bin.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from scipy import integrate, stats

ALPHA = 1e-6


def density_function(density: Any, q: Any) -> Callable[..., Any]:
    """The declared density at the instance's parameters and input q, as a numpy function of y."""
    import sympy

    qs = q if isinstance(q, (tuple, list)) else (q,)
    expr = density.expr.subs(dict(density.instance)).subs(dict(zip(density.inputs, qs)))
    return sympy.lambdify(density.outputs, expr, modules="numpy")


def continuous_pvalue(samples: np.ndarray, pdf: Callable[[np.ndarray], np.ndarray]) -> float:
    """KS p-value of 1-D ``samples`` against the distribution with density ``pdf``."""
    x = np.sort(np.asarray(samples, dtype=float))
    lo, hi = x[0], x[-1]
    span = hi - lo if hi > lo else 1.0
    lo, hi = lo - 0.01 * span, hi + 0.01 * span
    below = integrate.quad(lambda t: float(pdf(np.asarray(t))), -np.inf, lo, limit=200)[0]
    above = integrate.quad(lambda t: float(pdf(np.asarray(t))), hi, np.inf, limit=200)[0]
    grid = np.linspace(lo, hi, 200_001)
    values = np.broadcast_to(pdf(grid), grid.shape).astype(float)
    body = integrate.cumulative_trapezoid(values, grid, initial=0.0)
    total = below + body[-1] + above
    cdf_values = (below + body) / total

    def cdf(t: np.ndarray) -> np.ndarray:
        return np.interp(t, grid, cdf_values)

    return float(stats.kstest(x, cdf).pvalue)


def discrete_pvalue(samples: np.ndarray, pmf: Mapping[Any, float]) -> float:
    """Chi-square p-value of ``samples`` (hashable values) against ``pmf`` (value -> probability).

    Outputs outside ``pmf`` count in the tail bin whose probability is 1 - sum(pmf); an output with
    probability 0 that occurs gives p-value 0.
    """
    values, counts = np.unique(np.asarray(samples), return_counts=True, axis=0)
    observed = {(_key(v)): int(c) for v, c in zip(values, counts)}
    n = sum(observed.values())
    keys = list(pmf)
    expected = np.array([n * float(pmf[k]) for k in keys])
    seen = np.array([observed.pop(_key(k), 0) for k in keys])
    tail_p = max(0.0, 1.0 - float(sum(pmf.values())))
    tail_obs = sum(observed.values())
    if tail_obs and tail_p == 0.0:
        return 0.0
    if np.any((expected == 0) & (seen > 0)):
        return 0.0
    order = np.argsort(expected)
    merged_e, merged_o, acc_e, acc_o = [], [], n * tail_p, tail_obs
    for i in order:
        if expected[i] < 5:
            acc_e += expected[i]
            acc_o += seen[i]
        else:
            merged_e.append(expected[i])
            merged_o.append(seen[i])
    if acc_e > 0:
        merged_e.append(acc_e)
        merged_o.append(acc_o)
    e, o = np.array(merged_e), np.array(merged_o)
    if len(e) < 2:
        return 1.0
    e = e * (o.sum() / e.sum())
    return float(stats.chisquare(o, e).pvalue)


def _key(value: Any) -> Any:
    arr = np.asarray(value)
    return tuple(arr.tolist()) if arr.ndim else arr.item()
