"""Proof procedures: the one interface through which :func:`dpaudit.prove` reaches the proofs of each room.

A **proof procedure** (:class:`ProofProcedure`) decides the claims of one kind of declaration.
``applies(mechanism, claim)`` says whether it is the procedure to ask; ``decide(mechanism, claim, request)``
returns the :class:`~dpaudit.proofs.result.ProofResult`: ``proved`` with a certificate, ``refuted`` with a
re-verified counterexample, or ``unknown`` with the step that could not be decided.  :func:`dpaudit.prove`
checks its arguments, asks the registered procedures in registration order and runs the first that
applies; when none applies, the mechanism declares nothing a procedure can read (InvalidArgument).

The procedures of :mod:`dpaudit.proofs`, registered in this order by its ``__init__``:

1. ``composition`` -- a :class:`~dpaudit.proofs.theorems.composition.Composition`: each part proved,
   then the sequential or parallel composition theorem (:mod:`.theorems.composition`);
2. ``structure`` -- no density, a declared ``structure``: the theorem rule of its kind, chained in the
   certificate (:mod:`.structures.procedure`);
3. ``program`` -- no density, a declared ``program``: randomness alignment, else a counterexample with
   exact probabilities (:mod:`.programs.procedure`);
4. ``privacy-curve`` -- a density and a tabulated :class:`~dpaudit.claims.PrivacyCurve`: each point as
   (epsilon_i, delta_i)-DP (:mod:`.divergences.procedure`);
5. ``renyi-divergence`` -- a density and another curve claim (zCDP, RDP, GDP): the closed-form Rényi
   divergence (:mod:`.divergences.procedure`);
6. ``density`` -- a density and a pure, approximate or probabilistic claim: the likelihood ratio, routed
   by the density's shape (:mod:`.densities.procedure`).

The first that applies decides: a mechanism without a density that declares both a structure and a
program is proved from its structure, and a privacy curve is taken point by point before any other curve
claim.  A procedure that proves parts (a composition's, a structure's, a curve's points) calls
``request.prove``, the entry point itself, so no room imports :mod:`.prove`.

A procedure of one's own, for a declaration no room reads, joins after these (a procedure of the same
name is replaced in place)::

    from dpaudit.proofs import ProofResult, Verdict, register_procedure

    class Declined:
        name = "declined"
        def applies(self, mechanism, claim):
            return getattr(mechanism, "declined", False)
        def decide(self, mechanism, claim, request):
            return ProofResult(mechanism.name, claim.as_dict(), Verdict.UNKNOWN, "declined", "none")

    register_procedure(Declined())
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .._registry import Registry

if TYPE_CHECKING:
    from ..claims import Claim
    from .result import ProofResult

__all__ = [
    "ProofProcedure",
    "ProofRequest",
    "register_procedure",
    "registered_procedures",
    "unregister_procedure",
]


@dataclass(frozen=True)
class ProofRequest:
    """What :func:`dpaudit.prove` was asked besides the mechanism and the claim.

    Attributes
    ----------
    numeric : bool
        Check the catalogue instance's parameter values only, instead of all parameter values.
    time_budget : float or None
        Seconds the proof may take (``None``: no limit of its own; an enclosing budget still holds).
    start : float
        ``time.perf_counter()`` when :func:`dpaudit.prove` was called; a result's ``elapsed_s`` counts from it.
    restated : bool
        The claim was passed explicitly, a restatement of the mechanism's own (:mod:`.declarations`).
    prove : callable
        :func:`dpaudit.prove` itself, for procedures that prove parts.
    """

    numeric: bool
    time_budget: float | None
    start: float
    restated: bool
    prove: Callable[..., ProofResult]


@runtime_checkable
class ProofProcedure(Protocol):
    """A way of deciding the claims of one kind of declaration (see the module docstring)."""

    name: str

    def applies(self, mechanism: Any, claim: Claim) -> bool:
        """Whether this procedure decides ``claim`` for ``mechanism`` (a Mechanism or a Composition)."""

    def decide(self, mechanism: Any, claim: Claim, request: ProofRequest) -> ProofResult:
        """The verdict, with its certificate or counterexample, timed from ``request.start``."""


_PROCEDURES: Registry[ProofProcedure] = Registry("proof procedure", ("name", "applies", "decide"),
                                                 "dpaudit.proofs.procedures")


def register_procedure(procedure: ProofProcedure) -> ProofProcedure:
    """Add ``procedure`` to those :func:`dpaudit.prove` asks, after the ones registered before it.

    A procedure of the same name is replaced in place.  Returns the procedure.
    """
    return _PROCEDURES.register(procedure)


def unregister_procedure(name: str) -> None:
    """Remove the procedure called ``name``; an unknown name is an error."""
    _PROCEDURES.unregister(name)


def registered_procedures() -> tuple[ProofProcedure, ...]:
    """The registered procedures, in the order :func:`dpaudit.prove` asks them."""
    return _PROCEDURES.items()
