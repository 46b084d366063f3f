"""dpaudit: does your differential-privacy mechanism keep its promise?

Three verbs on one object::

    mechanism --prove()-->  ProofResult   (proved / refuted with a counterexample / unknown)
    mechanism --audit()-->  AuditResult   (epsilon lower bound with confidence; pass / violation)
    results   --report()--> Report        (JSON, Markdown, HTML)

Importing dpaudit is light: numpy only.  sympy, scipy, statsmodels and matplotlib are loaded when a
proof, an audit or a report actually runs.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

from .claims import ApproxDP, Claim, ProbabilisticDP, PureDP
from .errors import (
    DPAuditError,
    InvalidArgument,
    InvalidDataset,
    MechanismError,
    NotNeighbouring,
    UnknownMechanism,
)
from .mechanisms.base import Mechanism
from .mechanisms.registry import catalogue, get, names
from .mechanisms.targets import resolve
from .neighbours import AddRemove, Local, NeighbourRelation, QueryDistance, Replace

__version__ = "0.1.0"

# Heavy entry points, imported on first use (PEP 562) so `import dpaudit` stays light.
_LAZY = {
    "prove": "dpaudit.proofs",
    "ProofResult": "dpaudit.proofs",
    "audit": "dpaudit.auditor",
    "AuditResult": "dpaudit.auditor",
    "SymbolicDensity": "dpaudit.mechanisms.density",
}

__all__ = [
    "AddRemove",
    "ApproxDP",
    "Claim",
    "DPAuditError",
    "InvalidArgument",
    "InvalidDataset",
    "Local",
    "Mechanism",
    "MechanismError",
    "NeighbourRelation",
    "NotNeighbouring",
    "ProbabilisticDP",
    "PureDP",
    "QueryDistance",
    "Replace",
    "UnknownMechanism",
    "__version__",
    "catalogue",
    "get",
    "names",
    "resolve",
    *sorted(_LAZY),
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dpaudit' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
