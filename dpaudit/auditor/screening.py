"""The search stage: choose the neighbouring pair (successive halving) and the events to verify.

With several candidate pairs, half of the search budget screens them by successive halving (Jamieson
& Talwalkar 2016, "Non-stochastic best arm identification and hyperparameter optimization", Alg. 1;
Karnin, Koren & Somekh 2013): in round r = 1..R, R = ceil(log2 P), the surviving pairs share
budget/R more draws per side equally, every survivor is scored by its best event's search bound on
*all* its draws so far, and the better half survives.  A weak flaw whose witness has little mass
therefore gets most of the screening budget once the pairs without signal are dropped, instead of
1/P of it.  The rest of the search budget (at least half), fresh, plus the winner's screening draws
choose the events (:func:`.search.search_events`).

Everything here only *chooses*; the reported bound is computed on fresh verification samples, so the
choice cannot bias it (the audit's validity does not depend on how pairs and events are chosen).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .leak_events import leak_families
from .sampling import Draws
from .search import Scored, Scorer, search_events

__all__ = ["MIN_SCREEN", "SearchOutcome", "search_stage"]

MIN_SCREEN = 50


@dataclass(frozen=True)
class SearchOutcome:
    """The chosen pair (its index among the candidates), the events found (best first) and the draws spent."""

    pair_index: int
    found: list[Scored]
    samples: int
    rounds: tuple[tuple[int, ...], ...]
    notes: tuple[str, ...] = ()


def _objective(rows_a: np.ndarray, rows_b: np.ndarray, score: Scorer) -> float:
    found = search_events(rows_a, rows_b, score)
    return found[0].objective if found else -math.inf


def search_stage(
    draws: Draws, pairs: list[tuple[Any, Any]], n_search: int, score: Scorer, checks: tuple[str, ...] = ()
) -> SearchOutcome:
    """Screen ``pairs`` by successive halving, then search events on the winner (see the module docstring).

    The leak-check families named in ``checks`` (:mod:`.leak_events`) join the event search on the winner.
    """
    pools: dict[int, list[list[np.ndarray]]] = {}
    survivors = list(range(len(pairs)))
    spent = 0
    rounds: list[tuple[int, ...]] = []
    if len(pairs) > 1:
        budget = n_search // 2
        total_rounds = math.ceil(math.log2(len(pairs)))
        for r in range(total_rounds):
            share = max(MIN_SCREEN, budget // (total_rounds * len(survivors)))
            scores = {}
            for i in survivors:
                a, b = pairs[i]
                pool = pools.setdefault(i, [[], []])
                new_a, new_b = draws.rows_many([((0, 0, r, i, 0), a, share), ((0, 0, r, i, 1), b, share)])
                pool[0].append(new_a)
                pool[1].append(new_b)
                scores[i] = _objective(np.concatenate(pool[0]), np.concatenate(pool[1]), score)
            spent += share * len(survivors)
            rounds.append(tuple(survivors))
            # Stable order: ties keep the earlier (recommended) pair.
            ranked = sorted(survivors, key=lambda i: (-scores[i], i))
            survivors = ranked[: max(1, math.ceil(len(survivors) / 2))]
    winner = survivors[0]
    a, b = pairs[winner]
    fresh = max(n_search - spent, n_search // 2)
    rows_a, rows_b = draws.rows_many([((0, 1, 0), a, fresh), ((0, 1, 1), b, fresh)])
    if winner in pools:
        rows_a = np.concatenate([*pools[winner][0], rows_a])
        rows_b = np.concatenate([*pools[winner][1], rows_b])
    found = search_events(rows_a, rows_b, score)
    leaks, notes = leak_families(draws.mechanism, (a, b), rows_a, rows_b, score, checks)
    found = sorted(found + leaks, key=lambda s: (-s.objective, -(s.hits_a if s.forward else s.hits_b)))
    return SearchOutcome(winner, found, spent + fresh, tuple(rounds), tuple(notes))
