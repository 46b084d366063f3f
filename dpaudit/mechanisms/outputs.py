"""Outputs of any type as numbers: one fixed code per value, the same in every chunk, thread and process.

The auditor counts events on numeric arrays (samples x coordinates).  A mechanism may return more:

* numbers (Python or numpy; booleans become 0 / 1 and are remembered as booleans);
* **labels** -- strings, ``None``, enums, bytes and any other hashable value with a stable ``repr``
  (tuples and frozensets of such values included): each becomes the integer code
  ``BLAKE2b_K(canonical text) >> 11`` (64-bit keyed digest, top 53 bits, so the code is exact in a
  double);
* per run, a tuple or list of such values (every run the same length) or a dict of them (every run
  the same keys): a vector output, dict keys in sorted order and recorded so that reports name the
  coordinate by its key;
* from a vectorised sampler, also an array of strings or a dict of columns.

Anything else (a set, a dict or list nested in an output, an object whose ``repr`` names a memory
address) is refused in one line naming its type and showing the value.

Why a keyed hash and not a codebook built as labels appear: the audit draws its samples in chunks
that run in any order, in threads, in worker processes or on a Dask cluster, and a checkpoint keeps
counts of events from one run to the next.  An event on a label output is a set of codes; it means
the same set of labels only if every chunk, anywhere, codes a label the same way.  A code that is a
function of the label alone (its canonical text, not Python's salted ``hash``) guarantees that with
no shared state.  Distinct labels with the same code would merge two atoms into one; every chunk
checks the labels it saw against each other, and the auditor checks the labels of every search
chunk against those of the others (:meth:`OutputCoding.merged`), so a collision is an error, never a
silent merge (for L labels its chance is about L^2 / 2^54).  Numbers keep their value, so in a
coordinate that mixes numbers and labels (e.g. ``None`` or a float) a number could equal a code; the
chance is about L / 2^53 per distinct number and is not checked.  Whatever the codes, an event is a
fixed set of outputs chosen before the verification samples are drawn, so the audit's bound is sound.

:class:`OutputCoding` records, per coordinate, whether it holds numbers, booleans or labels, the
dict keys and the text (``repr``) of every label code seen, so that events are reported as
``output == 'yes'`` or ``output['count'] <= 3``.
"""

from __future__ import annotations

import enum
import hashlib
import numbers
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import short_repr
from ..errors import MechanismError

__all__ = ["OutputCoding", "encode_outputs", "label_code"]

SHAPE_HINT = (" (outputs must share one shape: pad sequences to one length, e.g. with None, or return a "
              "variable-length answer as one label, str(...))")

_HASH_KEY = b"dpaudit-output-label"
_CODE_SHIFT = 64 - 53
SUPPORTED = (
    "numbers, booleans, strings and other hashable labels, tuples or lists of equal length and dicts "
    "with the same keys of those"
)


class _Unsupported(Exception):
    """An output value that has no stable code (the message names its type and shows it)."""


def _canonical(value: Any) -> str:
    """Text that names ``value`` the same way in every process (no memory address, no salted hash).

    Classes are named by their qualified name without the module: a class of the main script is in
    ``__main__`` here and ``__mp_main__`` in a spawned worker, and a ``file.py:attr`` target's
    module name differs between processes.
    """
    if value is None:
        return "None"
    if isinstance(value, bool):
        return f"bool:{value}"
    if isinstance(value, str):
        return "str:" + value
    if isinstance(value, bytes):
        return "bytes:" + value.hex()
    if isinstance(value, int):
        return f"int:{value}"
    if isinstance(value, float):
        return "float:" + value.hex()
    if isinstance(value, complex):
        return f"complex:{value.real.hex()},{value.imag.hex()}"
    if isinstance(value, enum.Enum):
        return f"enum:{type(value).__qualname__}.{value.name}"
    if isinstance(value, tuple):
        return "tuple:(" + ",".join(_canonical(_plain_scalar(v)) for v in value) + ")"
    if isinstance(value, frozenset):
        return "frozenset:{" + ",".join(sorted(_canonical(_plain_scalar(v)) for v in value)) + "}"
    kind = type(value)
    if kind.__hash__ is None:
        raise _Unsupported(f"an output of type {kind.__name__} ({short_repr(value)}), which is not hashable")
    if kind.__repr__ is object.__repr__:
        raise _Unsupported(
            f"an output of type {kind.__name__} ({short_repr(value)}), whose repr names a memory address and so "
            "differs between processes (give the class a __repr__, or return a string)"
        )
    return f"{kind.__qualname__}:{value!r}"


