"""Neighbour relations: the unit of privacy.

A relation answers two questions: is a given pair (D, D') neighbouring, and which candidate pairs
should an auditor try for a given domain.  :class:`NeighbourRelation` states the methods dpaudit
calls on one; the built-in relations below have them, and so may a user's own object (for example
"swap two records" or "change one record by at most 1"), accepted wherever a relation is.

* :class:`AddRemove` -- unbounded DP: D' is D with one record added or removed (multisets).
* :class:`Replace` -- bounded DP: D' is D with one record replaced by another (multisets).
* :class:`QueryDistance` -- a mechanism stated on the query value q = f(D): q ~ q' iff
  ``||q - q'||_norm <= sensitivity`` with norm ``l1``, ``l2`` or ``linf`` (the last is the "ALL"
  neighbourhood of the sparse-vector and noisy-max literature: every answer moves by at most Delta).
* :class:`Local` -- local DP: any two inputs of the domain are neighbours (randomized response).
* :class:`Canary` -- add/remove restricted to one chosen record, the canary: D vs D plus the canary
  (the membership game of privacy auditing for machine learning, Nasr et al., USENIX Security 2023).

Candidate pairs for vectors of query answers follow the input patterns of Ding, Wang, Wang, Zhang &
Kifer, "Detecting Violations of Differential Privacy", CCS 2018, Sect. 5.1 (one above, one below, one
above rest below, one below rest above, half up half down, all above, all below, x-shape).
"""

from __future__ import annotations

import numbers
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from ._validation import check_one_of, check_positive_finite, check_positive_int, short_repr
from .errors import InvalidArgument, InvalidDataset, NotNeighbouring

__all__ = [
    "AddRemove",
    "Canary",
    "DING_PATTERNS",
    "Local",
    "NeighbourRelation",
    "QueryDistance",
    "RELATIONS",
    "RELATION_METHODS",
    "Replace",
    "check_relation",
    "ding_patterns",
    "infer_relation",
    "relation_from_dict",
    "relation_from_spec",
    "relation_spec",
]

DING_PATTERNS = (
    "one above",
    "one below",
    "one above rest below",
    "one below rest above",
    "half up half down",
    "all above",
    "all below",
    "x-shape",
)


@runtime_checkable
class NeighbourRelation(Protocol):
    """What dpaudit asks of a neighbour relation: the built-in ones have these methods, and any object that
    has them is a relation too (``Mechanism(neighbours=...)``, ``dpaudit.audit(..., neighbours=...)``).

    * ``is_neighbouring(a, b)`` -- True when the inputs a and b are neighbours; the pair search keeps only
      the candidates for which it is (an exception of dpaudit's, such as :class:`InvalidDataset`, counts
      as False).
    * ``check(a, b)`` -- the same as a refusal: return None for neighbours, else raise
      :class:`NotNeighbouring` saying why.  A pair the user gives (``pair=``) is checked with it.
    * ``candidate_pairs(domain, size=...)`` -- neighbouring pairs to try first, from the mechanism's
      ``domain`` (whatever the relation reads there: record values, a base query value), or from the value
      range of an example dataset ``data=`` together with its ``size`` (passed by keyword only then).
    * ``as_dict()`` -- a JSON-ready description whose key ``"relation"`` names it; results, reports and
      checkpoints record it.

    ``str(relation)`` is the statement in words that results and reports print (``result.neighbours``).
    The built-in relations' checks that depend on their meaning (float leaks under add/remove, the
    sensitivity falsifier, generated datasets in :mod:`dpaudit.strategies`) apply to them only, and
    :func:`relation_from_dict` / :func:`relation_from_spec` rebuild them only: a relation of your own is
    given as the object.
    """

    def is_neighbouring(self, a: Any, b: Any) -> bool: ...

    def check(self, a: Any, b: Any) -> None: ...

    def candidate_pairs(self, domain: Any, size: int = ...) -> list[tuple[Any, Any]]: ...

    def as_dict(self) -> dict[str, Any]: ...


RELATION_METHODS = ("is_neighbouring", "check", "candidate_pairs", "as_dict")
"""The methods of :class:`NeighbourRelation`, named by :func:`check_relation` when an object lacks one."""


