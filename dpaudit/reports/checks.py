"""Implementation checks for a report: run the auditor's leak checks that the mechanism supports.

* ``float-support`` -- exact floating-point support replay (:mod:`dpaudit.auditor.float_support`),
  for mechanisms that expose their noise as ``FloatNoise``;
* ``lattice`` -- the black-box ulp-lattice event search (:mod:`dpaudit.auditor.lattice`), for
  scalar floating-point outputs;
* ``correlated-noise`` -- events on differences of coordinates (:mod:`dpaudit.auditor.correlation`),
  for vector outputs;
* ``sensitivity`` -- falsification of the declared sensitivity on adversarial neighbouring datasets
  (:mod:`dpaudit.auditor.sensitivity`), for dataset mechanisms declaring ``query`` and ``sensitivity``.

Each check becomes one envelope ``{"name", "status", "result", "note"}``; a check that does not apply
is ``skipped`` with the reason, one that raises is ``error`` with the message -- never silently absent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import DPAuditError, InvalidArgument
from .model import section

__all__ = ["CHECKS", "CHECK_SAMPLES", "implementation_checks"]

CHECK_SAMPLES = 50_000
CHECKS = ("float-support", "lattice", "correlated-noise", "sensitivity")


def _envelope(name: str, status: str, result: dict[str, Any] | None = None, note: str = "") -> dict[str, Any]:
    return {"name": name, **section(status, result, note)}


def _run(name: str, call: Callable[[], Any], skip: tuple[str, ...] = ()) -> dict[str, Any]:
    if name in skip:
        return _envelope(name, "skipped", note="not requested")
    try:
        finding = call()
    except (DPAuditError, ValueError, TypeError, ArithmeticError) as exc:
        return _envelope(name, "error", note=f"{type(exc).__name__}: {exc}")
    return _envelope(name, "done", finding.as_dict() if hasattr(finding, "as_dict") else dict(finding))


def _output_kind(mechanism: Any, data: Any) -> str:
    """``"scalar-float"``, ``"vector"`` (several coordinates) or ``"other"``, from four outputs."""
    try:
        out = np.asarray(mechanism.sample(data, 4, np.random.default_rng(0)))
    except DPAuditError:
        return "other"
    if out.shape == (4,) and out.dtype.kind == "f":
        return "scalar-float"
    if out.ndim == 2 and out.shape[1] > 1 and out.dtype.kind in "fiu":
        return "vector"
    return "other"


def implementation_checks(
    mechanism: Any,
    pair: tuple[Any, Any],
    *,
    samples: int,
    seed: int,
    confidence: float,
    skip: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """Run every applicable check of :data:`CHECKS` not in ``skip`` on the ordered ``pair``.

    Sampling checks draw ``min(samples, CHECK_SAMPLES)`` outputs per side; skipped checks are listed
    as ``skipped`` with the reason.
    """
    unknown = sorted(set(skip) - set(CHECKS))
    if unknown:
        raise InvalidArgument(f"skip={unknown!r} must name checks among {', '.join(CHECKS)}")
    return _applicable(mechanism, pair, samples=samples, seed=seed, confidence=confidence, skip=skip)


def _applicable(mechanism: Any, pair: tuple[Any, Any], *, samples: int, seed: int, confidence: float,
                skip: tuple[str, ...]) -> list[dict[str, Any]]:
    from ..auditor import correlation, float_support, lattice

    n = max(100, min(int(samples), CHECK_SAMPLES))
    a, b = pair
    kind = _output_kind(mechanism, a)
    checks = []
    if getattr(mechanism, "noise", None) is not None:
        checks.append(_run("float-support", lambda: float_support.float_support_check(
            mechanism, a, b, n=n, seed=seed, confidence=confidence), skip))
    else:
        checks.append(_envelope("float-support", "skipped", note="the mechanism does not expose its float noise"))
    if kind == "scalar-float":
        def run_lattice() -> Any:
            try:
                queries = (float_support.query_value(mechanism, a), float_support.query_value(mechanism, b))
            except (DPAuditError, ValueError, TypeError):
                queries = None
            return lattice.lattice_check(mechanism, a, b, n_search=min(5_000, n), n_verify=n, seed=seed,
                                         confidence=confidence, queries=queries)

        checks.append(_run("lattice", run_lattice, skip))
    else:
        checks.append(_envelope("lattice", "skipped", note="the outputs are not scalar floating-point numbers"))
    if kind == "vector":
        checks.append(_run("correlated-noise", lambda: correlation.correlation_check(
            mechanism, a, b, n_search=min(2_000, n), n_verify=n, seed=seed, confidence=confidence), skip))
    else:
        checks.append(_envelope("correlated-noise", "skipped", note="the outputs are not vectors"))
    checks.append(_sensitivity(mechanism, skip))
    return checks


def _sensitivity(mechanism: Any, skip: tuple[str, ...]) -> dict[str, Any]:
    from ..neighbours import AddRemove, Replace

    if mechanism.query is None or mechanism.sensitivity is None:
        return _envelope("sensitivity", "skipped", note="the mechanism declares no query with a sensitivity")
    if not isinstance(mechanism.neighbours, (AddRemove, Replace)):
        return _envelope("sensitivity", "skipped", note="the check searches datasets (add/remove or replace neighbours)")
    from ..auditor.sensitivity import falsify_sensitivity

    return _run("sensitivity", lambda: falsify_sensitivity(mechanism), skip)
