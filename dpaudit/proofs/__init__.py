"""Symbolic proofs: does a declared density keep the mechanism's privacy claim?

``prove(mechanism) -> ProofResult`` returns one of three verdicts, never a false "proved":

* ``proved`` with a :class:`Certificate` -- the derivation steps (sympy expressions, each with its
  justification), valid for all parameter values satisfying the declared assumptions (or, on request,
  for the catalogue instance);
* ``refuted`` with a :class:`Counterexample` -- output (or output set), neighbouring inputs, ratio or
  divergence and parameter values, re-verified with mpmath at 50 digits;
* ``unknown`` with the step that could not be decided.

Modules: :mod:`.query_density` (pure DP of densities under |q - q'| <= Delta), :mod:`.supremum`
(case splitting over the output line), :mod:`.finite` and :mod:`.finite_query` (discrete mechanisms),
:mod:`.hockey_stick` and :mod:`.gaussian` (approximate DP), :mod:`.probabilistic` and
:mod:`.postprocessing` (probabilistic DP and Meiser's post-processing attack), :mod:`.theorems`
(composition, group privacy, post-processing rules), :mod:`.signs` (deciding signs for all parameters),
:mod:`.verify` (mpmath re-verification), :mod:`.privacy_loss` (the exact privacy loss distribution of
composed subsampled Gaussian steps, and accountants checked against it).  This package never imports :mod:`dpaudit.auditor`.
"""

from __future__ import annotations

from .prove import prove
from .result import Certificate, Counterexample, ProofResult, Step, Verdict
from .theorems import Composition, TheoremNotApplicable

__all__ = [
    "Certificate",
    "Composition",
    "Counterexample",
    "ProofResult",
    "Step",
    "TheoremNotApplicable",
    "Verdict",
    "prove",
]
