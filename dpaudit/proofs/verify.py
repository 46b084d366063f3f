"""High-precision re-verification of counterexamples with mpmath.

A counterexample found symbolically is re-evaluated from the declared density itself (not from the
derived log-ratio) at :data:`~dpaudit.proofs.signs.DIGITS` significant digits before it is reported, so
an error in a derivation can never produce a false refutation.
"""

from __future__ import annotations

from typing import Any

from .signs import DIGITS

__all__ = ["density_value", "interval_mass", "log_ratio_at"]


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
    """P[low < Y < high] for Y with density ``expr`` in ``output`` given q (mpmath quadrature)."""
    import mpmath
    import sympy

    qs = q if isinstance(q, (tuple, list)) else (q,)
    values = dict(point)
    values.update({i: sympy.nsimplify(v, rational=True) for i, v in zip(inputs, qs)})
    function = sympy.lambdify(output, sympy.sympify(expr).xreplace({k: sympy.sympify(v) for k, v in values.items()}), modules="mpmath")
    with mpmath.workdps(30):
        lo = -mpmath.inf if low is None else mpmath.mpf(str(sympy.N(low, 30)))
        hi = mpmath.inf if high is None else mpmath.mpf(str(sympy.N(high, 30)))
        return mpmath.quad(function, [lo, hi])


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

    from .outputs import finite_outputs, is_finite_output

    inputs = [tuple(x) for x in density.input_domain] if density.input_domain is not None else [tuple(0 for _ in density.inputs)]
    with mpmath.workdps(30):
        for x in inputs[:8]:
            if is_finite_output(density):
                values = [density_value(density.expr, density.outputs, density.inputs, y, x, point) for y in finite_outputs(density)]
                if any(v is None for v in values):
                    return "the pmf does not evaluate to real numbers at the instance"
                if any(v < -mpmath.mpf(10) ** -25 for v in values):
                    return "the pmf has negative values at the instance"
                total = mpmath.fsum(values)
            elif len(density.outputs) == 1:
                values = dict(point)
                values.update({i: sympy.nsimplify(v) for i, v in zip(density.inputs, x)})
                expr = sympy.sympify(density.expr).xreplace({k: sympy.sympify(v) for k, v in values.items()})
                function = sympy.lambdify(density.outputs[0], expr, modules="mpmath")
                try:
                    if density.discrete:
                        total = mpmath.nsum(lambda n: function(n), [-mpmath.inf, mpmath.inf])
                    else:
                        total = mpmath.quad(function, [-mpmath.inf, 0, mpmath.inf])
                except (TypeError, ValueError, ZeroDivisionError, OverflowError):
                    return "the density cannot be evaluated numerically at the instance"
            else:
                return None
            if not mpmath.isfinite(total) or abs(total - 1) > mpmath.mpf(10) ** -8:
                return f"the declared density sums/integrates to {mpmath.nstr(total, 10)}, not 1, at the instance (input {x})"
    return None
