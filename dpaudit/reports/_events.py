"""Rebuild an auditor event from its recorded ``event_spec`` (the inverse of ``Event.as_dict()``).

The plots shade the audited event on re-sampled outputs, so they need its membership test back;
the report holds only the plain dict the auditor recorded (:mod:`dpaudit.auditor.events`).
"""

from __future__ import annotations

from typing import Any

from ..errors import InvalidArgument

__all__ = ["event_from_spec"]


def _feature(spec: dict[str, Any]):
    from ..auditor.events import Feature

    weights = spec.get("weights")
    return Feature(kind=spec["kind"], index=spec.get("index"), weights=None if weights is None else tuple(weights))


def event_from_spec(spec: dict[str, Any]):
    """The :mod:`dpaudit.auditor.events` event that ``spec`` describes (``None`` for an empty spec)."""
    from ..auditor.events import BinSet, Interval, RowSet, Threshold, ValueSet

    if not spec:
        return None
    kind = spec.get("type")
    if kind == "threshold":
        return Threshold(_feature(spec["feature"]), float(spec["t"]), bool(spec["upper"]))
    if kind == "interval":
        return Interval(_feature(spec["feature"]), float(spec["lo"]), float(spec["hi"]))
    if kind == "values":
        return ValueSet(_feature(spec["feature"]), tuple(float(v) for v in spec["values"]))
    if kind == "bins":
        return BinSet(_feature(spec["feature"]), tuple(float(e) for e in spec["edges"]), tuple(int(b) for b in spec["bins"]))
    if kind == "rows":
        return RowSet(tuple(tuple(float(v) for v in p) for p in spec["patterns"]))
    raise InvalidArgument(f"event_spec type={kind!r} must be one of threshold, interval, values, bins, rows")
