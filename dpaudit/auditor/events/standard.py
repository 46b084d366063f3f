"""Event search on the search-stage samples: the event and direction that maximise the bound.

For one pair (a, b) with search samples of both sides, every event family of :mod:`dpaudit.auditor.events` is
scored in both directions -- S with P[M(a) in S] >> P[M(b) in S] and the reverse -- by the same bound
the verification stage will compute, evaluated on the search counts.  There is no probability floor
(DP-Sniper's c = 0.01 caps bounds near ln 100 = 4.6 and misses tail bugs: 4.60 against StatDP's 10.00
on Laplace with scale eps, 1.76 against 14.31 on SVT without query noise, published figures tabulated
in benchmarks/README.md): every cut between sample values is a candidate threshold, tails included.

Families, per feature:

* thresholds ``f <= t`` / ``f > t`` at every distinct value (thinned to ``MAX_CUTS``, the extreme
  ``TAIL_CUTS`` order statistics on each side always kept);
* intervals between ``INTERVAL_EDGES`` quantiles;
* the likelihood-ratio-ordered sets: atoms of a discrete feature (or histogram bins of a continuous
  one, a histogram density-ratio estimate) sorted by smoothed ratio (c_a + 1/2)/(c_b + 1/2), and every
  prefix of that order scored -- the nested Neyman-Pearson sets of the estimated ratio;
* for vector outputs: each coordinate, the sum, max, min, argmax and number of non-zero coordinates,
  a learned linear score (Fisher's discriminant w = (S_a + S_b)^-1 (mu_a - mu_b); Fisher 1936),
  whole-row patterns when rows take few distinct values (sparse-vector answer patterns), and the
  conjunctions "the first non-zero coordinate is i (or in [i, width - 1]) and its value is <= t (or
  > t)" for every i and cut t (sparse vector releasing the noisy answer, Lyu, Su & Li 2017, Alg. 3:
  with every query at the threshold, "no answer before query i and the released value <= t" has
  log-ratio up to i eps / (2c) while keeping mass ~1e-3).  The first answer is also read past codes
  other than 0 (:func:`code_values`; DP-Sniper codes Alg. 3's "below" as -1000, so the first non-zero
  coordinate is always the first: on its pair the witness "answer at query 6, value <= 15" has mass
  0.3 % and log-ratio 0.23, and the median bound over seeds 1-7 at N = 10^6 rose from about 0.11 to
  0.153, benchmarks/README.md).  For a cut-off c > 1 the same conjunctions are read on the k-th
  answer, k = 2, 3, ... (:func:`_first_answer_thresholds`).  The cuts t of a conjunction are
  ``CONJUNCTION_CUTS`` quantiles of its values plus a geometric grid in both tails
  (:meth:`_Sorted.tail_quantiles`), not every distinct value: with ten ranges of thousands of cuts
  each, the best of ~10^5 small-mass events was a 4.5 standard-error fluke in about one search in five
  (an event verified at -0.02 after a search bound of 0.11), which a few hundred cuts per range avoid
  while keeping the tail resolution the witnesses need.

Coordinates holding label codes (outputs that are strings or other labels,
:mod:`dpaudit.mechanisms.outputs`) get the atom sets only.

Choosing the event by maximising the bound on these samples is selection; it is only honest because
the reported bound is recomputed on fresh verification samples.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from .family import Scored, Scorer, SearchContext
from .sets import (
    EVENT_TYPES,
    AtomThreshold,
    BinSet,
    Event,
    Feature,
    Interval,
    RowSet,
    Threshold,
    ValueSet,
    answer_values,
    event_from_dict,
    row_keys,
)

__all__ = ["SHORTLIST_KEEP", "StandardFamily", "WHOLE_SEARCH_KEEP", "cut_events", "search_events"]

MAX_CUTS = 2048
TAIL_CUTS = 256
INTERVAL_EDGES = 48
MAX_ATOMS = 1024
HISTOGRAM_BINS = 96
MAX_COORDINATES = 16
SHORTLIST_KEEP = 2
WHOLE_SEARCH_KEEP = 4
CODE_ROWS = 20_000
CONJUNCTION_CUTS = 64
PATTERN_PROBE = 4 * MAX_ATOMS

def _scores_many(score: Scorer, requests: list[tuple[np.ndarray, int, np.ndarray, int]], keep: int) -> list[np.ndarray]:
    """``score(k_1, n_1, k_2, n_2)`` for every request, computed only where it can be among a request's ``keep``
    best (-inf elsewhere), in one vectorised pass per pair of sizes (n_1, n_2).

    A score with an ``approximate`` method (:class:`..targeting.SearchScore`: the same bound with every
    Clopper-Pearson end from a normal approximation of the beta quantile, :func:`..bounds.approximate_bound`)
    ranks each request's events by it, and the exact score -- whose beta quantiles are the search's
    costliest arithmetic -- is computed on the ``APPROXIMATE_HEAD`` x ``keep`` events ranked first only.
    The approximation's error is a small fraction of a standard error of the log-ratio (below 0.1 once
    the counts reach 10^3, at most 0.32 at a handful of hits, mostly downwards), so an event whose exact
    score ranks among the best is in that head unless more than ``APPROXIMATE_HEAD`` others lie within
    that error of it -- where any of them scores as well.  Other scores are computed on every event.
    """
    approximate = getattr(score, "approximate", None)
    head = APPROXIMATE_HEAD * keep
    values: list[np.ndarray] = [np.empty(0)] * len(requests)
    by_sizes: dict[tuple[float, float], list[int]] = {}
    for index, (_, n1, _, n2) in enumerate(requests):
        by_sizes.setdefault((float(n1), float(n2)), []).append(index)
    for (n1, n2), members in by_sizes.items():
        first = np.concatenate([requests[m][0] for m in members]).astype(float)
        second = np.concatenate([requests[m][2] for m in members]).astype(float)
        bounds_of = np.cumsum([0] + [requests[m][0].size for m in members])
        if approximate is None or all(hi - lo <= head for lo, hi in zip(bounds_of[:-1], bounds_of[1:])):
            scored = score(first, n1, second, n2)  # every event is in its request's head: nothing to rank
        else:
            rough = np.nan_to_num(approximate(first, n1, second, n2), nan=-np.inf)
            picks = []
            for lo, hi in zip(bounds_of[:-1], bounds_of[1:]):
                if hi - lo <= head:
                    picks.append(np.arange(lo, hi))
                else:
                    picks.append(lo + np.argpartition(-rough[lo:hi], head - 1)[:head])
            picked = np.concatenate(picks)
            scored = np.full(first.shape, -np.inf)
            scored[picked] = score(first[picked], n1, second[picked], n2)
        for m, lo, hi in zip(members, bounds_of[:-1], bounds_of[1:]):
            values[m] = scored[lo:hi]
    return values


APPROXIMATE_HEAD = 64

_Group = tuple[str, Callable[[int], Event], np.ndarray, np.ndarray, int, int, tuple[bool, ...]]
"""One family's candidate events: (family, make, k_a, k_b, n_a, n_b, directions), event i = ``make(i)``."""


