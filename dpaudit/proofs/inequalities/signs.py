"""Deciding the sign of an expression for ALL parameter values satisfying the assumptions.

sympy cannot decide ``exp(epsilon) - 1 > 0`` for positive epsilon, nor use an assumption such as
``p < 1`` (sympy 1.14: ``exp(e) - 1`` has ``is_positive`` None for positive e, and
``refine(Abs(u - 1), Q.le(u, 1))`` stays unevaluated).  Both are removed by re-parametrisation, after
which the sign of a rational function of positive symbols is read off its factors:

* each positive parameter P that occurs in an exponent as ``c * P`` (c rational) becomes
  ``P = k log(1 + t)`` with t > 0 and k the common denominator of the c, so ``exp(P / k) = 1 + t``;
* an assumption ``P < c`` (c > 0) becomes ``P = c r / (1 + r)`` with r > 0, and ``P > c`` becomes
  ``P = c + r``; for ``P <= c`` and ``P >= c`` the sign is decided again at P = c, and an answer
  stands only when it holds there too.

:meth:`SignContext.nonnegative` answers True (proved for all parameters), False (negative for all
parameters) or None (undecided).  :meth:`SignContext.negative_point` searches parameter values where an
expression is negative, evaluated with mpmath at :data:`DIGITS` digits, for counterexamples.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any


__all__ = ["DIGITS", "SignContext", "canonical", "is_zero", "tidy"]

DIGITS = 50

# Parameter values tried (after the instance) when searching a counterexample: a log-spaced grid.
_TRIAL_VALUES = ("1/1000", "1/20", "1/4", "1/2", "9/10", "1", "2", "5", "20")


def _rational_exponent_coefficients(expr: Any, parameter: Any) -> list[Any] | None:
    """The coefficients c of ``parameter`` in every exponent ``exp(c * parameter + ...)``; None if not rational."""
    import sympy

    coefficients = []
    for atom in expr.atoms(sympy.exp):
        argument = sympy.expand(atom.args[0])
        if not argument.has(parameter):
            continue
        c = argument.coeff(parameter)
        rest = sympy.expand(argument - c * parameter)
        if not c.is_Rational or rest.has(parameter):
            return None
        coefficients.append(c)
    return coefficients


@dataclass
class SignContext:
    """Parameters, their assumptions, and the decisions made under them.

    Parameters
    ----------
    parameters : tuple of sympy.Symbol
        The free parameters (each declared with its assumptions, e.g. ``positive=True``).
    assumptions : tuple of sympy relationals
        Extra constraints (``p < 1``, ``epsilon < 1``).
    instance : dict
        The catalogue values, tried first when searching a counterexample.
    hints : tuple of (a, b)
        Input pairs (query values) the mechanism's author recommends, tried first at the instance.
    """

    parameters: tuple[Any, ...]
    assumptions: tuple[Any, ...] = ()
    instance: dict[Any, Any] = field(default_factory=dict)
    hints: tuple[tuple[Any, Any], ...] = ()
    _cache: dict[Any, bool | None] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        import sympy

        self._bounds: dict[Any, tuple[str, Any]] = {}
        self._closed: dict[Any, Any] = {}  # parameter -> the value its non-strict bound lets it take
        for assumption in self.assumptions:
            relation = sympy.sympify(assumption)
            inequalities = (sympy.StrictLessThan, sympy.LessThan, sympy.StrictGreaterThan, sympy.GreaterThan)
            if not isinstance(relation, inequalities):  # Eq / Ne / others give no range to use
                continue
            lhs, rhs = relation.lhs, relation.rhs
            closed = isinstance(relation, (sympy.LessThan, sympy.GreaterThan))
            if lhs.is_Symbol and rhs.is_number and lhs.is_positive and rhs.is_positive:
                kind = "below" if isinstance(relation, (sympy.StrictLessThan, sympy.LessThan)) else "above"
                self._bounds[lhs] = (kind, rhs)
                if closed:
                    self._closed[lhs] = rhs
            elif rhs.is_Symbol and lhs.is_number and rhs.is_positive and lhs.is_positive:
                kind = "above" if isinstance(relation, (sympy.StrictLessThan, sympy.LessThan)) else "below"
                self._bounds[rhs] = (kind, lhs)
                if closed:
                    self._closed[rhs] = lhs

    # -- re-parametrisation -------------------------------------------------------------------
    def _substitution(self, expr: Any) -> dict[Any, Any]:
        import sympy

        substitution: dict[Any, Any] = {}
        for parameter in expr.free_symbols:
            if not parameter.is_positive:
                continue
            bound = self._bounds.get(parameter)
            coefficients = _rational_exponent_coefficients(expr, parameter)
            fresh = sympy.Symbol(f"_{parameter.name}_t", positive=True)
            if coefficients and bound is None:
                k = sympy.ilcm(*[sympy.Rational(c).q for c in coefficients]) if len(coefficients) > 1 else sympy.Rational(coefficients[0]).q
                substitution[parameter] = k * sympy.log(1 + fresh)
            elif bound is not None and not coefficients:
                kind, c = bound
                substitution[parameter] = c * fresh / (1 + fresh) if kind == "below" else c + fresh
        return substitution

    def reduce(self, expr: Any) -> Any:
        """``expr`` re-parametrised and brought to one fraction, factored."""
        import sympy

        expr = sympy.sympify(expr)
        substitution = self._substitution(expr)
        if substitution:
            expr = expr.subs(substitution)
        expr = sympy.powsimp(sympy.expand_power_base(expr, force=True))
        try:
            return sympy.factor(sympy.together(expr))
        except sympy.PolynomialError:
            return sympy.simplify(expr)

    def nonnegative(self, expr: Any) -> bool | None:
        """True if ``expr >= 0`` for all parameters, False if ``expr < 0`` for all, else None."""
        import sympy

        expr = sympy.sympify(expr)
        if expr in self._cache:
            return self._cache[expr]
        answer = self._decide(expr)
        # The re-parametrisation P = c r / (1 + r) or P = c + r (r > 0) covers the open range only: a
        # non-strict bound (``tau >= 2``) lets P equal c, where the sign is decided again; the answer
        # stands only if it holds there too (``tau - 2 > 0`` is undecided under ``tau >= 2``).
        for parameter, edge in self._closed.items():
            if answer is None:
                break
            if parameter in expr.free_symbols and self.nonnegative(expr.subs(parameter, edge)) != answer:
                answer = None
        self._cache[expr] = answer
        return answer

    def _decide(self, expr: Any) -> bool | None:
        import sympy

        from ..budget import checkpoint

        checkpoint()
        if expr.is_nonnegative:
            return True
        if expr.is_negative:
            return False
        reduced = self.reduce(expr)
        for candidate in (reduced, sympy.simplify(reduced)):
            if candidate.is_nonnegative:
                return True
            if candidate.is_negative:
                return False
            numerator, denominator = sympy.fraction(sympy.together(candidate))
            sign_den = True if denominator.is_positive else (False if denominator.is_negative else None)
            if sign_den is None:
                continue
            numerator = sympy.expand(numerator)
            sign_num = _polynomial_sign(numerator)
            if sign_num is not None:
                return sign_num if sign_den else (not sign_num if numerator != 0 else True)
        return None

    def positive(self, expr: Any) -> bool | None:
        """True if ``expr > 0`` for all parameters, False if ``expr <= 0`` for all, else None."""
        import sympy

        negated = self.nonnegative(-sympy.sympify(expr))
        return None if negated is None else not negated

    # -- counterexample search ------------------------------------------------------------------
    def parameter_points(self, limit: int = 200) -> list[dict[Any, Any]]:
        """Parameter values to try: the instance first, then a grid satisfying the assumptions."""
        import sympy

        points: list[dict[Any, Any]] = []
        if self.instance:
            points.append({p: sympy.nsimplify(v, rational=True) for p, v in self.instance.items()})
        free = [p for p in self.parameters if p not in self.instance] if self.instance else list(self.parameters)
        grids = []
        for parameter in self.parameters:
            values = [sympy.Rational(v) for v in _TRIAL_VALUES]
            if parameter.is_integer:
                values = [sympy.Integer(v) for v in (1, 2, 3, 5)]
            grids.append(values)
        for combination in itertools.islice(itertools.product(*grids), limit):
            point = dict(zip(self.parameters, combination))
            if self.satisfies(point):
                points.append(point)
        del free
        return points

    def satisfies(self, point: dict[Any, Any]) -> bool:
        """Do the numeric parameter values ``point`` meet the assumptions?"""
        import sympy

        for parameter in self.parameters:
            value = point.get(parameter)
            if value is None:
                continue
            if parameter.is_positive and not value > 0:
                return False
            if parameter.is_integer and not sympy.Integer(value) == value:
                return False
        for assumption in self.assumptions:
            truth = sympy.sympify(assumption).subs(point)
            if truth is not sympy.true and truth != True:  # noqa: E712 (sympy booleans)
                return False
        return True

    def negative_point(self, expr: Any, points: list[dict[Any, Any]] | None = None) -> dict[Any, Any] | None:
        """Parameter values at which ``expr < 0`` (checked with mpmath), or None."""

        for point in points if points is not None else self.parameter_points():
            value = evaluate(expr, point)
            if value is not None and exceeds(0, value):
                return point
        return None


def canonical(expr: Any) -> Any:
    """A cheap normal form: powers of the same base merged, one fraction, common factors cancelled.

    ``simplify`` costs 0.1-0.5 s per call (measured with sympy 1.14); this costs milliseconds and is what
    the enumerations use.  It is a normal form for rational functions of the atoms (exponentials
    included), so a zero difference of two such expressions comes out as 0.
    """
    import sympy

    expr = sympy.powsimp(sympy.sympify(expr))
    if expr.has(sympy.Piecewise, sympy.Max, sympy.Min, sympy.Abs):
        return expr
    try:
        return sympy.cancel(expr)
    except sympy.PolynomialError:
        return expr


def tidy(expr: Any) -> Any:
    """:func:`canonical` after expanding products and logarithms' sums: the cheap stand-in for ``simplify``."""
    import sympy

    return canonical(sympy.expand(sympy.sympify(expr)))


