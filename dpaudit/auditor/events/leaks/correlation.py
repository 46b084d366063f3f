"""Correlated-noise check for vector outputs (e.g. one noise draw added to every histogram cell).

If the same draw Z is added to every coordinate, y_i - y_j = q_i - q_j is noise-free: a neighbour
that moves one cell by 1 moves that difference by 1, and the event

    S_ij = { y : min_search(y_i - y_j) <= y_i - y_j <= max_search(y_i - y_j) }

(the range of the difference over search-stage outputs of M(a)) has probability about 1 under a
and about 0 under b.  The check scores every coordinate pair on search-stage samples (fewest hits
under b among events holding every search output of a, both directions), then counts hits on fresh
verification samples and bounds them with the Clopper-Pearson union bound of
:mod:`dpaudit.auditor.events.leaks.finding`; selection and verification use disjoint samples, so the bound
keeps its confidence.

It also reports, as a descriptive figure, a test of independence across coordinates under a:
the largest absolute Pearson correlation over coordinate pairs, with its two-sided t-test p-value
(r sqrt((n-2)/(1-r^2)) ~ t_{n-2} under independence of Gaussian-like noise) times the number of
pairs (Bonferroni).  Correlated noise alone is not a privacy violation (the matrix mechanism
correlates noise on purpose); only the event bound decides the verdict.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...._validation import check_positive_int, check_probability_open
from ....errors import InvalidArgument
from .finding import LeakFinding, finding_from_counts

__all__ = ["correlation_check", "independence_pvalue"]


def _vector_outputs(mechanism: Any, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    out = np.asarray(mechanism.sample(data, n, rng), dtype=np.float64)
    if out.ndim != 2 or out.shape[1] < 2:
        raise InvalidArgument(
            f"mechanism {getattr(mechanism, 'name', mechanism)!r} returned outputs of shape {out.shape[1:]}; "
            "the correlated-noise check needs vector outputs with at least 2 coordinates"
        )
    return out


def independence_pvalue(outputs: np.ndarray) -> tuple[float, float, tuple[int, int]]:
    """(max |r|, Bonferroni p-value, the pair) for pairwise Pearson correlations of the columns.

    Columns with zero variance are skipped (they carry no noise to correlate).
    """
    from scipy import stats

    n, k = outputs.shape
    spread = outputs.std(axis=0)
    live = np.flatnonzero(spread > 0)
    if live.size < 2 or n < 3:
        return 0.0, 1.0, (0, 0)
    r = np.corrcoef(outputs[:, live], rowvar=False)
    i, j = np.triu_indices(live.size, 1)
    values = np.clip(np.abs(r[i, j]), 0.0, 1.0)
    best = int(np.argmax(values))
    rmax = float(values[best])
    if rmax >= 1.0:
        p_pair = 0.0
    else:
        t = rmax * np.sqrt((n - 2) / (1 - rmax**2))
        p_pair = float(2 * stats.t.sf(t, n - 2))
    return rmax, min(1.0, p_pair * values.size), (int(live[i[best]]), int(live[j[best]]))


def _best_difference_event(search_a: np.ndarray, search_b: np.ndarray) -> tuple[int, int, float, float, bool, int]:
    """(i, j, lo, hi, swap, hits on the other side) of the difference-range event with fewest hits."""
    best: tuple[int, int, float, float, bool, int] | None = None
    k = search_a.shape[1]
    for swap, (own, other) in enumerate(((search_a, search_b), (search_b, search_a))):
        for i in range(k - 1):
            d_own = own[:, i : i + 1] - own[:, i + 1 :]
            d_other = other[:, i : i + 1] - other[:, i + 1 :]
            lo, hi = d_own.min(axis=0), d_own.max(axis=0)
            hits = np.count_nonzero((d_other >= lo) & (d_other <= hi), axis=0)
            j = int(np.argmin(hits))
            if best is None or hits[j] < best[5]:
                best = (i, i + 1 + j, float(lo[j]), float(hi[j]), bool(swap), int(hits[j]))
    assert best is not None
    return best


def correlation_check(
    mechanism: Any,
    a: Any,
    b: Any,
    *,
    n_search: int = 2_000,
    n_verify: int = 20_000,
    seed: int = 0,
    confidence: float = 0.95,
) -> LeakFinding:
    """Audit a vector-output mechanism on (a, b) with events on differences of coordinates.

    Returns a :class:`LeakFinding` with ``check="correlated-noise"``; ``figures`` holds the
    independence test (``max_abs_correlation``, ``independence_pvalue``, the pair) on the search
    samples under a.
    """
    n_search, n_verify = check_positive_int("n_search", n_search), check_positive_int("n_verify", n_verify)
    check_probability_open("confidence", confidence)
    rng = np.random.default_rng(seed)
    search_a, search_b = _vector_outputs(mechanism, a, n_search, rng), _vector_outputs(mechanism, b, n_search, rng)
    if search_a.shape[1:] != search_b.shape[1:]:
        raise InvalidArgument(f"outputs under a {search_a.shape[1:]} and b {search_b.shape[1:]} differ in shape")
    rmax, pvalue, (ci, cj) = independence_pvalue(search_a)
    i, j, lo, hi, swap, _ = _best_difference_event(search_a, search_b)
    verify_a, verify_b = _vector_outputs(mechanism, a, n_verify, rng), _vector_outputs(mechanism, b, n_verify, rng)
    if swap:
        a, b, verify_a, verify_b = b, a, verify_b, verify_a

    def inside(y: np.ndarray) -> np.ndarray:
        d = y[:, i] - y[:, j]
        return (d >= lo) & (d <= hi)

    in_a, in_b = inside(verify_a), inside(verify_b)
    return finding_from_counts(
        check="correlated-noise",
        claim=mechanism.claim,
        pair=(a, b),
        event=f"{lo!r} <= y[{i}] - y[{j}] <= {hi!r}",
        counts=(int(in_a.sum()), n_verify, int(in_b.sum()), n_verify),
        confidence=confidence,
        proven_empty=False,
        method=(
            f"search: {n_search} outputs per side; for every coordinate pair (i, j) the event 'y_i - y_j within "
            "its search range under one input', keeping the one with fewest search hits under the other; "
            f"verify: {n_verify} fresh outputs per side, Clopper-Pearson union bound at confidence {confidence:g}; "
            "independence: max |Pearson r| over pairs, t-test, Bonferroni"
        ),
        why=(
            "The difference of two coordinates carries (almost) no noise, so it reveals the difference of "
            "the true answers, which the neighbouring input changes."
        ),
        figures={
            "max_abs_correlation": rmax,
            "independence_pvalue": pvalue,
            "most_correlated_pair": [ci, cj],
            "noise_correlated": pvalue < 1.0 - confidence,
        },
        seed=seed,
    )
