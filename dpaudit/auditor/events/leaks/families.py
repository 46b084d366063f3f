"""The three implementation-leak event families (events of :mod:`dpaudit.auditor.events`), each an :class:`..family.EventFamily`.

* ``"lattice"`` (float outputs): the event :func:`.lattice.find_lattice_event` picks; for vector
  outputs on one coordinate, searched among those whose query value differs between the inputs (at
  most ``MAX_LATTICE_COORDINATES``, largest mean shift first), so a float histogram leaks through the
  one count the neighbour changes.
* ``"float-support"`` (mechanisms exposing ``noise``, or black boxes drawing a known sampler's):
  outputs an exact replay of the noise reproduces from no uniform index under one query value
  (:func:`.float_support.support_match`), on the same coordinates; used only when every search
  output is reproduced from its own query value (self-consistency), else skipped with a note.
* ``"correlated-noise"`` (vector float outputs): the difference range of two coordinates
  (:mod:`.correlation`).

When the query values are not known (a dataset function without ``query``, an opaque library), the
first two run on centres estimated from each side's search outputs (:func:`.lattice.candidate_centres`):
the lattice search adds reachability from every candidate, the replay takes the first candidate that
reproduces all of a side's search outputs.  A mechanism that hides its noise gets the replay of a
known sampler's noise identified on the search outputs (:func:`.float_support.identify_noise`).
Those events are chosen on the search samples and bounded on fresh ones like every other; an
estimate is no proof, so their findings never say ``proven_empty`` (the event records no query values).

An event joins the search only with a positive strict search bound (:func:`_scored`).  On outputs with
label coordinates the families look at the numeric coordinates only (:func:`_on_numeric`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ..family import Scored, Scorer, SearchContext
from .correlation import _best_difference_event
from .events import (
    CoordinateDifference,
    LatticeEvent,
    OutsideSupport,
    leak_event_from_dict,
)
from .float_support import identify_noise, query_array, replayed_centre, support_match
from .lattice import candidate_centres, find_lattice_event

__all__ = ["LATTICE_ROWS", "MAX_LATTICE_COORDINATES", "CorrelatedNoiseFamily", "FloatSupportFamily", "LatticeFamily",
           "query_vectors"]

LATTICE_ROWS = 100_000
MAX_LATTICE_COORDINATES = 4


def query_vectors(mechanism: Any, pair: tuple[Any, Any], width: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(q_a, q_b) as flat arrays of ``width`` query values, one per output coordinate, when known.

    None also when the mechanism says its outputs are not fl(q + n) for a double n
    (``Mechanism.float_sum`` False): the lemma and the noise replay, which prove events empty
    from the query values, do not apply to them, and the centres are estimated as for a black box.
    """
    if not getattr(mechanism, "float_sum", True):
        return None
    try:
        q_a, q_b = (query_array(mechanism, data).reshape(-1) for data in pair)
    except Exception:  # no query, or a query that rejects the input: no lemma then
        return None
    return (q_a, q_b) if q_a.size == q_b.size == width else None


def _lattice_coordinates(rows_a: np.ndarray, rows_b: np.ndarray, queries: Any) -> np.ndarray:
    """The coordinates to search lattice events on: those whose query value differs (else all),
    at most ``MAX_LATTICE_COORDINATES``, the largest shifts of the mean first."""
    width = rows_a.shape[1]
    candidates = np.arange(width)
    if queries is not None and np.any(queries[0] != queries[1]):
        candidates = np.flatnonzero(queries[0] != queries[1])
    if candidates.size > MAX_LATTICE_COORDINATES:
        with np.errstate(invalid="ignore"):
            shift = np.abs(rows_a[:, candidates].mean(axis=0) - rows_b[:, candidates].mean(axis=0))
        candidates = candidates[np.argsort(-np.nan_to_num(shift, nan=-1.0), kind="stable")[:MAX_LATTICE_COORDINATES]]
    return candidates


def _lattice_events(rows_a: np.ndarray, rows_b: np.ndarray, queries: Any, coordinates: np.ndarray,
                    score: Scorer) -> list[Scored]:
    """The lattice event chosen on each searched coordinate (scalar outputs: the one coordinate)."""
    width = rows_a.shape[1]
    found = []
    for i in coordinates:
        ya, yb = rows_a[:LATTICE_ROWS, i], rows_b[:LATTICE_ROWS, i]
        at = None if queries is None else (float(queries[0][i]), float(queries[1][i]))
        centres = at if at is not None else candidate_centres(ya) + candidate_centres(yb)
        choice = find_lattice_event(ya, yb, queries=centres)
        if choice is not None:
            event = LatticeEvent(choice.event, coordinate=None if width == 1 else int(i), queries=at)
            found.append(_scored("lattice", event, rows_a, rows_b, score))
    return found


