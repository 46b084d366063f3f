"""Assemble the report document from its parts: the mechanism, the proof and audit envelopes, the checks.

Both ways of making a report end here: :func:`.build.build_report` (prove and audit now) and
:func:`.from_audit.report_from_audit` (an audit computed before, e.g. by the pytest plugin).  This
module adds what depends only on the mechanism (claim equations, unit of privacy, declared density)
and on the audit (the figures), combines the verdicts and returns the JSON-ready dict of
:mod:`.model`.
"""

from __future__ import annotations

from typing import Any

from .._codec import to_json
from ..errors import DPAuditError
from .model import KIND, SCHEMA_VERSION, claim_equations, environment, outcome

__all__ = ["STAGE_ERRORS", "assemble", "density_section", "plots_section"]

# What a failing stage may raise and still leave a report (recorded in its section, not raised).
STAGE_ERRORS = (DPAuditError, ArithmeticError, ValueError, TypeError, NotImplementedError, RuntimeError)


def density_section(mechanism: Any) -> dict[str, Any] | None:
    """The declared density p(y | q) as an equation; ``equation`` is None if it cannot be built."""
    if mechanism.density is None:
        return None
    import sympy

    from ..proofs import expression_dict

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


def _unit_of_privacy(mechanism: Any, audited: dict[str, Any] | None) -> dict[str, Any]:
    """The relation the claim was audited under, as the audit records it (``audited``: the audit's
    ``as_dict()``): the relation given to the audit, inferred from its pair or the mechanism's own, with
    the audit's statement of it; a pair audited as given keeps the mechanism's relation and says so.
    Without an audit, or when it used the mechanism's own relation, that relation as the mechanism states it."""
    used = (audited or {}).get("neighbours")
    own = mechanism.neighbours.as_dict()
    if not used or used.get("source") == "mechanism":
        return {**own, "description": str(mechanism.neighbours)}
    return {**(used["relation"] or own), "description": used["statement"]}


def plots_section(mechanism: Any, audit: dict[str, Any] | None, plots: bool, plot_samples: int,
                  certificate: dict[str, Any] | None = None) -> dict[str, Any]:
    """``{"note", "figures"}``: the figures of :mod:`.plots` drawn from a fresh re-sample of the audited pair
    (with the certified upper bound of ``certificate``, a ``CertifyResult.as_dict()``, where there is one)."""
    if not plots:
        return {"note": "plots not requested", "figures": []}
    if not audit:
        return {"note": "no plots: the audit did not complete", "figures": []}
    from .plots import all_plots

    try:
        return {"note": "", "figures": all_plots(mechanism, audit, plot_samples, certificate)}
    except STAGE_ERRORS as exc:
        return {"note": f"{type(exc).__name__}: {exc}", "figures": []}


def assemble(
    mechanism: Any,
    *,
    proof: dict[str, Any],
    audit: dict[str, Any],
    implementation: list[dict[str, Any]],
    plots: dict[str, Any],
    settings: dict[str, Any],
    env: dict[str, Any] | None = None,
    certificate: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The report document (valid against :func:`.model.load_schema`) from its evaluated sections
    (``certificate``: the envelope of :func:`.certificate.certificate_section`, absent when not asked for)."""
    claim = mechanism.claim
    evidence = {} if certificate is None else {"certificate": certificate}
    return to_json({
        "schema_version": SCHEMA_VERSION,
        "kind": KIND,
        "title": f"Privacy audit of {mechanism.name}",
        "mechanism": mechanism.as_dict(),
        "claim": {**claim.as_dict(), "statement": str(claim), "equations": claim_equations(claim.kind)},
        "unit_of_privacy": _unit_of_privacy(mechanism, audit.get("result")),
        "density": density_section(mechanism),
        "proof": proof,
        "audit": audit,
        **evidence,
        "implementation": implementation,
        "plots": plots,
        "summary": outcome(proof, audit, implementation, certificate),
        "settings": settings,
        "environment": env if env is not None else environment(),
    })