def _plain_scalar(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def label_code(value: Any) -> int:
    """The code of a label: the top 53 bits of BLAKE2b (64-bit digest, keyed) of its canonical text."""
    return _code_of(_canonical(_plain_scalar(value)))


def _code_of(canonical: str) -> int:
    digest = hashlib.blake2b(canonical.encode(), digest_size=8, key=_HASH_KEY).digest()
    return int.from_bytes(digest, "big") >> _CODE_SHIFT


def _merge_kind(a: str, b: str) -> str:
    if "label" in (a, b):
        return "label"
    return "bool" if a == b == "bool" else "number"


@dataclass(frozen=True)
class OutputCoding:
    """How one batch of outputs became numbers.

    Attributes
    ----------
    shape : tuple of int
        The shape of one encoded output (``()`` for a scalar, ``(k,)`` for k coordinates).
    kinds : tuple of str
        Per coordinate of the flattened output: ``"number"``, ``"bool"`` or ``"label"``.
    keys : tuple of str or None
        For dict outputs, the ``repr`` of each key, in coordinate order (sorted keys).
    labels : mapping of int to str
        The ``repr`` of every label seen, by its code.
    """

    shape: tuple[int, ...]
    kinds: tuple[str, ...]
    keys: tuple[str, ...] | None = None
    labels: Mapping[int, str] = field(default_factory=dict)

    @classmethod
    def numeric(cls, values: np.ndarray) -> "OutputCoding":
        """The coding of a numeric array (samples on the first axis): every coordinate a number (or bool)."""
        width = int(np.prod(values.shape[1:], dtype=int))
        return cls(tuple(values.shape[1:]), ("bool" if values.dtype.kind == "b" else "number",) * width)

    @property
    def categorical(self) -> frozenset[int]:
        """Coordinates holding labels: their codes are atoms, not points of a line."""
        return frozenset(i for i, kind in enumerate(self.kinds) if kind == "label")

    @property
    def plain_numbers(self) -> bool:
        """True when every coordinate holds numbers (the coding adds nothing to the array)."""
        return self.keys is None and all(kind == "number" for kind in self.kinds)

    def merged(self, other: "OutputCoding", name: str = "mechanism") -> "OutputCoding":
        """The coding of both batches together; a :class:`MechanismError` when they cannot be one."""
        if other.shape != self.shape or other.keys != self.keys:
            what = (f"keys {list(self.keys or ())} and {list(other.keys or ())}" if other.keys != self.keys
                    else f"shapes {self.shape} and {other.shape}")
            raise MechanismError(f"mechanism {name!r} returned outputs of varying shapes: {what}{SHAPE_HINT}")
        labels = dict(self.labels)
        _add_labels(labels, other.labels, name)
        kinds = tuple(_merge_kind(a, b) for a, b in zip(self.kinds, other.kinds))
        return OutputCoding(self.shape, kinds, self.keys, labels)

    def without_labels(self) -> "OutputCoding":
        return OutputCoding(self.shape, self.kinds, self.keys)

    def key(self, coordinate: int | None) -> str | None:
        """The dict key naming ``coordinate`` (its repr), or None."""
        if self.keys is None or coordinate is None or not 0 <= coordinate < len(self.keys):
            return None
        return self.keys[coordinate]

    def text(self, coordinate: int, value: float) -> str | None:
        """How coordinate ``coordinate`` holding ``value`` reads as the mechanism returned it; None for numbers."""
        kind = self.kinds[coordinate] if 0 <= coordinate < len(self.kinds) else "number"
        if kind == "bool" and value in (0, 1):
            return repr(bool(value))
        if kind == "label" and float(value).is_integer():
            return self.labels.get(int(value))
        return None


def _add_labels(into: dict[int, str], new: Mapping[int, str], name: str) -> None:
    for code, text in new.items():
        seen = into.setdefault(code, text)
        if seen != text:
            raise MechanismError(
                f"mechanism {name!r} returned the labels {seen} and {text}, whose codes coincide ({code}); "
                "return distinct strings for them"
            )


class _Encoder:
    """Encodes the scalars of one batch, remembering label texts (checked for collisions) and kinds."""

    def __init__(self) -> None:
        self.labels: dict[int, str] = {}
        self._cache: dict[tuple[type, Any], tuple[Any, str]] = {}
        self._texts: dict[int, str] = {}

    def scalar(self, value: Any) -> tuple[Any, str]:
        value = _plain_scalar(value)
        if isinstance(value, bool):
            return int(value), "bool"
        if isinstance(value, numbers.Real):
            return (value if isinstance(value, (int, float)) else float(value)), "number"
        try:
            key = (type(value), value)
            hit = self._cache.get(key)
        except TypeError:  # unhashable: _canonical names it
            key, hit = None, None
        if hit is not None:
            return hit
        canonical = _canonical(value)
        code = _code_of(canonical)
        text = repr(value)
        seen = self._texts.setdefault(code, canonical)
        if seen != canonical:
            raise _Unsupported(f"two labels, {self.labels[code]} and {text}, whose codes coincide ({code})")
        self.labels[code] = text
        if key is not None:
            self._cache[key] = (code, "label")
        return code, "label"


def _as_array(rows: list[list[Any]], n: int, width: int) -> np.ndarray:
    try:
        array = np.asarray(rows) if rows else np.empty((0, width))
    except OverflowError:
        array = np.asarray(rows, dtype=float)
    if array.dtype == object:  # integers beyond int64 beside smaller ones
        array = array.astype(float)
    return array.reshape(n, width)


def _kinds(per_column: list[set[str]]) -> tuple[str, ...]:
    out = []
    for seen in per_column:
        kind = "bool"
        for k in seen:
            kind = _merge_kind(kind, k)
        out.append(kind if seen else "number")
    return tuple(out)


def _encode_runs(outputs: list[Any], encoder: _Encoder) -> tuple[np.ndarray, tuple[int, ...], tuple[str, ...], Any]:
    """Encode a list of single outputs (all scalars, all sequences of one length, or all dicts with one key set)."""
    n = len(outputs)
    first = outputs[0]
    if isinstance(first, Mapping):
        keys = sorted(first, key=lambda k: (type(k).__name__, str(k)))
        key_set = set(first)
        rows, seen = [], [set() for _ in keys]
        for output in outputs:
            if not isinstance(output, Mapping) or set(output) != key_set:
                other = sorted(output, key=str) if isinstance(output, Mapping) else type(output).__name__
                raise _Varying(f"dicts with keys {sorted(key_set, key=str)} and {other}")
            row = []
            for i, k in enumerate(keys):
                value, kind = encoder.scalar(output[k])
                row.append(value)
                seen[i].add(kind)
            rows.append(row)
        return _as_array(rows, n, len(keys)), (len(keys),), _kinds(seen), tuple(repr(k) for k in keys)
    if isinstance(first, (tuple, list, np.ndarray)):
        width = len(first)
        rows, seen = [], [set() for _ in range(width)]
        for output in outputs:
            if not isinstance(output, (tuple, list, np.ndarray)) or len(output) != width:
                raise _Varying(f"{short_repr(first)} and {short_repr(output)}")
            row = []
            for i, v in enumerate(output):
                value, kind = encoder.scalar(v)
                row.append(value)
                seen[i].add(kind)
            rows.append(row)
        return _as_array(rows, n, width), (width,), _kinds(seen), None
    values, seen = [], set()
    for output in outputs:
        if isinstance(output, (tuple, list, Mapping, np.ndarray)):
            raise _Varying(f"{short_repr(first)} and {short_repr(output)}")
        value, kind = encoder.scalar(output)
        values.append(value)
        seen.add(kind)
    return _as_array([[v] for v in values], n, 1).reshape(n), (), _kinds([seen]), None


class _Varying(Exception):
    """Outputs of one batch that do not share one structure."""


def _columns(raw: Mapping[Any, Any], n: int, encoder: _Encoder) -> tuple[np.ndarray, tuple[str, ...], tuple[str, ...]]:
    """A vectorised sampler's dict of columns (each n values) as an (n, k) array, keys sorted."""
    keys = sorted(raw, key=lambda k: (type(k).__name__, str(k)))
    columns, kinds = [], []
    for k in keys:
        column = raw[k]
        if np.ndim(column) != 1 or len(column) != n:
            raise _Unsupported(
                f"a dict whose column {k!r} has shape {np.shape(column)} (a vectorised sampler's dict holds n = {n} "
                "values per key)"
            )
        if isinstance(column, np.ndarray) and column.dtype.kind in "biuf":  # numbers: nothing to encode
            values, kind = column, "bool" if column.dtype.kind == "b" else "number"
        else:
            values, _, (kind,), _ = _encode_runs(list(np.asarray(column, dtype=object)), encoder)
        columns.append(values)
        kinds.append(kind)
    array = np.column_stack(columns) if columns else np.empty((n, 0))
    return array, tuple(kinds), tuple(repr(k) for k in keys)


def encode_outputs(name: str, raw: Any, n: int) -> tuple[np.ndarray, OutputCoding]:
    """The n outputs in ``raw`` as a numeric array (samples on the first axis) and their coding.

    Numeric arrays pass through unchanged; see the module docstring for everything else.  Raises
    :class:`MechanismError` (naming the mechanism ``name``) on outputs that have no code or that do
    not share one structure.
    """
    if isinstance(raw, np.ndarray) and raw.dtype.kind in "biuf" and raw.ndim > 0:
        return raw, OutputCoding.numeric(raw)
    array = None
    if not isinstance(raw, Mapping):
        try:
            array = np.asarray(raw)
        except (ValueError, TypeError):
            array = None
    if array is not None and array.dtype.kind in "biuf" and array.ndim > 0:
        return array, OutputCoding.numeric(array)
    encoder = _Encoder()
    try:
        if isinstance(raw, Mapping):
            values, kinds, keys = _columns(raw, n, encoder)
            return values, OutputCoding((len(keys),), kinds, keys, encoder.labels)
        if isinstance(raw, np.ndarray) and raw.dtype.kind in "US" and raw.ndim > 0:
            unique, inverse = np.unique(raw, return_inverse=True)
            codes = np.array([encoder.scalar(u)[0] for u in unique], dtype=np.int64)
            values = codes[inverse.reshape(-1)].reshape(raw.shape)
            width = int(np.prod(raw.shape[1:], dtype=int))
            return values, OutputCoding(tuple(raw.shape[1:]), ("label",) * width, None, encoder.labels)
        if isinstance(raw, np.ndarray):
            raw = list(raw) if raw.ndim > 0 else raw
        if isinstance(raw, (str, bytes)) or not isinstance(raw, (list, tuple)):
            raise _Unsupported(
                f"{type(raw).__name__} {short_repr(raw)} where {n} outputs were expected (samples on the first axis)"
            )
        if not raw:
            return np.empty((0,)), OutputCoding((), ("number",))
        values, shape, kinds, keys = _encode_runs(list(raw), encoder)
        return values, OutputCoding(shape, kinds, keys, encoder.labels)
    except _Varying as exc:
        raise MechanismError(f"mechanism {name!r} returned outputs of varying shapes: {exc}{SHAPE_HINT}") from None
    except _Unsupported as exc:
        raise MechanismError(f"mechanism {name!r} returned {exc}; supported: {SUPPORTED}") from None
