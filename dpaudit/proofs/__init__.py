"""Symbolic proofs: does a declared density keep the mechanism's privacy claim?

``prove(mechanism) -> ProofResult`` returns one of three verdicts, never a false "proved":

* ``proved`` with a :class:`Certificate` -- the derivation steps (sympy expressions, each with its
  justification), valid for all parameter values satisfying the declared assumptions (or, on request,
  for the catalogue instance);
* ``refuted`` with a :class:`Counterexample` -- output (or output set), neighbouring inputs, ratio or
  divergence and parameter values, re-verified with mpmath at 50 digits;
* ``unknown`` with the step that could not be decided.

The package is grouped into rooms, each named after what it proves:

* :mod:`.densities` -- pure, approximate and probabilistic DP of a declared density, from its likelihood
  ratio (finite mechanisms by enumeration, densities under |q - q'| <= Delta by case splitting, the
  hockey-stick divergence, the analytic Gaussian, probabilistic DP and Meiser's post-processing attack);
* :mod:`.divergences` -- zero-concentrated, Rényi and Gaussian DP from the Rényi divergence, and the exact
  privacy loss distribution of subsampled Gaussian steps (accountants checked against it);
* :mod:`.programs` -- mechanisms declared as programs: randomness alignment, exact probabilities,
  counterexamples;
* :mod:`.structures` -- mechanisms declared by their structure: sequential composition, admissible
  noise, the Wishart mechanism, DP-SGD's Gaussian steps;
* :mod:`.theorems` -- composition, group privacy and post-processing as checked steps;
* :mod:`.inequalities` -- deciding signs and suprema for all parameter values, the algebra under the
  density and divergence proofs.

At the top: :mod:`.prove` (the entry point), :mod:`.procedures` (the interface every room's procedure
meets, and the registry), :mod:`.result` (certificates, counterexamples, verdicts), :mod:`.budget` (the
time budget) and :mod:`.declarations` (a mechanism's declarations against its density's).  This package
never imports :mod:`dpaudit.auditor`.

The registration below is the order in which :func:`prove` asks the procedures; the first that applies
decides (:mod:`.procedures` says why this order).
"""

from __future__ import annotations

from .densities.procedure import DensityProcedure
from .divergences.procedure import PrivacyCurveProcedure, RenyiDivergenceProcedure
from .procedures import ProofProcedure, ProofRequest, register_procedure, registered_procedures, unregister_procedure
from .programs.procedure import ProgramProcedure
from .prove import DEFAULT_TIME_BUDGET, check_provable, prove
from .result import Certificate, Counterexample, ProofResult, Step, Verdict, expression_dict
from .structures.procedure import StructureProcedure
from .theorems.composition import Composition, CompositionProcedure
from .theorems.rules import TheoremNotApplicable

__all__ = [
    "DEFAULT_TIME_BUDGET",
    "Certificate",
    "Composition",
    "Counterexample",
    "ProofProcedure",
    "ProofRequest",
    "ProofResult",
    "Step",
    "TheoremNotApplicable",
    "Verdict",
    "check_provable",
    "expression_dict",
    "prove",
    "register_procedure",
    "registered_procedures",
    "unregister_procedure",
]

register_procedure(CompositionProcedure())
register_procedure(StructureProcedure())
register_procedure(ProgramProcedure())
register_procedure(PrivacyCurveProcedure())
register_procedure(RenyiDivergenceProcedure())
register_procedure(DensityProcedure())
