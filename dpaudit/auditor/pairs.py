"""Candidate neighbouring pairs for an audit: the user's pair, else the mechanism's and the relation's.

When no pair is given the candidates are, in this order: the pairs the mechanism's author recommends
(``Mechanism.pairs``), then the pairs the neighbour relation generates from the mechanism's
``domain`` -- the Ding et al. (CCS 2018) input patterns for vectors of query answers, the extremes of
the record domain for add/remove and replace relations, every pair of inputs for local DP.  Pairs
are kept once as unordered pairs: the event search tries both directions of each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import DPAuditError, InvalidArgument
from ..mechanisms.base import Mechanism
from ..neighbours import QueryDistance
from .result import plain

__all__ = ["MAX_PAIRS", "candidate_pairs"]

MAX_PAIRS = 24


def _key(a: Any, b: Any) -> tuple[str, str]:
    ka, kb = repr(plain(a)), repr(plain(b))
    return (ka, kb) if ka <= kb else (kb, ka)


def _user_pair(mechanism: Mechanism, pair: Any) -> tuple[Any, Any]:
    if isinstance(pair, (str, bytes)) or not isinstance(pair, Sequence) or len(pair) != 2:
        raise InvalidArgument(f"pair={pair!r} must be a pair (a, b) of neighbouring inputs")
    a, b = pair
    mechanism.neighbours.check(a, b)
    return a, b


def candidate_pairs(mechanism: Mechanism, pair: Any = None) -> tuple[list[tuple[Any, Any]], list[str]]:
    """The pairs to screen (at most ``MAX_PAIRS``) and notes on what was skipped."""
    if pair is not None:
        return [_user_pair(mechanism, pair)], []
    relation = mechanism.neighbours
    notes: list[str] = []
    proposed: list[tuple[Any, Any]] = list(mechanism.pairs)
    domain = mechanism.domain
    if isinstance(relation, QueryDistance):
        proposed += relation.candidate_pairs(0.0 if domain is None else domain)
    elif domain is not None:
        proposed += relation.candidate_pairs(domain)
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
            notes.append(f"skipped pair {plain(a)!r}, {plain(b)!r}: not neighbouring under {relation}")
            continue
        chosen.append((a, b))
    if not chosen:
        raise InvalidArgument(
            f"mechanism {mechanism.name!r} has no domain and no recommended pairs to search; give pair=(a, b) "
            "(--a and --b on the command line)"
        )
    if len(chosen) > MAX_PAIRS:
        notes.append(f"screened the first {MAX_PAIRS} of {len(chosen)} candidate pairs")
    return chosen[:MAX_PAIRS], notes
