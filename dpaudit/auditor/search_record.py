"""The search stage's outcome as plain data, so a checkpoint can resume an audit after its search.

Only what the verification needs is kept: the chosen pair's index, the chosen events (as their
``as_dict`` specs, rebuilt with :func:`.events.event_from_dict`), their search-stage counts and the
screening rounds and notes.
"""

from __future__ import annotations

from typing import Any

from .events import event_from_dict
from .result import from_plain, plain
from .screening import SearchOutcome
from .search import Scored

__all__ = ["outcome_from_record", "search_record"]


def search_record(outcome: SearchOutcome, chosen: list[Scored]) -> dict[str, Any]:
    """``outcome`` and the events chosen for verification as JSON-ready data."""
    return plain(
        {
            "pair_index": outcome.pair_index,
            "samples": outcome.samples,
            "rounds": [list(r) for r in outcome.rounds],
            "notes": list(outcome.notes),
            "events": [
                {"spec": s.event.as_dict(), "family": s.family, "forward": s.forward, "objective": s.objective,
                 "hits_a": s.hits_a, "hits_b": s.hits_b}
                for s in chosen
            ],
        }
    )


def outcome_from_record(record: dict[str, Any], noise: Any) -> tuple[SearchOutcome, list[Scored]]:
    """Inverse of :func:`search_record`; ``noise`` rebuilds float-support events."""
    chosen = [
        Scored(event_from_dict(e["spec"], noise), e["family"], bool(e["forward"]), float(from_plain(e["objective"])),
               int(e["hits_a"]), int(e["hits_b"]))
        for e in record["events"]
    ]
    rounds = tuple(tuple(r) for r in record["rounds"])
    outcome = SearchOutcome(int(record["pair_index"]), chosen, int(record["samples"]), rounds, tuple(record["notes"]))
    return outcome, chosen
