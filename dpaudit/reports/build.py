"""Build the report document of one mechanism: prove, audit, run the implementation checks, plot.

:func:`build_report` is the ``report`` verb of the three: it calls :func:`dpaudit.prove` and
:func:`dpaudit.audit`, reads their results through ``as_dict()`` and assembles the document of
:mod:`.model`.  A stage that raises is recorded in its section (``status: "error"``) and the others
still run, so one broken mechanism never hides the rest of a catalogue run.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .._validation import check_nonnegative_int, check_positive_finite, check_positive_int, check_probability_open
from ..errors import DPAuditError, InvalidArgument
from .model import KIND, SCHEMA_VERSION, claim_equations, environment, jsonable, outcome, section

__all__ = ["STAGES", "build_report"]

STAGES = ("proof", "audit", "checks", "plots")

_STAGE_ERRORS = (DPAuditError, ArithmeticError, ValueError, TypeError, NotImplementedError, RuntimeError)


def _density_section(mechanism: Any) -> dict[str, Any] | None:
    """The declared density p(y | q) as an equation; ``equation`` is None if it cannot be built."""
    if mechanism.density is None:
        return None
    import sympy

    from ..proofs.result import expression_dict

    try:
        density = mechanism.density()
        p = sympy.Function("p")
        equation = expression_dict(sympy.Eq(p(*density.outputs, *density.inputs), density.expr, evaluate=False))
    except Exception as exc:  # noqa: BLE001 - a density that cannot be built is reported, not fatal
        return {"equation": None, "discrete": None, "parameters": {},
                "note": f"the declared density could not be built: {type(exc).__name__}: {exc}"}
    return {
        "equation": equation,
        "discrete": bool(density.discrete),
        "parameters": {str(k): str(v) for k, v in density.instance.items()},
        "note": density.note,
    }


def _proof_section(mechanism: Any, timeout: float | None) -> dict[str, Any]:
    """Run :func:`dpaudit.prove` (in a child process when ``timeout`` is set) and wrap its result."""
    from ..proofs import prove
    from ._timeout import run_with_timeout

    if mechanism.density is None:
        return section("skipped", None, "the mechanism declares no symbolic density: nothing to prove from")
    status, value = run_with_timeout(lambda: prove(mechanism).as_dict(), timeout)
    if status == "ok":
        return section("done", jsonable(value))
    if status == "timeout":
        return section("error", None, f"the proof did not finish within {timeout:g} s and was stopped")
    return section("error", None, value)


def _stage(call: Callable[[], Any]) -> tuple[dict[str, Any], Any]:
    try:
        result = call()
    except _STAGE_ERRORS as exc:
        return section("error", None, f"{type(exc).__name__}: {exc}"), None
    return section("done", jsonable(result.as_dict())), result


def build_report(
    target: Any,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    samples: int | None = None,
    seed: int | None = None,
    confidence: float = 0.95,
    plots: bool = True,
    checks: bool = True,
    skip_checks: tuple[str, ...] = (),
    plot_samples: int | None = None,
    proof_timeout: float | None = None,
    env: dict[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The report document of ``target`` (a Mechanism, catalogue name or ``module:attr``).

    Parameters
    ----------
    epsilon, delta : float, optional
        Restate the claim (default: the mechanism's own).
    samples, seed, confidence : as in :func:`dpaudit.audit`
        The seed is drawn and recorded when absent, so every report can be reproduced.
    plots, checks : bool
        Draw the figures / run the implementation checks.
    skip_checks : tuple of str
        Implementation checks not to run (names from :data:`.checks.CHECKS`); listed as skipped.
    plot_samples : int, optional
        Re-sampled outputs per side for the figures (default :data:`.plots.PLOT_SAMPLES`).
    proof_timeout : float, optional
        Seconds after which the proof is abandoned (recorded as an error); no limit by default.
    env : dict, optional
        Environment fields to record instead of the live ones (for reproducible snapshots).
    progress : callable, optional
        Called with the name of each stage of :data:`STAGES` when it is done.

    Returns
    -------
    dict
        JSON-ready, valid against :func:`.model.load_schema`.
    """
    from ..auditor import audit
    from ..auditor.sampling import fresh_seed
    from ..mechanisms.targets import resolve

    started = time.perf_counter()
    # The user's arguments are checked before any work: a bad one is an error, not a report section.
    confidence = check_probability_open("confidence", confidence)
    if samples is not None:
        check_positive_int("samples", samples)
    if seed is not None:
        check_nonnegative_int("seed", seed)
    if plot_samples is not None:
        check_positive_int("plot_samples", plot_samples)
    if proof_timeout is not None:
        check_positive_finite("proof_timeout", proof_timeout)
    from .checks import CHECKS

    if set(skip_checks) - set(CHECKS):
        raise InvalidArgument(f"skip_checks={tuple(skip_checks)!r} must name checks among {', '.join(CHECKS)}")
    tick = progress or (lambda stage: None)
    mechanism = resolve(target, epsilon=epsilon, delta=delta)
    seed = fresh_seed() if seed is None else seed
    claim = mechanism.claim

    proof_section = _proof_section(mechanism, proof_timeout)
    tick("proof")
    audit_section, audit_result = _stage(
        lambda: audit(mechanism, samples=samples, seed=seed, confidence=confidence)
    )
    tick("audit")
    audit_dict = audit_section["result"]
    pair = audit_result.pair if audit_result is not None else (mechanism.pairs[0] if mechanism.pairs else None)

    check_sections: list[dict[str, Any]] = []
    if checks and pair is not None:
        from .checks import implementation_checks

        budget = audit_dict["samples"] if audit_dict else (samples or 100_000)
        check_sections = jsonable(implementation_checks(
            mechanism, pair, samples=budget, seed=seed, confidence=confidence, skip=tuple(skip_checks)))
    tick("checks")

    figures: list[dict[str, Any]] = []
    plot_note = "plots not requested"
    if plots and audit_dict:
        from .plots import PLOT_SAMPLES, all_plots

        try:
            figures = all_plots(mechanism, audit_dict, plot_samples or PLOT_SAMPLES)
            plot_note = ""
        except _STAGE_ERRORS as exc:
            plot_note = f"{type(exc).__name__}: {exc}"
    elif plots:
        plot_note = "no plots: the audit did not complete"
    tick("plots")

    summary = outcome(proof_section, audit_section, check_sections)
    return jsonable({
        "schema_version": SCHEMA_VERSION,
        "kind": KIND,
        "title": f"Privacy audit of {mechanism.name}",
        "mechanism": mechanism.as_dict(),
        "claim": {
            **claim.as_dict(),
            "statement": str(claim),
            "equations": claim_equations(claim.kind),
        },
        "unit_of_privacy": {**mechanism.neighbours.as_dict(), "description": str(mechanism.neighbours)},
        "density": _density_section(mechanism),
        "proof": proof_section,
        "audit": audit_section,
        "implementation": check_sections,
        "plots": {"note": plot_note, "figures": figures},
        "summary": summary,
        "settings": {
            "samples": audit_dict["samples"] if audit_dict else samples,
            "seed": seed,
            "confidence": confidence,
            "plot_samples": min(plot_samples or _plot_default(), audit_dict["samples"]) if audit_dict else None,
            "elapsed_s": round(time.perf_counter() - started, 3),
            "reproduce": _reproduce(mechanism.name, target, epsilon, delta, audit_dict, seed, confidence),
        },
        "environment": env if env is not None else environment(),
    })


def _plot_default() -> int:
    from .plots import PLOT_SAMPLES

    return PLOT_SAMPLES


def _reproduce(name: str, target: Any, epsilon, delta, audit_dict, seed: int, confidence: float) -> str:
    """The command (a named target) or the call (a Mechanism object) that makes this report again."""
    options = {"seed": seed, "confidence": confidence, "samples": audit_dict["samples"] if audit_dict else None,
               "epsilon": epsilon, "delta": delta}
    given = {k: v for k, v in options.items() if v is not None}
    if not isinstance(target, str):
        arguments = ", ".join(f"{k}={v!r}" for k, v in given.items())
        return f"dpaudit.reports.build_report(<the Mechanism {name!r}>, {arguments})"
    flags = " ".join(f"--{k} {v!r}" for k, v in given.items())  # repr: floats exactly
    return f"dpaudit report {target} {flags} -o report.html"