def check_relation(name: str, value: Any, *, spec: bool = False) -> NeighbourRelation:
    """``value`` when it is a neighbour relation (it has every method of :class:`NeighbourRelation`), else
    InvalidArgument naming ``name``, the built-in relations (and their names when ``spec``: where a
    relation may be given by its command-line name) and the methods ``value`` lacks."""
    missing = [method for method in RELATION_METHODS if not callable(getattr(value, method, None))]
    if missing:
        names = " or one of 'add-remove', 'replace', 'local', 'query-distance[:SENSITIVITY[:NORM]]'" if spec else ""
        raise InvalidArgument(
            f"{name}={short_repr(value)} must be AddRemove(), Replace(), QueryDistance(...), Local(), Canary(record)"
            f"{names} or an object with the methods {', '.join(RELATION_METHODS)} (dpaudit.NeighbourRelation); "
            f"it has no {', '.join(missing)}"
        )
    return value


def _shown(value: Any, limit: int = 60) -> str:
    """``repr(value)``, cut to ``limit`` characters (a dataset can be long)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _record_key(record: Any) -> Any:
    """A hashable, type-insensitive key for one record (numpy scalars and arrays included)."""
    if isinstance(record, np.ndarray):
        return tuple(_record_key(r) for r in record.tolist()) if record.ndim else _record_key(record.item())
    if isinstance(record, np.generic):
        return _record_key(record.item())
    if isinstance(record, (str, bytes)):
        return record
    if isinstance(record, bool):
        return int(record)
    if isinstance(record, numbers.Number):
        value = complex(record) if isinstance(record, complex) else float(record)
        return "nan" if value != value else value
    if isinstance(record, Sequence):
        return tuple(_record_key(r) for r in record)
    try:
        hash(record)
    except TypeError:
        raise InvalidDataset(f"record {record!r} is not a number, a string or a sequence of them") from None
    return record


def _as_records(name: str, dataset: Any) -> list[Any]:
    """A dataset is a sequence of records (list, tuple, or an array whose first axis indexes records)."""
    if isinstance(dataset, np.ndarray):
        if dataset.ndim == 0:
            raise InvalidDataset(f"{name}={dataset!r} must be a sequence of records, not a scalar array")
        return list(dataset)
    if isinstance(dataset, (str, bytes, dict)) or not isinstance(dataset, Sequence):
        raise InvalidDataset(
            f"{name}={dataset!r} must be a sequence of records (list, tuple or array), "
            f"not {type(dataset).__name__}"
        )
    return list(dataset)


def _multiset_difference(a: list[Any], b: list[Any]) -> tuple[Counter, Counter]:
    ca = Counter(_record_key(r) for r in a)
    cb = Counter(_record_key(r) for r in b)
    return ca - cb, cb - ca


def _domain_values(domain: Any) -> list[Any]:
    values = _as_records("domain", domain)
    if not values:
        raise InvalidDataset("domain=[] must list at least one record value")
    return values


def _pick_extremes(values: list[Any]) -> list[Any]:
    """The record values an auditor should try first: the extremes, then the rest (order kept)."""
    try:
        ordered = sorted(values, key=lambda r: _record_key(r))
        picked = [ordered[0], ordered[-1]] + ordered[1:-1]
    except TypeError:
        picked = list(values)
    unique: list[Any] = []
    seen = set()
    for r in picked:
        k = _record_key(r)
        if k not in seen:
            seen.add(k)
            unique.append(r)
    return unique


@dataclass(frozen=True)
class AddRemove:
    """Unbounded neighbours: D' = D plus or minus one record (as multisets).

    Parameters for :meth:`candidate_pairs`: ``domain`` lists representative record values (for
    example the clamp bounds); ``size`` the number of records in the base datasets.
    """

    name: ClassVar[str] = "add-remove"

    def is_neighbouring(self, a: Any, b: Any) -> bool:
        ra, rb = _as_records("a", a), _as_records("b", b)
        if abs(len(ra) - len(rb)) != 1:
            return False
        only_a, only_b = _multiset_difference(ra, rb)
        return sum(only_a.values()) + sum(only_b.values()) == 1

    def check(self, a: Any, b: Any) -> None:
        """Raise :class:`NotNeighbouring` unless one dataset is the other plus one record."""
        if not self.is_neighbouring(a, b):
            raise NotNeighbouring(
                f"datasets a={_shown(a)} (size {len(_as_records('a', a))}) and b={_shown(b)} "
                f"(size {len(_as_records('b', b))}) are not add/remove neighbours: one must equal the other with "
                "exactly one record added"
            )

    def candidate_pairs(self, domain: Any, size: int = 4) -> list[tuple[tuple, tuple]]:
        """Pairs (D, D + [r]) and (D + [r], D) for base datasets of extreme records and r in the domain."""
        check_positive_int("size", size)
        values = _pick_extremes(_domain_values(domain))
        lo, hi = values[0], values[1] if len(values) > 1 else values[0]
        bases: list[tuple] = [(), (lo,) * size, (hi,) * size, tuple((lo, hi)[i % 2] for i in range(size))]
        pairs: list[tuple[tuple, tuple]] = []
        for base in bases:
            for r in values:
                pairs.append((base, base + (r,)))
                pairs.append((base + (r,), base))
        return _unique_pairs(pairs)

    def as_dict(self) -> dict[str, Any]:
        return {"relation": self.name}

    def __str__(self) -> str:
        return "add/remove one record"


@dataclass(frozen=True)
class Canary(AddRemove):
    """Add/remove of one chosen record, the canary: D' = D plus ``record`` (or D = D' plus it).

    The membership game of privacy auditing (Nasr, Hayes, Steinke, Balle, Tramer, Jagielski,
    Carlini & Terzis, "Tight auditing of differentially private machine learning", USENIX Security
    2023): the adversary picks the canary, the trainer runs on D or on D plus the canary, and the
    adversary guesses which.  Every Canary pair is an add/remove pair, so a Canary relation is an
    :class:`AddRemove` (the claim is the same); it only narrows the pairs to those that differ by the
    canary.  ``record`` is any hashable record (lists are kept as tuples).
    """

    record: Any = None
    name: ClassVar[str] = "canary"

    def __post_init__(self) -> None:
        if self.record is None:
            raise InvalidArgument("Canary(record=None): give the canary record, e.g. Canary((0.0, 0.0, 1.0, 1))")
        if isinstance(self.record, (list, np.ndarray)):
            object.__setattr__(self, "record", tuple(np.asarray(self.record).tolist()))
        _record_key(self.record)  # refuses records that are not numbers, strings or sequences of them

    def is_neighbouring(self, a: Any, b: Any) -> bool:
        if not super().is_neighbouring(a, b):
            return False
        only_a, only_b = _multiset_difference(_as_records("a", a), _as_records("b", b))
        return set((only_a + only_b).keys()) == {_record_key(self.record)}

    def check(self, a: Any, b: Any) -> None:
        """Raise :class:`NotNeighbouring` unless one dataset is the other plus the canary."""
        if not self.is_neighbouring(a, b):
            raise NotNeighbouring(
                f"datasets a={_shown(a)} and b={_shown(b)} are not canary neighbours: one must equal the other "
                f"with the canary {_shown(self.record)} added"
            )

    def candidate_pairs(self, domain: Any, size: int = 4) -> list[tuple[tuple, tuple]]:
        """Pairs (D, D + [canary]) for D empty and D the first ``size`` records of ``domain``, both ways."""
        check_positive_int("size", size)
        bases = [(), tuple(_domain_values(domain)[:size])]
        shapes = {np.shape(r) for r in bases[1]}
        if shapes and shapes != {np.shape(self.record)}:
            raise InvalidArgument(
                f"the canary {_shown(self.record)} has shape {np.shape(self.record)} but the dataset's records have "
                f"shape {', '.join(map(str, sorted(shapes)))}: give a canary shaped like one record")
        pairs = [(base, base + (self.record,)) for base in bases] + [(base + (self.record,), base) for base in bases]
        return _unique_pairs(pairs)

    def as_dict(self) -> dict[str, Any]:
        return {"relation": self.name, "record": _record_key(self.record)}

    def __str__(self) -> str:
        return f"add/remove the canary {_shown(self.record, 40)}"


@dataclass(frozen=True)
class Replace:
    """Bounded neighbours: D' = D with one record replaced (same size, multisets differ in one)."""

    name: ClassVar[str] = "replace"

    def is_neighbouring(self, a: Any, b: Any) -> bool:
        ra, rb = _as_records("a", a), _as_records("b", b)
        if len(ra) != len(rb) or not ra:
            return False
        only_a, only_b = _multiset_difference(ra, rb)
        return sum(only_a.values()) == 1 and sum(only_b.values()) == 1

    def check(self, a: Any, b: Any) -> None:
        """Raise :class:`NotNeighbouring` unless the datasets differ in exactly one record."""
        if not self.is_neighbouring(a, b):
            raise NotNeighbouring(
                f"datasets a={_shown(a)} and b={_shown(b)} are not replace-one neighbours: they must have the same "
                "size and differ in exactly one record"
            )

    def candidate_pairs(self, domain: Any, size: int = 4) -> list[tuple[tuple, tuple]]:
        """Pairs (D + [r], D + [r']) for r != r' in the domain and base datasets of extreme records."""
        check_positive_int("size", size)
        values = _pick_extremes(_domain_values(domain))
        if len(values) < 2:
            raise InvalidDataset("domain must hold at least two distinct record values for Replace")
        lo, hi = values[0], values[1]
        bases: list[tuple] = [(), (lo,) * (size - 1), (hi,) * (size - 1)]
        pairs = []
        for base in bases:
            for r in values:
                for s in values:
                    if _record_key(r) != _record_key(s):
                        pairs.append((base + (r,), base + (s,)))
        return _unique_pairs(pairs)

    def as_dict(self) -> dict[str, Any]:
        return {"relation": self.name}

    def __str__(self) -> str:
        return "replace one record"


