"""Events: sets S of outputs with a vectorised membership test and a readable description.

Outputs arrive as a 2-D array (samples x coordinates).  A :class:`Feature` maps each row to one
number (the output itself, one coordinate, the sum, the maximum, the number of non-zero entries, a
learned linear score); an event is a set of feature values:

* :class:`Threshold` -- ``f <= t`` or ``f > t`` (half-lines: the Neyman-Pearson sets of monotone
  likelihood ratios, e.g. Laplace and Gaussian location families);
* :class:`Interval` -- ``lo < f <= hi``;
* :class:`ValueSet` -- ``f in {v1, v2, ...}`` for discrete features (unions of atoms);
* :class:`BinSet` -- ``f`` falls in one of the chosen histogram bins (a histogram density-ratio region);
* :class:`RowSet` -- the whole output row is one of the listed patterns (e.g. sparse-vector answer
  patterns);
* :class:`AtomThreshold` -- a conjunction: one discrete feature lies in a range of values *and* a
  second feature is below (or above) a threshold, e.g. "the first answered query is one of queries
  6..10 and the value released there is <= t" (the witness of the sparse vector that releases noisy
  answers, Lyu, Su & Li 2017, Alg. 3).

Every event is a frozen dataclass of plain values, so ``as_dict()`` is JSON-ready.

Outputs that were not numbers (:mod:`dpaudit.mechanisms.outputs`) are coded; :func:`labelled`
gives an event the texts it needs to read as the mechanism's own outputs -- the label of each code
in a :class:`ValueSet` or :class:`RowSet` (``output == 'yes'``), the dict key of a coordinate
(``output['count'] <= 3``), ``True`` / ``False`` for booleans.  Labels and keys are for reading
only: membership is decided on the codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from .family import registered_families

if TYPE_CHECKING:
    from ...mechanisms.outputs import OutputCoding

__all__ = [
    "EVENT_TYPES",
    "AtomThreshold",
    "BinSet",
    "Event",
    "Feature",
    "Interval",
    "RowSet",
    "Threshold",
    "ValueSet",
    "WholeRowThreshold",
    "event_from_dict",
    "hit_counts",
    "labelled",
    "row_keys",
]

# The "type" of each event of this module's as_dict(), which event_from_dict rebuilds itself.
EVENT_TYPES = ("threshold", "interval", "values", "bins", "rows", "atom-threshold")
_AGGREGATES = ("sum", "max", "min", "argmax", "nonzero", "first-nonzero", "first-nonzero-value")


def _extreme(rows: np.ndarray, pick: np.ufunc) -> np.ndarray:
    """``pick`` (``np.maximum`` or ``np.minimum``) of each row's coordinates: coordinate by coordinate in blocks of
    rows that stay in cache (2^16 values), which beats both a reduction along each row and a pass over every
    column (10^6 rows of 20 coordinates: 28 ms, against 37 ms and 107 ms; of 2 coordinates, 19 against 273 and 35)."""
    out = np.empty(rows.shape[0], dtype=rows.dtype)
    block = max(1024, (1 << 16) // max(1, rows.shape[1]))
    for start in range(0, rows.shape[0], block):
        part, into = rows[start:start + block], out[start:start + block]
        np.copyto(into, part[:, 0])
        for i in range(1, rows.shape[1]):
            pick(into, part[:, i], out=into)
    return out


def answer_positions(rows: np.ndarray, codes: tuple[float, ...] | None = None, rank: int = 1) -> np.ndarray:
    """The position of each row's ``rank``-th answer -- its ``rank``-th coordinate that is non-zero (``codes``
    None) or not one of ``codes`` -- and the width where the row has fewer answers.

    The running count of answers reaches ``rank`` first at that position, so the position is the number of
    coordinates where the running count is still below ``rank``: counted coordinate by coordinate, in bytes up to
    255 coordinates (a pass per column: 4x numpy's cumulative sum along rows of 20 coordinates)."""
    answers = rows != 0 if codes is None else ~np.isin(rows, codes)
    width = rows.shape[1]
    if width >= 256:
        return (np.cumsum(answers, axis=1) < rank).sum(axis=1, dtype=np.int64)
    running, position = np.zeros(rows.shape[0], dtype=np.uint8), np.zeros(rows.shape[0], dtype=np.uint8)
    for column in answers.view(np.uint8).T:
        running += column
        position += (running < rank).view(np.uint8)
    return position.astype(np.int64)


def answer_values(rows: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """Each row's value at ``positions`` (:func:`answer_positions`), 0 where the row has no such answer."""
    width = rows.shape[1]
    value = rows[np.arange(rows.shape[0]), np.minimum(positions, width - 1)]
    return np.where(positions < width, value, 0).astype(float)


@dataclass(frozen=True)
class Feature:
    """One number per output row.

    ``kind`` is ``"value"`` (scalar outputs), ``"coordinate"`` (``index``), one of ``"sum"``,
    ``"max"``, ``"min"``, ``"argmax"``, ``"nonzero"`` (count of non-zero coordinates),
    ``"first-nonzero"`` (index of the first non-zero coordinate, the width when there is none: in
    sparse-vector outputs, the first answered query), ``"first-nonzero-value"`` (the value there, 0
    when there is none), or ``"linear"`` (the score ``sum_i weights[i] * x_i``).  ``key`` names a
    coordinate of a dict output (the key's repr) for reading.  ``codes``, for the two first-nonzero
    kinds, replaces 0 by the values that are not answers (sparse vector Alg. 3 as DP-Sniper encodes
    it: -1000 below, -2000 aborted; the first coordinate outside ``codes`` is the first answer).
    ``rank`` k, for the same two kinds, reads the k-th answer instead of the first (the index of the
    k-th non-zero coordinate, the width when there are fewer, and the value there: sparse vector with a
    cut-off c > 1 answers up to c queries).
    """

    kind: str
    index: int | None = None
    weights: tuple[float, ...] | None = None
    key: str | None = field(default=None, compare=False)
    codes: tuple[float, ...] | None = None
    rank: int = 1

    def values(self, rows: np.ndarray) -> np.ndarray:
        if self.kind == "value":
            return rows[:, 0]
        if self.kind == "coordinate":
            return rows[:, self.index]
        if self.kind == "sum":
            return rows.sum(axis=1, dtype=float)
        if self.kind in ("max", "min"):
            return _extreme(rows, np.maximum if self.kind == "max" else np.minimum)
        if self.kind == "argmax":
            return rows.argmax(axis=1)
        if self.kind == "nonzero":
            nonzero = rows != 0
            if rows.shape[1] < 256:  # each row's count fits a byte: one byte dot product per row (5x a pass per column)
                return (nonzero.view(np.uint8) @ np.ones(rows.shape[1], dtype=np.uint8)).astype(np.int64)
            return nonzero.sum(axis=1, dtype=np.int64)
        if self.kind in ("first-nonzero", "first-nonzero-value"):
            first = answer_positions(rows, self.codes, self.rank)
            return first if self.kind == "first-nonzero" else answer_values(rows, first)
        if self.kind == "linear":
            return rows @ np.asarray(self.weights, dtype=float)
        raise ValueError(f"feature kind={self.kind!r} must be one of value, coordinate, linear, {', '.join(_AGGREGATES)}")

    def describe(self) -> str:
        if self.kind == "value":
            return "output"
        if self.kind == "coordinate":
            return f"output[{self.key if self.key is not None else self.index}]"
        if self.kind == "nonzero":
            return "number of non-zero coordinates"
        if self.kind in ("first-nonzero", "first-nonzero-value"):
            which = "non-zero coordinate" if self.codes is None else f"coordinate not in {{{', '.join(map(_num, self.codes))}}}"
            return f"{'index' if self.kind == 'first-nonzero' else 'value'} of the {_ordinal(self.rank)} {which}"
        if self.kind == "linear":
            terms = " ".join(f"{w:+.3g}*x{i}" for i, w in enumerate(self.weights or ()) if w != 0)
            return f"score({terms.lstrip('+')})"
        return f"{self.kind} of coordinates"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        if self.index is not None:
            out["index"] = self.index
        if self.weights is not None:
            out["weights"] = list(self.weights)
        if self.key is not None:
            out["key"] = self.key
        if self.codes is not None:
            out["codes"] = list(self.codes)
        if self.rank != 1:
            out["rank"] = self.rank
        return out


def _ordinal(k: int) -> str:
    if k == 1:
        return "first"
    return f"{k}{'th' if 10 <= k % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(k % 10, 'th')}"


def _num(x: float) -> str:
    return f"{x:.6g}"


@dataclass(frozen=True)
class Threshold:
    """``feature <= t`` (``upper=True``) or ``feature > t`` (``upper=False``)."""

    feature: Feature
    t: float
    upper: bool

    def contains(self, rows: np.ndarray, known: dict[Any, np.ndarray] | None = None) -> np.ndarray:
        f = _values(self.feature, rows, known)
        return f <= self.t if self.upper else f > self.t

    def describe(self) -> str:
        return f"{self.feature.describe()} {'<=' if self.upper else '>'} {_num(self.t)}"

    def as_dict(self) -> dict[str, Any]:
        return {"type": "threshold", "feature": self.feature.as_dict(), "t": self.t, "upper": self.upper}


@dataclass(frozen=True)
class Interval:
    """``lo < feature <= hi``."""

    feature: Feature
    lo: float
    hi: float

    def contains(self, rows: np.ndarray, known: dict[Any, np.ndarray] | None = None) -> np.ndarray:
        f = _values(self.feature, rows, known)
        return (f > self.lo) & (f <= self.hi)

    def describe(self) -> str:
        return f"{self.feature.describe()} in ({_num(self.lo)}, {_num(self.hi)}]"

    def as_dict(self) -> dict[str, Any]:
        return {"type": "interval", "feature": self.feature.as_dict(), "lo": self.lo, "hi": self.hi}


def _listing(items: list[str], limit: int = 8) -> str:
    shown = ", ".join(items[:limit])
    return "{" + shown + (f", ... ({len(items)} in all)" if len(items) > limit else "") + "}"


@dataclass(frozen=True)
class ValueSet:
    """``feature in values`` (a union of atoms of a discrete feature); ``labels`` reads each value
    as the mechanism returned it (None where it is a plain number)."""

    feature: Feature
    values: tuple[float, ...]
    labels: tuple[str | None, ...] | None = field(default=None, compare=False)

    def contains(self, rows: np.ndarray, known: dict[Any, np.ndarray] | None = None) -> np.ndarray:
        f = _values(self.feature, rows, known)
        values = np.sort(np.asarray(self.values, dtype=float))
        if values.size == 0:
            return np.zeros(f.shape, dtype=bool)
        at = np.minimum(np.searchsorted(values, f), values.size - 1)  # the first value >= f, if any
        return values[at] == f

    def describe(self) -> str:
        texts = [_num(v) if text is None else text for v, text in zip(self.values, self.labels or [None] * len(self.values))]
        if self.labels is not None and len(texts) == 1:
            return f"{self.feature.describe()} == {texts[0]}"
        return f"{self.feature.describe()} in {_listing(texts)}"

    def as_dict(self) -> dict[str, Any]:
        out = {"type": "values", "feature": self.feature.as_dict(), "values": list(self.values)}
        if self.labels is not None:
            out["labels"] = list(self.labels)
        return out


COMPARED_EDGES = 255
"""Up to this many edges :func:`bin_index` counts the edges below each value by comparisons."""


def bin_index(edges: Any, values: np.ndarray) -> np.ndarray:
    """``np.searchsorted(edges, values, side="left")`` for sorted ``edges``: the number of edges below each value,
    i.e. the bin (edges[i-1], edges[i]] that holds it (NaN past the last edge, as numpy sorts it).

    With at most ``COMPARED_EDGES`` edges the count is the number of edges less the sum of the comparisons
    ``values <= edge``, in one byte per value (no NaN edge; unsorted edges fall back to the binary search): a pass
    per edge beats numpy's binary search of unsorted keys by 5-9x up to 15 edges, 65 536 values (the histograms
    of :mod:`.product` have at most 31, their verification reads 20 coordinates a row).  Returns ``intp`` from
    the binary search, ``uint8`` else.
    """
    edges = np.asarray(edges, dtype=float)
    if not 0 < edges.size <= COMPARED_EDGES or np.isnan(edges).any() or np.any(edges[1:] < edges[:-1]):
        return np.searchsorted(edges, values, side="left")
    if edges.size > 1:
        values = np.ascontiguousarray(values)  # one strided read, not one per edge
    # The edges at or above each value, subtracted from their number: a NaN value is above none, so past them all.
    at_or_above = np.less_equal(values, edges[0]).view(np.uint8)
    for edge in edges[1:]:
        at_or_above += np.less_equal(values, edge).view(np.uint8)
    return np.subtract(np.uint8(edges.size), at_or_above, out=at_or_above)


@dataclass(frozen=True)
class BinSet:
    """``feature`` lies in one of the histogram bins ``bins``; bin i is (edges[i-1], edges[i]]."""

    feature: Feature
    edges: tuple[float, ...]
    bins: tuple[int, ...]

    def contains(self, rows: np.ndarray, known: dict[Any, np.ndarray] | None = None) -> np.ndarray:
        binned = (self.feature, self.edges)  # the bins of a feature's values, found once for all its bin sets
        if known is not None and binned in known:
            index = known[binned]
        else:
            index = bin_index(self.edges, _values(self.feature, rows, known))
            if known is not None:
                known[binned] = index
        return self.chosen()[index]

    def chosen(self) -> np.ndarray:
        """Whether each bin i of 0..len(edges) is in the set."""
        chosen = np.zeros(len(self.edges) + 1, dtype=bool)
        chosen[np.asarray(self.bins, dtype=np.intp)] = True
        return chosen

    def _bin_text(self, i: int) -> str:
        lo = _num(self.edges[i - 1]) if i > 0 else "-inf"
        hi = _num(self.edges[i]) if i < len(self.edges) else "inf"
        return f"({lo}, {hi}]"

    def describe(self) -> str:
        bins = sorted(self.bins)
        return f"{self.feature.describe()} in the union of {_listing([self._bin_text(i) for i in bins], 4)}"

    def as_dict(self) -> dict[str, Any]:
        return {"type": "bins", "feature": self.feature.as_dict(), "edges": list(self.edges), "bins": list(self.bins)}


def row_keys(rows: np.ndarray) -> np.ndarray:
    """Each row as one opaque byte string (numpy void), so whole rows compare and sort as scalars."""
    rows = np.ascontiguousarray(np.asarray(rows, dtype=float) + 0.0)  # + 0.0 maps -0.0 to 0.0
    return rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()


class WholeRowThreshold:
    """A threshold ``s(y) <= t`` (``upper``) or ``s(y) > t`` on a score of the whole output row, flattened: the
    learned family's classifier score and the product-ratio family's summed log-ratio.  A subclass (a frozen
    dataclass with fields ``t`` and ``upper``) gives :meth:`row_scores`.  Such a score reads every
    coordinate (:mod:`.side_channels`)."""

    t: float
    upper: bool

    def row_scores(self, rows: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def contains(self, rows: np.ndarray) -> np.ndarray:
        rows = np.asarray(rows)
        s = self.row_scores(rows.reshape(rows.shape[0], -1))
        return s <= self.t if self.upper else s > self.t


@dataclass(frozen=True)
class RowSet:
    """The whole output row is one of ``patterns`` (vector outputs with few distinct values).

    ``labels`` reads each pattern's values as the mechanism returned them (None: a plain number),
    ``keys`` names the coordinates of dict outputs.
    """

    patterns: tuple[tuple[float, ...], ...]
    labels: tuple[tuple[str | None, ...], ...] | None = field(default=None, compare=False)
    keys: tuple[str, ...] | None = field(default=None, compare=False)

    def contains(self, rows: np.ndarray) -> np.ndarray:
        return np.isin(row_keys(rows), row_keys(np.asarray(self.patterns, dtype=float)))

    def _pattern_text(self, i: int) -> str:
        texts = [_num(v) if t is None else t
                 for v, t in zip(self.patterns[i], self.labels[i] if self.labels else [None] * len(self.patterns[i]))]
        if self.keys is not None and len(self.keys) == len(texts):
            return "{" + ", ".join(f"{k}: {t}" for k, t in zip(self.keys, texts)) + "}"
        if self.labels is not None and len(texts) == 1:  # a scalar output
            return texts[0]
        return "(" + ", ".join(texts) + ")"

    def describe(self) -> str:
        shown = [self._pattern_text(i) for i in range(len(self.patterns))]
        if self.labels is not None and len(shown) == 1:
            return f"output == {shown[0]}"
        return f"output in {_listing(shown, 4)}"

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "rows", "patterns": [list(p) for p in self.patterns]}
        if self.labels is not None:
            out["labels"] = [list(p) for p in self.labels]
        if self.keys is not None:
            out["keys"] = list(self.keys)
        return out


@dataclass(frozen=True)
class AtomThreshold:
    """``low <= atom_feature <= high`` and (``feature <= t`` if ``upper`` else ``feature > t``)."""

    atom_feature: Feature
    low: float
    high: float
    feature: Feature
    t: float
    upper: bool

    def contains(self, rows: np.ndarray, known: dict[Any, np.ndarray] | None = None) -> np.ndarray:
        f = _values(self.feature, rows, known)
        below = f <= self.t if self.upper else f > self.t
        atoms = _values(self.atom_feature, rows, known)
        return (atoms >= self.low) & (atoms <= self.high) & below

    def describe(self) -> str:
        side = "<=" if self.upper else ">"
        where = f"= {_num(self.low)}" if self.low == self.high else f"in [{_num(self.low)}, {_num(self.high)}]"
        return f"{self.atom_feature.describe()} {where} and {self.feature.describe()} {side} {_num(self.t)}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "type": "atom-threshold",
            "atom_feature": self.atom_feature.as_dict(),
            "low": self.low,
            "high": self.high,
            "feature": self.feature.as_dict(),
            "t": self.t,
            "upper": self.upper,
        }


Event = Union[Threshold, Interval, ValueSet, BinSet, RowSet, AtomThreshold]
_ON_FEATURES = (Threshold, Interval, ValueSet, BinSet, AtomThreshold)


def _values(feature: Feature, rows: np.ndarray, known: dict[Any, np.ndarray] | None) -> np.ndarray:
    """``feature.values(rows)``, computed once per feature when ``known`` keeps them (:func:`hit_counts`;
    :class:`BinSet` also keeps there the bin of every value, under its feature and edges)."""
    if known is None:
        return feature.values(rows)
    if feature not in known:
        known[feature] = feature.values(rows)
    return known[feature]


SORTED_COUNTING = 8
"""Events on one feature from which :func:`hit_counts` sorts the feature's values and counts by binary search."""


def hit_counts(events: Sequence[Any], rows: np.ndarray) -> list[int]:
    """``count_nonzero(event.contains(rows))`` for every event, each feature's values computed once for all
    the events on it (the events of this module; any other event counts itself).

    A feature with ``SORTED_COUNTING`` or more thresholds, intervals and bin sets on it is sorted once, and
    those events are counted by binary searches of the sorted values (:func:`_sorted_count`) instead of a
    pass over the rows each (the held-out re-scoring counts some twenty events of a screening's shortlist).
    """
    known: dict[Any, np.ndarray] = {}
    on_feature: dict[Any, list[int]] = {}
    for i, event in enumerate(events):
        if isinstance(event, (Threshold, Interval, BinSet)):
            on_feature.setdefault(event.feature, []).append(i)
    counts: dict[int, int] = {}
    for feature, members in on_feature.items():
        if len(members) >= SORTED_COUNTING:
            ordered = np.sort(_values(feature, rows, known))
            if ordered.size and not np.isnan(ordered[-1]):  # NaN sorts last and is in no event
                counts.update((i, _sorted_count(events[i], ordered)) for i in members)
    return [counts[i] if i in counts else
            int(np.count_nonzero(event.contains(rows, known) if isinstance(event, _ON_FEATURES)
                                 else event.contains(rows))) for i, event in enumerate(events)]


def _sorted_count(event: Threshold | Interval | BinSet, ordered: np.ndarray) -> int:
    """The values of the sorted array ``ordered`` (no NaN) in ``event``: ``count_nonzero(event.contains)``."""
    if isinstance(event, Threshold):
        at_most = int(np.searchsorted(ordered, event.t, side="right"))
        return at_most if event.upper else ordered.size - at_most
    if isinstance(event, Interval):
        return max(0, int(np.searchsorted(ordered, event.hi, side="right") - np.searchsorted(ordered, event.lo, side="right")))
    per_bin = np.diff(np.r_[0, np.searchsorted(ordered, np.asarray(event.edges), side="right"), ordered.size])
    return int(per_bin[event.chosen()].sum())


def _feature_from_dict(spec: dict[str, Any]) -> Feature:
    weights, codes = spec.get("weights"), spec.get("codes")
    return Feature(spec["kind"], spec.get("index"), None if weights is None else tuple(float(w) for w in weights),
                   spec.get("key"), None if codes is None else tuple(float(c) for c in codes), int(spec.get("rank", 1)))


def _optional_tuple(values: Any) -> Any:
    if values is None:
        return None
    return tuple(_optional_tuple(v) if isinstance(v, list) else v for v in values)


def event_from_dict(spec: dict[str, Any], noise: Any = None) -> Any:
    """Inverse of ``event.as_dict()`` for every event type of this module and of every registered
    event family (:func:`.family.registered_families`: the leak events, learned events, a user's own).

    ``noise`` is the mechanism's exposed float noise, needed by the float-support event only.
    """
    kind = spec.get("type")
    if kind not in EVENT_TYPES:
        family = next((f for f in registered_families() if kind in f.event_types), None)
        if family is None:
            known = [*EVENT_TYPES, *(t for f in registered_families() for t in f.event_types if t not in EVENT_TYPES)]
            raise ValueError(f"event type={kind!r} must be one of {', '.join(known)}")
        return family.event_from_dict(spec, noise)
    if kind == "threshold":
        return Threshold(_feature_from_dict(spec["feature"]), float(spec["t"]), bool(spec["upper"]))
    if kind == "interval":
        return Interval(_feature_from_dict(spec["feature"]), float(spec["lo"]), float(spec["hi"]))
    if kind == "values":
        return ValueSet(_feature_from_dict(spec["feature"]), tuple(float(v) for v in spec["values"]),
                        _optional_tuple(spec.get("labels")))
    if kind == "bins":
        edges = tuple(float(e) for e in spec["edges"])
        return BinSet(_feature_from_dict(spec["feature"]), edges, tuple(int(b) for b in spec["bins"]))
    if kind == "rows":
        return RowSet(tuple(tuple(float(v) for v in p) for p in spec["patterns"]), _optional_tuple(spec.get("labels")),
                      _optional_tuple(spec.get("keys")))
    return AtomThreshold(  # "atom-threshold", the last of EVENT_TYPES
        _feature_from_dict(spec["atom_feature"]),
        float(spec["low"]),
        float(spec["high"]),
        _feature_from_dict(spec["feature"]),
        float(spec["t"]),
        bool(spec["upper"]),
    )


def _keyed(feature: Feature, coding: "OutputCoding") -> Feature:
    key = coding.key(feature.index) if feature.kind == "coordinate" else None
    return feature if key is None else replace(feature, key=key)


def _coordinate_of(feature: Feature) -> int | None:
    return 0 if feature.kind == "value" else feature.index if feature.kind == "coordinate" else None


def _as_atoms(event: Any) -> ValueSet:
    """A threshold or interval on a boolean coordinate as the set of its atoms {0, 1} it contains."""
    atoms = np.array([[0.0], [1.0]])
    inside = type(event)(Feature("value"), *[getattr(event, f.name) for f in fields(event) if f.name != "feature"])
    return ValueSet(event.feature, tuple(float(v) for v in atoms[inside.contains(atoms), 0]))


def labelled(event: Any, coding: "OutputCoding | None") -> Any:
    """``event`` with the texts that read it as the mechanism's outputs (see the module docstring).

    A threshold or interval on a boolean coordinate becomes the set of atoms it contains
    (``output == True``); on outputs that are True or False it is the same set.
    """
    if coding is None or coding.plain_numbers:
        return event
    if isinstance(event, (Threshold, Interval)):
        coordinate = _coordinate_of(event.feature)
        if coordinate is not None and coding.kinds[coordinate] == "bool":
            event = _as_atoms(event)
    if isinstance(event, ValueSet):
        coordinate = _coordinate_of(event.feature)
        if coordinate is not None and coding.kinds[coordinate] != "number":
            texts = tuple(coding.text(coordinate, v) for v in event.values)
            event = replace(event, labels=texts)
    if isinstance(event, RowSet):
        texts = tuple(tuple(coding.text(i, v) for i, v in enumerate(p)) for p in event.patterns)
        return replace(event, labels=texts, keys=coding.keys)
    if isinstance(event, AtomThreshold):
        return replace(event, atom_feature=_keyed(event.atom_feature, coding), feature=_keyed(event.feature, coding))
    if hasattr(event, "feature") and isinstance(event.feature, Feature):
        return replace(event, feature=_keyed(event.feature, coding))
    if hasattr(event, "key") and getattr(event, "coordinate", None) is not None:  # lattice, float-support
        return replace(event, key=coding.key(event.coordinate))
    if hasattr(event, "keys") and hasattr(event, "i") and coding.keys is not None:  # coordinate difference
        return replace(event, keys=(coding.key(event.i), coding.key(event.j)))
    return event
