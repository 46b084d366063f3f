"""The certificate beside an audit: :func:`dpaudit.certify` on the pair the audit ran on, at the claim it
audited, for a Mechanism with a one-run sampler (``Mechanism.one_run``: the catalogue's discrete entries).

Together they bracket the truth: audited lower bound <= epsilon <= certified upper bound (DESIGN.md,
"Three verbs").  The certificate is evidence of its own and never changes the audit's verdict; a
certification that fails or finds no bound within :data:`CERTIFY_TIME_LIMIT` says so in one line.
``dpaudit audit`` prints the bracket, the report shows the certificate in its own section.
"""

from __future__ import annotations

from typing import Any

from ..errors import DPAuditError
from ..mechanisms import Mechanism

__all__ = ["CERTIFY_TIME_LIMIT", "certificate_section", "certify_audited"]

CERTIFY_TIME_LIMIT = 10.0
"""Seconds of enumeration per input when a certificate accompanies an audit (``certify()``'s default is 30)."""

# What a certification may raise and leave the audit (or report) standing: one line says why.
_CERTIFY_ERRORS = (DPAuditError, ArithmeticError, ValueError, TypeError, NotImplementedError, RuntimeError,
                   RecursionError)


def certify_audited(target: Any, audit: Any, time_limit: float = CERTIFY_TIME_LIMIT) -> tuple[Any, str]:
    """``certify(mechanism, pair=audit.pair, claim=audit.point_claim())`` when ``target`` is a Mechanism (or
    names one) with a one-run sampler.

    ``audit`` is the :class:`~dpaudit.auditor.AuditResult`.  Returns ``(CertifyResult, "")``; ``(None, why)``
    when the certification raised; ``(None, "")`` when it does not apply (a plain function, a library
    object, a Mechanism whose sampler is vectorised only).
    """
    from ..certifier import certify
    from ..targets import load_target

    try:
        mechanism = load_target(target) if isinstance(target, str) else target
    except _CERTIFY_ERRORS:
        return None, ""
    if not isinstance(mechanism, Mechanism) or mechanism.one_run is None:
        return None, ""
    try:
        # both ends see the same: the number of draws too when the audit's bound came from it
        seen_draws = any(getattr(finding, "check", None) == "draw-count" for finding in getattr(audit, "findings", ()))
        observe = "draws" if seen_draws else "output"
        result = certify(mechanism, pair=tuple(audit.pair), claim=audit.point_claim(), time_limit=time_limit,
                         observe=observe)
    except _CERTIFY_ERRORS as exc:
        return None, f"{type(exc).__name__}: {exc}"
    return result, ""


def certificate_section(target: Any, audit: Any, time_limit: float = CERTIFY_TIME_LIMIT) -> dict[str, Any] | None:
    """The report's ``certificate`` envelope: ``done`` with ``CertifyResult.as_dict()`` and the bracket,
    ``error`` with why, ``skipped`` when the audit that gives the pair did not complete; None when there is
    nothing to certify (no one-run sampler: the report then has no certificate section)."""
    from .model import section

    if getattr(target, "one_run", None) is None:
        return None
    if audit is None:
        return section("skipped", None, "no certificate: the audit did not complete (it gives the pair to certify)")
    result, why = certify_audited(target, audit, time_limit)
    if result is not None:
        envelope = section("done", result.as_dict())
        envelope["bracket"] = {
            "text": result.bracket(audit.epsilon_lower_bound),
            "audited_low": audit.epsilon_lower_bound,
            "confidence": audit.confidence,
            "certified_low": result.epsilon_low,
            "certified_up": result.epsilon_up,
            "delta_up": result.delta_up,
            "time_limit": time_limit,
        }
        return envelope
    if why:
        return section("error", None, f"the certification did not complete: {why}")
    return None
