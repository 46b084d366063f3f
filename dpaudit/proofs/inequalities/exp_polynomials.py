"""The sign of an exponential polynomial on the half line v > 0, for all parameter values.

Preconditions
    F(v) = N(v) / D(v) where N and D are finite sums of terms P(v) e^{a v} (P polynomial in v, a and
    the coefficients expressions in positive parameters, every a a rational multiple of one rate
    alpha whose sign is decided).
Claim
    :func:`nonnegative_on_half_line` returns True only if F(v) >= 0 (> 0 with ``strict``) for every
    v > 0 and all parameters.
Proof
    Substitute v = x / |alpha| and divide by the lowest power of E = e^{x/k} (k the common
    denominator of the rates), a positive factor, so that N = sum_j Q_j(x) E^j with j >= 0.  For x >= 0 the Taylor
    polynomial is a lower bound, e^y >= T_n(y) = sum_{i <= n} y^i / i! (the remainder
    e^{xi} y^{n+1} / (n+1)! is >= 0), so when every Q_j with j >= 1 is >= 0,
    N >= Q_0 + sum_j Q_j T_n(j x / k), a rational function of positive symbols whose sign
    :class:`~dpaudit.proofs.inequalities.signs.SignContext` decides; n = 1, 2, 3, 4, 6 are tried in turn.  sympy
    cannot decide such signs itself once v occurs both inside and outside an exponential
    (x e^{-x}; see :mod:`dpaudit.proofs.inequalities.signs`).
"""

from __future__ import annotations

from typing import Any

from .signs import SignContext, tidy

__all__ = ["nonnegative_on_half_line"]

TAYLOR_ORDERS = (1, 2, 3, 4, 6)


def _taylor(y: Any, n: int) -> Any:
    import sympy

    return sympy.Add(*[y**i / sympy.factorial(i) for i in range(n + 1)])


def _exponential_form(expr: Any, v: Any, context: SignContext) -> tuple[Any, Any, Any] | None:
    """``(polynomial in E and x, E, x)`` with expr(x / |alpha|) e^{-r_min x} = that polynomial, or None."""
    import sympy

    expr = sympy.expand(expr)  # power_exp: exp(a v + b) -> exp(a v) exp(b)
    atoms = [a for a in expr.atoms(sympy.exp) if a.has(v)]
    if not atoms:
        return None
    rates = []
    for atom in atoms:
        argument = sympy.expand(atom.args[0])
        rate = argument.coeff(v)
        if rate.has(v) or tidy(argument - rate * v) != 0:
            return None
        rates.append(rate)
    if context.positive(rates[0]):
        unit = rates[0]
    elif context.positive(-rates[0]):
        unit = -rates[0]
    else:
        return None
    ratios = [tidy(rate / unit) for rate in rates]
    if not all(r.is_Rational for r in ratios):
        return None
    k = sympy.ilcm(*[sympy.Rational(r).q for r in ratios]) if len(ratios) > 1 else sympy.Rational(ratios[0]).q
    x = sympy.Symbol("_x", positive=True)
    e_sym = sympy.Symbol("_E", positive=True)
    # exp(r v) = E^(r k) with E = e^(x/k), x = |alpha| v; then divide by the lowest power of E (> 0)
    powers = {atom: e_sym ** int(ratio * k) for atom, ratio in zip(atoms, ratios)}
    polynomial = sympy.expand(expr.xreplace(powers).xreplace({v: x / unit}))
    lowest = min(term.as_coeff_exponent(e_sym)[1] for term in sympy.Add.make_args(polynomial))
    polynomial = sympy.expand(polynomial / e_sym**lowest)
    if polynomial.has(v) or any(a.has(x) for a in polynomial.atoms(sympy.exp)):
        return None
    return polynomial, e_sym, (x, k)


def _exp_polynomial_nonnegative(expr: Any, v: Any, context: SignContext, strict: bool) -> bool | None:
    import sympy

    decide = context.positive if strict else context.nonnegative
    if not any(a.has(v) for a in sympy.sympify(expr).atoms(sympy.exp)):
        return True if decide(expr) is True else None
    form = _exponential_form(expr, v, context)
    if form is None:
        return None
    polynomial, e_sym, (x, k) = form
    try:
        poly = sympy.Poly(polynomial, e_sym)
    except sympy.PolynomialError:
        return None
    coefficients = {monom[0]: coeff for monom, coeff in zip(poly.monoms(), poly.coeffs())}
    if any(j > 0 and context.nonnegative(q) is not True for j, q in coefficients.items()):
        return None
    for n in TAYLOR_ORDERS:
        bound = sympy.Add(*[q * (_taylor(j * x / k, n) if j > 0 else 1) for j, q in coefficients.items()])
        if decide(bound) is True:
            return True
    return None


def nonnegative_on_half_line(expr: Any, v: Any, context: SignContext, strict: bool = False) -> bool | None:
    """True if ``expr >= 0`` (``> 0`` when ``strict``) for all v > 0 and all parameters, else None."""
    import sympy

    numerator, denominator = sympy.fraction(sympy.together(sympy.sympify(expr)))
    for sign in (1, -1):
        if _exp_polynomial_nonnegative(sign * denominator, v, context, strict=True):
            return _exp_polynomial_nonnegative(sign * numerator, v, context, strict)
    return None
