"""An :class:`~.result.AuditResult` in lines a person reads: the CLI's output and ``str(result)``.

One presenter for every shell: ``dpaudit audit`` prints :func:`result_lines`, ``print(result)`` shows
:func:`summary` (the same lines, each cut to a screen width but the reason, wrapped, and the rerun,
findings and notes counted beyond the first few), and :meth:`.result.AuditResult.reproduce` says what
reruns the audit.
"""

from __future__ import annotations

import json
import textwrap
from typing import Any

__all__ = ["curve_lines", "result_lines", "summary"]

SUMMARY_WIDTH = 160
"""The longest line ``str(result)`` shows; a longer one is cut (the fields hold the whole text)."""
SUMMARY_LISTED = 2
"""How many notes and findings ``str(result)`` shows before it counts the rest."""
WRAPPED = "  reason  :"
"""The line ``str(result)`` wraps instead of cutting: the verdict's reason, whose advice comes last."""
WHOLE = "  reproduce:"
"""The line ``str(result)`` neither cuts nor wraps: the rerun, to be copied whole."""
SUMMARY_LIMIT = 2000
"""The most characters ``str(result)`` ever has: lines past it are left out, and the last line says so."""


def result_lines(result: Any, reproduction: str, listed: int | None = None) -> list[str]:
    """Every line of the CLI's report of ``result`` (an AuditResult), ending with the ``reproduction`` command.

    With ``listed``, only the first ``listed`` notes and findings are shown, and a line counts the rest.
    """
    lines = [f"{result.verdict.value.upper()}: {result.target} claims {result.claim}"]
    lines += _bound_lines(result)
    scopes = result.bounds_by_scope
    for name, entry in (() if scopes is None else (("implementation", scopes.implementation),
                                                    ("algorithmic", scopes.algorithmic))):
        if entry is not None:
            lines.append(f"  {name:<14}: epsilon >= {entry.epsilon_lower_bound:.4f} at {entry.confidence:g}, "
                         f">= {entry.verdict_epsilon_lower_bound:.4f} at {entry.verdict_confidence:g} "
                         f"[{entry.family}] {entry.event}")
    if scopes is not None and scopes.decided_by:
        lines.append(f"  decided : by the {scopes.decided_by} bound")
    lines.append(f"  event   : {result.event}")
    lines.append(f"  pair    : a = {json.dumps(result.pair[0])}, b = {json.dumps(result.pair[1])}")
    if result.neighbours is not None:
        lines.append(f"  neighbours: {result.neighbours.statement}")
    lines.append(
        f"  hits    : {result.hits[0]} / {result.sample_sizes[0]} under a, {result.hits[1]} / {result.sample_sizes[1]} "
        f"under b ({result.samples} verification + {result.search_samples} search samples per side{_drawn(result)})"
    )
    lines.append(f"  reason  : {result.reason}")
    if result.curve is not None:
        lines += curve_lines(result.curve)
    lines += _listed("note", [f"  note    : {note}" for note in result.notes], listed)
    lines += _listed("finding", [f"  finding : [{f.check}] {f.reason}" for f in result.findings], listed)
    lines += _run_lines(result)
    lines.append(f"  time    : {result.elapsed_s:.2f} s, of which {result.mechanism_s:.2f} s inside the mechanism")
    if result.run is not None and result.run.times is not None:
        lines.append(f"  stages  : {result.run.times.describe()}")
    if not result.reproducible:
        lines.append(f"  reproducible: no -- {result.reproducibility}")
    lines.append(f"  reproduce: {reproduction}")
    return lines


def _drawn(result: Any) -> str:
    """How the verification's sample sizes were drawn: Poisson-sized around the samples used (the joint
    ratio test is exact on Poisson sizes, :mod:`.sequential`), the planned samples or fewer when the audit
    stopped early."""
    used = result.stopping.samples_used if result.stopping is not None else result.samples
    return f"; sizes Poisson around {used}" + ("" if used == result.samples else " (stopped early)")


def _listed(kind: str, lines: list[str], listed: int | None) -> list[str]:
    """``lines`` (one per note or finding), the first ``listed`` of them and a count of the others."""
    if listed is None or len(lines) <= listed:
        return lines
    return [*lines[:listed], f"  ({len(lines) - listed} more {kind}s in result.{kind}s)"]


