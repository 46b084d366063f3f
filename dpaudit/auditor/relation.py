"""The neighbour relation an audit uses and where it comes from, recorded in ``AuditResult.neighbours``.

A Mechanism carries its relation; a plain function carries none, so the audit takes, in this order:

1. ``neighbours=`` when given (a relation or its command-line name, :func:`~dpaudit.neighbours.relation_from_spec`);
   the pair, when given, must be neighbouring under it;
2. the Mechanism's own relation;
3. for a plain function with ``pair=``: the relation the pair's shapes state
   (:func:`~dpaudit.neighbours.infer_relation`: sizes differing by one record -> add/remove, one
   record changed -> replace, two numbers -> query values at their distance), else none -- the pair
   is the user's statement and is audited as given ("pair given, relation unchecked");
4. for a plain function without a pair: add/remove when ``data=`` is a dataset (a sequence of
   records), else query values within distance 1 (the input is read as a query value).

Whichever applies is recorded with its source (``given``, ``mechanism``, ``inferred``, ``unchecked``,
``default``), so a reader of the result sees what was assumed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .._codec import to_json
from ..errors import InvalidArgument
from ..mechanisms.base import Mechanism
from ..neighbours import AddRemove, NeighbourRelation, check_relation, infer_relation, relation_from_spec

__all__ = ["RelationChoice", "choose_relation", "parse_relation"]

SOURCES = ("given", "mechanism", "inferred", "unchecked", "default")


@dataclass(frozen=True)
class RelationChoice:
    """The relation an audit used (None: the pair was audited as given, unchecked) and why."""

    relation: NeighbourRelation | None
    source: str
    statement: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "relation": None if self.relation is None else self.relation.as_dict(),
            "source": self.source,
            "statement": self.statement,
        }


def parse_relation(neighbours: Any) -> NeighbourRelation | None:
    """``neighbours=`` as a relation: a relation object (a built-in one or a user's own, see
    :class:`~dpaudit.neighbours.NeighbourRelation`), or a name such as ``"add-remove"``."""
    if neighbours is None:
        return None
    if isinstance(neighbours, str):
        return relation_from_spec(neighbours)
    return check_relation("neighbours", neighbours, spec=True)


def _is_dataset(data: Any) -> bool:
    return hasattr(data, "__len__") and not isinstance(data, (str, bytes, dict)) and getattr(data, "ndim", 1) != 0


def choose_relation(
    mechanism: Mechanism, plain_function: bool, *, pair: Any = None, neighbours: Any = None, data: Any = None
) -> tuple[Mechanism, RelationChoice]:
    """The mechanism under the relation the audit uses, and the record of that choice (module docstring)."""
    given = parse_relation(neighbours)
    if pair is not None:
        check_pair(pair)
        if data is not None:
            raise InvalidArgument("give pair= or data=, not both: data= starts the pair search, which a given pair skips")
    if given is not None:
        return replace(mechanism, neighbours=given), RelationChoice(given, "given", f"{given} (given)")
    if not plain_function:
        relation = mechanism.neighbours
        return mechanism, RelationChoice(relation, "mechanism", f"{relation} (the mechanism's own relation)")
    if pair is not None:
        inferred, why = infer_relation(*pair)
        if inferred is None:
            return mechanism, RelationChoice(
                None, "unchecked",
                f"pair given, relation unchecked ({why}): the audit holds for this pair as given",
            )
        statement = f"{inferred} (inferred from the pair: {why})"
        return replace(mechanism, neighbours=inferred), RelationChoice(inferred, "inferred", statement)
    if data is not None and _is_dataset(data):
        relation: NeighbourRelation = AddRemove()
        statement = f"{relation} (default for an example dataset)"
    else:
        relation = mechanism.neighbours
        statement = f"{relation} (default for a plain function: its input is read as a query value)"
    return replace(mechanism, neighbours=relation), RelationChoice(relation, "default", statement)


def check_pair(pair: Any) -> None:
    """A pair (a, b) of two different inputs, else InvalidArgument naming ``pair``."""
    if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
        raise InvalidArgument(f"pair={pair!r} must be a pair (a, b) of neighbouring inputs")
    if repr(to_json(pair[0])) == repr(to_json(pair[1])):
        raise InvalidArgument(f"pair={to_json(pair)!r} holds the same input twice; neighbours differ in one record")