def _float_support_events(noise: Any, rows_a: np.ndarray, rows_b: np.ndarray, queries: Any, coordinates: np.ndarray,
                          score: Scorer) -> list[Scored] | None:
    """The float-support events of each searched coordinate (outputs off the replayed support of q_a,
    then of q_b); None when the replay does not reproduce every search output from its own query value
    (for unknown query values: from any candidate centre, :func:`.float_support.replayed_centre`).
    Without ``noise`` (a black box), the noise is identified per coordinate (:func:`.float_support.identify_noise`)."""
    width = rows_a.shape[1]
    found = []
    for i in coordinates:
        ya, yb = rows_a[:LATTICE_ROWS, i].astype(np.float64), rows_b[:LATTICE_ROWS, i].astype(np.float64)
        model = None
        if noise is None or queries is None:  # estimated: the events carry no query values, so nothing is proved
            if noise is None:
                identified = identify_noise(ya, yb)
                if identified is None:
                    return None
                replay, (q_a, q_b), model = identified.noise, identified.centres, (identified.model, identified.scale)
            else:
                replay, q_a, q_b = noise, replayed_centre(noise, ya), replayed_centre(noise, yb)
                if q_a is None or q_b is None:
                    return None
            known = None
            if q_a == q_b:  # the same replayed support under both inputs: nothing to find here
                continue
        else:
            replay = noise
            q_a, q_b = float(queries[0][i]), float(queries[1][i])
            if not (support_match(noise, ya, q_a).consistent.all() and support_match(noise, yb, q_b).consistent.all()):
                return None
            known = (q_a, q_b)
        for q in (q_a, q_b):
            event = OutsideSupport(q, replay, coordinate=None if width == 1 else int(i), queries=known, model=model)
            found.append(_scored("float-support", event, rows_a, rows_b, score))
    return found


def _best(found: list[Scored | None]) -> list[Scored]:
    """The highest-scoring of ``found`` (the first on ties), as a list of at most one."""
    kept = [s for s in found if s is not None]
    return [max(kept, key=lambda s: s.objective)] if kept else []


def _scored(family: str, event: Any, rows_a: np.ndarray, rows_b: np.ndarray, score: Scorer) -> Scored | None:
    """The event scored by the strict search bound in its better direction; None unless that bound is > 0.

    Leak events are chosen for having hits on one side and none on the other, so a rare event of a
    correct mechanism (a tail exponent seen a few times) qualifies by chance; its held-out score,
    which plugs in p^_b = 0, would then look large.  Requiring a positive strict bound (level
    1 - alpha / SEARCH_EVENTS) keeps only events that show a privacy loss beyond that chance.
    """
    inside_a, inside_b = event.contains(rows_a), event.contains(rows_b)
    ka, kb = int(np.count_nonzero(inside_a)), int(np.count_nonzero(inside_b))
    na, nb = rows_a.shape[0], rows_b.shape[0]
    forward = float(score(np.array([ka]), na, np.array([kb]), nb)[0])
    backward = float(score(np.array([kb]), nb, np.array([ka]), na)[0])
    best, is_forward = max((forward, True), (backward, False))
    if not math.isfinite(best) or best <= 0.0:
        return None
    if hasattr(event, "witness"):
        rows, inside = (rows_a, inside_a) if is_forward else (rows_b, inside_b)
        if inside.any():
            event = replace(event, witness=float(rows[np.argmax(inside), getattr(event, "coordinate", None) or 0]))
    return Scored(event, family, is_forward, best, ka, kb)