def _group(family: str, make: Callable[[int], Event], ka, kb, na: int, nb: int,
           directions: tuple[bool, ...] = (True, False)) -> list[_Group]:
    ka, kb = np.asarray(ka), np.asarray(kb)
    return [(family, make, ka, kb, na, nb, directions)] if ka.size else []


def _best_of(groups: list[_Group], score: Scorer, keep: int = 1) -> list[Scored]:
    """The ``keep`` best events of each group in each of its directions (objectives above -inf), scored in one
    pass (:func:`_scores_many`); in the order of the groups, forward before backward."""
    requests = [(ka, na, kb, nb) if forward else (kb, nb, ka, na)
                for _, _, ka, kb, na, nb, directions in groups for forward in directions]
    if not requests:
        return []
    scored = iter(_scores_many(score, requests, keep))
    found = []
    for family, make, ka, kb, na, nb, directions in groups:
        for forward in directions:
            values = next(scored)
            finite = np.flatnonzero(values > -np.inf)  # scored (not -inf) and not NaN
            if finite.size == 0:
                continue
            # Ties (common on flat stretches of the bound) go to the event with more mass on the larger side.
            mass = (ka if forward else kb)[finite] / (na if forward else nb)
            for i in finite[np.lexsort((-mass, -values[finite]))[:keep]]:
                found.append(Scored(make(int(i)), family, forward, float(values[i]), int(ka[i]), int(kb[i])))
    return found


PARALLEL_SORT_VALUES = 1 << 18
"""From this many values on, :meth:`_Sorted.of` sorts the union on a thread of its own beside the sides."""


