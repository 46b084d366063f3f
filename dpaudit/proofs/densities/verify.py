"""High-precision re-verification of counterexamples with mpmath.

A counterexample found symbolically is re-evaluated from the declared density itself (not from the
derived log-ratio) at :data:`~dpaudit.proofs.inequalities.signs.DIGITS` significant digits before it is reported, so
an error in a derivation can never produce a false refutation.
"""

from __future__ import annotations

from typing import Any

from ..inequalities.signs import DIGITS
from .outputs import finite_outputs, is_finite_output

__all__ = ["density_value", "float_pmf", "interval_mass", "log_ratio_at", "screen_pairs"]


def density_value(expr: Any, outputs: tuple, inputs: tuple, y: Any, q: Any, point: dict) -> Any:
    """p(y | q) at the parameter values ``point``, as an mpmath number (None if not a real number)."""
    import mpmath
    import sympy

    ys = y if isinstance(y, (tuple, list)) else (y,)
    qs = q if isinstance(q, (tuple, list)) else (q,)
    values = dict(point)
    values.update({o: sympy.nsimplify(v, rational=True) for o, v in zip(outputs, ys)})
    values.update({i: sympy.nsimplify(v, rational=True) for i, v in zip(inputs, qs)})
    value = sympy.sympify(expr).xreplace({k: sympy.sympify(v) for k, v in values.items()})
    if value.free_symbols:
        return None
    number = sympy.N(value, DIGITS)
    if not number.is_real or not number.is_finite:
        return None
    with mpmath.workdps(DIGITS):
        return mpmath.mpf(str(number))


def float_pmf(density: Any, point: dict, x: Any = None) -> Any:
    """p(y | x) at ``point`` as a float function (lambdify on the ``math`` module): ``f(y)`` when ``x``
    is given, else ``f(x)(y)``.

    The whole expression is compiled once with every symbol as an argument (substituting first would
    make sympy compare the symbolic arguments of Min/Max: seconds), so one call costs microseconds:
    fit for screening thousands of outputs.  Nothing is concluded from it: a hit is re-verified with
    :func:`log_ratio_at` at :data:`DIGITS` digits.
    """
    import sympy

    names = list(point)
    compiled = sympy.lambdify((*density.outputs, *density.inputs, *names), density.expr, modules="math")
    parameters = [float(sympy.N(point[k])) for k in names]

    def at(q: Any) -> Any:
        fixed = [float(v) for v in (q if isinstance(q, (tuple, list)) else (q,))] + parameters
        return lambda *y: compiled(*y, *fixed)

    return at if x is None else at(x)


def screen_pairs(density: Any, point: dict, pairs: Any, outputs: list[tuple], eps_value: Any) -> tuple | None:
    """The first (log ratio, a, b, y) over ``pairs`` x ``outputs`` whose float screen exceeds epsilon and
    whose mpmath re-evaluation confirms it, or None."""
    import math

    from ..budget import checkpoint
    from ..inequalities.signs import exceeds

    bound = float(eps_value)
    try:
        pmf = float_pmf(density, point)
    except (TypeError, ValueError, NameError, KeyError):
        return None
    for a, b in pairs:
        checkpoint()
        pa, pb = pmf(a), pmf(b)
        for y in outputs:
            try:
                fa, fb = pa(*map(float, y)), pb(*map(float, y))
            except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                continue
            if not (fa > 0) or (fb > 0 and math.log(fa) - math.log(fb) <= bound + 1e-9):
                continue
            value = log_ratio_at(density.expr, density.outputs, density.inputs, y, a, b, point)
            if value is not None and exceeds(value, eps_value):
                return value, a, b, y
    return None


def log_ratio_at(expr: Any, outputs: tuple, inputs: tuple, y: Any, a: Any, b: Any, point: dict) -> Any:
    """ln p(y | a) - ln p(y | b) at ``point`` (mpmath; ``inf`` when p(y | b) = 0 < p(y | a); None if undefined)."""
    import mpmath

    pa = density_value(expr, outputs, inputs, y, a, point)
    pb = density_value(expr, outputs, inputs, y, b, point)
    if pa is None or pb is None or pa < 0 or pb < 0:
        return None
    with mpmath.workdps(DIGITS):
        if pa == 0:
            return None
        if pb == 0:
            return mpmath.inf
        return mpmath.log(pa) - mpmath.log(pb)


def interval_mass(expr: Any, output: Any, inputs: tuple, q: Any, point: dict, low: Any, high: Any) -> Any:
    """P[low < Y < high] for Y with density ``expr`` in ``output`` given q (mpmath quadrature).

    The quadrature is split where the density may have a kink or a jump inside the interval: at the inputs
    q (a location family's |y - q|, Laplace's peak), at 0 and at the jumps of floor / ceiling terms
    (:func:`jump_points`).  Across an unsplit kink it loses digits: Laplace(0, 0.1) on y < 0.495 gave
    0.99587 for 1 - e^(-4.95) / 2 = 0.99646."""
    import mpmath
    import sympy

    qs = q if isinstance(q, (tuple, list)) else (q,)
    values = dict(point)
    values.update({i: sympy.nsimplify(v, rational=True) for i, v in zip(inputs, qs)})
    bound = sympy.sympify(expr).xreplace({k: sympy.sympify(v) for k, v in values.items()})
    function = sympy.lambdify(output, bound, modules="mpmath")
    with mpmath.workdps(30):
        lo = -mpmath.inf if low is None else mpmath.mpf(str(sympy.N(low, 30)))
        hi = mpmath.inf if high is None else mpmath.mpf(str(sympy.N(high, 30)))
        inside = {mpmath.mpf(str(sympy.N(v, 30))) for v in qs if sympy.sympify(v).is_real}
        inside.update(jump_points(bound, output))
        splits = sorted(p for p in inside if lo < p < hi)
        return mpmath.quad(function, [lo, *splits, hi])


