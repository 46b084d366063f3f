"""Likelihood-ratio events for product outputs: per-coordinate density ratios, summed and thresholded.

When the coordinates of a vector output are independent under both inputs, the densities factor,
p_a(y) = prod_i p_a,i(y_i), and so does the likelihood ratio:

    L(y) = ln p_a(y) / p_b(y) = sum_i ln p_a,i(y_i) / p_b,i(y_i).

By the Neyman-Pearson lemma (Neyman & Pearson 1933; Lehmann & Romano, *Testing Statistical
Hypotheses*, Thm. 3.2.1) the upper sets {L > t} are, at their mass under M(b), the sets of largest
mass under M(a): the events of the largest privacy loss at each mass, and the lower sets {L <= t}
the same in the other direction.  A plain "sum of coordinates" is that statistic only when every
per-coordinate log-ratio is linear in y_i (Gaussian location families).  For Laplace it is clipped,
ln p_a,i / p_b,i = eps_i (|y_i - b_i| - |y_i - a_i|), constant outside [a_i, b_i]: the Neyman-Pearson
statistic counts the coordinates on a's side of the midpoint, while the sum weighs each by its size
and lets the Laplace tails drown the signal.  On DP-Sniper's LaplaceParallel (20 copies of
Lap(1/0.005) on one count, pair 1 vs 0) the count's events {at least k coordinates above 1/2} certify
about 0.049 / 0.053 at 10^7 / 2 x 10^7 samples per side (median counts, Clopper-Pearson union bound
at 0.90), the best sum threshold about 0.028 at 10^7.

**Estimate.**  L is estimated from the search rows only, cross-fitted: the per-coordinate densities on
every ``FIT_EVERY``-th row, the thresholds of the estimated L scored on all the others by the strict
search bound (both directions, every distinct value a cut), so the noise that fitted L never scores
its events.  A histogram has few parameters (at most 32 bins a coordinate), so a quarter of the rows
fits it and three quarters are left to score its thresholds, whose scores are what limit the choice:
on LaplaceParallel the count's best event scores only 0.005 (2.5 x 10^5 scoring rows per side) to
0.017 (7.5 x 10^5) in expectation at the strict level, which favours events of large mass (its
thresholds then certify about 0.03 at 10^6 to 2 x 10^7 per side, where the count event of mass 0.6 %
would give 0.053 at 2 x 10^7).  Each density is a histogram (:class:`ProductRatio`): a coordinate
with few distinct values (at most ``MAX_ATOMS``) gets one bin per value, any other ``bins`` bins
between quantiles of both sides' fit values; a bin's log-ratio is the smoothed
ln((c_a + 1/2) / (n_a + B/2)) - ln((c_b + 1/2) / (n_b + B/2)).  The bin counts ``BIN_COUNTS`` are all
tried (coarse bins: little variance, enough for clipped ratios; fine bins: curved ratios), each two
ways: one histogram per coordinate, and one histogram shared by all coordinates, fitted on all of
them (*pooled*: for coordinates with one common marginal, such as LaplaceParallel's copies, the shared
estimate has 1/width of the variance; per coordinate, the estimated weights there scatter by about
0.003 around the true +-0.005 at 5 x 10^5 fit rows).

**When coordinates "look independent".**  Independence is not tested: the family is a candidate on
every vector output (width >= 2, no label codes), and the search takes its events only when they
score best among all families' on the held-out rows.  On dependent coordinates (prefix sums, sparse
vector's answers) the summed ratio is not the Neyman-Pearson statistic and scores lower than the other
families' events, which then win.  Whatever L is, {L > t} is a fixed set of outputs chosen on search
rows, and the reported bound is computed on fresh verification rows (:mod:`dpaudit.auditor.verification`),
so the family can make an audit stronger or weaker, never invalid.

Events (:class:`ProductRatioThreshold`) hold the bins and log-ratios as plain numbers, so
``as_dict()`` is JSON and :func:`product_event_from_dict` rebuilds the very same set.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .family import Scored, Scorer, SearchContext
from .sets import WholeRowThreshold, bin_index
from .standard import _finite, _Sorted, cut_events, held_out_blocks

__all__ = ["BIN_COUNTS", "ProductRatio", "ProductRatioFamily", "ProductRatioThreshold", "product_event_from_dict",
           "product_events"]

BIN_COUNTS = (2, 8, 32)
MAX_ATOMS = 64
MAX_WIDTH = 256
MIN_ROWS = 16
FIT_EVERY = 4
CHUNK = 65_536
PROBE = 4096


def _nested_edges(values: np.ndarray, counts: tuple[int, ...]) -> dict[int, np.ndarray]:
    """Bin edges for one coordinate's fit values at each bin count of ``counts``: every distinct value when
    there are at most ``MAX_ATOMS`` (bin i is (edges[i-1], edges[i]], so each value has a bin of its own),
    else the inner ``bins`` quantiles.  The quantiles of every count are taken in one call; the edges of a
    count dividing a larger one are then a subset of the larger's (the same quantiles), which
    :func:`_coarsening` uses."""
    if np.unique(values[:PROBE]).size <= MAX_ATOMS:  # a cheap look first: most coordinates are continuous
        distinct = np.unique(values)
        if distinct.size <= MAX_ATOMS:
            return {bins: distinct[:-1] for bins in counts}
    levels = {bins: np.linspace(0.0, 1.0, bins + 1)[1:-1] for bins in counts}
    every = np.unique(np.concatenate(list(levels.values())))
    # Sorted first: 2-3x faster than numpy's partitions, the same order statistics (+ 0.0: a zero edge is +0).
    quantiles = np.quantile(np.sort(values), every, method="inverted_cdf") + 0.0
    return {bins: np.unique(quantiles[np.searchsorted(every, level)]) for bins, level in levels.items()}


def _coarsening(finest: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """For each bin of ``finest`` the bin of ``edges`` holding it (``edges`` a subset of ``finest``): bin j of
    ``finest`` is (finest[j-1], finest[j]], inside the bin of ``edges`` that counts the edges <= finest[j-1]."""
    return np.r_[0, np.searchsorted(edges, finest, side="right")].astype(np.intp)


def _smoothed_log_ratios(ca: np.ndarray, na: int, cb: np.ndarray, nb: int) -> np.ndarray:
    """The smoothed log-ratio of each of B bins with counts ``ca``, ``cb``: ln((c_a + 1/2) / (n_a + B/2)) -
    ln((c_b + 1/2) / (n_b + B/2))."""
    size = ca.size
    return np.log((ca + 0.5) / (na + 0.5 * size)) - np.log((cb + 0.5) / (nb + 0.5 * size))


@dataclass(frozen=True)
class _Lookup:
    """One coordinate's (or the pooled) histograms at several bin counts, read through the finest bins: a value's
    bin of ``finest`` (one binary search) gives its log-ratio at every count (``tables[bins]``, one per finest bin)."""

    finest: np.ndarray
    tables: dict[int, np.ndarray]


def _fit(fit_a: np.ndarray, fit_b: np.ndarray, counts: tuple[int, ...], pooled: bool
         ) -> tuple[dict[int, "ProductRatio"], list[_Lookup]]:
    """The histogram estimate of the module docstring at every bin count of ``counts`` on the fit rows of both
    sides, and the lookups that evaluate them all at once (:func:`_summed`)."""
    width = fit_a.shape[1]
    columns = [(fit_a.ravel(), fit_b.ravel())] if pooled else [(fit_a[:, i], fit_b[:, i]) for i in range(width)]
    edges: dict[int, list[tuple[float, ...]]] = {bins: [] for bins in counts}
    ratios: dict[int, list[tuple[float, ...]]] = {bins: [] for bins in counts}
    lookups = []
    for a, b in columns:
        by_count = _nested_edges(np.r_[a, b], counts)
        finest = by_count[max(counts, key=lambda bins: by_count[bins].size)]
        size = finest.size + 1
        ca = np.bincount(bin_index(finest, a), minlength=size)
        cb = np.bincount(bin_index(finest, b), minlength=size)
        tables = {}
        for bins, e in by_count.items():
            into = _coarsening(finest, e)
            r = _smoothed_log_ratios(np.bincount(into, weights=ca, minlength=e.size + 1), a.size,
                                     np.bincount(into, weights=cb, minlength=e.size + 1), b.size)
            edges[bins].append(tuple(float(v) for v in e))
            ratios[bins].append(tuple(float(v) for v in r))
            tables[bins] = r[into]
        lookups.append(_Lookup(finest, tables))
    fitted = {bins: ProductRatio(width, tuple(edges[bins]), tuple(ratios[bins]), pooled) for bins in counts}
    return fitted, lookups


def _summed(lookups: list[_Lookup], rows: np.ndarray, counts: tuple[int, ...]) -> dict[int, np.ndarray]:
    """L(y) of every row at every bin count (:meth:`ProductRatio.values`, the same sums in the same order),
    ``CHUNK`` rows at a time, one binary search per coordinate for all the counts."""
    rows = rows.reshape(rows.shape[0], -1)
    width = rows.shape[1]
    out = {bins: np.empty(rows.shape[0]) for bins in counts}
    for start in range(0, rows.shape[0], CHUNK):
        block = _finite(rows[start:start + CHUNK])
        totals = {bins: np.zeros(block.shape[0]) for bins in counts}
        pooled_bins = bin_index(lookups[0].finest, block) if len(lookups) == 1 else None
        for i in range(width):
            lookup = lookups[0 if pooled_bins is not None else i]
            index = pooled_bins[:, i] if pooled_bins is not None else bin_index(lookup.finest, block[:, i])
            for bins in counts:
                totals[bins] += lookup.tables[bins][index]
        for bins in counts:
            out[bins][start:start + CHUNK] = totals[bins]
    return out


@dataclass(frozen=True)
class ProductRatio:
    """The estimated L(y) = sum_i r_i(y_i): coordinate i's value falls in bin j of ``edges[i]`` (bin j is
    (edges[i][j-1], edges[i][j]]) and adds ``log_ratios[i][j]``.  ``pooled``: one histogram for every
    coordinate (``edges`` and ``log_ratios`` then hold one entry)."""

    width: int
    edges: tuple[tuple[float, ...], ...]
    log_ratios: tuple[tuple[float, ...], ...]
    pooled: bool = False

    @classmethod
    def fit(cls, fit_a: np.ndarray, fit_b: np.ndarray, bins: int, pooled: bool) -> "ProductRatio":
        """The histogram estimate of the module docstring on the fit rows of both sides."""
        return _fit(fit_a, fit_b, (bins,), pooled)[0][bins]

    def values(self, rows: np.ndarray) -> np.ndarray:
        """L(y) of every row, ``CHUNK`` rows at a time."""
        lookups = [_Lookup(np.asarray(e), {0: np.asarray(r)}) for e, r in zip(self.edges, self.log_ratios)]
        return _summed(lookups, rows, (0,))[0]

    def describe(self) -> str:
        how = "one histogram for all coordinates" if self.pooled else "a histogram per coordinate"
        bins = max(len(r) for r in self.log_ratios)
        return f"summed log-ratio of {self.width} coordinates ({how}, up to {bins} bins)"

    def as_dict(self) -> dict[str, Any]:
        return {"width": self.width, "edges": [list(e) for e in self.edges],
                "log_ratios": [list(r) for r in self.log_ratios], "pooled": self.pooled}

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> "ProductRatio":
        return cls(int(spec["width"]), tuple(tuple(float(v) for v in e) for e in spec["edges"]),
                   tuple(tuple(float(v) for v in r) for r in spec["log_ratios"]), bool(spec["pooled"]))


@dataclass(frozen=True)
class ProductRatioThreshold(WholeRowThreshold):
    """``L(y) <= t`` (``upper=True``) or ``L(y) > t`` (``upper=False``) for a :class:`ProductRatio` L."""

    ratio: ProductRatio
    t: float
    upper: bool

    def row_scores(self, rows: np.ndarray) -> np.ndarray:
        return self.ratio.values(rows)

    def describe(self) -> str:
        return f"{self.ratio.describe()} {'<=' if self.upper else '>'} {self.t:.6g}"

    def as_dict(self) -> dict[str, Any]:
        return {"type": "product-ratio", "ratio": self.ratio.as_dict(), "t": self.t, "upper": self.upper}


def product_event_from_dict(spec: dict[str, Any]) -> ProductRatioThreshold:
    """Inverse of :meth:`ProductRatioThreshold.as_dict`."""
    return ProductRatioThreshold(ProductRatio.from_dict(spec["ratio"]), float(spec["t"]), bool(spec["upper"]))


def _thresholded(ratio: ProductRatio, values_a: np.ndarray, values_b: np.ndarray, score: Scorer) -> list[Scored]:
    """The best threshold of ``ratio`` in each direction, scored on its values on the held-out rows."""
    f = _Sorted.of(values_a, values_b)
    return cut_events("product ratio", lambda t, upper: ProductRatioThreshold(ratio, t, upper), f, score)


def _held_out_sums(lookups: list[_Lookup], rows: np.ndarray) -> dict[int, np.ndarray]:
    """:func:`_summed` at every count of ``BIN_COUNTS`` on the rows not fitted (all but every ``FIT_EVERY``-th)."""
    parts = [_summed(lookups, block, BIN_COUNTS) for block in held_out_blocks(rows, FIT_EVERY, CHUNK)]
    return {bins: np.concatenate([part[bins] for part in parts]) if parts else np.empty(0) for bins in BIN_COUNTS}


def product_events(rows_a: np.ndarray, rows_b: np.ndarray, score: Scorer) -> list[Scored]:
    """The product-ratio events of one pair's search rows: for every bin count of ``BIN_COUNTS``, per
    coordinate and pooled, the best threshold in each direction (fitted on every ``FIT_EVERY``-th row,
    scored on the others with the strict search bound ``score``), best first."""
    rows_a, rows_b = np.asarray(rows_a), np.asarray(rows_b)
    if (rows_a.ndim != 2 or not 2 <= rows_a.shape[1] <= MAX_WIDTH
            or min(rows_a.shape[0], rows_b.shape[0]) < MIN_ROWS):
        return []
    fit_a, fit_b = _finite(rows_a[0::FIT_EVERY]), _finite(rows_b[0::FIT_EVERY])
    fitted, held = {}, {}
    for pooled in (False, True):  # every bin count's values from one binary search per coordinate and side
        ratios, lookups = _fit(fit_a, fit_b, BIN_COUNTS, pooled)
        fitted.update(((bins, pooled), ratio) for bins, ratio in ratios.items())
        summed = [_held_out_sums(lookups, rows) for rows in (rows_a, rows_b)]
        held.update(((bins, pooled), (summed[0][bins], summed[1][bins])) for bins in BIN_COUNTS)
    found: list[Scored] = []
    seen: set[tuple] = set()
    for bins in BIN_COUNTS:
        for pooled in (False, True):
            ratio = fitted[bins, pooled]
            if (ratio.edges, pooled) in seen:  # discrete coordinates: the same bins at every count
                continue
            seen.add((ratio.edges, pooled))
            found += _thresholded(ratio, *held[bins, pooled], score)
    found = [s for s in found if math.isfinite(s.objective)]
    return sorted(found, key=lambda s: (-s.objective, -(s.hits_a if s.forward else s.hits_b)))


class ProductRatioFamily:
    """:func:`product_events` as an :class:`.family.EventFamily`: on vector outputs without label codes.

    In the pair screening it searches the even-indexed screening rows (the screening re-scores on the
    odd-indexed ones), keeping its best event.
    """

    name = "product-ratio"
    implementation = False
    event_types = ("product-ratio",)

    def enabled(self, context: SearchContext) -> bool:
        return not context.categorical

    def search(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> tuple[list[Scored], list[str]]:
        return product_events(rows_a, rows_b, context.score), []

    def screen(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> list:
        fit_a, fit_b, score = rows_a[0::2], rows_b[0::2], context.score
        return [lambda: product_events(fit_a, fit_b, score)[:1]]

    def event_from_dict(self, spec: dict[str, Any], noise: Any = None) -> ProductRatioThreshold:
        return product_event_from_dict(spec)