def is_zero(expr: Any) -> bool:
    """True when :func:`canonical` reduces ``expr`` to 0 (False may still be a zero sympy missed)."""
    return canonical(expr) == 0


def evaluate(expr: Any, point: dict[Any, Any]) -> Any:
    """``expr`` at ``point`` as an mpmath number at :data:`DIGITS` digits (None if not real and finite)."""
    import mpmath
    import sympy

    value = sympy.sympify(expr).xreplace({k: sympy.sympify(v) for k, v in point.items()})
    if value.free_symbols:
        return None
    if value is sympy.oo:
        return mpmath.inf
    if value is sympy.S.NegativeInfinity:
        return -mpmath.inf
    number = value.evalf(DIGITS)
    if not number.is_real or number.is_infinite or number is sympy.nan:
        return None
    with mpmath.workdps(DIGITS):
        return mpmath.mpf(str(number)) if number.is_Number else None


def _polynomial_sign(numerator: Any) -> bool | None:
    """Sign of a polynomial in positive symbols: True if every coefficient >= 0, False if every one < 0."""
    import sympy

    if numerator.is_number:
        if numerator.is_nonnegative:
            return True
        if numerator.is_negative:
            return False
        return None
    symbols = sorted(numerator.free_symbols, key=lambda s: s.name)
    if not all(s.is_positive for s in symbols):
        return None
    try:
        poly = sympy.Poly(numerator, *symbols)
    except sympy.PolynomialError:
        return None
    coefficients = poly.coeffs()
    if not all(c.is_number for c in coefficients):
        return None
    if all(c.is_nonnegative for c in coefficients):
        return True
    if all(c.is_negative for c in coefficients):
        return False
    return None


def exceeds(value: Any, bound: Any) -> bool:
    """``value > bound`` by more than 10^-(DIGITS/2), compared at :data:`DIGITS` digits.

    The margin is far above the evaluation error at DIGITS digits and far below any violation worth
    reporting, so rounding can never turn an equality (a tight bound) into a counterexample.
    """
    import mpmath

    with mpmath.workdps(DIGITS):
        return bool(mpmath.mpf(value) - mpmath.mpf(bound) > mpmath.mpf(10) ** (-(DIGITS // 2)))
