"""The report document: one JSON-serialisable dict per mechanism, with a versioned schema.

The sections follow the evaluation pyramid of NIST SP 800-226 (*Guidelines for Evaluating
Differential Privacy Guarantees*, 2025, Sect. 2-4): what is promised comes first, then the evidence
from the strongest to the weakest, then what is needed to reproduce it::

    schema_version, kind, title
    mechanism            name, family, description, source, flaw (catalogue data)
    claim                the privacy promise: kind, epsilon, delta, the inequality as an equation
    unit_of_privacy      the neighbour relation the claim is stated for
    density              the declared output density p(y | q), when the mechanism has one
    proof                ProofResult.as_dict() (certificate steps or counterexample)
    audit                AuditResult.as_dict() (pair, event, counts, bounds, method, confidence, seed,
                         the leak ``findings``, the sequential ``stopping`` record, the ``run``)
    certificate          (optional) CertifyResult.as_dict() on the audited pair, for a mechanism with a
                         one-run sampler, and the ``bracket``: audited lower bound <= epsilon <= certified
                         upper bound
    implementation       one entry per implementation check: the audit's leak findings (lattice,
                         float-support, correlated-noise) and the sensitivity falsification
    plots                figures as SVG text with their captions
    summary              the verdicts side by side, the overall outcome and its exit code
    settings             the budget and seed the report was generated with
    environment          dpaudit, numpy, python versions, platform, UTC datetime

Every evidence section has the same envelope ``{"status": "done" | "error" | "skipped", "result":
dict | None, "note": str}`` so that a failure of one stage is recorded, not hidden (an implementation
check's envelope also names the check and its ``source``: "audit" or "report").  The JSON Schema
of this document ships beside this module (``schema/report.schema.json``); ``SCHEMA_VERSION`` changes
whenever the shape does.
"""

from __future__ import annotations

import datetime as _datetime
import json
import platform
import sys
from importlib import resources
from typing import Any

from .._version import __version__

__all__ = [
    "EXIT_CODES",
    "SCHEMA_VERSION",
    "claim_equations",
    "environment",
    "in_process",
    "load_schema",
    "outcome",
    "section",
    "support_status",
]

SCHEMA_VERSION = "2.0"
KIND = "dpaudit-report"

# Overall outcome -> CLI exit code (see dpaudit.cli): 0 pass/proved, 1 violation/refuted, 3 unknown.
EXIT_CODES = {"pass": 0, "violation": 1, "unknown": 3}

_FAILING = {"refuted", "violation"}
_POSITIVE = {"proved", "certified", "pass"}


def section(status: str, result: dict[str, Any] | None = None, note: str = "") -> dict[str, Any]:
    """The common envelope of an evidence section: ``status`` is "done", "error" or "skipped"."""
    if status not in ("done", "error", "skipped"):
        raise ValueError(f"status={status!r} must be one of 'done', 'error', 'skipped'")
    return {"status": status, "result": result, "note": note}


def outcome(proof: dict[str, Any], audit: dict[str, Any], checks: list[dict[str, Any]],
            certificate: dict[str, Any] | None = None) -> dict[str, Any]:
    """Combine the verdicts: any refutation or violation wins, then any proof, certificate or pass, else unknown.

    * ``violation`` (exit 1): the proof or the certificate is refuted, the audit found a violation, or an
      implementation check found a leak -- each is evidence against the claim on its own.
    * ``pass`` (exit 0): nothing failed and the claim was proved, certified or the audit passed.
    * ``unknown`` (exit 3): nothing failed and nothing positive was established (unknown proof,
      underpowered audit, errors).
    """
    verdicts = {
        "proof": _verdict(proof),
        "audit": _verdict(audit),
        **({"certificate": _verdict(certificate)} if certificate and certificate.get("status") != "skipped" else {}),
        **{f"check:{c.get('name', '?')}": _verdict(c) for c in checks},
    }
    values = set(verdicts.values())
    overall = "violation" if values & _FAILING else ("pass" if values & _POSITIVE else "unknown")
    return {"verdicts": verdicts, "overall": overall, "exit_code": EXIT_CODES[overall]}


def _verdict(envelope: dict[str, Any]) -> str:
    if envelope.get("status") != "done" or not envelope.get("result"):
        return envelope.get("status", "skipped")
    return str(envelope["result"].get("verdict", "unknown"))


def in_process(run: dict[str, Any]) -> bool:
    """Whether the audit's sampling ran in the calling process (its worker count is then moot)."""
    return run.get("executor") == "in-process" or "in process" in str(run.get("executor", ""))


def support_status(finding: dict[str, Any]) -> str:
    """Whether a leak finding proves P_b(S) = 0 (an infinite privacy loss), only observed it, or neither.

    ``proven_empty``: the exact float replay or the ulp-lattice lemma shows no output of M(b) lies
    in S (Mironov 2012); ``support_mismatch`` alone: no output of M(b) fell in S on the samples.
    """
    if finding.get("proven_empty"):
        return "proved"
    return "observed, not proved" if finding.get("support_mismatch") else "no"


def claim_equations(kind: str) -> list[dict[str, str]]:
    """The claim's defining inequalities as text, LaTeX and presentation MathML (printed by sympy).

    The inequalities are the ``definition()`` of the claim class of that ``kind``
    (:func:`dpaudit.claims.claim_class`): for pure and approximate DP P_D(S) <= e^epsilon P_D'(S) + delta
    for every set S of outputs (Dwork & Roth 2014, Def. 2.4), for the other kinds their own definitions.
    Each equation carries a ``legend`` saying what its symbols mean.
    """
    from ..claims import claim_class
    from ..proofs import expression_dict

    return [{**expression_dict(relation), "legend": legend} for relation, legend in claim_class(kind).definition()]


def environment() -> dict[str, Any]:
    """What is needed to reproduce the report: versions, platform and the UTC time it was made."""
    from importlib.metadata import PackageNotFoundError, version

    import numpy

    def installed(name: str) -> str | None:
        try:
            return version(name)
        except PackageNotFoundError:
            return None

    return {
        "dpaudit": __version__,
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "numpy": numpy.__version__,
        "scipy": installed("scipy"),
        "sympy": installed("sympy"),
        "statsmodels": installed("statsmodels"),
        "matplotlib": installed("matplotlib"),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "byteorder": sys.byteorder,
        "datetime_utc": _datetime.datetime.now(_datetime.timezone.utc).isoformat(timespec="seconds"),
    }


def load_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the report document, shipped as package data."""
    text = resources.files("dpaudit.reports").joinpath("schema/report.schema.json").read_text("utf-8")
    return json.loads(text)
