"""The search of the implementation-leak events (:mod:`.leak_events`) on one pair's search samples.

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

An event joins the search only with a positive strict search bound (:func:`_scored`).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from .leak_events import CoordinateDifference, LatticeEvent, OutsideSupport
from .search import Scored, Scorer

__all__ = ["LATTICE_ROWS", "MAX_LATTICE_COORDINATES", "leak_families", "query_vectors"]

LATTICE_ROWS = 100_000
MAX_LATTICE_COORDINATES = 4


def query_vectors(mechanism: Any, pair: tuple[Any, Any], width: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(q_a, q_b) as flat arrays of ``width`` query values, one per output coordinate, when known.

    None also when the mechanism says its outputs are not fl(q + n) for a double n
    (``Mechanism.float_sum`` False): the lemma and the noise replay, which prove events empty
    from the query values, do not apply to them, and the centres are estimated as for a black box.
    """
    from .float_support import query_array

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
    from .lattice import candidate_centres, find_lattice_event

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
    from .float_support import identify_noise, replayed_centre, support_match

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


def leak_families(
    mechanism: Any, pair: tuple[Any, Any], rows_a: np.ndarray, rows_b: np.ndarray, score: Scorer, checks: tuple[str, ...],
    identify: bool = True,
) -> tuple[list[Scored], list[str]]:
    """The leak-check events for this pair, scored on the search samples, and notes on skipped checks.

    ``identify=False`` leaves out the float-support check of mechanisms that hide their noise (the
    noise identification of :func:`.float_support.identify_noise` takes about 0.2 s a coordinate;
    the pair screening, which calls this once per pair and round, goes without it).
    """
    found: list[Scored] = []
    notes: list[str] = []
    floats = rows_a.dtype.kind == "f" and rows_b.dtype.kind == "f"
    width = rows_a.shape[1]
    noise = getattr(mechanism, "noise", None)
    lattice = floats and "lattice" in checks
    support = floats and "float-support" in checks and (noise is not None or identify)
    if lattice or support:
        queries = query_vectors(mechanism, pair, width)
        coordinates = _lattice_coordinates(rows_a, rows_b, queries)
    if lattice:
        found += _best(_lattice_events(rows_a, rows_b, queries, coordinates, score))
    if support:
        outside = _float_support_events(noise, rows_a, rows_b, queries, coordinates, score)
        if outside is None:
            notes.append(
                "float-support check skipped: the mechanism does not expose its float noise and no known sampler "
                "(numpy Generator.laplace, textbook -b log u) reproduces its search outputs"
                if noise is None else
                "float-support check skipped: the replay of the exposed noise does not reproduce every search "
                "output from its own query value (different float operations than the sampler's)"
                if queries is not None else
                "float-support check skipped: the query values are unknown and the replay of the exposed noise "
                "reproduces a side's search outputs from none of the centres estimated on them"
            )
        found += _best(outside or [])
    if "correlated-noise" in checks and floats and width >= 2:
        from .correlation import _best_difference_event

        i, j, lo, hi, _, _ = _best_difference_event(rows_a[:LATTICE_ROWS], rows_b[:LATTICE_ROWS])
        scored = _scored("correlated-noise", CoordinateDifference(i, j, lo, hi), rows_a, rows_b, score)
        found += [scored] if scored else []
    return found, notes
