"""Implementation checks of a report: the audit's leak findings, and the report's own sensitivity check.

The implementation-leak checks run *inside* the audit (:mod:`dpaudit.auditor.events.leaks.events`):
their events join the search stage, are verified on the audit's own fresh samples with its
confidence and multiplicity correction, and every verified event that refutes the claim (its bound
at the verdict's level above it, or a proven support mismatch) becomes an entry of
``AuditResult.findings``.  This module reads them back, one envelope per check, and runs nothing
a second time:

* ``float-support`` -- outputs an exact replay of the exposed float noise reproduces under q_a but
  not under q_b (:mod:`dpaudit.auditor.events.leaks.float_support`), for mechanisms exposing ``noise``;
* ``lattice`` -- ulp-lattice events of scalar floating-point outputs (:mod:`dpaudit.auditor.events.leaks.lattice`);
* ``correlated-noise`` -- events on differences of coordinates of vector outputs
  (:mod:`dpaudit.auditor.events.leaks.correlation`);
* ``draw-count`` -- events reading the number of random draws each run of a one-run function
  consumed, recorded beside its output (:mod:`dpaudit.auditor.events.side_channels`).

``sensitivity`` is no event: :func:`dpaudit.auditor.falsify_sensitivity` evaluates the
deterministic statistic on adversarial neighbouring datasets (hypothesis, a few seconds), so the
report runs it itself for dataset mechanisms declaring ``query`` and ``sensitivity`` -- unless the
audit already did (``checks`` containing ``"sensitivity"``), whose finding is then read back.

Each check becomes one envelope ``{"name", "source", "status", "result", "note"}`` (``source``:
``"audit"`` or ``"report"``); a check that does not apply is ``skipped`` with the reason, one that
raises is ``error`` with the message -- never silently absent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._codec import from_json
from ..auditor import DEFAULT_CHECKS, falsify_sensitivity
from ..errors import DPAuditError, InvalidArgument
from ..neighbours import AddRemove, Replace
from .model import section

__all__ = ["CHECKS", "LEAK_CHECKS", "audit_checks", "implementation_checks", "sensitivity_check"]

# The audit's default checks, the exact float replay listed first (the report's order); then sensitivity.
LEAK_CHECKS = ("float-support", *(name for name in DEFAULT_CHECKS if name != "float-support"))
CHECKS = (*LEAK_CHECKS, "sensitivity")

_METHODS = {
    "float-support": "exact replay of the exposed float noise, or of a known sampler's noise identified on the search "
                     "outputs of a black box (dpaudit.auditor.events.leaks.float_support)",
    "lattice": "ulp-lattice events: off-grid outputs, significand low bits, exponents, outputs fl(q_b + n) "
               "reaches for no double n, q_b known or estimated (dpaudit.auditor.events.leaks.lattice)",
    "correlated-noise": "ranges of the difference of two output coordinates (dpaudit.auditor.events.leaks.correlation)",
    "draw-count": "events on the output and the number of random draws of its run, a side channel "
                  "(dpaudit.auditor.events.side_channels)",
}
_IN_AUDIT = ("; an event family of the audit's search stage, verified on the audit's own fresh samples with its "
             "confidence and multiplicity correction")


def audit_checks(skip: tuple[str, ...] = ()) -> tuple[str, ...]:
    """The leak checks the audit runs as event families: every one of :data:`LEAK_CHECKS` not in ``skip``."""
    unknown = sorted(set(skip) - set(CHECKS))
    if unknown:
        raise InvalidArgument(f"skip={unknown!r} must name checks among {', '.join(CHECKS)}")
    return tuple(name for name in LEAK_CHECKS if name not in skip)


def _envelope(name: str, source: str, status: str, result: dict[str, Any] | None = None,
              note: str = "") -> dict[str, Any]:
    return {"name": name, "source": source, **section(status, result, note)}


def _float_width(mechanism: Any, data: Any) -> int | None:
    """How many float coordinates an output has (from four outputs; label coordinates do not count);
    None for other outputs."""
    try:
        drawn = mechanism.draw(data, 4, np.random.default_rng(0))
    except DPAuditError:
        return None
    out = np.asarray(drawn.values)
    if out.dtype.kind != "f" or out.ndim not in (1, 2):
        return None
    return ((1 if out.ndim == 1 else out.shape[1]) - len(drawn.coding.categorical)) or None


def _not_applicable(name: str, mechanism: Any, audit: dict[str, Any]) -> str | None:
    """Why the audit's search had no event of this check to consider, or None when it had
    (the rules of :func:`dpaudit.auditor.events.leaks.families.leak_families`)."""
    if name == "draw-count":
        if getattr(mechanism.sampler, "one_run", None) is None:
            return "the sampler draws all runs in one call (vectorised): per-run draw counts are not observable"
        if mechanism.randomness == "own":
            return "the mechanism draws its own randomness, which the audit cannot count"
        return None
    pair = from_json(audit["pair"])
    width = _float_width(mechanism, pair[0])
    if name in ("lattice", "float-support") and width is None:
        return "the outputs are not floating-point numbers"
    if name == "correlated-noise" and (width is None or width < 2):
        return "the outputs are not vectors of floating-point numbers"
    if name == "float-support":
        prefix = "float-support check skipped: "
        skipped = [note[len(prefix):] for note in audit.get("notes", ()) if note.startswith(prefix)]
        if skipped:
            return skipped[0]
    return None


def _leak_result(name: str, findings: list[dict[str, Any]]) -> dict[str, Any]:
    """The check's strongest finding, with the method that produced it."""
    best = max(findings, key=lambda f: float(from_json(f["epsilon_lower_bound"])))
    return {**best, "method": _METHODS[name] + _IN_AUDIT, "findings": len(findings)}