@dataclass(frozen=True)
class Local:
    """Local DP: any two inputs of the domain are neighbours (e.g. one person's bit in randomized response)."""

    name: ClassVar[str] = "local"

    def is_neighbouring(self, a: Any, b: Any) -> bool:
        return _record_key(a) != _record_key(b)

    def check(self, a: Any, b: Any) -> None:
        if not self.is_neighbouring(a, b):
            raise NotNeighbouring(f"a={a!r} and b={b!r} are the same input; a local pair needs two different ones")

    def candidate_pairs(self, domain: Any, size: int = 0) -> list[tuple[Any, Any]]:
        """Every ordered pair of distinct domain values."""
        values = _pick_extremes(_domain_values(domain))
        return [(r, s) for r in values for s in values if _record_key(r) != _record_key(s)]

    def as_dict(self) -> dict[str, Any]:
        return {"relation": self.name}

    def __str__(self) -> str:
        return "any two inputs (local model)"


def _as_query(name: str, value: Any) -> np.ndarray:
    try:
        q = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InvalidDataset(f"{name}={value!r} must be a number or a vector of numbers") from None
    if q.ndim > 1:
        raise InvalidDataset(f"{name}={value!r} must be a number or a 1-D vector of numbers, got shape {q.shape}")
    if not np.all(np.isfinite(q)):
        raise InvalidDataset(f"{name}={value!r} must hold finite numbers only")
    return q