def _sorted_union(fa: np.ndarray, fb: np.ndarray) -> Callable[[], np.ndarray]:
    """A function returning ``np.sort(np.concatenate([fa, fb]))``, computed on a thread of its own (started
    now) when there are ``PARALLEL_SORT_VALUES`` or more values.

    numpy's sort releases the GIL, so the union's sort runs beside the caller's sorts of each side: the search
    on the chosen pair (2 x 10^6 rows per side) runs this family's search beside cheaper ones, which leave a
    core idle (Laplace at 10^7 per side: the whole audit 0.355 -> 0.344 s, best of 10, benchmarks/audit_speed.py).
    """
    if fa.size + fb.size < PARALLEL_SORT_VALUES:
        union = np.sort(np.concatenate([fa, fb]))
        return lambda: union
    thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dpaudit-sort")
    sorting = thread.submit(lambda: np.sort(np.concatenate([fa, fb])))
    thread.shutdown(wait=False)  # the thread ends with its one task; result() waits for it (and re-raises)
    return sorting.result


@dataclass(frozen=True)
class _Sorted:
    """One feature's values on both sides, sorted once (each side, the union, its distinct values).

    With ``halves``, each side's even-indexed (fit) and odd-indexed (held-out) values are sorted apart (the
    union is sorted on its own): :meth:`split_counts` then counts the values of each half
    per bin by binary searches of the bin edges, without a pass over the values, and :meth:`at_most`
    counts a side's values by its two halves (each side's own sorted values are not built).
    """

    fa: np.ndarray
    fb: np.ndarray
    both: np.ndarray
    unique: np.ndarray
    sides: tuple[np.ndarray, np.ndarray] | None = None  # sorted: a, b (without halves)
    halves: tuple[np.ndarray, ...] | None = None  # sorted: fit a, fit b, held a, held b

    @classmethod
    def of(cls, fa: np.ndarray, fb: np.ndarray, halves: bool = False) -> "_Sorted":
        # The union sorted afresh: numpy's vectorised sort of the raw values beats merging the sorted runs
        # (4 x 10^6 doubles: 25 ms against 36-80 ms); beside the sides' sorts when they are many.
        union = _sorted_union(fa, fb)
        if halves:
            parts, sides = tuple(np.sort(values[start::2]) for start in (0, 1) for values in (fa, fb)), None
        else:
            parts, sides = None, (np.sort(fa), np.sort(fb))
        return cls._with_union(fa, fb, union(), sides, parts)

    @classmethod
    def of_sorted(cls, sa: np.ndarray, sb: np.ndarray) -> "_Sorted":
        """:meth:`of` for values already sorted on each side (the union is merged from the two runs)."""
        return cls._with_union(sa, sb, np.sort(np.concatenate([sa, sb]), kind="stable"), (sa, sb), None)

    @classmethod
    def _with_union(cls, fa, fb, both, sides, parts) -> "_Sorted":
        keep = np.empty(both.size, dtype=bool)
        keep[:1] = True
        np.not_equal(both[1:], both[:-1], out=keep[1:])
        return cls(fa, fb, both, both[keep], sides, parts)

    @property
    def sizes(self) -> tuple[int, int]:
        return self.fa.size, self.fb.size

    def at_most(self, cuts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each cut t, the number of values <= t on side a and on side b."""
        if self.halves is None:
            return tuple(np.searchsorted(side, cuts, side="right") for side in self.sides)  # type: ignore[return-value]
        fit_a, fit_b, held_a, held_b = (np.searchsorted(half, cuts, side="right") for half in self.halves)
        return fit_a + held_a, fit_b + held_b

    def split_counts(self, edges: np.ndarray) -> tuple[np.ndarray, ...]:
        """Per half (fit a, fit b, held a, held b), the count of values in each bin of ``edges``: bin i is
        (edges[i-1], edges[i]], the first (-inf, edges[0]], the last (edges[-1], inf) -- the bins of
        ``searchsorted(edges, value, side="left")`` (with ``edges`` the distinct values: their atoms)."""
        return tuple(np.diff(np.r_[0, np.searchsorted(half, edges, side="right"), half.size]) for half in self.halves)

    def quantiles(self, count: int) -> np.ndarray:
        index = np.round(np.linspace(0, self.both.size - 1, count)).astype(int)
        return np.unique(self.both[index])

    def tail_quantiles(self, count: int) -> np.ndarray:
        """``count`` evenly spaced quantiles and, in each tail, the values at ranks 8, 16, 32, ... (a
        geometric grid: events of small mass keep their resolution, with about 2 log2(n / 8) cuts)."""
        size = self.both.size
        ranks = np.r_[np.round(np.linspace(0, size - 1, count)), 2.0 ** np.arange(3, max(3, int(np.log2(size))))]
        ranks = np.r_[ranks, size - 1 - ranks]
        return np.unique(self.both[np.clip(ranks, 0, size - 1).astype(int)])


def _cuts(unique: np.ndarray) -> np.ndarray:
    if unique.size <= MAX_CUTS:
        return unique
    middle = np.linspace(TAIL_CUTS, unique.size - TAIL_CUTS - 1, MAX_CUTS - 2 * TAIL_CUTS).astype(int)
    index = np.unique(np.r_[np.arange(TAIL_CUTS), middle, np.arange(unique.size - TAIL_CUTS, unique.size)])
    return unique[index]


def cut_events(family: str, make: Callable[[float, bool], Event], f: _Sorted, score: Scorer,
               keep: int = 1) -> list[Scored]:
    """The ``keep`` best events ``make(t, upper)`` -- "value <= t" (upper) or "value > t" -- of one
    score's values ``f``, cut at every distinct value (:func:`_cuts`), in each direction."""
    return _best_of(_cut_groups(family, make, f), score, keep)


def _cut_groups(family: str, make: Callable[[float, bool], Event], f: _Sorted) -> list[_Group]:
    """The candidates of :func:`cut_events`: the cuts "<= t", then the cuts "> t"."""
    cuts = _cuts(f.unique)[:-1]  # "<= max" is everything: no information
    if cuts.size == 0:
        return []
    ka, kb = f.at_most(cuts)
    na, nb = f.sizes
    return (_group(family, lambda i: make(float(cuts[i]), True), ka, kb, na, nb)
            + _group(family, lambda i: make(float(cuts[i]), False), na - ka, nb - kb, na, nb))


def _threshold_groups(feature: Feature, f: _Sorted) -> list[_Group]:
    return _cut_groups("threshold", lambda t, upper: Threshold(feature, t, upper), f)


def _interval_groups(feature: Feature, f: _Sorted) -> list[_Group]:
    edges = f.quantiles(INTERVAL_EDGES)
    if edges.size < 3:
        return []
    edges[0] = np.nextafter(edges[0], -np.inf)  # so the lowest value is inside the first interval
    ca, cb = f.at_most(edges)
    i, j = np.triu_indices(edges.size, k=1)
    return _group("interval", lambda m: Interval(feature, float(edges[i[m]]), float(edges[j[m]])),
                  ca[j] - ca[i], cb[j] - cb[i], *f.sizes)


def _split_codes(codes_a: np.ndarray, codes_b: np.ndarray, size: int) -> tuple[np.ndarray, ...]:
    """The counts of codes 0..size-1 on the even-indexed (fit) and odd-indexed (held-out) samples of
    each side: fit a, fit b, held a, held b (the counts :func:`_ratio_groups` takes)."""
    return tuple(np.bincount(codes[start::2], minlength=size) for start in (0, 1) for codes in (codes_a, codes_b))


def _ratio_groups(family: str, make_set, counts: tuple[np.ndarray, ...], outside: int | None = None) -> list[_Group]:
    """Prefixes of the atoms (codes 0..size-1) sorted by smoothed likelihood ratio, both directions.

    ``counts`` are each atom's counts on the even-indexed samples of a and b and on the odd-indexed
    ones (:func:`_split_codes`, :meth:`_Sorted.split_counts`).  Cross-fitted: the order is estimated on
    the even-indexed samples and the prefixes are scored on the odd-indexed ones, so the score of a
    prefix is not inflated by the noise that ordered it.  Each direction scores the prefixes of its own
    order (largest ratio first for "a more likely", smallest first for the other).  Code ``outside``,
    when given, gathers samples no set may contain (they count in the totals only).
    """
    fit_a, fit_b, ca, cb = (c.astype(float) for c in counts)
    na, nb = int(counts[2].sum()), int(counts[3].sum())
    if na == 0 or nb == 0:
        return []
    ratio = ((fit_a + 0.5) / max(1, int(counts[0].sum()))) / ((fit_b + 0.5) / max(1, int(counts[1].sum())))
    groups = []
    for forward, order in ((True, np.argsort(-ratio, kind="stable")), (False, np.argsort(ratio, kind="stable"))):
        order = order if outside is None else order[order != outside]
        last = None if outside is not None else -1  # with samples outside, the union of every atom is informative
        ka, kb = np.cumsum(ca[order])[:last], np.cumsum(cb[order])[:last]

        def make(i: int, o: np.ndarray = order) -> Event:
            return make_set(tuple(int(c) for c in o[: i + 1]))

        groups += _group(family, make, ka, kb, na, nb, (forward,))
    return groups


def _discrete(f: _Sorted) -> bool:
    return f.both.dtype.kind in "biu" or f.unique.size <= min(MAX_ATOMS, f.both.size // 8)


def _value_set_groups(feature: Feature, f: _Sorted, categorical: bool = False) -> list[_Group]:
    """Sets of atoms ordered by likelihood ratio (:func:`_ratio_groups`).

    A categorical feature with more than ``MAX_ATOMS`` distinct labels keeps its ``MAX_ATOMS``
    most frequent ones (both sides together) as atoms; the rest count in the totals only.
    """
    atoms = f.unique
    if atoms.size < 2 or (atoms.size > MAX_ATOMS and not categorical):
        return []
    outside = None
    if atoms.size > MAX_ATOMS:
        codes_a, codes_b = np.searchsorted(atoms, f.fa), np.searchsorted(atoms, f.fb)
        counts = np.bincount(codes_a, minlength=atoms.size) + np.bincount(codes_b, minlength=atoms.size)
        frequent = np.sort(np.argsort(-counts, kind="stable")[:MAX_ATOMS])
        index = np.full(atoms.size, MAX_ATOMS)
        index[frequent] = np.arange(MAX_ATOMS)
        atoms, outside = atoms[frequent], MAX_ATOMS
        split = _split_codes(index[codes_a], index[codes_b], MAX_ATOMS + 1)
    else:  # every value is an atom: the bins of the atoms but the last
        split = tuple(c[:-1] for c in f.split_counts(atoms))

    def make(chosen: tuple[int, ...]) -> Event:
        return ValueSet(feature, tuple(float(atoms[c]) for c in sorted(chosen)))

    return _ratio_groups("atoms", make, split, outside)


def _histogram_groups(feature: Feature, f: _Sorted) -> list[_Group]:
    bins = int(min(HISTOGRAM_BINS, max(4, f.both.size // 200)))
    edges = f.quantiles(bins + 1)[1:-1]
    if edges.size < 2:
        return []
    edge_tuple = tuple(float(e) for e in edges)

    def make(chosen: tuple[int, ...]) -> Event:
        return BinSet(feature, edge_tuple, tuple(sorted(chosen)))

    return _ratio_groups("histogram ratio", make, f.split_counts(edges))


def _row_patterns(rows_a, rows_b, score: Scorer, keep: int = 1) -> list[Scored]:
    coded = pattern_codes(rows_a, rows_b)
    if coded is None:
        return []
    values, codes_a, codes_b = coded

    def make(chosen: tuple[int, ...]) -> Event:
        return RowSet(tuple(values[c] for c in sorted(chosen)))

    return _best_of(_ratio_groups("answer patterns", make, _split_codes(codes_a, codes_b, len(values))), score, keep)


_MIX = np.random.default_rng(0x5EED).integers(1, 2**63, size=4096, dtype=np.uint64)


def pattern_codes(rows_a: np.ndarray, rows_b: np.ndarray) -> tuple[list[tuple[float, ...]], np.ndarray, np.ndarray] | None:
    """The distinct output rows of both sides (each as its first occurrence, in the order of their
    :func:`.sets.row_keys`) and every row's index among them; None unless there are 2 to ``MAX_ATOMS``.

    Rows are told apart by a 64-bit hash of their doubles (-0.0 read as 0.0), sum_i mix(bits_i xor m_i)
    mod 2^64 with fixed random words m_i (:func:`_mixed`), and every row is then compared with its
    pattern's first occurrence,
    so a collision is seen (the row keys decide then).  The hash makes the distinct values a hash-table
    pass and the codes a binary search among them, where sorting the rows' byte strings would compare
    them one by one.
    """
    head = np.unique(row_keys(np.r_[rows_a[:PATTERN_PROBE], rows_b[:PATTERN_PROBE]]))
    if head.size > MAX_ATOMS:  # more patterns in the first rows than a set may have: no need to read on
        return None
    sides = (rows_a, rows_b)
    inverse = first = None
    if rows_a.shape[1] <= _MIX.size:
        hashes = np.zeros(rows_a.shape[0] + rows_b.shape[0], dtype=np.uint64)
        for i in range(rows_a.shape[1]):
            hashes += _mixed(_column_bits(sides, i) ^ _MIX[i])
        distinct = np.unique(hashes)
        if distinct.size > MAX_ATOMS:
            return None
        inverse = np.searchsorted(distinct, hashes)
        first = np.full(distinct.size, hashes.size)
        np.minimum.at(first, inverse, np.arange(hashes.size))
        for i in range(rows_a.shape[1]):  # every row equals its pattern's first row, else a collision
            column = _column_bits(sides, i)
            if not np.array_equal(column, column[first][inverse]):
                inverse = None
                break
    if inverse is None:  # the row keys decide
        table = np.r_[rows_a, rows_b].astype(float)
        distinct, inverse = np.unique(row_keys(table), return_inverse=True)
        if distinct.size > MAX_ATOMS:
            return None
        inverse = inverse.ravel()
        table = table[np.unique(inverse, return_index=True)[1]]
    else:  # each pattern's first row
        na = rows_a.shape[0]
        table = np.array([rows_a[i] if i < na else rows_b[i - na] for i in first], dtype=float).reshape(first.size, -1)
    if table.shape[0] < 2:
        return None
    order = np.argsort(row_keys(table), kind="stable")  # the row keys' order
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    codes = rank[inverse]
    values = [tuple(float(v) for v in table[i]) for i in order]
    return values, codes[: rows_a.shape[0]], codes[rows_a.shape[0]:]


def _mixed(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (Steele, Lea & Flood 2014) on every 64-bit word: each output bit depends on every input
    bit, so doubles that differ only in their high (exponent) bits hash far apart."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _column_bits(sides: tuple[np.ndarray, np.ndarray], i: int) -> np.ndarray:
    """Coordinate i of both sides' rows as the bits of its doubles (-0.0 read as 0.0)."""
    return np.concatenate([np.asarray(rows[:, i], dtype=float) + 0.0 for rows in sides]).view(np.uint64)


MAX_RANK = 4
CODE_SHARE = 0.01
MAX_CODES = 4


def _finite(rows: np.ndarray) -> np.ndarray:
    """``rows`` as floats with NaN and infinities read as 0: the rows themselves when they are finite floats
    already (one pass to check, no copy: every caller only reads them)."""
    x = np.asarray(rows, dtype=float)
    return x if np.isfinite(x).all() else np.nan_to_num(x, nan=0.0, posinf=0.0, neginf=0.0)


def held_out_blocks(rows: np.ndarray, every: int, block_rows: int = 1 << 16) -> Iterator[np.ndarray]:
    """The rows of ``rows`` other than every ``every``-th (the first, the (every+1)-th, ... are left out), in order,
    a block at a time: ``np.delete(rows, np.s_[0::every], axis=0)`` without a copy of them all at once (each
    block starts at a multiple of ``every``, so it leaves out the same rows).  The cross-fitted families score
    their held-out rows this way: a row's score does not depend on the rows beside it."""
    step = max(every, block_rows // every * every)
    for start in range(0, rows.shape[0], step):
        yield np.delete(rows[start:start + step], np.s_[0::every], axis=0)


def code_values(rows: np.ndarray) -> tuple[float, ...]:
    """The values that recur as codes in vector outputs, ascending: each makes up at least
    ``CODE_SHARE`` of all entries (and at least two), the ``MAX_CODES`` most frequent (sparse vector's
    "below" / "aborted" codes, 0/1 answers; DP-Sniper's ``FlagsFeatureTransformer`` reads them the
    same way)."""
    finite = _finite(rows)
    values, counts = np.unique(finite, return_counts=True)
    common = np.argsort(-counts, kind="stable")[:MAX_CODES]
    return tuple(sorted(float(values[i]) for i in common if counts[i] >= max(2.0, CODE_SHARE * finite.size)))


def _first_answer_thresholds(rows_a: np.ndarray, rows_b: np.ndarray, score: Scorer, keep: int = 1) -> list[Scored]:
    """Events "k-th answer in [i, j] and its value <= t" (and "> t"), k = 1, 2, ...

    The first answer is the first non-zero coordinate and, where that reads differently on these
    rows, also the first coordinate that is not a code (:func:`code_values`): outputs whose "below" is
    a code other than 0 (DP-Sniper's -1000 for sparse vector Alg. 3).  The k-th answer (``rank`` k of
    :class:`.sets.Feature`) is read the same two ways, for k = 2, 3, ... up to ``MAX_RANK`` while some
    row has a k-th answer and its position varies (sparse vector with a cut-off c > 1 answers up to c
    queries; with every answer at the same place the conjunction is a threshold on one coordinate,
    which the feature search has already): on DP-Sniper's SVT34Parallel at StatDP's pair (c = 2, all
    ones against all zeros) StatDP's witness "query 10 answered with a value <= 0" is, at cut-off 2,
    the first or the second answer there.  The
    ranges are single indices i and the tails [i, width - 1] (an answer at query i or later); the cuts t
    are ``CONJUNCTION_CUTS`` quantiles of the values in the range and a geometric grid in its tails
    (:meth:`_Sorted.tail_quantiles`).  Counts are out of all samples of a side, so the bound scores
    the event itself, not a conditional probability.
    """
    width = rows_a.shape[1]
    codes = code_values(np.r_[rows_a[:CODE_ROWS], rows_b[:CODE_ROWS]])
    found: list[Scored] = []
    plain = None
    for reading in (None, codes) if codes else (None,):
        for rank in range(1, MAX_RANK + 1):
            first = Feature("first-nonzero", codes=reading, rank=rank)
            indices = (first.values(rows_a), first.values(rows_b))
            if rank == 1 and reading is None:
                plain = indices
            elif rank == 1 and all(np.array_equal(c, p) for c, p in zip(indices, plain)):
                break  # the codes read as the plain reading does
            answered = np.r_[indices[0], indices[1]]
            if rank > 1 and np.unique(answered[answered < width]).size < 2:
                break
            label = "first answer" if rank == 1 else f"answer {rank}"
            found += _first_answer_conjunctions(rows_a, rows_b, score, keep, first,
                                                Feature("first-nonzero-value", codes=reading, rank=rank), indices,
                                                label)
    return found


def _first_answer_conjunctions(
    rows_a: np.ndarray, rows_b: np.ndarray, score: Scorer, keep: int, first: Feature, first_value: Feature,
    indices: tuple[np.ndarray, np.ndarray], label: str = "first answer",
) -> list[Scored]:
    """The conjunctions of :func:`_first_answer_thresholds` for one reading of the k-th answer
    (``indices``: ``first``'s values on each side), proposed as family ``label``."""
    na, nb, width = rows_a.shape[0], rows_b.shape[0], rows_a.shape[1]
    ia, ib = indices
    va, vb = answer_values(rows_a, ia), answer_values(rows_b, ib)  # first_value's values, from the positions
    seen = np.bincount(ia, minlength=width + 1)[:width] + np.bincount(ib, minlength=width + 1)[:width]
    answered = [int(i) for i in np.flatnonzero(seen)]
    ranges = sorted({(i, i) for i in answered} | {(i, width - 1) for i in answered})
    values = _values_by_range(ranges, width, (ia, va), (ib, vb))
    low, high = ([], [], []), ([], [], [])
    for lo, hi in ranges:
        f = _Sorted.of_sorted(*values[lo, hi])
        cuts = f.tail_quantiles(CONJUNCTION_CUTS)
        if cuts.size == 0:
            continue
        ka, kb = f.at_most(cuts)
        made = [(float(lo), float(hi), float(t)) for t in cuts]
        for store, counts in ((low, (ka, kb)), (high, (f.fa.size - ka, f.fb.size - kb))):
            store[0].append(counts[0])
            store[1].append(counts[1])
            store[2].extend(made)
    groups = []
    for upper, (counts_a, counts_b, made) in ((True, low), (False, high)):
        if made:
            groups += _group(label, lambda i, m=made, u=upper: AtomThreshold(first, m[i][0], m[i][1], first_value,
                                                                               m[i][2], u),
                             np.concatenate(counts_a), np.concatenate(counts_b), na, nb)
    return _best_of(groups, score, keep)


def _values_by_range(ranges: list[tuple[int, int]], width: int,
                     *sides: tuple[np.ndarray, np.ndarray]) -> dict[tuple[int, int], tuple[np.ndarray, ...]]:
    """For each range [lo, hi] of answer positions, every side's answer values at those positions, sorted.

    Each side is sorted once by (position, value), so a single position is a slice of it and a tail [i, width - 1]
    is the tail [i + 1, width - 1] merged with position i's slice (two sorted runs: linear time), built from the
    last position down -- instead of a pass over every row and a sort per range."""
    slices = []
    for positions, values_at in sides:
        order = np.lexsort((values_at, positions))
        ordered = values_at[order]
        starts = np.searchsorted(positions[order], np.arange(width + 1), side="left")
        slices.append([ordered[starts[i]:starts[i + 1]] for i in range(width)])
    wanted = set(ranges)
    found: dict[tuple[int, int], tuple[np.ndarray, ...]] = {}
    tails = [np.empty(0) for _ in sides]
    for i in range(width - 1, -1, -1):
        tails = [np.sort(np.concatenate([side[i], tail]), kind="stable") if side[i].size else tail
                 for side, tail in zip(slices, tails)]
        if (i, i) in wanted:
            found[i, i] = tuple(side[i] for side in slices)
        if (i, width - 1) in wanted:
            found[i, width - 1] = tuple(tails)
    return found


def _fisher_direction(rows_a: np.ndarray, rows_b: np.ndarray) -> Feature | None:
    """Fisher's linear discriminant w = (S_a + S_b)^-1 (mu_a - mu_b), scaled to max |w_i| = 1."""
    xa, xb = rows_a.astype(float), rows_b.astype(float)
    if xa.shape[0] < 2 or xb.shape[0] < 2:
        return None
    scatter = np.cov(xa, rowvar=False) + np.cov(xb, rowvar=False)
    scatter = np.atleast_2d(scatter) + 1e-9 * (np.trace(np.atleast_2d(scatter)) + 1.0) * np.eye(xa.shape[1])
    w = np.linalg.solve(scatter, xa.mean(axis=0) - xb.mean(axis=0))
    top = np.max(np.abs(w))
    if not np.isfinite(top) or top == 0:
        return None
    return Feature("linear", weights=tuple(float(v) for v in np.round(w / top, 6)))


def _features(width: int, categorical: frozenset[int] = frozenset()) -> list[Feature]:
    if width == 1:
        return [Feature("value")]
    features = [Feature("coordinate", index=i) for i in range(min(width, MAX_COORDINATES))]
    if categorical:  # sums, maxima and counts of label codes mean nothing
        return features
    return features + [Feature(kind) for kind in ("sum", "max", "min", "argmax", "nonzero")]


def _coordinate(feature: Feature) -> int | None:
    return 0 if feature.kind == "value" else feature.index if feature.kind == "coordinate" else None


def search_events(
    rows_a: np.ndarray, rows_b: np.ndarray, score: Scorer, keep: int = 1, categorical: frozenset[int] = frozenset()
) -> list[Scored]:
    """The best event of every family, feature and direction, best objective first.

    ``categorical`` lists the coordinates that hold label codes (:mod:`dpaudit.mechanisms.outputs`):
    there only sets of atoms are searched (thresholds and intervals on codes would cut at arbitrary
    points), and the vector families that combine coordinates (aggregates, the learned linear
    score, first-answer conjunctions) are left out; whole-row patterns remain.
    """
    found: list[Scored] = []
    for feature in _features(rows_a.shape[1], categorical):
        f = _Sorted.of(feature.values(rows_a), feature.values(rows_b), halves=True)
        if f.unique.size < 2:
            continue
        if _coordinate(feature) in categorical:
            found += _best_of(_value_set_groups(feature, f, categorical=True), score, keep)
            continue
        groups = _threshold_groups(feature, f) + _interval_groups(feature, f)
        groups += _value_set_groups(feature, f) if _discrete(f) else _histogram_groups(feature, f)
        found += _best_of(groups, score, keep)
    if rows_a.shape[1] > 1:
        found += _row_patterns(rows_a, rows_b, score, keep)
    if rows_a.shape[1] > 1 and not categorical:
        found += _first_answer_thresholds(rows_a, rows_b, score, keep)
        # Cross-fitted like the ratio order: the direction is learned on the even-indexed samples.
        learned = _fisher_direction(rows_a[0::2], rows_b[0::2])
        if learned is not None:
            f = _Sorted.of(learned.values(rows_a[1::2]), learned.values(rows_b[1::2]))
            if f.fa.size and f.fb.size:
                found += _best_of(_threshold_groups(learned, f), score, keep)
    found.sort(key=lambda s: (-s.objective, -(s.hits_a if s.forward else s.hits_b)))
    return found



class StandardFamily:
    """The families above as one :class:`.family.EventFamily`: every feature's thresholds, intervals,
    atoms or bins, and the vector families (:func:`search_events`).

    In the pair screening it proposes the ``SHORTLIST_KEEP`` best events per feature, family and
    direction of the fit half (even-indexed rows), and the ``WHOLE_SEARCH_KEEP`` best of a search on
    all rows: a witness too rare to be seen on half the rows (sparse vector Alg. 3, mass 0.3 %) is still
    found there; its held-out score is then not independent of its choice, which can only favour it.
    """

    name = "standard"
    implementation = False
    event_types = EVENT_TYPES

    def enabled(self, context: SearchContext) -> bool:
        return True

    def search(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> tuple[list[Scored], list[str]]:
        return search_events(rows_a, rows_b, context.score, categorical=context.categorical), []

    def screen(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> list[Callable[[], list[Scored]]]:
        fit_a, fit_b = rows_a[0::2], rows_b[0::2]
        score, categorical = context.score, context.categorical
        return [lambda: search_events(fit_a, fit_b, score, keep=SHORTLIST_KEEP, categorical=categorical),
                lambda: search_events(rows_a, rows_b, score, categorical=categorical)[:WHOLE_SEARCH_KEEP]]

    def event_from_dict(self, spec: dict[str, Any], noise: Any = None) -> Event:
        return event_from_dict(spec)
