"""Candidate neighbouring pairs for an audit: the user's pair, else the mechanism's and the relation's.

When no pair is given the candidates are, in this order: the pairs the mechanism's author recommends
(``Mechanism.pairs``), then -- with an example input ``data`` -- the neighbours of ``data`` itself and
the relation's pairs on its domain (:func:`data_domain`), else the pairs the neighbour relation
generates from the mechanism's ``domain``: the Ding et al. (CCS 2018) input patterns for vectors of
query answers, the extremes of the record domain for add/remove and replace relations, every pair
of inputs for local DP.  Pairs are kept once as unordered pairs: the event search tries both
directions of each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._codec import to_json
from ..errors import DPAuditError, InvalidArgument
from ..mechanisms.base import Mechanism
from ..neighbours import AddRemove, Local, QueryDistance, Replace

__all__ = ["MAX_PAIRS", "START_HINT", "candidate_pairs", "data_domain"]

START_HINT = "give pair=(a, b) or data=[...] (an example dataset)"

MAX_PAIRS = 24


def _key(a: Any, b: Any) -> tuple[str, str]:
    ka, kb = repr(to_json(a)), repr(to_json(b))
    return (ka, kb) if ka <= kb else (kb, ka)


def _user_pair(mechanism: Mechanism, pair: Any, check: bool) -> tuple[Any, Any]:
    if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
        raise InvalidArgument(f"pair={pair!r} must be a pair (a, b) of neighbouring inputs")
    a, b = pair
    if check:
        mechanism.neighbours.check(a, b)
    return a, b


def _records(data: Any) -> list[Any]:
    if isinstance(data, (str, bytes, dict)) or not hasattr(data, "__len__") or getattr(data, "ndim", 1) == 0:
        raise InvalidArgument(f"data={data!r} must be a dataset (a sequence of records) for add/remove or replace neighbours")
    return list(data)


def _like(data: Any, records: list[Any]) -> Any:
    """``records`` as the same kind of sequence as ``data`` (array, list or tuple)."""
    if isinstance(data, np.ndarray):
        return np.asarray(records, dtype=data.dtype).reshape((len(records),) + data.shape[1:])
    return list(records) if isinstance(data, list) else tuple(records)


def data_domain(relation: Any, data: Any) -> tuple[Any, int]:
    """The pair-search domain an example input gives, and the dataset size: one meaning of ``domain``.

    For add/remove and replace, ``data`` is a dataset: the domain is its value range (smallest and
    largest record) and the size its length, so the relation's patterns
    (:meth:`~dpaudit.neighbours.AddRemove.candidate_pairs`) run on datasets like it.  For query
    values, ``data`` is the base query value (scalar or vector), as ``Mechanism.domain`` is.
    """
    if isinstance(relation, QueryDistance):
        return data, 0
    if isinstance(relation, Local):
        raise InvalidArgument("data= has no use under local neighbours (any two inputs are neighbours); "
                              "give pair=(a, b) (on the command line --a and --b)")
    records = _records(data)
    if not records:
        raise InvalidArgument(f"data={data!r} has no records to take the value range from; {START_HINT}")
    try:
        ordered = sorted(records, key=to_json)
    except TypeError:  # records of mixed kinds: the first and the last stand for the range
        ordered = records
    low, high = ordered[0], ordered[-1]
    return (low, high) if repr(to_json(low)) != repr(to_json(high)) else (low,), len(records)


def _neighbours_of_data(relation: Any, data: Any, domain: tuple[Any, ...]) -> list[tuple[Any, Any]]:
    """The neighbours of ``data`` itself: one extreme record added or removed, or replaced by the other."""
    records = _records(data)
    keys = [repr(to_json(r)) for r in records]
    pairs = []
    for value in domain:
        at = keys.index(repr(to_json(value)))
        without = records[:at] + records[at + 1 :]
        if isinstance(relation, AddRemove):
            pairs += [(_like(data, records), _like(data, records + [value])), (_like(data, without), _like(data, records))]
        elif isinstance(relation, Replace):
            pairs += [(_like(data, records), _like(data, without + [other])) for other in domain if other is not value]
    return pairs


def candidate_pairs(
    mechanism: Mechanism, pair: Any = None, *, data: Any = None, check: bool = True
) -> tuple[list[tuple[Any, Any]], list[str]]:
    """The pairs to screen (at most ``MAX_PAIRS``) and notes on what was skipped.

    A given ``pair`` is the only candidate (checked under the mechanism's relation unless ``check``
    is False: a plain function's pair whose relation is not known).  Otherwise the search starts
    from ``data`` when given (:func:`data_domain`), else from the mechanism's ``domain``; a search
    with neither says which argument to give.
    """
    if pair is not None:
        return [_user_pair(mechanism, pair, check)], []
    relation = mechanism.neighbours
    notes: list[str] = []
    proposed: list[tuple[Any, Any]] = list(mechanism.pairs)
    domain, size = mechanism.domain, 0
    if data is not None:
        domain, size = data_domain(relation, data)
        if not isinstance(relation, QueryDistance):
            proposed += _neighbours_of_data(relation, data, domain)
    if isinstance(relation, QueryDistance):
        proposed += relation.candidate_pairs(0.0 if domain is None else domain)
    elif domain is not None:
        generated = relation.candidate_pairs(domain, size=max(size, 1)) if size else relation.candidate_pairs(domain)
        proposed += [(_like(data, list(a)), _like(data, list(b))) for a, b in generated] if data is not None else generated
    chosen: list[tuple[Any, Any]] = []
    seen: set[tuple[str, str]] = set()
    for a, b in proposed:
        key = _key(a, b)
        if key in seen:
            continue
        seen.add(key)
        try:
            neighbouring = relation.is_neighbouring(a, b)
        except DPAuditError:
            neighbouring = False
        if not neighbouring:
            notes.append(f"skipped pair {to_json(a)!r}, {to_json(b)!r}: not neighbouring under {relation}")
            continue
        chosen.append((a, b))
    if not chosen:
        raise InvalidArgument(
            f"mechanism {mechanism.name!r} has no domain and no recommended pairs to start the pair search "
            f"from; {START_HINT}"
        )
    if len(chosen) > MAX_PAIRS:
        notes.append(f"screened the first {MAX_PAIRS} of {len(chosen)} candidate pairs")
    return chosen[:MAX_PAIRS], notes
