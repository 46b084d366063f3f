"""Densities built for the prover's tests (symbols from the project-wide table)."""

from __future__ import annotations

from typing import Any

import numpy as np

from dpaudit.claims import ApproxDP, ProbabilisticDP, PureDP
from dpaudit.mechanisms.base import Mechanism
from dpaudit.neighbours import Local, QueryDistance


def _never(data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    return np.zeros(n)


def as_mechanism(name: str, density_builder, claim=None, neighbours=None) -> Mechanism:
    density = density_builder()
    instance = {str(k): float(v) for k, v in density.instance.items()}
    eps = float(density.epsilon.subs(density.instance)) if density.epsilon.free_symbols else float(density.epsilon)
    dlt = float(density.delta.subs(density.instance))
    if claim is None:
        claim = PureDP(eps) if dlt == 0 else ApproxDP(eps, dlt)
    del instance
    return Mechanism(name=name, claim=claim, neighbours=neighbours or QueryDistance(1.0), sampler=_never, density=density_builder)


def symbols(*names: str):
    from dpaudit.mechanisms.density import symbol

    return [symbol(n) for n in names]


def laplace(scale=None, claim=None, sensitivity=None, instance=None, constant=None):
    """Laplace p(y|q) = exp(-|y-q|/b)/(2b) with b = scale (default Delta/epsilon)."""
    import sympy

    from dpaudit.mechanisms.density import SymbolicDensity

    y, q, eps, Delta = symbols("y", "q", "epsilon", "Delta")
    b = Delta / eps if scale is None else scale(eps, Delta)
    norm = 1 / (2 * b) if constant is None else constant(y, q, b)
    return SymbolicDensity(
        expr=sympy.exp(-sympy.Abs(y - q) / b) * norm,
        outputs=(y,),
        inputs=(q,),
        epsilon=eps if claim is None else claim(eps, Delta),
        sensitivity=Delta if sensitivity is None else sensitivity(Delta),
        instance=instance or {eps: 1, Delta: 1},
    )


def gaussian(sigma=None, claim_delta=True):
    import sympy

    from dpaudit.mechanisms.density import SymbolicDensity

    y, q, eps, delta, Delta = symbols("y", "q", "epsilon", "delta", "Delta")
    s = Delta * sympy.sqrt(2 * sympy.log(sympy.Rational(5, 4) / delta)) / eps if sigma is None else sigma(eps, delta, Delta)
    return SymbolicDensity(
        expr=sympy.exp(-((y - q) ** 2) / (2 * s**2)) / (sympy.sqrt(2 * sympy.pi) * s),
        outputs=(y,),
        inputs=(q,),
        epsilon=eps,
        delta=delta if claim_delta else 0,
        sensitivity=Delta,
        instance={eps: sympy.Rational(1, 2), delta: sympy.Rational(1, 10**5), Delta: 1},
        assumptions=(eps < 1,),
    )


def laplace_vector(k=3, norm="l1", claim=lambda eps: eps, scale=lambda eps, Delta: Delta / eps):
    import sympy

    from dpaudit.mechanisms.density import SymbolicDensity

    eps, Delta = symbols("epsilon", "Delta")
    ys = symbols(*[f"y{i}" for i in range(1, k + 1)])
    qs = symbols(*[f"q{i}" for i in range(1, k + 1)])
    b = scale(eps, Delta)
    expr = sympy.Mul(*[sympy.exp(-sympy.Abs(a - c) / b) / (2 * b) for a, c in zip(ys, qs)])
    return SymbolicDensity(expr=expr, outputs=ys, inputs=qs, epsilon=claim(eps), sensitivity=Delta, norm=norm, instance={eps: 1, Delta: 1})


def geometric(claim=lambda eps: eps, rate=lambda eps: eps, sensitivity=1):
    import sympy

    from dpaudit.mechanisms.density import SymbolicDensity

    y, q, eps = symbols("y", "q", "epsilon")
    a = sympy.exp(-rate(eps))
    return SymbolicDensity(
        expr=(1 - a) / (1 + a) * a ** sympy.Abs(y - q),
        outputs=(y,),
        inputs=(q,),
        epsilon=claim(eps),
        sensitivity=sensitivity,
        discrete=True,
        instance={eps: 1},
    )


def randomized_response(truth=None, claim=lambda eps: eps, k=2):
    """k-RR: the truth with probability e^eps/(e^eps + k - 1) (or ``truth(eps)``)."""
    import sympy

    from dpaudit.mechanisms.density import SymbolicDensity

    y, x, eps = symbols("y", "x", "epsilon")
    E = sympy.exp(eps)
    p = E / (E + k - 1) if truth is None else truth(eps)
    return SymbolicDensity(
        expr=sympy.Piecewise((p, sympy.Eq(y, x)), ((1 - p) / (k - 1), True)),
        outputs=(y,),
        inputs=(x,),
        epsilon=claim(eps),
        discrete=True,
        output_domain=sympy.FiniteSet(*range(k)),
        input_domain=tuple((i,) for i in range(k)),
        instance={eps: 1},
    )


def rappor(k=4, flip=None, claim=None):
    """Basic one-time RAPPOR on a one-hot encoding, f = 2/(1 + e^{eps/2}), epsilon = 2 ln((1-f/2)/(f/2))."""
    import sympy

    from dpaudit.mechanisms.density import SymbolicDensity

    eps = symbols("epsilon")[0]
    x = symbols("x")[0]
    ys = symbols(*[f"y{i}" for i in range(1, k + 1)])
    f = 2 / (1 + sympy.exp(eps / 2)) if flip is None else flip(eps)
    factors = []
    for i, yi in enumerate(ys):
        bit_one = sympy.Piecewise((1 - f / 2, sympy.Eq(x, i)), (f / 2, True))
        factors.append(sympy.Piecewise((bit_one, sympy.Eq(yi, 1)), (1 - bit_one, True)))
    return SymbolicDensity(
        expr=sympy.Mul(*factors),
        outputs=ys,
        inputs=(x,),
        epsilon=eps if claim is None else claim(eps),
        discrete=True,
        output_domain=sympy.FiniteSet(0, 1),
        input_domain=tuple((i,) for i in range(k)),
        instance={eps: 1},
    )


def exponential(k=3, factor=2, claim=lambda eps: eps, norm="linf"):
    """P[r] proportional to exp(eps u_r / (factor Delta)) on outputs 0..k-1."""
    import sympy

    from dpaudit.mechanisms.density import SymbolicDensity

    y, eps, Delta = symbols("y", "epsilon", "Delta")
    us = symbols(*[f"u{i}" for i in range(k)])
    weights = [sympy.exp(eps * u / (factor * Delta)) for u in us]
    total = sympy.Add(*weights)
    expr = sympy.Piecewise(*[(w / total, sympy.Eq(y, i)) for i, w in enumerate(weights)], (0, True))
    return SymbolicDensity(
        expr=expr,
        outputs=(y,),
        inputs=tuple(us),
        epsilon=claim(eps),
        sensitivity=Delta,
        norm=norm,
        discrete=True,
        output_domain=sympy.FiniteSet(*range(k)),
        instance={eps: 1, Delta: 1},
    )


def meiser():
    """Meiser's K (IACR ePrint 2018/277): probabilistic (epsilon, delta)-DP on outputs 0..3."""
    import sympy

    from dpaudit.mechanisms.density import SymbolicDensity

    y, x, eps, delta = symbols("y", "x", "epsilon", "delta")
    E = sympy.exp(eps)
    k0 = [delta, E / (1 + E) * (1 - delta), 1 / (1 + E) * (1 - delta), sympy.Integer(0)]
    expr = sympy.Piecewise(
        *[(sympy.Piecewise((k0[i], sympy.Eq(x, 0)), (k0[3 - i], True)), sympy.Eq(y, i)) for i in range(4)], (0, True)
    )
    return SymbolicDensity(
        expr=expr,
        outputs=(y,),
        inputs=(x,),
        epsilon=eps,
        delta=delta,
        discrete=True,
        output_domain=sympy.FiniteSet(0, 1, 2, 3),
        input_domain=((0,), (1,)),
        instance={eps: 1, delta: sympy.Rational(1, 100)},
        assumptions=(delta < 1,),
    )


def meiser_mechanism() -> Mechanism:
    return Mechanism(
        name="meiser-test", claim=ProbabilisticDP(1.0, 0.01), neighbours=Local(), sampler=_never, density=meiser
    )


def staircase(rate=lambda eps: eps, claim=lambda eps: eps, width=1):
    """Geng & Viswanath's staircase p(z) = a exp(-rate floor(|z|/(width Delta) + 1 - gamma)), gamma = 1/(1 + e^(eps/2)).

    Normalised for every rate (a = (1 - e^-r)/(2 width Delta (gamma + (1 - gamma) e^-r))); DP with
    epsilon = rate exactly when width = 1 (the steps are Delta wide).
    """
    import sympy

    from dpaudit.mechanisms.density import SymbolicDensity

    y, q, eps, Delta = symbols("y", "q", "epsilon", "Delta")
    gamma = 1 / (1 + sympy.exp(eps / 2))
    r = rate(eps)
    b = sympy.exp(-r)
    a = (1 - b) / (2 * width * Delta * (gamma + (1 - gamma) * b))
    expr = a * sympy.exp(-r * sympy.floor(sympy.Abs(y - q) / (width * Delta) + 1 - gamma))
    return SymbolicDensity(expr=expr, outputs=(y,), inputs=(q,), epsilon=claim(eps), sensitivity=Delta, instance={eps: 1, Delta: 1})
