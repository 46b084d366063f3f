"""The search stage: choose the neighbouring pair (successive halving) and the events to verify.

Two scores are used, on one pair's search draws split into halves (even-indexed rows: *fit*,
odd-indexed rows: *held out*):

* the **strict** search bound ``score`` (Bonferroni over ``SEARCH_EVENTS`` in :mod:`.audit`) of
  :func:`.events.standard.search_events`, which guards against the winner's curse over thousands of cuts but
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

The leak-check families (:mod:`.events.leaks.events`) take part in both scores: a pair whose float outputs reveal
the input in their low bits wins the screening on that signal.

The rest of the search budget (at least half), fresh, plus the winner's screening draws choose the
events by the strict search alone (:func:`.events.standard.search_events`, and on vector outputs the
classifier-based events of :mod:`.events.learned`, trained on every fourth row and thresholded on the
others), as with a given pair.  The learned family runs on the winner only: training a
classifier per pair and round would multiply the screening's cost.  The
held-out score only chooses the pair: among the near-identical high-mass events of a well-behaved
mechanism (Laplace) its noise would pick a slightly worse event than the strict order does, and a
rule that switches to a held-out candidate only when it beats the strict winner by two standard
errors of the difference never switched on sparse vector Alg. 4 at N = 10^6 (seeds 100..107; for its
witness, mass 0.9 % and loss 0.175, beside an event of mass 9 % and loss 0.107 on 1.5 x 10^5 held-out
rows per side, two standard errors of the difference are about 0.08 and the gain in expected bound
about 0.04), so it would only cost time.

Nor does a plug-in choice among the strict ranking's first events pay (measured on DP-Sniper's rows at
10^6 per side, pair found by the audit, seeds 1-5, against the strict winner's median): ranking the
first 8 distinct events by ``rescore`` on their search counts moved sparse vector Alg. 4 from 0.137 to
0.157 only by the luck of near-ties, and sent Lyu et al.'s SVT3 at seed 1 from 0.107 to 0.006 (a
tail threshold whose few search hits looked like a ratio of 3); each family's first event ranked by
``rescore`` on its own held-out counts gave Alg. 4 0.131 and lowered 9 of the 114 catalogue
fingerprints (``laplace@2`` 0.951 -> 0.893, verdicts unchanged); with the counts shrunk as in
:mod:`.targeting` the first 8 kept Alg. 4's strict winners (Clopper-Pearson ends at 0.84 or 0.975),
and at 0.84 still took SVT3's tail threshold.  The budget is the reason: at Alg. 4's x-shaped pair
{output[5] > 0} (P = 0.0184 / 0.0156) would verify at 0.141 at 10^6 against 0.131 for {sum of
coordinates in (-4, -1]} (0.0454 / 0.0392), but the strict score prefers it only from about 2 x 10^6
search rows on (0.070 against 0.087 at 5 x 10^5), and a plug-in estimate of the difference on
5 x 10^5 rows has a standard error (about 0.015) above the gain (0.009).

Everything here only *chooses*; the reported bound is computed on fresh verification samples, so the
choice cannot bias it (the audit's validity does not depend on how pairs and events are chosen).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .._codec import from_json, to_json
from .events import EventFamily, Scored, Scorer, SearchContext, registered_families
from .events.sets import event_from_dict, hit_counts
from .run.sampling import Draws

__all__ = ["MIN_SCREEN", "SearchOutcome", "outcome_from_record", "rescored_shortlist", "search_record", "search_stage"]

MIN_SCREEN = 50
MISMATCH_HITS = 30


@dataclass(frozen=True)
class SearchOutcome:
    """The chosen pair (its index among the candidates), the events found (best first) and the draws spent.

    ``search_rows`` is how many of the winner's outputs per side were drawn at the search's own spawn
    addresses ``(0, 1, side)`` (the screening's are elsewhere), ``rows`` those outputs while they are
    in memory (None once read back from a checkpoint: the addresses draw them again, the same rows).
    """

    pair_index: int
    found: list[Scored]
    samples: int
    rounds: tuple[tuple[int, ...], ...]
    notes: tuple[str, ...] = ()
    search_rows: int | None = None
    rows: tuple[np.ndarray, np.ndarray] | None = field(default=None, compare=False, repr=False)


# The search stage's outcome as plain data, so a checkpoint can resume an audit after its search: only
# what the verification needs -- the chosen pair's index, the chosen events (as their ``as_dict``
# specs, rebuilt with :func:`.events.sets.sets.event_from_dict`), their search-stage counts and the
# screening rounds and notes.


def search_record(outcome: SearchOutcome, chosen: list[Scored]) -> dict[str, Any]:
    """``outcome`` and the events chosen for verification as JSON-ready data."""
    return to_json(
        {
            "pair_index": outcome.pair_index,
            "samples": outcome.samples,
            "rounds": [list(r) for r in outcome.rounds],
            "search_rows": outcome.search_rows,
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
        Scored(event_from_dict(e["spec"], noise), e["family"], bool(e["forward"]), float(from_json(e["objective"])),
               int(e["hits_a"]), int(e["hits_b"]))
        for e in record["events"]
    ]
    rounds = tuple(tuple(r) for r in record["rounds"])
    search_rows = record.get("search_rows")
    outcome = SearchOutcome(int(record["pair_index"]), chosen, int(record["samples"]), rounds, tuple(record["notes"]),
                            None if search_rows is None else int(search_rows))
    return outcome, chosen


def _ranked(found: list[Scored]) -> list[Scored]:
    return sorted(found, key=lambda s: (-s.objective, -(s.hits_a if s.forward else s.hits_b)))


def rescored_shortlist(
    rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext, rescore: Scorer,
    families: tuple[EventFamily, ...] | None = None,
) -> list[Scored]:
    """The events the ``families`` (default: the registered ones enabled in ``context``) propose for
    the pair screening (:meth:`.events.sets.EventFamily.screen`), re-scored on the odd-indexed rows with
    ``rescore``.

    Returns the distinct shortlisted events with ``objective`` the held-out ``rescore`` and ``hits_a``,
    ``hits_b`` the held-out counts, best first (ties: more mass on the larger side).
    """
    parts = _screening_parts(rows_a, rows_b, context, families)
    return _rescored(rows_a, rows_b, [s for part in parts for s in part()], rescore)


def _enabled(context: SearchContext) -> tuple[EventFamily, ...]:
    return tuple(f for f in registered_families() if f.enabled(context))


def _screening_parts(
    rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext, families: tuple[EventFamily, ...] | None = None,
) -> list[Callable[[], list[Scored]]]:
    """The independent searches whose results, concatenated in this order, form the shortlist."""
    return [part for family in (_enabled(context) if families is None else families)
            for part in family.screen(rows_a, rows_b, context)]


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
    ka, kb = np.array(hit_counts(events, held_a)), np.array(hit_counts(events, held_b))
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
    times: dict[str, float] | None = None,
    more: int = 0,
) -> SearchOutcome:
    """Screen ``pairs`` by successive halving, then search events on the winner (see the module docstring).

    ``score`` is the strict search bound, ``rescore`` the expected verified bound of the held-out
    re-scoring.  Every registered event family (:mod:`.events`) enabled for the audit -- the leak
    families named in ``checks``, the learned family when ``learned`` -- proposes events, in the
    screening (:meth:`.events.sets.EventFamily.screen`) and on the winner
    (:meth:`.events.sets.EventFamily.search`).

    ``n_search`` samples per side are searched; ``more`` per side are added on the winner when the
    standard family's search on those has not :func:`settled` its choice (the first ones a whole number of chunks, so
    that the winner's rows are those of one draw of the whole budget: a search that needs all of it
    sees the rows it always saw).  ``times`` (when given) gets the wall time of the pair screening and of
    the event search on the winner besides their draws (``"screening"``, ``"search"``:
    :class:`.records.StageTimes`).

    The searches run on threads of this call (started here, stopped before it returns, so nothing is
    left to a forked child): they are pure functions of each pair's draws, so the order they finish in
    changes nothing, and numpy's sorting and counting and scipy's beta quantiles release the GIL.  The
    BLAS library runs one thread each meanwhile (:mod:`threadpoolctl`): the searches are the parallelism,
    and BLAS threads beside them only contend for the same cores (Fisher's scatter matrix of 2.5 x 10^5
    rows of 20 coordinates: 0.19 s on one BLAS thread, 5.2 s on two beside other work).
    """
    from threadpoolctl import threadpool_limits

    threads = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1), thread_name_prefix="dpaudit-search")
    try:
        with threadpool_limits(limits=1, user_api="blas"):
            return _search_stage(threads, draws, pairs, n_search, score, rescore, checks, learned,
                                 {} if times is None else times, more)
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
    times: dict[str, float],
    more: int,
) -> SearchOutcome:
    def context(pair: tuple[Any, Any], screening: bool) -> SearchContext:
        return SearchContext(draws.mechanism, pair, score, checks, draws.coding.categorical, bool(learned), screening)

    with draws.stage(times, "screening"):
        winner, pools, spent, rounds = _screen(threads, draws, pairs, n_search, rescore, context)
    a, b = pairs[winner]
    fresh = max(n_search - spent, n_search // 2)
    whole = fresh + more
    if more:  # first a whole number of chunks, so the rest continues the same streams
        fresh = min(whole, -(-fresh // draws.chunk_rows) * draws.chunk_rows)
    with draws.stage(times, "search"):
        # Each side's rows: the screening's, then the search's own, copied once into room for all of them.
        screened = pools.get(winner, ())
        room = whole + (screened[0].size if screened else 0)
        side_a, side_b = (_GrowingRows(room, draws.width) for _ in range(2))
        for side, pool in zip((side_a, side_b), screened):
            side.extend([pool.rows])
        draws.fill([((0, 1, 0), a, fresh), ((0, 1, 1), b, fresh)], [side_a.reserve(fresh), side_b.reserve(fresh)])
        on_winner = context((a, b), False)
        families = _enabled(on_winner)
        done: dict[str, Any] = {}
        first = next((family for family in families if family.name == "standard"), None)
        if whole > fresh and first is not None:  # the standard family first: does its choice settle the search?
            # Meanwhile, on the cores it leaves idle, the families a settled search still runs (all but the
            # classifier) search the same rows: kept if it settles, dropped (and cancelled if not started) if not.
            if_settled = replace(on_winner, learned=False)
            beside = {family.name: threads.submit(family.search, side_a.rows, side_b.rows, if_settled)
                      for family in families if family is not first and family.enabled(if_settled)}
            done[first.name] = first.search(side_a.rows, side_b.rows, on_winner)
            if settled(done[first.name][0]):  # no classifier either: it could only find more of the same mass
                on_winner = if_settled
                families = tuple(family for family in families if family.enabled(on_winner))
                done.update((name, job.result()) for name, job in beside.items())
            else:
                for job in beside.values():
                    job.cancel()
                done = {}
        if whole > fresh and not done:
            more_rows = whole - fresh
            draws.fill([((0, 1, 0), a, more_rows), ((0, 1, 1), b, more_rows)],
                       [side_a.reserve(more_rows), side_b.reserve(more_rows)], after=fresh)
            fresh = whole
        rows_a, rows_b = side_a.rows, side_b.rows
        searches = {family.name: threads.submit(family.search, rows_a, rows_b, on_winner)
                    for family in families if family.name not in done}
        found: list[Scored] = []
        notes: list[str] = []
        for family in families:  # in registration order, whatever order they finish in
            proposed, said = done[family.name] if family.name in done else searches[family.name].result()
            found += proposed
            notes += said
    own = (rows_a[len(rows_a) - fresh:], rows_b[len(rows_b) - fresh:])  # drawn at (0, 1, side), after the pools
    return SearchOutcome(winner, _ranked(found), spent + fresh, rounds, tuple(notes), fresh, own)


class _GrowingRows:
    """One side's rows in an array with ``room`` rows (``np.empty``: rows never filled cost no memory), each chunk
    copied in once, where it belongs, as it arrives (:meth:`.run.sampling.Draws.fill`): adding rows copies none of
    those already there.  ``rows`` are the rows reserved so far, those ``np.concatenate`` of the chunks in order
    would give (the array takes the first chunk's type, widened once if a later chunk needs more)."""

    def __init__(self, room: int, width: int) -> None:
        self.room, self.width = room, width
        self.array: np.ndarray | None = None
        self.size = 0

    def _holding(self, dtype: np.dtype, end: int) -> np.ndarray:
        if self.array is None:
            self.array = np.empty((max(self.room, end), self.width), dtype=dtype)
        elif end > self.array.shape[0] or np.result_type(self.array.dtype, dtype) != self.array.dtype:
            wider = np.empty((max(end, self.array.shape[0]), self.width), dtype=np.result_type(self.array.dtype, dtype))
            wider[:self.size] = self.array[:self.size]
            self.array = wider
        return self.array

    def reserve(self, n: int) -> Callable[[int, np.ndarray], None]:
        """The next ``n`` rows: a function writing a chunk at its first row ``start`` among them."""
        base = self.size
        self.size += n

        def write(start: int, chunk: np.ndarray) -> None:
            at = base + start
            self._holding(chunk.dtype, self.size)[at:at + chunk.shape[0]] = chunk

        return write

    def extend(self, chunks: list[np.ndarray]) -> None:
        """Add ``chunks`` (rows already drawn) after the rows reserved so far."""
        for chunk in chunks:
            self.reserve(chunk.shape[0])(0, chunk)

    @property
    def rows(self) -> np.ndarray:
        return np.empty((0, self.width)) if self.array is None else self.array[:self.size]


def settled(found: list[Scored]) -> bool:
    """Whether the standard family's events ``found`` on a search's first rows settle it: more rows would not
    change what it certifies.

    Settled is a support mismatch: the best event has ``MISMATCH_HITS`` or more hits on one side and none on
    the other.  Its verified bound is then capped by the sample size, ln(k / ln(1/alpha)) (:mod:`.verification`),
    and more search rows (or the learned family's classifier, which is then not trained) would only find more
    of the same mass (sparse vector without query noise: the
    same event and bound, 12.26 at N = 10^7, from 5 x 10^5 search rows as from 2 x 10^6).  Anything else takes
    the whole budget: with more rows the strict search's choice moves towards the event the verification
    certifies best (noisy max returning the value, at N = 10^7: 0.240 and 1.683 from 5 x 10^5 search rows,
    0.246 and 1.848 from 2 x 10^6), and a weak flaw's witness among thousands of events may show only there
    (sparse vector Alg. 4, :func:`.audit.search_budget`).
    """
    if not found:
        return False
    best = max(found, key=lambda s: s.objective)
    larger, smaller = (best.hits_a, best.hits_b) if best.forward else (best.hits_b, best.hits_a)
    return smaller == 0 and larger >= MISMATCH_HITS


def _screen(
    threads: ThreadPoolExecutor,
    draws: Draws,
    pairs: list[tuple[Any, Any]],
    n_search: int,
    rescore: Scorer,
    context: Callable[[tuple[Any, Any], bool], SearchContext],
) -> tuple[int, dict[int, tuple[_GrowingRows, _GrowingRows]], int, tuple[tuple[int, ...], ...]]:
    """Successive halving over ``pairs`` on half the search budget (module docstring): the winner's index, every
    screened pair's draws (each side's rows), the draws spent per side and the survivors of each round."""
    pools: dict[int, tuple[_GrowingRows, _GrowingRows]] = {}
    survivors = list(range(len(pairs)))
    spent = 0
    rounds: list[tuple[int, ...]] = []
    if len(pairs) < 2:
        return survivors[0], pools, spent, ()
    budget = n_search // 2
    total_rounds = math.ceil(math.log2(len(pairs)))
    # Room for every round's rows of a pair that survives them all (the survivors halve each round).
    alive = [len(pairs)]
    for _ in range(total_rounds - 1):
        alive.append(math.ceil(alive[-1] / 2))
    room = sum(max(MIN_SCREEN, budget // (total_rounds * count)) for count in alive)
    for r in range(total_rounds):
        share = max(MIN_SCREEN, budget // (total_rounds * len(survivors)))
        for i in survivors:  # each pair's rows grow in place; the round's draws go to the executor at once
            pools.setdefault(i, (_GrowingRows(room, draws.width), _GrowingRows(room, draws.width)))
        draws.fill([((0, 0, r, i, side), pairs[i][side], share) for i in survivors for side in (0, 1)],
                   [pools[i][side].reserve(share) for i in survivors for side in (0, 1)])
        rows = {i: (pools[i][0].rows, pools[i][1].rows) for i in survivors}
        # Every search of every pair at once on the threads (each pair's parts in their order).
        running = {i: [threads.submit(part) for part in _screening_parts(*rows[i], context(pairs[i], True))]
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
    return survivors[0], pools, spent, tuple(rounds)