# Jumps of floor terms are located for the integers -JUMPS..JUMPS (the staircase's mass beyond 60
# steps is e^(-60 epsilon)); quadrature across an unlocated jump loses digits (0.99988 instead of 1).
JUMPS = 60


def jump_points(expr: Any, y: Any) -> list[Any]:
    """0 and the real y in which a floor/ceiling argument of ``expr`` (numbers but y) is an integer in
    -JUMPS..JUMPS, sorted: the points a quadrature of a step density must be split at."""
    import mpmath
    import sympy

    points = {mpmath.mpf(0)}
    n = sympy.Symbol("_n", integer=True)
    for atom in expr.atoms(sympy.floor, sympy.ceiling):
        try:
            roots = sympy.solve(atom.args[0] - n, y)
        except NotImplementedError:
            continue
        for root in roots:
            at = sympy.lambdify(n, root, modules="mpmath")
            for k in range(-JUMPS, JUMPS + 1):
                try:
                    value = at(mpmath.mpf(k))
                except (TypeError, ValueError, ZeroDivisionError):
                    continue
                if isinstance(value, mpmath.mpf) and mpmath.isfinite(value):
                    points.add(value)
    return sorted(points)


def _float_values(density: Any, point: dict, x: tuple) -> list[Any]:
    """p(y | x) for every finite output, as floats (None where it does not evaluate to a real number)."""
    import mpmath

    pmf = float_pmf(density, point, x)
    values = []
    for y in finite_outputs(density):
        try:
            value = pmf(*map(float, y))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            value = None
        values.append(None if not isinstance(value, (int, float)) or value != value else mpmath.mpf(value))
    return values


def _series_value(series: Any) -> Any:
    """A closed sympy ``Sum`` of one index as a 30-digit number (``mpmath.nsum``; sympy's evalf leaves bilateral series)."""
    import mpmath
    import sympy

    (index, low, high), = series.limits
    term = sympy.lambdify(index, series.function, modules="mpmath")
    bounds = [mpmath.mpf(b) if b.is_finite else (mpmath.inf if b > 0 else -mpmath.inf) for b in (low, high)]
    return sympy.Float(str(mpmath.nsum(term, bounds)), 30)


def normalisation_error(density: Any, point: dict) -> str | None:
    """Why ``density`` is not a probability distribution at ``point`` (None if it integrates to 1).

    Checked at the first input of the finite input domain, or at q = 0: finite outputs are summed,
    integer outputs summed with ``mpmath.nsum``, real outputs integrated with ``mpmath.quad`` (split at
    the input).  Product densities are checked coordinate by coordinate through the joint value only
    when they have one output.  A declared "density" that is not normalised (a dropped constant, a sign
    flip in the exponent) cannot be the distribution of any sampler, so no proof is attempted for it.
    """
    import mpmath
    import sympy

    inputs = [tuple(x) for x in density.input_domain] if density.input_domain is not None else [tuple(0 for _ in density.inputs)]
    with mpmath.workdps(30):
        for x in inputs[:8]:
            if is_finite_output(density):
                values = _float_values(density, point, x)
                if any(v is None for v in values):
                    return "the pmf does not evaluate to real numbers at the instance"
                if any(v < -mpmath.mpf(10) ** -12 for v in values):
                    return "the pmf has negative values at the instance"
                total = mpmath.fsum(values)
            elif len(density.outputs) == 1:
                values = dict(point)
                values.update({i: sympy.nsimplify(v) for i, v in zip(density.inputs, x)})
                expr = sympy.sympify(density.expr).xreplace({k: sympy.sympify(v) for k, v in values.items()})
                # a normaliser declared as an infinite series (the discrete Gaussian's) is a number at the instance
                expr = expr.xreplace({series: _series_value(series) for series in expr.atoms(sympy.Sum) if not series.free_symbols})
                function = sympy.lambdify(density.outputs[0], expr, modules="mpmath")
                try:
                    if density.discrete:
                        total = mpmath.nsum(lambda n: function(n), [-mpmath.inf, mpmath.inf])
                    else:
                        split = jump_points(expr, density.outputs[0])
                        # between two jumps a step density is smooth: a low degree suffices
                        total = mpmath.quad(function, [-mpmath.inf, *split, mpmath.inf], maxdegree=6 if len(split) > 1 else None)
                except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                    return "the density cannot be evaluated numerically at the instance"
            else:
                return None
            if not mpmath.isfinite(total) or abs(total - 1) > mpmath.mpf(10) ** -8:  # float sums: error ~1e-13
                return f"the declared density sums/integrates to {mpmath.nstr(total, 10)}, not 1, at the instance (input {x})"
    return None