def _norm(vector: np.ndarray, norm: str) -> float:
    if norm == "l1":
        return float(np.sum(np.abs(vector)))
    if norm == "l2":
        return float(np.sqrt(np.sum(vector**2)))
    return float(np.max(np.abs(vector))) if vector.size else 0.0


def ding_patterns(k: int) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The input patterns of Ding et al. (CCS 2018) as unit moves (u, v) in {-1, 0, 1}^k.

    A pattern says how the two inputs of a pair sit relative to a base vector q: the pair is
    ``(q + s*u, q + s*v)`` with the step s chosen so the pair lies on the boundary of the relation.
    Seven patterns keep q as one input; the x-shape lowers q on the second half in one input and on
    the first half in the other, as the reference generator does (StatDP's ``generate_database``,
    which DP-Sniper reuses): with q = 1^k and s = 1 these eight pairs are exactly theirs, the x-shape
    (1^h 0^(k-h), 0^h 1^(k-h)) with h = floor(k/2).  Where the crossing sits matters beside a
    threshold T: at eps = 0.1 (DP-Sniper's suite), sparse vector with T = 1/2 (Lyu, Su & Li 2017,
    Alg. 1) realises 0.0885 on this x-shape, whose queries straddle T, and less on the x-shape raised
    above the base, (2^h 1^(k-h), 1^h 2^(k-h)), which cut-off 2 and T = 1 (their Algs. 3 and 4 side by
    side) favours; both as a ninth pair cost the screening more than either gains (benchmarks/README.md).
    """
    check_positive_int("k", k)
    zero = np.zeros(k)
    half = k // 2 if k > 1 else 1
    first_half = np.r_[np.ones(half), np.zeros(k - half)]
    one_hot = np.r_[1.0, np.zeros(k - 1)]
    return {
        "one above": (zero, one_hot),
        "one below": (zero, -one_hot),
        "one above rest below": (zero, 2 * one_hot - 1),
        "one below rest above": (zero, 1 - 2 * one_hot),
        "half up half down": (zero, 2 * first_half - 1),
        "all above": (zero, np.ones(k)),
        "all below": (zero, -np.ones(k)),
        "x-shape": (first_half - 1, -first_half),
    }


@dataclass(frozen=True)
class QueryDistance:
    """Neighbouring query values: ``||q - q'||_norm <= sensitivity`` (norm ``l1``, ``l2`` or ``linf``).

    This is the relation under which output densities p(y | q) are stated; a dataset mechanism with
    query f and declared sensitivity Delta satisfies D ~ D' => f(D) ~ f(D') under this relation.
    """

    sensitivity: float = 1.0
    norm: str = "l1"
    name: ClassVar[str] = "query-distance"

    def __post_init__(self) -> None:
        object.__setattr__(self, "sensitivity", check_positive_finite("sensitivity", self.sensitivity))
        check_one_of("norm", self.norm, ("l1", "l2", "linf"))

    def distance(self, a: Any, b: Any) -> float:
        qa, qb = _as_query("a", a), _as_query("b", b)
        if qa.shape != qb.shape:
            raise InvalidDataset(f"query values a (shape {qa.shape}) and b (shape {qb.shape}) differ in shape")
        return _norm(qa - qb, self.norm)

    def is_neighbouring(self, a: Any, b: Any) -> bool:
        # Tolerate the rounding of the subtraction itself: a few ulps of the inputs' magnitude
        # (0.1 + 0.2 lies within 1 of 1.3 although the doubles differ by 1.0000000000000002).
        distance = self.distance(a, b)
        scale = _norm(np.abs(_as_query("a", a)) + np.abs(_as_query("b", b)), self.norm) + self.sensitivity
        return bool(distance <= self.sensitivity + 8 * np.finfo(float).eps * scale)

    def check(self, a: Any, b: Any) -> None:
        """Raise :class:`NotNeighbouring` if ``||a - b||_norm > sensitivity``."""
        d = self.distance(a, b)
        if not self.is_neighbouring(a, b):
            raise NotNeighbouring(
                f"query values a={a!r} and b={b!r} are at {self.norm} distance {d:g} "
                f"> sensitivity {self.sensitivity:g}"
            )

    def candidate_pairs(self, domain: Any = 0.0, size: int = 0) -> list[tuple[Any, Any]]:
        """Pairs on the boundary of the relation around the base query value ``domain``.

        A scalar base q gives (q, q + Delta) and (q, q - Delta); a vector base gives the eight Ding
        et al. patterns, each move scaled so that ``||a - b||_norm == sensitivity``.
        """
        base = _as_query("domain", domain)
        if base.ndim == 0:
            q = float(base)
            return [(q, q + self.sensitivity), (q, q - self.sensitivity)]
        pairs = []
        for u, v in ding_patterns(base.size).values():
            step = self.sensitivity / _norm(v - u, self.norm)
            pairs.append((tuple((base + step * u).tolist()), tuple((base + step * v).tolist())))
        return _unique_pairs(pairs)

    def as_dict(self) -> dict[str, Any]:
        return {"relation": self.name, "sensitivity": self.sensitivity, "norm": self.norm}

    def __str__(self) -> str:
        norm = {"l1": "ℓ1", "l2": "ℓ2", "linf": "ℓ∞"}[self.norm]
        return f"query values within {norm} distance {self.sensitivity:g}"


def _unique_pairs(pairs: list[tuple[Any, Any]]) -> list[tuple[Any, Any]]:
    seen = set()
    unique = []
    for a, b in pairs:
        key = (_record_key(a), _record_key(b))
        if key not in seen:
            seen.add(key)
            unique.append((a, b))
    return unique


RELATIONS: dict[str, type] = {cls.name: cls for cls in (AddRemove, Replace, QueryDistance, Local, Canary)}
"""The built-in relations by the name their ``as_dict()`` and the command line give them."""


def relation_from_spec(spec: str) -> NeighbourRelation:
    """Parse a relation named on a command line: ``add-remove``, ``replace``, ``local``,
    ``query-distance[:SENSITIVITY[:NORM]]`` (e.g. ``query-distance:1:linf``) or ``canary:RECORD``
    with the record in JSON (e.g. ``canary:[0, 0, 1, 1]``)."""
    name, _, record = str(spec).partition(":")
    if name == Canary.name:
        import json

        try:
            return Canary(json.loads(record))
        except (ValueError, InvalidArgument) as exc:
            raise InvalidDataset(f"neighbours={spec!r}: the canary must be one record in JSON, e.g. canary:[0, 1] ({exc})") from None
    name, *rest = str(spec).split(":")
    simple = {"add-remove": AddRemove, "replace": Replace, "local": Local}
    if name in simple and not rest:
        return simple[name]()
    if name == "query-distance" and len(rest) <= 2:
        try:
            sensitivity = float(rest[0]) if rest else 1.0
        except ValueError:
            raise InvalidDataset(f"neighbours={spec!r}: sensitivity {rest[0]!r} is not a number") from None
        try:
            return QueryDistance(sensitivity, rest[1] if len(rest) > 1 else "l1")
        except InvalidArgument as exc:
            raise InvalidDataset(f"neighbours={spec!r}: {exc}") from None
    raise InvalidDataset(
        f"neighbours={spec!r} must be add-remove, replace, local, query-distance[:SENSITIVITY[:NORM]] or canary:RECORD"
    )


def relation_from_dict(data: dict[str, Any]) -> NeighbourRelation:
    """Inverse of ``as_dict()`` of every built-in relation (:data:`RELATIONS`)."""
    name = data.get("relation")
    if name == Canary.name:
        return Canary(data.get("record"))
    if name == QueryDistance.name:
        return QueryDistance(data.get("sensitivity", 1.0), data.get("norm", "l1"))
    simple = {"add-remove": AddRemove, "replace": Replace, "local": Local}
    if name not in simple:
        raise InvalidDataset(f"relation={name!r} must be add-remove, replace, local or query-distance")
    return simple[name]()


def relation_spec(relation: NeighbourRelation) -> str | None:
    """The command-line name of ``relation``, inverse of :func:`relation_from_spec`; None for a relation of
    the user's own (not one of :data:`RELATIONS`), which no option names."""
    if type(relation) not in RELATIONS.values():
        return None
    if isinstance(relation, QueryDistance):
        return f"query-distance:{relation.sensitivity:g}:{relation.norm}"
    if isinstance(relation, Canary):
        import json

        return f"canary:{json.dumps(_record_key(relation.record))}"
    return relation.name