def _bound_lines(result: Any) -> list[str]:
    """The estimate, the verdict's bound (or the curve's verdict), and the delta bound."""
    bound = result.epsilon_lower_bound
    decided = f" (decided by the {result.decided_by})" if result.decided_by else ""
    if result.curve_check is not None:  # a curve claim: the curve decides; the working point's bound is an estimate
        lines = [f"  point   : epsilon >= {bound:.4f} with confidence {result.confidence:g} at the working point "
                 f"{result.point_claim()} (an estimate; the curve decides)",
                 f"  verdict : the empirical curve at confidence {result.verdict_confidence:g} "
                 + ("refutes the claim" if result.curve_check.refuted else "does not refute the claim") + decided]
    elif result.verdict_confidence == result.confidence:
        lines = [f"  epsilon >= {bound:.4f} with confidence {result.confidence:g} ({result.method} bound; "
                 "estimate and verdict)"]
    else:
        decisive, claimed = result.verdict_epsilon_lower_bound, result.claim.epsilon
        relation = ">" if decisive > claimed else "<="
        lines = [f"  epsilon >= {bound:.4f} with confidence {result.confidence:g} ({result.method} bound; "
                 "the estimate)",
                 f"  verdict : epsilon >= {decisive:.4f} with confidence {result.verdict_confidence:g}, {relation} "
                 f"claimed {claimed:g}{decided}"]
    if result.delta_lower_bound is not None:
        lines.append(f"  delta   >= {result.delta_lower_bound:.3g} at epsilon = {result.point_claim().epsilon:g}")
    return lines


def _run_lines(result: Any) -> list[str]:
    """Where the audit ran, what was resumed, and the sampler's batching."""
    run = result.run
    if run is None:
        return []
    resumed = f", {run.resumed_chunks} chunks resumed from {run.checkpoint}" if run.resumed_chunks else ""
    lines = [f"  run     : {run.executor} ({run.workers} workers){resumed}"]
    if run.note:
        lines.append(f"  note    : {run.note}")
    if run.batching:
        per_draw = result.seconds_per_draw
        timing = f", {per_draw * 1e6:.1f} us per draw" if per_draw else ""
        lines.append(f"  batching: {run.batching}{timing}")
    return lines


def curve_lines(curve: Any) -> list[str]:
    """The empirical curve in a few lines: epsilon(delta) at four deltas, mu and rho, the method."""
    points = ", ".join(f"eps({d:g}) >= {curve.epsilon_lower_bound(d):.4f}" for d in (1e-2, 1e-3, 1e-4, 1e-5))
    return [f"  curve   : {points} (simultaneous, confidence {curve.confidence:g})",
            f"  curve   : mu >= {curve.mu_lower_bound:.4f} (Gaussian DP), rho >= {curve.rho_lower_bound:.4f} (zCDP); "
            f"at {curve.verdict_confidence:g}: mu >= {curve.verdict_mu_lower_bound:.4f}, "
            f"rho >= {curve.verdict_rho_lower_bound:.4f}",
            f"  curve   : {curve.method}, {curve.sample_sizes[0]} fresh samples per side"]


def summary(result: Any) -> str:
    """``str(result)``: the CLI's lines, each cut to ``SUMMARY_WIDTH`` characters (the reason wrapped, the rerun
    whole), with the first ``SUMMARY_LISTED`` notes and findings shown and the others counted (``result.notes``,
    ``result.findings`` hold them all); never more than ``SUMMARY_LIMIT`` characters."""
    lines = []
    for line in result_lines(result, result.reproduce(), SUMMARY_LISTED):
        if line.startswith(WRAPPED):
            lines += textwrap.wrap(line, SUMMARY_WIDTH, subsequent_indent=" " * len(WRAPPED), break_long_words=False,
                                   break_on_hyphens=False)
        elif line.startswith(WHOLE) or len(line) <= SUMMARY_WIDTH:
            lines.append(line)
        else:
            lines.append(line[: SUMMARY_WIDTH - 3] + "...")
    closing = "  (more in the result's fields: result.as_dict() has them all)"
    shown, size = [], len(closing)
    for line in lines:
        size += len(line) + 1
        if size > SUMMARY_LIMIT:
            return "\n".join([*shown, closing])
        shown.append(line)
    return "\n".join(shown)
