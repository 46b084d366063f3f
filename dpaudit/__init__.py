"""dpaudit: does your differential-privacy mechanism keep its promise?

Four verbs on one object::

    mechanism --prove()-->   ProofResult    (the declared model: proved / refuted with a counterexample / unknown)
    mechanism --certify()--> CertifyResult  (the code itself, discrete samplers: exact path enumeration,
                                             epsilon bounded from above; certified / refuted / unknown)
    mechanism --audit()-->   AuditResult    (epsilon lower bound with confidence; pass / violation)
    results   --report()--> Report        (JSON, Markdown, HTML)

Importing dpaudit costs nothing: every public name is loaded on first use (PEP 562), so the pytest
plugin adds no import time to a test run that audits nothing.  numpy comes with the first mechanism;
sympy, scipy, statsmodels and matplotlib only when a proof, an audit or a report actually runs.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._version import __version__

# public name -> module that defines it, or "module:name" where the public name is another
_PUBLIC = {
    "ApproxDP": "dpaudit.claims",
    "Claim": "dpaudit.claims",
    "GaussianDP": "dpaudit.claims",
    "PrivacyCurve": "dpaudit.claims",
    "ProbabilisticDP": "dpaudit.claims",
    "PureDP": "dpaudit.claims",
    "RenyiDP": "dpaudit.claims",
    "ZeroConcentratedDP": "dpaudit.claims",
    "DPAuditError": "dpaudit.errors",
    "DPAuditWarning": "dpaudit.errors",
    "DeclarationMismatchWarning": "dpaudit.errors",
    "InvalidArgument": "dpaudit.errors",
    "InvalidDataset": "dpaudit.errors",
    "MechanismError": "dpaudit.errors",
    "NotNeighbouring": "dpaudit.errors",
    "UnderpoweredWarning": "dpaudit.errors",
    "UnknownMechanism": "dpaudit.errors",
    "AddRemove": "dpaudit.neighbours",
    "Canary": "dpaudit.neighbours",
    "Local": "dpaudit.neighbours",
    "NeighbourRelation": "dpaudit.neighbours",
    "QueryDistance": "dpaudit.neighbours",
    "Replace": "dpaudit.neighbours",
    "Mechanism": "dpaudit.mechanisms.base",
    "StepwiseRelease": "dpaudit.mechanisms.base",
    "SymbolicDensity": "dpaudit.mechanisms.density",
    "Noise": "dpaudit.mechanisms.programs",
    "NoisyMaxProgram": "dpaudit.mechanisms.programs",
    "ThresholdProgram": "dpaudit.mechanisms.programs",
    "noisy_max_program": "dpaudit.mechanisms.programs",
    "threshold_program": "dpaudit.mechanisms.programs",
    "AdmissibleNoise": "dpaudit.mechanisms.structure",
    "GaussianSteps": "dpaudit.mechanisms.structure",
    "Part": "dpaudit.mechanisms.structure",
    "SequentialComposition": "dpaudit.mechanisms.structure",
    "WishartNoise": "dpaudit.mechanisms.structure",
    "certify": "dpaudit.certifier",
    "CertifyResult": "dpaudit.certifier",
    "CertifyVerdict": "dpaudit.certifier:Verdict",
    "catalogue": "dpaudit.mechanisms.registry",
    "get": "dpaudit.mechanisms.registry",
    "names": "dpaudit.mechanisms.registry",
    "resolve": "dpaudit.targets",
    "prove": "dpaudit.proofs",
    "ProofResult": "dpaudit.proofs",
    "ProofVerdict": "dpaudit.proofs:Verdict",
    "audit": "dpaudit.auditor",
    "AuditResult": "dpaudit.auditor",
    "Verdict": "dpaudit.auditor",
    "AuditConfig": "dpaudit.auditor",
    "EmpiricalCurve": "dpaudit.auditor",
    "report": "dpaudit.reports",
}

# names that moved to a namespace of their own: still read here, with a DeprecationWarning saying where
_MOVED = {name: "dpaudit.extend" for name in
          ("BaseFamily", "EventFamily", "Scored", "SearchContext", "register_family", "unregister_family")}

__all__ = ["__version__", *sorted(_PUBLIC)]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .auditor import AuditConfig, AuditResult, EmpiricalCurve, Verdict, audit
    from .certifier import CertifyResult, certify
    from .certifier import Verdict as CertifyVerdict
    from .claims import ApproxDP, Claim, GaussianDP, PrivacyCurve, ProbabilisticDP, PureDP, RenyiDP, ZeroConcentratedDP
    from .errors import (
        DPAuditError,
        DPAuditWarning,
        DeclarationMismatchWarning,
        InvalidArgument,
        InvalidDataset,
        MechanismError,
        NotNeighbouring,
        UnderpoweredWarning,
        UnknownMechanism,
    )
    from .mechanisms.base import Mechanism
    from .mechanisms.density import SymbolicDensity
    from .mechanisms.programs import Noise, NoisyMaxProgram, ThresholdProgram, noisy_max_program, threshold_program
    from .mechanisms.registry import catalogue, get, names
    from .mechanisms.structure import AdmissibleNoise, GaussianSteps, Part, SequentialComposition, WishartNoise
    from .neighbours import AddRemove, Canary, Local, NeighbourRelation, QueryDistance, Replace
    from .proofs import ProofResult, prove
    from .proofs import Verdict as ProofVerdict
    from .reports import report
    from .targets import resolve


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        import warnings

        warnings.warn(f"dpaudit.{name} is deprecated: import it from {_MOVED[name]}", DeprecationWarning, stacklevel=2)
        return getattr(import_module(_MOVED[name]), name)
    if name in _PUBLIC:
        module, _, defined_as = _PUBLIC[name].partition(":")
        value = getattr(import_module(module), defined_as or name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dpaudit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
