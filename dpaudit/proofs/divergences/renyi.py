"""The Rényi divergence of a declared density, in closed form.

Preconditions
    One of four shapes, recognised from the declared sympy density p(y | q):

    * the normal density N(q, sigma^2) (one real output, one query input, neighbours |q - q'| <= Delta),
      or a product of k normals N(m_i, sigma^2) whose means m_i are one shared input q or one input
      q_i each (neighbours ||q - q'||_norm <= Delta);
    * the Laplace density exp(-|y - q| / b) / (2 b) (the same neighbours);
    * the discrete Gaussian on the integers, p(y | q) proportional to exp(-(y - q)^2 / (2 sigma^2)),
      with integer query values and an integer Delta;
    * any pmf on finitely many outputs with a finite input domain (randomized response and its kin).
Claim
    sup over neighbours q ~ q' of D_alpha(p(. | q) || p(. | q')), as a sympy expression in the order
    alpha > 1 and the parameters, where D_alpha(P || Q) = log(E_Q[(P/Q)^alpha]) / (alpha - 1)
    (Rényi 1961; Mironov 2017, Def. 3):

    * Gaussian: alpha Delta^2 / (2 sigma^2) (Mironov 2017, Prop. 7; Bun & Steinke 2016, Lemma 2.5);
      a product: alpha S^2 / (2 sigma^2) with S^2 = sup ||m - m'||_2^2 = k Delta^2 for a shared input,
      Delta^2 for inputs bounded in l1 or l2, k Delta^2 in l-infinity (the divergence of a product is
      the sum over the factors, van Erven & Harremoës 2014, Thm. 28);
    * Laplace, t = Delta / b: log(alpha/(2 alpha - 1) e^{(alpha-1) t} + (alpha-1)/(2 alpha - 1) e^{-alpha t}) / (alpha - 1)
      (Mironov 2017, Prop. 6);
    * discrete Gaussian: at most alpha Delta^2 / (2 sigma^2), with equality at the orders where
      (alpha - 1) Delta is an integer (Canonne, Kamath & Steinke 2020, Prop. 5 and Thm. 4);
    * finite: max over ordered pairs (x, x') of log(sum_y p(y|x)^alpha p(y|x')^(1-alpha)) / (alpha - 1).
Proof
    Gaussian and discrete Gaussian: the exponent of p(y|0)^alpha p(y|Delta)^(1-alpha) is rewritten by
    completing the square, an identity sympy checks by expansion; the remaining sum or integral is a
    (shifted) normalising constant: exactly 1 for the normal density, at most 1 on the integers
    (the theta function sum_y exp(-(y - m)^2 / (2 sigma^2)) is largest at integer m, CKS 2020).
    Laplace: sympy integrates the three pieces y < 0, 0 < y < Delta, y > Delta and the sum is checked
    equal to Mironov's form.  Shapes with one input: the divergence increases with |q - q'| (its
    derivative in the shift is checked positive), so the supremum is at the shift Delta.  Finite:
    the sum is formed for every ordered pair.  The tests check each closed form against mpmath
    quadrature or summation at three parameter points (tests/proofs/divergences/test_renyi.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from ..result import Step

__all__ = ["RenyiDivergence", "order_symbol", "renyi_divergence"]


def order_symbol() -> Any:
    """The Rényi order alpha as a positive sympy symbol (alpha > 1 is carried as an assumption)."""
    from ...mechanisms.density import symbol

    return symbol("alpha", positive=True)


@dataclass(frozen=True)
class RenyiDivergence:
    """sup over neighbours of D_alpha, as a sympy expression in ``alpha`` and the parameters.

    Attributes
    ----------
    family : str
        ``"gaussian"``, ``"laplace"``, ``"discrete-gaussian"`` or ``"finite"``.
    expression : sympy.Expr
        The divergence (``exact``) or an upper bound on it (not ``exact``).
    alpha : sympy.Symbol
        The order symbol in ``expression``.
    pair : tuple
        The neighbouring inputs (q, q') that attain it, as sympy expressions.
    steps : tuple of Step
        The derivation.
    exact : bool
        True when ``expression`` is the divergence itself at every order.
    exact_orders : str
        Where an upper bound is attained (empty when ``exact``).
    linear_coefficient : sympy.Expr or None
        c when ``expression`` is c * alpha (then rho-zCDP holds exactly for rho >= c).
    limit : sympy.Expr or None
        D_infinity = lim_{alpha -> oo} D_alpha, the sup of the log ratio (the pure epsilon), when finite.
    pairs : dict
        For the finite shape: each ordered pair's divergence.
    """

    family: str
    expression: Any
    alpha: Any
    pair: tuple[Any, Any]
    steps: tuple[Step, ...]
    exact: bool = True
    exact_orders: str = ""
    linear_coefficient: Any = None
    limit: Any = None
    pairs: dict[Any, Any] = field(default_factory=dict)


def renyi_divergence(density: Any) -> RenyiDivergence | None:
    """The closed-form Rényi divergence of ``density``, or None when its shape is none of the four."""
    import sympy

    from ..densities.gaussian import gaussian_sigma
    from ..densities.outputs import is_finite_output

    if density.input_domain is not None:
        return _finite(density) if is_finite_output(density) else None
    if density.sensitivity is None:
        return None
    if len(density.outputs) > 1 and not density.discrete:
        product = _normal_product(density)
        if product is None:
            return None
        sigma, square, pair = product
        return dataclasses.replace(_gaussian(sigma, sympy.sqrt(square), len(density.outputs)), pair=pair)
    if len(density.outputs) != 1 or len(density.inputs) != 1:
        return None
    if not density.discrete:
        sigma = gaussian_sigma(density)
        if sigma is not None:
            return _gaussian(sigma, density.sensitivity)
        scale = _laplace_scale(density)
        return None if scale is None else _laplace(scale, density.sensitivity)
    sigma = _discrete_gaussian_sigma(density)
    return None if sigma is None else _discrete_gaussian(sigma, density.sensitivity)


# -- recognising the shapes ---------------------------------------------------------------------

def _shifted(density: Any) -> tuple[Any, Any]:
    """(log p(q + z | q) expanded, z): the log density as a function of the noise z = y - q."""
    import sympy

    z = sympy.Symbol("_z", real=True)
    y, q = density.outputs[0], density.inputs[0]
    return sympy.expand(sympy.expand_log(sympy.log(density.expr.subs(y, q + z)), force=True)), z


def _normal_product(density: Any) -> tuple[Any, Any, tuple] | None:
    """(sigma, S^2, pair) if the density is prod_i N(y_i; m_i, sigma^2) with m_i = q (shared) or q_i, else None.

    S^2 = sup over neighbours of sum_i (m_i - m_i')^2: k Delta^2 for a shared input; for one input per
    output Delta^2 under the l1 or l2 norm and k Delta^2 under l-infinity; ``pair`` attains it.
    """
    import sympy

    outputs, inputs, k, sens = density.outputs, density.inputs, len(density.outputs), density.sensitivity
    zero = sympy.Integer(0)
    if len(inputs) == 1:
        means, square, pair = [inputs[0]] * k, k * sens**2, ((zero,), (sens,))
    elif len(inputs) == k and density.norm in ("l1", "l2", "linf"):
        means = list(inputs)
        if density.norm == "linf":
            square, pair = k * sens**2, ((zero,) * k, (sens,) * k)
        else:
            square, pair = sens**2, ((zero,) * k, (sens,) + (zero,) * (k - 1))
    else:
        return None
    logarithm = sympy.expand(sympy.expand_log(sympy.log(density.expr), force=True))
    a = logarithm.coeff(outputs[0], 2)
    if a == 0 or (-a).is_positive is not True:
        return None
    sigma = sympy.simplify(sympy.sqrt(-1 / (2 * a)))
    normal = sum(-((y - m) ** 2) / (2 * sigma**2) for y, m in zip(outputs, means)) - k * sympy.log(sympy.sqrt(2 * sympy.pi) * sigma)
    if sympy.simplify(sympy.expand(sympy.expand_log(logarithm - normal, force=True))) != 0:
        return None
    return sigma, square, pair


def _laplace_scale(density: Any) -> Any:
    """b if the density is exactly exp(-|y - q| / b) / (2 b), else None."""
    import sympy

    z = sympy.Symbol("_z", positive=True)
    y, q = density.outputs[0], density.inputs[0]
    upper = sympy.expand(sympy.expand_log(sympy.log(density.expr.subs(y, q + z)), force=True))
    if upper.has(q) or not upper.is_polynomial(z) or sympy.degree(upper, z) != 1:
        return None
    slope = sympy.Poly(upper, z).all_coeffs()[0]
    if slope.is_negative is not True:
        return None
    b = sympy.simplify(-1 / slope)
    w = sympy.Symbol("_w", real=True)
    expected = sympy.exp(-sympy.Abs(w) / b) / (2 * b)
    if sympy.simplify(density.expr.subs(y, q + w) - expected) != 0:
        return None
    return b


def _discrete_gaussian_sigma(density: Any) -> Any:
    """sigma if the pmf on the integers is exp(-(y - q)^2 / (2 sigma^2)) / Z with Z free of y and q."""
    import sympy

    if density.output_domain != sympy.S.Integers:
        return None
    logarithm, z = _shifted(density)
    q = density.inputs[0]
    if logarithm.has(q) or not logarithm.is_polynomial(z) or sympy.degree(logarithm, z) != 2:
        return None
    a, b, _ = sympy.Poly(logarithm, z).all_coeffs()
    if sympy.simplify(b) != 0 or (-a).is_positive is not True:
        return None
    return sympy.simplify(sympy.sqrt(-1 / (2 * a)))


# -- the four closed forms ----------------------------------------------------------------------

def _complete_square(sigma: Any, sensitivity: Any, alpha: Any) -> tuple[Any, Step]:
    """alpha log p(y|0) + (1 - alpha) log p(y|Delta), up to the normaliser, with the square completed."""
    import sympy

    y = sympy.Symbol("y", real=True)
    s, d = sympy.Symbol("_sigma", positive=True), sympy.Symbol("_Delta", positive=True)
    exponent = -(alpha * y**2 + (1 - alpha) * (y - d) ** 2) / (2 * s**2)
    completed = -((y - (1 - alpha) * d) ** 2) / (2 * s**2) + alpha * (alpha - 1) * d**2 / (2 * s**2)
    if sympy.expand(exponent - completed) != 0:  # pragma: no cover - an algebraic identity
        raise ArithmeticError("completing the square failed")
    exponent, completed = (e.subs({s: sigma, d: sensitivity}) for e in (exponent, completed))
    step = Step(
        "log ratio",
        sympy.Eq(exponent, completed),
        "alpha log p(y|0) + (1 - alpha) log p(y|Delta) with the square completed (checked by expansion)",
    )
    return alpha * (alpha - 1) * sensitivity**2 / (2 * sigma**2), step


def _gaussian(sigma: Any, sensitivity: Any, coordinates: int = 1) -> RenyiDivergence:
    """D_alpha of N(0, sigma^2) vs N(sensitivity, sigma^2); of a product of ``coordinates`` normals when
    ``sensitivity`` is the largest l2 distance of the means."""
    import sympy

    alpha = order_symbol()
    log_moment, step = _complete_square(sigma, sensitivity, alpha)
    value = sympy.simplify(log_moment / (alpha - 1))
    product = (f"; for the product of {coordinates} normals the divergences of the coordinates add up "
               "(van Erven & Harremoës 2014, Thm. 28) to alpha ||m - m'||_2^2 / (2 sigma^2), largest at the "
               f"l2 distance {sympy.sstr(sensitivity)} the neighbours allow" if coordinates > 1 else "")
    steps = (
        step,
        Step("supremum", sympy.Eq(sympy.Symbol("D_alpha"), value),
             "the integral of the normal density N((1 - alpha) Delta, sigma^2) is 1, so D_alpha = alpha Delta^2 / (2 sigma^2) "
             f"at the shift Delta, increasing in the shift (Mironov 2017, Prop. 7){product}"),
    )
    return RenyiDivergence("gaussian", value, alpha, (sympy.Integer(0), sensitivity), steps,
                           linear_coefficient=sympy.simplify(value / alpha))


def _discrete_gaussian(sigma: Any, sensitivity: Any) -> RenyiDivergence:
    import sympy

    alpha = order_symbol()
    log_moment, step = _complete_square(sigma, sensitivity, alpha)
    value = sympy.simplify(log_moment / (alpha - 1))
    steps = (
        step,
        Step("supremum", sympy.Le(sympy.Symbol("D_alpha"), value),
             "sum_y exp(-(y - m)^2/(2 sigma^2)) <= sum_y exp(-y^2/(2 sigma^2)) for every real m, equality at integer m "
             "(Canonne, Kamath & Steinke 2020, Prop. 5): D_alpha <= alpha Delta^2/(2 sigma^2) for integer shifts up to Delta"),
    )
    return RenyiDivergence("discrete-gaussian", value, alpha, (sympy.Integer(0), sensitivity), steps, exact=False,
                           exact_orders="orders alpha with (alpha - 1) Delta an integer (e.g. alpha = 2)",
                           linear_coefficient=sympy.simplify(value / alpha))


def mironov_laplace(alpha: Any, t: Any) -> Any:
    """D_alpha of Laplace(0, b) vs Laplace(t b, b) (Mironov 2017, Prop. 6), t = shift / b."""
    import sympy

    inner = alpha / (2 * alpha - 1) * sympy.exp((alpha - 1) * t) + (alpha - 1) / (2 * alpha - 1) * sympy.exp(-alpha * t)
    return sympy.log(inner) / (alpha - 1)


def _laplace(b: Any, sensitivity: Any) -> RenyiDivergence:
    import sympy

    alpha = order_symbol()
    s = sympy.Symbol("_s", positive=True)  # alpha = 1 + s, so every exponent's sign is known to sympy
    y = sympy.Symbol("y", real=True)
    shift = sympy.Symbol("_d", positive=True)
    t = shift / b
    # p(y|0)^alpha p(y|d)^(1 - alpha) = exp(-(1 + s)|y|/b + s|y - d|/b) / (2b), with |y| and |y - d|
    # resolved on each piece.
    pieces = [((-y, shift - y), (y, -sympy.oo, 0)), ((y, shift - y), (y, 0, shift)), ((y, y - shift), (y, shift, sympy.oo))]
    total = sum(sympy.integrate(sympy.exp(-(1 + s) * u / b + s * v / b) / (2 * b), limits) for (u, v), limits in pieces)
    expected = mironov_laplace(1 + s, t)
    if sympy.simplify(sympy.log(total) - expected * s) != 0 and sympy.simplify(total - sympy.exp(expected * s)) != 0:
        raise ArithmeticError("the Laplace integral does not match Mironov's Prop. 6")  # pragma: no cover
    derivative = sympy.diff(sympy.exp(expected * s), shift)
    # alpha (alpha - 1) / ((2 alpha - 1) b) (e^{(alpha-1) t} - e^{-alpha t}), positive as (alpha - 1) t > -alpha t.
    positive_form = (1 + s) * s / ((2 * s + 1) * b) * (sympy.exp(s * t) - sympy.exp(-(1 + s) * t))
    if sympy.simplify(derivative - positive_form) != 0:
        raise ArithmeticError("the Laplace divergence's derivative in the shift is not the expected positive form")  # pragma: no cover
    value = mironov_laplace(alpha, sensitivity / b)
    steps = (
        Step("log ratio", sympy.Eq(sympy.Symbol("E_Q[(P/Q)^alpha]"), sympy.simplify(total.subs(s, alpha - 1))),
             "sympy integrates p(y|0)^alpha p(y|d)^(1-alpha) over y < 0, 0 < y < d, y > d; equal to Mironov (2017) Prop. 6"),
        Step("case split", positive_form.subs(s, alpha - 1),
             "its derivative in the shift d is alpha (alpha-1)/((2 alpha-1) b) (e^((alpha-1) d/b) - e^(-alpha d/b)) > 0: "
             "the supremum over |q - q'| <= Delta is at d = Delta"),
        Step("supremum", sympy.Eq(sympy.Symbol("D_alpha"), value), "D_alpha at d = Delta (Mironov 2017, Prop. 6)"),
    )
    return RenyiDivergence("laplace", value, alpha, (sympy.Integer(0), sensitivity), steps, limit=sensitivity / b)


def _finite(density: Any) -> RenyiDivergence | None:
    import sympy

    from ..budget import checkpoint
    from ..densities.finite import input_pairs
    from ..densities.outputs import finite_outputs, pmf_at
    from ..inequalities.signs import canonical

    alpha = order_symbol()
    values: dict[Any, tuple] = {}
    ratios: set[Any] = set()
    for a, b in input_pairs(density):
        checkpoint(f"Rényi divergence of inputs {a} vs {b}")
        masses = [(pmf_at(density, y, a), pmf_at(density, y, b)) for y in finite_outputs(density)]
        moment = sum(pa**alpha * pb ** (1 - alpha) for pa, pb in masses)
        values.setdefault(canonical(sympy.log(moment) / (alpha - 1)), (a, b))
        ratios.update(canonical(sympy.log(pa / pb)) for pa, pb in masses if pa != 0)
    if not values:
        return None
    expressions = list(values)
    expression = expressions[0] if len(expressions) == 1 else sympy.Max(*expressions)
    pair = values[expressions[0]]
    steps = (
        Step("log ratio", expression,
             "D_alpha = log(sum_y p(y|x)^alpha p(y|x')^(1-alpha)) / (alpha - 1), the largest over ordered input pairs "
             f"({len(values)} distinct value(s); Mironov 2017, Def. 3)"),
    )
    if any(r.has(sympy.zoo, sympy.oo) for r in ratios):
        limit = None
    else:
        limit = next(iter(ratios)) if len(ratios) == 1 else sympy.Max(*ratios)
    return RenyiDivergence("finite", expression, alpha, pair, steps, limit=limit, pairs={v: k for k, v in values.items()})