def _is_scalar(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return value.ndim == 0 and value.dtype.kind in "biuf"
    return isinstance(value, (numbers.Real, np.generic)) and not isinstance(value, (bool, np.bool_))


def infer_relation(a: Any, b: Any) -> tuple[NeighbourRelation | None, str]:
    """The relation the shapes of the pair (a, b) state, and why; ``(None, why)`` when they state none.

    * two sequences of records whose sizes differ by one, the smaller a sub-multiset of the larger:
      :class:`AddRemove` (one record added);
    * two sequences of the same size whose multisets differ in exactly one record: :class:`Replace`;
    * two real numbers a != b: :class:`QueryDistance` with Delta = |a - b|, the only sensitivity the
      pair itself states (inputs are query values, and the claim is then audited for pairs at that
      distance -- the pair (0, 1) gives the usual Delta = 1);
    * anything else (vectors differing in several coordinates, a != b of other kinds, a == b): no
      relation.  Vectors of query values are thereby never read as datasets unless they differ in
      exactly one entry -- then add/remove or replace, which is what the pair shows either way.
    """
    if _is_scalar(a) and _is_scalar(b):
        gap = abs(float(a) - float(b))
        if gap > 0 and np.isfinite(gap):
            return QueryDistance(gap), f"two query values at distance {gap:g}"
        return None, "two equal query values" if gap == 0 else "query values that are not finite"
    try:
        ra, rb = _as_records("a", a), _as_records("b", b)
        only_a, only_b = _multiset_difference(ra, rb)
    except InvalidDataset:
        return None, "inputs that are neither two numbers nor two sequences of records"
    removed, added = sum(only_a.values()), sum(only_b.values())
    if abs(len(ra) - len(rb)) == 1 and removed + added == 1:
        return AddRemove(), f"sizes {len(ra)} and {len(rb)}, one record {'added' if added else 'removed'}"
    if len(ra) == len(rb) and removed == 1 and added == 1:
        return Replace(), f"size {len(ra)} both, one record replaced"
    return None, f"sizes {len(ra)} and {len(rb)}, {removed} record(s) only in a and {added} only in b"
