"""Events that read a side channel, and the findings they make: a run's draw count or wall time tells the inputs apart.

Jin, McMurtry, Rubinstein & Ohrimenko (IEEE S&P 2022), "Are we there yet? Timing and floating-point
attacks on differential privacy systems", show that a sampler whose running time depends on its
noise leaks the input even when its output is exactly distributed: a discrete Laplace drawn by
repeated Bernoulli trials (``while rng.random() >= p: k += 1``) runs k + 1 trials, so (output, trial
count) reveals |output - q| and with it q.  The audit records the side channels beside each output
(:mod:`dpaudit.auditor.run.observed`), so every event family searches them, alone and jointly with the
output (whole-row patterns (output, draws), thresholds, the learned linear score); events read
``output == 3 and draws <= 2`` (see :func:`readable`), and the event is verified on fresh samples like
every other: the reported bound is a verification-stage bound with the audit's confidence, whatever
the observable.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._codec import to_json
from ..records import SideChannelFinding
from ..run.observed import CHANNEL_KEYS
from ..run.sampling import generator
from .leaks.events import CoordinateDifference
from .sets import AtomThreshold, RowSet, WholeRowThreshold

__all__ = ["EXAMPLE_RUNS", "readable", "side_channel_findings", "side_channel_reader"]


def side_channel_reader(coding: Any, channels: tuple[str, ...]) -> Callable[[Any], bool]:
    """A test of whether an event reads one of the recorded side channels (structurally; a learned score
    and a summed per-coordinate log-ratio read every coordinate, so they read them too)."""
    if not channels or coding is None or coding.keys is None:
        return lambda event: False
    where = [coding.keys.index(repr(CHANNEL_KEYS[c])) for c in channels if repr(CHANNEL_KEYS[c]) in coding.keys]
    return lambda event: bool(where) and (isinstance(event, WholeRowThreshold) or any(_reads(event, c) for c in where))


def _reads(event: Any, coordinate: int) -> bool:
    """Whether membership in ``event`` depends on coordinate ``coordinate`` (structurally)."""
    if isinstance(event, RowSet):
        return True
    if isinstance(event, AtomThreshold):
        return _feature_reads(event.atom_feature, coordinate) or _feature_reads(event.feature, coordinate)
    if isinstance(event, CoordinateDifference):
        return coordinate in (event.i, event.j)
    feature = getattr(event, "feature", None)
    if feature is not None:
        return _feature_reads(feature, coordinate)
    return getattr(event, "coordinate", None) == coordinate


def _feature_reads(feature: Any, coordinate: int) -> bool:
    if feature.kind == "value":
        return coordinate == 0
    if feature.kind == "coordinate":
        return feature.index == coordinate
    if feature.kind == "linear":
        return bool(feature.weights[coordinate])
    return True  # aggregates (sum, max, ...) read every coordinate


EXAMPLE_RUNS = 256
"""Runs of M(a) and M(b) drawn (spawn addresses ``(4,)`` and ``(5,)`` of the audit's seed) to decide
whether an event reads a side channel, and to show a run in it."""


def _runs_of(data: Any, draws: Any, address: int = 4) -> np.ndarray:
    """``EXAMPLE_RUNS`` runs of M(data) at spawn address ``(address,)`` (illustration only: no bound uses them)."""
    rows = draws.mechanism.sample(data, EXAMPLE_RUNS, generator(draws.seed, (address,)))
    return rows.reshape(rows.shape[0], -1)


def _depends(event: Any, rows: np.ndarray, others: np.ndarray, coordinate: int) -> bool:
    """Whether membership in ``event`` changes on ``rows`` (runs of M(a)) when each run's ``coordinate``
    is swapped with another run's, of M(a) or of M(b) (``others``): an event that ignores the column,
    or reads a value both inputs give every run, does not change."""
    changed = False
    for source in (np.roll(rows[:, coordinate], 1), others[: rows.shape[0], coordinate]):
        swapped = rows[: source.shape[0]].copy()
        swapped[:, coordinate] = source
        changed |= bool(np.any(event.contains(rows[: source.shape[0]]) != event.contains(swapped)))
    return changed


def _example(event: Any, rows: np.ndarray, coding: Any) -> dict[str, Any] | None:
    """The first of ``rows`` in ``event``, by key (labels as the function returned them); None if none is."""
    inside = np.flatnonzero(event.contains(rows))
    if inside.size == 0:
        return None
    values = {}
    for i, value in enumerate(rows[inside[0]].tolist()):
        text = coding.text(i, value)
        name = coding.keys[i].strip("'\"") if coding.keys is not None else str(i)
        values[name] = text if text is not None else (int(value) if float(value).is_integer() else value)
    return values


def side_channel_findings(measured: list[Any], claim: Any, confidence: float, draws: Any,
                          channels: tuple[str, ...]) -> list[SideChannelFinding]:
    """One finding per verified event that reads a side channel and whose verified bound exceeds the claim.

    ``draws`` is the audit's :class:`~dpaudit.auditor.run.sampling.Draws`: its coding names the columns, and
    ``EXAMPLE_RUNS`` runs of M(a) and of M(b) drawn from its mechanism at spawn addresses ``(4,)`` and
    ``(5,)`` decide whether the event reads the side channel (its membership on the runs of M(a)
    changes when the side channel of each is swapped with another run's, of M(a) or M(b): an event
    that ignores it, or reads a count every run of both inputs has, is no side-channel finding) and
    give a run in the event.  They label the finding only; its bound is
    the verification's.
    """
    coding = draws.coding
    if not channels or coding is None or coding.keys is None:
        return []
    where = {check: coding.keys.index(repr(CHANNEL_KEYS[check])) for check in channels
             if repr(CHANNEL_KEYS[check]) in coding.keys}
    findings = []
    for m in measured:
        if not m.verdict_bound > claim.epsilon:  # the verdict's level decides, as for every finding
            continue
        read = [check for check, coordinate in where.items() if _reads(m.scored.event, coordinate)]
        if not read:
            continue
        rows, others = _runs_of(m.pair[0], draws), _runs_of(m.pair[1], draws, 5)
        read = [check for check in read if _depends(m.scored.event, rows, others, where[check])]
        if not read:
            continue
        (ka, kb), (na, nb) = m.hits, m.sizes
        mismatch = kb == 0 and ka > 0
        example = _example(m.scored.event, rows, coding)
        seen = (f"S was seen {ka} times in {na} runs of M(a) and never in {nb} runs of M(b) on the verification samples"
                if mismatch else f"S was seen {ka} / {na} times under M(a) and {kb} / {nb} under M(b) on the "
                f"verification samples")
        shown = "" if example is None else f"; a run of M(a) in S: {example}"
        what = " and ".join({"draw-count": "the number of random draws", "wall-time": "the wall time"}[c] for c in read)
        findings.append(SideChannelFinding.from_dict(to_json({
            "check": read[0],
            "verdict": "violation",
            "side_channel": True,
            "event": m.scored.event.describe(),
            "pair": list(m.pair),
            "hits": [ka, kb],
            "sample_sizes": [na, nb],
            "epsilon_lower_bound": m.bound,
            "confidence": confidence,
            "support_mismatch": mismatch,
            **({} if example is None else {"example": example}),
            "reason": (f"side channel: {what} a run consumes, observed with its output, tells the inputs apart "
                       f"(Jin, McMurtry, Rubinstein & Ohrimenko 2022): {seen}{shown}; verified epsilon >= "
                       f"{m.bound:.3f} > claimed {claim.epsilon:g} at confidence {confidence:g}"
                       f"{', capped by the sample size' if mismatch else ''}"),
        })))
    return findings


_COLUMN = r"(?:output(?:\[\d+\])?|draws|wall_ns)"


def readable(result: Any) -> Any:
    """``result`` (an ``AuditResult``) with the recorded columns read by name: ``output['output']``
    becomes ``output``, ``output['output[1]']`` ``output[1]``, ``output['draws']`` ``draws`` (and
    ``'draws': 3`` in whole-row patterns ``draws: 3``), so the output reads as the function returned it."""

    def text(value: str) -> str:
        value = re.sub(rf"output\['({_COLUMN})'\]", r"\1", value)
        return re.sub(rf"'({_COLUMN})': ", r"\1: ", value)

    candidates = tuple(dataclasses.replace(c, event=text(c.event)) for c in result.candidates)
    findings = tuple(dataclasses.replace(f, **{k: text(getattr(f, k)) for k in ("event", "reason")
                                               if isinstance(getattr(f, k, None), str)})
                     for f in result.findings)
    return dataclasses.replace(result, event=text(result.event), reason=text(result.reason), candidates=candidates,
                               findings=findings)
