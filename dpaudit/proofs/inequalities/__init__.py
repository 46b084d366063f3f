"""Deciding inequalities for all parameter values: the algebra under the density and divergence proofs.

sympy alone cannot decide ``exp(epsilon) - 1 > 0`` for positive epsilon, nor the supremum of a log-ratio
with ``Abs`` terms and symbolic parameters; these modules do it the way a person does on paper.  They
take sympy expressions and a :class:`~.signs.SignContext` and know nothing of mechanisms or claims.

* :mod:`.signs` -- the sign of an expression for every parameter value the assumptions allow, by
  re-parametrisation to positive symbols; mpmath evaluation at :data:`~.signs.DIGITS` digits;
* :mod:`.supremum` -- the supremum of a function of one output over the line, by case splitting at the
  breakpoints of its ``Abs``, ``Piecewise``, ``Max`` and ``Min`` terms;
* :mod:`.floor_terms` -- an upper bound of that supremum when floor or ceiling terms occur, by pairing them;
* :mod:`.integer_segments` -- an integer variable's range cut where a pmf's branches change, and signs
  decided on each segment;
* :mod:`.exp_polynomials` -- the sign of an exponential polynomial on the half line v > 0.
"""