def _leak_check(name: str, mechanism: Any, audit: dict[str, Any] | None, skip: tuple[str, ...]) -> dict[str, Any]:
    if name in skip:
        return _envelope(name, "audit", "skipped", note="not requested")
    if audit is None:
        return _envelope(name, "audit", "skipped", note="the audit did not complete")
    if name not in audit.get("checks", ()):
        return _envelope(name, "audit", "skipped", note="not run by the audit")
    findings = [f for f in audit.get("findings", ()) if f.get("check") == name]
    if findings:
        return _envelope(name, "audit", "done", _leak_result(name, findings))
    reason = _not_applicable(name, mechanism, audit)
    if reason is not None:
        return _envelope(name, "audit", "skipped", note=reason)
    return _envelope(name, "audit", "done", {
        "verdict": "pass",
        "reason": ("no event of this check was verified above the claimed epsilon: the audit scored its events on the "
                   "search samples beside the other families and verified the strongest (no leak found, not a proof "
                   "of privacy)"),
        "method": _METHODS[name] + _IN_AUDIT,
        "findings": 0,
    })


def sensitivity_check(mechanism: Any) -> dict[str, Any]:
    """Falsify the declared sensitivity (:func:`dpaudit.auditor.falsify_sensitivity`) here.

    Applies to dataset mechanisms (add/remove or replace neighbours) declaring ``query`` and
    ``sensitivity``; the search is deterministic (derandomised hypothesis), so no seed is needed.
    """
    if mechanism.query is None or mechanism.sensitivity is None:
        return _envelope("sensitivity", "report", "skipped", note="the mechanism declares no query with a sensitivity")
    if not isinstance(mechanism.neighbours, (AddRemove, Replace)):
        return _envelope("sensitivity", "report", "skipped",
                         note="the check searches datasets (add/remove or replace neighbours)")
    return _run("sensitivity", lambda: falsify_sensitivity(mechanism))


def _run(name: str, call: Callable[[], Any]) -> dict[str, Any]:
    try:
        finding = call()
    except (DPAuditError, ValueError, TypeError, ArithmeticError) as exc:
        return _envelope(name, "report", "error", note=f"{type(exc).__name__}: {exc}")
    return _envelope(name, "report", "done", finding.as_dict())


def _sensitivity_from_audit(audit: dict[str, Any]) -> dict[str, Any]:
    found = [f for f in audit.get("findings", ()) if f.get("check") == "sensitivity"]
    if found:
        method = "adversarial neighbouring datasets (dpaudit.auditor.sensitivity), run by the audit"
        return _envelope("sensitivity", "audit", "done", {**found[0], "method": method})
    skipped = [note for note in audit.get("notes", ()) if note.startswith("sensitivity check skipped")]
    if skipped:
        return _envelope("sensitivity", "audit", "skipped", note=skipped[0])
    return _envelope("sensitivity", "audit", "done", {
        "verdict": "pass",
        "reason": "no neighbouring datasets exceeding the declared sensitivity were found (not a proof)",
        "method": "adversarial neighbouring datasets (dpaudit.auditor.sensitivity), run by the audit",
    })


def implementation_checks(
    mechanism: Any,
    audit: dict[str, Any] | None,
    *,
    skip: tuple[str, ...] = (),
    run_sensitivity: bool = True,
) -> list[dict[str, Any]]:
    """One envelope per check of :data:`CHECKS`, read from ``audit`` (``AuditResult.as_dict()``).

    The leak checks come from the audit's ``findings``; ``sensitivity`` comes from the audit when
    it ran there, else it is run here when ``run_sensitivity`` (and skipped otherwise).
    """
    audit_checks(skip)  # refuses unknown names
    entries = [_leak_check(name, mechanism, audit, tuple(skip)) for name in LEAK_CHECKS]
    if "sensitivity" in skip:
        entries.append(_envelope("sensitivity", "report", "skipped", note="not requested"))
    elif audit is not None and "sensitivity" in audit.get("checks", ()):
        entries.append(_sensitivity_from_audit(audit))
    elif run_sensitivity:
        entries.append(sensitivity_check(mechanism))
    else:
        entries.append(_envelope("sensitivity", "report", "skipped", note="not run by the audit"))
    return entries
