"""Pure, approximate and probabilistic DP of a declared density, from its likelihood ratio.

A mechanism declares its output density p(y | q) as a sympy expression
(:class:`~dpaudit.mechanisms.density.SymbolicDensity`).  The ``density`` procedure (:mod:`.procedure`)
reads it (:mod:`.declared`: built, checked, at its instance, normalised) and routes it to the module that
decides the claim for that shape of density, for all parameter values the declared assumptions allow:

* pure DP -- :mod:`.query_density` (real or integer outputs, neighbours ``||q - q'|| <= Delta``),
  :mod:`.finite` (a finite input domain, by enumeration), :mod:`.finite_query` (finitely many outputs of
  query inputs, by the mediant inequality) and :mod:`.linear_statistic` (inputs seen through one linear
  statistic);
* approximate DP -- :mod:`.hockey_stick` (the exact hockey-stick divergence of a finite mechanism) and
  :mod:`.gaussian` (the analytic delta(epsilon) of the normal density);
* probabilistic DP -- :mod:`.probabilistic` (the bad set of a finite mechanism),
  :mod:`.product_probabilistic` (a product pmf whose neighbours differ in one factor) and
  :mod:`.postprocessing` (a post-processing map that breaks it, Meiser 2018);
* shared -- :mod:`.outputs` (the outputs and inputs of a discrete density) and :mod:`.verify` (the
  declared density evaluated with mpmath: counterexamples re-verified, the normalisation checked).

The inequalities they reduce to are decided by :mod:`dpaudit.proofs.inequalities`.
"""