def _on_numeric(search: Callable[[np.ndarray, np.ndarray, SearchContext], tuple[list[Scored], list[str]]],
                rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> tuple[list[Scored], list[str]]:
    """``search`` on the coordinates that hold numbers, its events stated on the whole output.

    Label codes (``context.categorical`` coordinates) have no float bits and no distances, so the leak
    checks look at the other coordinates only -- a raw float beside a label still gets them.
    """
    if not context.categorical:
        return search(rows_a, rows_b, context)
    numeric = [i for i in range(rows_a.shape[1]) if i not in context.categorical]
    if not numeric:
        return [], []
    found, notes = search(rows_a[:, numeric], rows_b[:, numeric], context)
    return [replace(s, event=_on_coordinates(s.event, numeric)) for s in found], notes


def _on_coordinates(event: Any, numeric: list[int]) -> Any:
    """A leak event found on the columns ``numeric`` of the outputs, stated on the whole output."""
    if isinstance(event, CoordinateDifference):
        return replace(event, i=numeric[event.i], j=numeric[event.j])
    return replace(event, coordinate=numeric[event.coordinate or 0])


def _floats(rows_a: np.ndarray, rows_b: np.ndarray) -> bool:
    return rows_a.dtype.kind == "f" and rows_b.dtype.kind == "f"


class _LeakFamily:
    """What the three leak families share: run when their check is asked for, on the numeric coordinates;
    in the pair screening, one search on the fit half (even-indexed rows)."""

    name: str
    implementation = True
    event_types: tuple[str, ...]

    def enabled(self, context: SearchContext) -> bool:
        return self.name in context.checks

    def search(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> tuple[list[Scored], list[str]]:
        return _on_numeric(self._search, rows_a, rows_b, context)

    def screen(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> list[Callable[[], list[Scored]]]:
        fit_a, fit_b = rows_a[0::2], rows_b[0::2]
        return [lambda: self.search(fit_a, fit_b, context)[0]]

    def event_from_dict(self, spec: dict[str, Any], noise: Any = None) -> Any:
        return leak_event_from_dict(spec, noise)

    def _search(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> tuple[list[Scored], list[str]]:
        raise NotImplementedError


class LatticeFamily(_LeakFamily):
    """``"lattice"``: the best lattice event of the searched coordinates (float outputs)."""

    name = "lattice"
    event_types = ("lattice",)

    def _search(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> tuple[list[Scored], list[str]]:
        if not _floats(rows_a, rows_b):
            return [], []
        queries = query_vectors(context.mechanism, context.pair, rows_a.shape[1])
        coordinates = _lattice_coordinates(rows_a, rows_b, queries)
        return _best(_lattice_events(rows_a, rows_b, queries, coordinates, context.score)), []


class FloatSupportFamily(_LeakFamily):
    """``"float-support"``: the best outside-the-replayed-support event (float outputs).

    A mechanism that hides its noise gets it identified (:func:`.float_support.identify_noise`, about
    0.2 s a coordinate) on the chosen pair only: the pair screening, which searches once per pair and
    round, goes without it (``context.screening``).
    """

    name = "float-support"
    event_types = ("float-support",)

    def _search(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> tuple[list[Scored], list[str]]:
        noise = getattr(context.mechanism, "noise", None)
        if not _floats(rows_a, rows_b) or (noise is None and context.screening):
            return [], []
        queries = query_vectors(context.mechanism, context.pair, rows_a.shape[1])
        coordinates = _lattice_coordinates(rows_a, rows_b, queries)
        outside = _float_support_events(noise, rows_a, rows_b, queries, coordinates, context.score)
        if outside is not None:
            return _best(outside), []
        return [], [
            "float-support check skipped: the mechanism does not expose its float noise and no known sampler "
            "(numpy Generator.laplace, textbook -b log u) reproduces its search outputs"
            if noise is None else
            "float-support check skipped: the replay of the exposed noise does not reproduce every search "
            "output from its own query value (different float operations than the sampler's)"
            if queries is not None else
            "float-support check skipped: the query values are unknown and the replay of the exposed noise "
            "reproduces a side's search outputs from none of the centres estimated on them"
        ]


class CorrelatedNoiseFamily(_LeakFamily):
    """``"correlated-noise"``: the difference range of two coordinates (vector float outputs, :mod:`.correlation`)."""

    name = "correlated-noise"
    event_types = ("difference",)

    def _search(self, rows_a: np.ndarray, rows_b: np.ndarray, context: SearchContext) -> tuple[list[Scored], list[str]]:
        if not _floats(rows_a, rows_b) or rows_a.shape[1] < 2:
            return [], []
        i, j, lo, hi, _, _ = _best_difference_event(rows_a[:LATTICE_ROWS], rows_b[:LATTICE_ROWS])
        scored = _scored(self.name, CoordinateDifference(i, j, lo, hi), rows_a, rows_b, context.score)
        return ([scored] if scored else []), []
