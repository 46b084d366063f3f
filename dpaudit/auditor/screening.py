"""The search stage: choose the neighbouring pair (successive halving) and the events to verify.

Two scores are used, on one pair's search draws split into halves (even-indexed rows: *fit*,
odd-indexed rows: *held out*):

* the **strict** search bound ``score`` (Bonferroni over ``SEARCH_EVENTS`` in :mod:`.audit`) of
  :func:`.search.search_events`, which guards against the winner's curse over thousands of cuts but
  favours high-mass, low-ratio events (sparse vector Alg. 4: "output[1] > 0", mass 9 %, loss ~0.107,
  over the witness "output[9] in {1}", mass 0.9 %, loss 0.175);
* the **held-out** score ``rescore`` of :func:`rescored_shortlist`: the events shortlisted on the fit
  half (``SHORTLIST_KEEP`` per family, feature and direction) are counted on the held-out half and
  scored by the bound the verification would report at its own size and level given the held-out
  estimates p^ = k / n (the expected verified bound; :mod:`.audit` builds it).

With several candidate pairs, half of the search budget screens them by successive halving (Jamieson
& Talwalkar 2016, "Non-stochastic best arm identification and hyperparameter optimization", Alg. 1;
Karnin, Koren & Somekh 2013): in round r = 1..R, R = ceil(log2 P), the surviving pairs share
budget/R more draws per side equally, every survivor is scored by its best *held-out* score on all
its draws so far, and the better half survives.  A weak flaw whose witness has little mass therefore
gets most of the screening budget once the pairs without signal are dropped, instead of 1/P of it.

The leak-check families (:mod:`.leak_events`) take part in both scores: a pair whose float outputs reveal
the input in their low bits wins the screening on that signal.

The rest of the search budget (at least half), fresh, plus the winner's screening draws choose the
events by the strict search alone (:func:`.search.search_events`, and on vector outputs the
classifier-based events of :mod:`.learned`, trained on every fourth row and thresholded on the
others), as with a given pair.  The learned family runs on the winner only: training a
classifier per pair and round would multiply the screening's cost.  The
held-out score only chooses the pair: among the near-identical high-mass events of a well-behaved
mechanism (Laplace) its noise would pick a slightly worse event than the strict order does, and a
rule that switches to a held-out candidate only when it beats the strict winner by two standard
errors of the difference never switched on sparse vector Alg. 4 at N = 10^6 (seeds 100..107; for its
witness, mass 0.9 % and loss 0.175, beside an event of mass 9 % and loss 0.107 on 1.5 x 10^5 held-out
rows per side, two standard errors of the difference are about 0.08 and the gain in expected bound
about 0.04), so it would only cost time.

Everything here only *chooses*; the reported bound is computed on fresh verification samples, so the
choice cannot bias it (the audit's validity does not depend on how pairs and events are chosen).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .leak_events import CoordinateDifference
from .leak_families import leak_families
from .learned import learned_events
from .sampling import Draws
from .search import Scored, Scorer, search_events

__all__ = ["MIN_SCREEN", "SHORTLIST_KEEP", "SearchOutcome", "numeric_leak_families", "rescored_shortlist",
           "search_stage"]

ExtraFamilies = Callable[[np.ndarray, np.ndarray], list[Scored]]

MIN_SCREEN = 50
SHORTLIST_KEEP = 2
WHOLE_SEARCH_KEEP = 4


@dataclass(frozen=True)
class SearchOutcome:
    """The chosen pair (its index among the candidates), the events found (best first) and the draws spent."""

    pair_index: int
    found: list[Scored]
    samples: int
    rounds: tuple[tuple[int, ...], ...]
    notes: tuple[str, ...] = ()


def _leak_events_of(
    mechanism: Any, pair: tuple[Any, Any], score: Scorer, checks: tuple[str, ...], categorical: frozenset[int]
) -> ExtraFamilies:
    """The leak-check events of ``pair`` (:func:`numeric_leak_families`, without identifying hidden float
    noise) as an ``extra`` of the shortlist."""
    return lambda fit_a, fit_b: numeric_leak_families(
        mechanism, pair, fit_a, fit_b, score, checks, categorical, identify=False
    )[0]


def _on_coordinates(event: Any, numeric: list[int]) -> Any:
    """A leak event found on the columns ``numeric`` of the outputs, stated on the whole output."""
    if isinstance(event, CoordinateDifference):
        return replace(event, i=numeric[event.i], j=numeric[event.j])
    return replace(event, coordinate=numeric[event.coordinate or 0])


def numeric_leak_families(
    mechanism: Any,
    pair: tuple[Any, Any],
    rows_a: np.ndarray,
    rows_b: np.ndarray,
    score: Scorer,
    checks: tuple[str, ...],
    categorical: frozenset[int] = frozenset(),
    identify: bool = True,
) -> tuple[list[Scored], list[str]]:
    """:func:`.leak_families.leak_families` on the coordinates that hold numbers.

    Label codes (``categorical`` coordinates) have no float bits and no distances, so the leak
    checks look at the other coordinates only -- a raw float beside a label still gets them.
    """
    if not categorical:
        return leak_families(mechanism, pair, rows_a, rows_b, score, checks, identify=identify)
    numeric = [i for i in range(rows_a.shape[1]) if i not in categorical]
    if not numeric:
        return [], []
    found, notes = leak_families(mechanism, pair, rows_a[:, numeric], rows_b[:, numeric], score, checks,
                                 identify=identify)
    return [replace(s, event=_on_coordinates(s.event, numeric)) for s in found], notes


def _ranked(found: list[Scored]) -> list[Scored]:
    return sorted(found, key=lambda s: (-s.objective, -(s.hits_a if s.forward else s.hits_b)))


def rescored_shortlist(
    rows_a: np.ndarray,
    rows_b: np.ndarray,
    score: Scorer,
    rescore: Scorer,
    extra: ExtraFamilies | None = None,
    categorical: frozenset[int] = frozenset(),
) -> list[Scored]:
    """Shortlist on the even-indexed rows with ``score``, re-score on the odd-indexed rows with ``rescore``.

    The ``WHOLE_SEARCH_KEEP`` best events of the strict search on *all* rows join the shortlist: a
    witness too rare to be seen on half the rows (sparse vector Alg. 3, mass 0.3 %) is still found
    there; its held-out score is then not independent of its choice, which can only favour it.
    ``extra(fit_a, fit_b)``, when given, adds the events of further families (the leak checks of
    :mod:`.leak_events`) chosen on the fit half, so pairs are screened on those signals too.
    ``categorical`` lists the coordinates holding label codes (:func:`.search.search_events`).
    Returns the distinct shortlisted events with ``objective`` the held-out ``rescore`` and
    ``hits_a``, ``hits_b`` the held-out counts, best first (ties: more mass on the larger side).
    """
    parts = _shortlist_parts(rows_a, rows_b, score, extra, categorical)
    return _rescored(rows_a, rows_b, [s for part in parts for s in part()], rescore)


def _shortlist_parts(
    rows_a: np.ndarray,
    rows_b: np.ndarray,
    score: Scorer,
    extra: ExtraFamilies | None,
    categorical: frozenset[int] = frozenset(),
) -> list[Callable[[], list[Scored]]]:
    """The independent searches whose results, concatenated in this order, form the shortlist."""
    fit_a, fit_b = rows_a[0::2], rows_b[0::2]
    parts = [lambda: search_events(fit_a, fit_b, score, keep=SHORTLIST_KEEP, categorical=categorical),
             lambda: search_events(rows_a, rows_b, score, categorical=categorical)[:WHOLE_SEARCH_KEEP]]
    if extra is not None:
        parts.append(lambda: extra(fit_a, fit_b))
    return parts


def _rescored(rows_a: np.ndarray, rows_b: np.ndarray, listed: list[Scored], rescore: Scorer) -> list[Scored]:
    """The distinct events of ``listed`` re-scored on the odd-indexed (held-out) rows, best first."""
    held_a, held_b = rows_a[1::2], rows_b[1::2]
    if held_a.shape[0] == 0 or held_b.shape[0] == 0:
        return []
    index_of: dict[str, int] = {}
    events = []
    shortlist: list[tuple[Scored, int]] = []
    seen: set[tuple[int, bool]] = set()
    for scored in listed:
        index = index_of.setdefault(repr(scored.event.as_dict()), len(index_of))
        if index == len(events):
            events.append(scored.event)
        if (index, scored.forward) not in seen:
            seen.add((index, scored.forward))
            shortlist.append((scored, index))
    if not shortlist:
        return []
    ka = np.array([np.count_nonzero(event.contains(held_a)) for event in events])
    kb = np.array([np.count_nonzero(event.contains(held_b)) for event in events])
    na, nb = held_a.shape[0], held_b.shape[0]
    forward_values = rescore(ka, na, kb, nb)
    backward_values = rescore(kb, nb, ka, na)
    rescored = []
    for scored, index in shortlist:
        value = forward_values[index] if scored.forward else backward_values[index]
        rescored.append(replace(scored, objective=float(value), hits_a=int(ka[index]), hits_b=int(kb[index])))
    return _ranked(rescored)


def search_stage(
    draws: Draws,
    pairs: list[tuple[Any, Any]],
    n_search: int,
    score: Scorer,
    rescore: Scorer,
    checks: tuple[str, ...] = (),
    learned: bool = True,
) -> SearchOutcome:
    """Screen ``pairs`` by successive halving, then search events on the winner (see the module docstring).

    ``score`` is the strict search bound, ``rescore`` the expected verified bound of the held-out
    re-scoring.  The leak-check families named in ``checks`` (:mod:`.leak_events`) and, when
    ``learned``, the learned events (:mod:`.learned`) join the event search on the winner.

    The searches run on threads of this call (started here, stopped before it returns, so nothing is
    left to a forked child): they are pure functions of each pair's draws, so the order they finish in
    changes nothing, and numpy's sorting and counting and scipy's beta quantiles release the GIL.

    The leak checks look at float bits and differences of coordinates: on outputs with label
    coordinates they look at the other coordinates (:func:`numeric_leak_families`).
    """
    threads = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1), thread_name_prefix="dpaudit-search")
    try:
        return _search_stage(threads, draws, pairs, n_search, score, rescore, checks, learned)
    finally:  # an error or an interrupt: the searches not started yet never start
        threads.shutdown(wait=True, cancel_futures=True)


def _search_stage(
    threads: ThreadPoolExecutor,
    draws: Draws,
    pairs: list[tuple[Any, Any]],
    n_search: int,
    score: Scorer,
    rescore: Scorer,
    checks: tuple[str, ...],
    learned: bool,
) -> SearchOutcome:
    pools: dict[int, list[list[np.ndarray]]] = {}
    survivors = list(range(len(pairs)))
    spent = 0
    rounds: list[tuple[int, ...]] = []
    if len(pairs) > 1:
        budget = n_search // 2
        total_rounds = math.ceil(math.log2(len(pairs)))
        for r in range(total_rounds):
            share = max(MIN_SCREEN, budget // (total_rounds * len(survivors)))
            for i in survivors:
                a, b = pairs[i]
                pool = pools.setdefault(i, [[], []])
                new_a, new_b = draws.rows_many([((0, 0, r, i, 0), a, share), ((0, 0, r, i, 1), b, share)])
                pool[0].append(new_a)
                pool[1].append(new_b)

            rows = {i: (np.concatenate(pools[i][0]), np.concatenate(pools[i][1])) for i in survivors}
            # Every search of every pair at once on the threads (each pair's parts in their order).
            categorical = draws.coding.categorical
            leaks = {i: _leak_events_of(draws.mechanism, pairs[i], score, checks, categorical) for i in survivors}
            running = {i: [threads.submit(part) for part in _shortlist_parts(*rows[i], score, leaks[i], categorical)]
                       for i in survivors}
            # A pair's held-out counting starts once its searches are done (never waits in the pool).
            rescoring = {i: threads.submit(_rescored, *rows[i], [s for job in running[i] for s in job.result()],
                                           rescore) for i in survivors}
            scores = {i: (found[0].objective if found else -math.inf)
                      for i, found in ((i, job.result()) for i, job in rescoring.items())}
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
    categorical = draws.coding.categorical
    leak_search = threads.submit(numeric_leak_families, draws.mechanism, (a, b), rows_a, rows_b, score, checks,
                                 categorical)
    # Label codes are hashes, not quantities a linear score could weigh: learned events skip such outputs.
    learned_search = threads.submit(learned_events, rows_a, rows_b, score) if learned and not categorical else None
    found = search_events(rows_a, rows_b, score, categorical=categorical)
    leaks, notes = leak_search.result()
    trained, timing = learned_search.result() if learned_search is not None else ([], [])
    found = _ranked(found + leaks + trained)
    return SearchOutcome(winner, found, spent + fresh, tuple(rounds), tuple(notes + timing))
