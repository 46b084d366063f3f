"""Privacy claims: the promise a mechanism makes.

A mechanism M is *(epsilon, delta)-differentially private* for a neighbour relation ~ if for all
D ~ D' and every measurable set S of outputs

    P[M(D) in S] <= e^epsilon * P[M(D') in S] + delta                           (Dwork & Roth 2014, Def. 2.4)

``PureDP(epsilon)`` is the case delta = 0.  ``ProbabilisticDP(epsilon, delta)`` is the stronger
per-output statement of Meiser (2018, IACR ePrint 2018/277, Def. 2): for all D ~ D' the privacy
loss ln(p_D(y) / p_D'(y)) exceeds epsilon only on a set of outputs of probability at most delta under
M(D).  Probabilistic DP implies approximate DP with the same (epsilon, delta) but, unlike approximate
DP, it is *not* closed under post-processing (Meiser 2018, Sect. 3).

Four claims state a whole family of (epsilon, delta) guarantees at once (their ``kind`` is one of
:data:`CURVE_KINDS`; each has ``delta_at_epsilon``, ``epsilon_at_delta``, ``to_approx`` and ``curve``,
computed by :mod:`dpaudit.conversions`):

* ``ZeroConcentratedDP(rho)`` -- D_alpha(M(D) || M(D')) <= rho alpha for every alpha > 1 (Bun &
  Steinke 2016, Def. 1.1), D_alpha the Rényi divergence of order alpha;
* ``RenyiDP(alpha, epsilon)`` -- D_alpha(M(D) || M(D')) <= epsilon (Mironov 2017, Def. 4), at one
  order or at several (then ``alpha`` and ``epsilon`` are equal-length tuples: a curve alpha -> epsilon);
* ``GaussianDP(mu)`` -- the trade-off function of M(D) vs M(D') is at least G_mu, that of N(0, 1)
  vs N(mu, 1) (Dong, Roth & Su 2022, Def. 2.6);
* ``PrivacyCurve(epsilon, delta)`` -- (epsilon_i, delta_i)-DP for every tabulated point i; between
  points the curve is read as the step it implies ((epsilon_i, delta_i)-DP implies (epsilon, delta_i)-DP
  for every epsilon >= epsilon_i).

Claims are frozen values that validate themselves; they never change after construction.

What differs between the kinds lives here, on the classes, for the provers, the auditor and the shells
to ask instead of comparing ``kind`` (only the JSON tag of ``as_dict`` and :func:`claim_from_dict`):
``is_curve``, ``bounds_loss_per_output``, ``closed_under_post_processing``,
``bounds_renyi_divergence``, ``bounds_trade_off_function``, ``implies(other)``, ``definition()``;
on the point claims ``states_delta`` and ``with_parameters``; on the curve claims
``working_point``, ``conversion_reference``, ``conversion_is_exact``, and on zCDP and RDP
``renyi_orders`` and ``renyi_bound``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar, Sequence, Union

from . import conversions
from ._validation import check_nonnegative_finite, check_real, check_unit_interval
from .errors import InvalidArgument

__all__ = [
    "CLAIM_KINDS",
    "CURVE_KINDS",
    "FLOAT_TOLERANCE",
    "ApproxDP",
    "Claim",
    "GaussianDP",
    "PrivacyCurve",
    "ProbabilisticDP",
    "PureDP",
    "RenyiDP",
    "ZeroConcentratedDP",
    "check_claim",
    "claim_class",
    "claim_from_dict",
]


#: Claims are floats: a parameter equal to another up to its float rounding (this much, relative) counts as no larger.
FLOAT_TOLERANCE = 1e-12
_SLACK = 1 + FLOAT_TOLERANCE

# The words of the definitions' legends (:meth:`_Behaviour.definition`).
_SETS = "P_D(S) = P[M(D) in S] and P_D'(S) = P[M(D') in S], for all neighbours D ~ D' and all sets S"
_DIVERGENCE = ("D_alpha(P || Q) = ln(E_Q[(p / q)^alpha]) / (alpha - 1) is the Renyi divergence of order alpha of the "
               "output distributions, for all neighbours D ~ D'")


class _Behaviour:
    """What every claim says about its definition.

    Each class sets the class variables below as its definition implies, and has ``implies(other)``
    (whether every mechanism that satisfies it satisfies ``other``) and the class method
    ``definition()`` (its defining inequalities as (sympy relation, legend) pairs, sympy imported there).
    """

    kind: ClassVar[str]
    """The JSON tag of ``as_dict`` and :func:`claim_from_dict`."""

    is_curve: ClassVar[bool] = False
    """Whether the claim states a family of (epsilon, delta) guarantees (zCDP, RDP, GDP, a privacy curve)
    rather than one (epsilon, delta) point."""

    bounds_loss_per_output: ClassVar[bool] = False
    """Whether the definition bounds the privacy loss ln(p_D(y) / p_D'(y)) output by output -- probabilistic
    DP: the outputs whose loss exceeds epsilon have mass at most delta under M(D) (Meiser 2018, Def. 2) --
    rather than P[M(D) in S] for every set S of outputs (Dwork & Roth 2014, Def. 2.4)."""

    closed_under_post_processing: ClassVar[bool] = True
    """Whether f(M) satisfies the claim whenever M does, for every map f of the output: pure and approximate
    DP (Dwork & Roth 2014, Prop. 2.1), zCDP and RDP (the data-processing inequality of Rényi divergences,
    van Erven & Harremoës 2014, Thm. 9), GDP (Dong, Roth & Su 2022, Prop. 2.9), a privacy curve (point by
    point); not probabilistic DP (Meiser 2018, Sect. 3)."""

    bounds_renyi_divergence: ClassVar[bool] = False
    """Whether the definition bounds the Rényi divergences D_alpha(M(D) || M(D')): zCDP at every order
    alpha > 1 (Bun & Steinke 2016, Def. 1.1), RDP at its orders (Mironov 2017, Def. 4).  Those two have
    ``renyi_orders`` and ``renyi_bound(alpha)``."""

    bounds_trade_off_function: ClassVar[bool] = False
    """Whether the definition bounds the trade-off function T(M(D), M(D')) from below: Gaussian DP, by G_mu
    (Dong, Roth & Su 2022, Def. 2.6)."""


class _Point(_Behaviour):
    """The shared behaviour of the claims of one (epsilon, delta): PureDP, ApproxDP, ProbabilisticDP."""

    epsilon: float
    delta: float

    states_delta: ClassVar[bool] = True
    """Whether delta is a parameter of the claim: ApproxDP and ProbabilisticDP state one (possibly 0);
    PureDP is the case delta = 0 by definition and states none (nothing to check or to report of it)."""

    def implies(self, other: Claim) -> bool:
        """Whether this (epsilon, delta) claim implies ``other``.

        (epsilon, delta) implies (epsilon', delta') with epsilon' >= epsilon and delta' >= delta, within
        float rounding, and probabilistic DP implies approximate DP with the same parameters (Meiser 2018);
        only probabilistic DP is taken to imply probabilistic DP, and no point claim a curve claim.
        """
        if other.is_curve:
            return False
        return (self.epsilon <= other.epsilon * _SLACK and self.delta <= other.delta * _SLACK
                and (self.bounds_loss_per_output or not other.bounds_loss_per_output))

    def with_parameters(self, epsilon: float, delta: float) -> PureDP | ApproxDP | ProbabilisticDP:
        """The claim of this definition at (epsilon, delta): PureDP when delta = 0, else ApproxDP.

        Pure and approximate DP are one definition (Dwork & Roth 2014, Def. 2.4; pure DP is delta = 0);
        ProbabilisticDP overrides this to stay probabilistic.
        """
        return PureDP(epsilon) if delta == 0 else ApproxDP(epsilon, delta)


def _set_inequality(delta: Any) -> Any:
    """P_D(S) <= e^epsilon P_D'(S) + ``delta`` as a sympy relation (Dwork & Roth 2014, Def. 2.4)."""
    import sympy

    epsilon = sympy.Symbol("epsilon", positive=True)
    return sympy.Le(sympy.Symbol("P_D(S)"), sympy.exp(epsilon) * sympy.Symbol("P_D'(S)") + delta)


@dataclass(frozen=True)
class PureDP(_Point):
    """Pure epsilon-differential privacy: P[M(D) in S] <= e^epsilon P[M(D') in S].

    Parameters
    ----------
    epsilon : float
        Finite, ``>= 0``.
    """

    epsilon: float
    kind: ClassVar[str] = "pure"
    states_delta: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_nonnegative_finite("epsilon", self.epsilon))

    @property
    def delta(self) -> float:
        """Pure DP is the case delta = 0."""
        return 0.0

    @classmethod
    def definition(cls) -> list[tuple[Any, str]]:
        """P_D(S) <= e^epsilon P_D'(S) for every set S (Dwork & Roth 2014, Def. 2.4 with delta = 0)."""
        return [(_set_inequality(0), _SETS)]

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "epsilon": self.epsilon, "delta": 0.0}

    def __str__(self) -> str:
        return f"{self.epsilon:g}-DP"


@dataclass(frozen=True)
class _EpsilonDelta(_Point):
    """The shared shape of the two (epsilon, delta) claims: validation and JSON form."""

    epsilon: float
    delta: float
    kind: ClassVar[str]

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_nonnegative_finite("epsilon", self.epsilon))
        object.__setattr__(self, "delta", check_unit_interval("delta", self.delta))

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "epsilon": self.epsilon, "delta": self.delta}


@dataclass(frozen=True)
class ApproxDP(_EpsilonDelta):
    """Approximate (epsilon, delta)-DP: P[M(D) in S] <= e^epsilon P[M(D') in S] + delta.

    Parameters
    ----------
    epsilon : float
        Finite, ``>= 0``.
    delta : float
        In ``[0, 1)``.
    """

    kind: ClassVar[str] = "approximate"

    @classmethod
    def definition(cls) -> list[tuple[Any, str]]:
        """P_D(S) <= e^epsilon P_D'(S) + delta for every set S (Dwork & Roth 2014, Def. 2.4)."""
        import sympy

        return [(_set_inequality(sympy.Symbol("delta", positive=True)), _SETS)]

    def __str__(self) -> str:
        return f"({self.epsilon:g}, {self.delta:g})-DP"


@dataclass(frozen=True)
class ProbabilisticDP(_EpsilonDelta):
    """Probabilistic (epsilon, delta)-DP (Meiser 2018, Def. 2).

    For every ordered neighbour pair (D, D') the outputs whose privacy loss
    ln(p_D(y) / p_D'(y)) exceeds epsilon have total probability at most delta under M(D).
    Not closed under post-processing.

    Parameters
    ----------
    epsilon : float
        Finite, ``>= 0``.
    delta : float
        In ``[0, 1)``.
    """

    kind: ClassVar[str] = "probabilistic"
    bounds_loss_per_output: ClassVar[bool] = True
    closed_under_post_processing: ClassVar[bool] = False

    def with_parameters(self, epsilon: float, delta: float) -> ProbabilisticDP:
        """Probabilistic DP at (epsilon, delta), delta = 0 included."""
        return ProbabilisticDP(epsilon, delta)

    @classmethod
    def definition(cls) -> list[tuple[Any, str]]:
        """L = ln(p_D(y) / p_D'(y)) and Pr_D = P_{y ~ M(D)}[L > epsilon] <= delta (Meiser 2018, Def. 2)."""
        import sympy

        loss = sympy.Eq(sympy.Symbol("L"), sympy.log(sympy.Symbol("p_D") / sympy.Symbol("p_D'")), evaluate=False)
        return [
            (loss, "the privacy loss of output y: p_D, p_D' are the densities of M(D), M(D') at y"),
            (sympy.Le(sympy.Symbol("Pr_D"), sympy.Symbol("delta", positive=True)),
             "Pr_D = P[L > epsilon] for y drawn from M(D), for all neighbours D ~ D'"),
        ]

    def __str__(self) -> str:
        return f"probabilistic ({self.epsilon:g}, {self.delta:g})-DP"


class _Curve(_Behaviour):
    """The shared face of the curve claims: (epsilon, delta) read off the curve, and its tabulation.

    Each subclass defines ``delta_at_epsilon(epsilon)`` and ``epsilon_at_delta(delta)``.
    """

    is_curve: ClassVar[bool] = True

    conversion_reference: ClassVar[str]
    """Where the claim's (epsilon, delta) conversion (``epsilon_at_delta``, ``delta_at_epsilon``) comes from."""

    conversion_is_exact: ClassVar[bool] = False
    """Whether the claim holds exactly when (epsilon, delta_at_epsilon(epsilon))-DP holds for every epsilon >= 0
    (GDP, Dong, Roth & Su 2022, Cor. 2.13; a privacy curve, by its definition), rather than only implying it
    (zCDP, RDP: their conversions are upper bounds)."""

    def to_approx(self, delta: float) -> ApproxDP:
        """The (epsilon, delta)-DP claim this claim implies at ``delta`` in (0, 1).

        Raises InvalidArgument when the claim implies no finite epsilon at that delta.
        """
        delta = check_unit_interval("delta", delta, low_open=True)
        epsilon = self.epsilon_at_delta(delta)  # type: ignore[attr-defined]
        if not math.isfinite(epsilon):
            raise InvalidArgument(f"claim {self} implies no finite epsilon at delta={delta!r}")
        return ApproxDP(epsilon, delta)

    def curve(self, epsilons: Sequence[float]) -> "PrivacyCurve":
        """The claim's delta(epsilon) tabulated at ``epsilons`` (increasing, >= 0) as a PrivacyCurve."""
        epsilons = _increasing("epsilons", epsilons)
        return PrivacyCurve(epsilons, tuple(self.delta_at_epsilon(e) for e in epsilons))  # type: ignore[attr-defined]

    def working_point(self, delta: float) -> ApproxDP:
        """The one (epsilon, delta) point that stands for the claim where a procedure works at one point.

        The claim at ``delta`` (:meth:`to_approx`); a privacy curve that promises nothing there gives
        its own point of least delta instead.
        """
        return self.to_approx(delta)

    def compares_through_conversion(self, other: Claim) -> bool:
        """Whether :meth:`implies` decides ``other`` through this claim's (epsilon, delta) conversion.

        So it does for approximate DP with delta > 0 (is epsilon(delta) at most the claimed epsilon?) and
        for a privacy curve (is delta(epsilon_i) at most delta_i at each of its points?).
        """
        return (isinstance(other, ApproxDP) and other.delta > 0) or isinstance(other, PrivacyCurve)

    def delta_excess(self, curve: PrivacyCurve) -> float:
        """max_i delta(epsilon_i) - delta_i over the points of ``curve``: the claim implies ``curve`` iff it is <= 0."""
        deltas = (self.delta_at_epsilon(e) for e in curve.epsilon)  # type: ignore[attr-defined]
        return max(have - d for have, d in zip(deltas, curve.delta))

    def implies(self, other: Claim) -> bool:
        """Whether this curve claim implies ``other``.

        Approximate DP with delta > 0 and privacy curves through the conversion
        (:meth:`compares_through_conversion`), the other curve claims parameter by parameter (each class's
        ``_implies_by_parameters``); a curve claim never implies pure or probabilistic DP here.
        """
        if self.compares_through_conversion(other):
            if other.is_curve:
                return self.delta_excess(other) <= 0
            return self.epsilon_at_delta(other.delta) <= other.epsilon * _SLACK  # type: ignore[attr-defined]
        return self._implies_by_parameters(other)

    def _implies_by_parameters(self, other: Claim) -> bool:
        """``other`` by comparing parameters: none by default (a privacy curve implies only (epsilon, delta) claims)."""
        return False


def _renyi_divergence_bound(bound: Any) -> Any:
    """D_alpha(M(D) || M(D')) <= ``bound`` as a sympy relation."""
    import sympy

    return sympy.Le(sympy.Function("D_alpha")(sympy.Symbol("M(D)"), sympy.Symbol("M(D')")), bound)


def _implies_renyi(stronger: ZeroConcentratedDP | RenyiDP, weaker: Claim) -> bool:
    """Whether ``weaker`` is RDP and ``stronger`` bounds D_alpha by at most its epsilon(alpha) at each of its orders."""
    if not isinstance(weaker, RenyiDP):
        return False
    for alpha, epsilon in zip(weaker.alpha, weaker.epsilon):
        have = stronger.renyi_bound(alpha)
        if have is None or have > epsilon * _SLACK:
            return False
    return True


@dataclass(frozen=True)
class ZeroConcentratedDP(_Curve):
    """rho-zero-concentrated DP: D_alpha(M(D) || M(D')) <= rho alpha for all alpha > 1 (Bun & Steinke 2016, Def. 1.1).

    The Gaussian mechanism with L2 sensitivity Delta and noise N(0, sigma^2) is
    (Delta^2 / (2 sigma^2))-zCDP (Bun & Steinke 2016, Prop. 1.6).  It implies (epsilon, delta)-DP with
    delta(epsilon) of Canonne, Kamath & Steinke (2020, Cor. 13) (:func:`dpaudit.conversions.zcdp_delta`).

    Parameters
    ----------
    rho : float
        Finite, ``>= 0``.
    """

    rho: float
    kind: ClassVar[str] = "zcdp"
    bounds_renyi_divergence: ClassVar[bool] = True
    conversion_reference: ClassVar[str] = "Canonne, Kamath & Steinke 2020, Cor. 13"

    def __post_init__(self) -> None:
        object.__setattr__(self, "rho", check_nonnegative_finite("rho", self.rho))

    def renyi(self, alpha: float | Sequence[float]) -> "RenyiDP":
        """The RDP claim it implies at the order(s) ``alpha``: epsilon(alpha) = rho alpha."""
        orders = _orders(alpha)
        return RenyiDP(orders, tuple(self.rho * a for a in orders))

    @property
    def renyi_orders(self) -> None:
        """None: the claim bounds D_alpha at every order alpha > 1."""
        return None

    def renyi_bound(self, alpha: float) -> float:
        """rho alpha, the claim's bound on D_alpha at the order ``alpha`` (Bun & Steinke 2016, Def. 1.1)."""
        return self.rho * alpha

    def _implies_by_parameters(self, other: Claim) -> bool:
        """rho'-zCDP for rho' >= rho, and RDP whose epsilon(alpha) is at least rho alpha at each of its orders."""
        if isinstance(other, ZeroConcentratedDP):
            return self.rho <= other.rho * _SLACK
        return _implies_renyi(self, other)

    @classmethod
    def definition(cls) -> list[tuple[Any, str]]:
        """D_alpha(M(D) || M(D')) <= rho alpha for every alpha > 1 (Bun & Steinke 2016, Def. 1.1)."""
        import sympy

        rho, alpha = sympy.Symbol("rho", positive=True), sympy.Symbol("alpha", positive=True)
        return [(_renyi_divergence_bound(rho * alpha),
                 f"for every alpha > 1 (Bun & Steinke 2016, Def. 1.1); {_DIVERGENCE}")]

    def delta_at_epsilon(self, epsilon: float) -> float:
        """delta(epsilon), Canonne, Kamath & Steinke (2020, Cor. 13)."""
        return conversions.zcdp_delta(self.rho, epsilon)

    def epsilon_at_delta(self, delta: float) -> float:
        """epsilon(delta), the inverse of :meth:`delta_at_epsilon` (CKS 2020, Cor. 13)."""
        return conversions.zcdp_epsilon(self.rho, delta)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "rho": self.rho}

    def __str__(self) -> str:
        return f"{self.rho:g}-zCDP"


@dataclass(frozen=True)
class RenyiDP(_Curve):
    """(alpha, epsilon)-Rényi DP: D_alpha(M(D) || M(D')) <= epsilon (Mironov 2017, Def. 4).

    ``RenyiDP(2, 0.5)`` is one order; ``RenyiDP((2, 4, 8), (0.5, 1.0, 2.0))`` is the curve
    alpha -> epsilon(alpha) at those orders.  Both fields are stored as tuples sorted by order, so
    the value is hashable and JSON round-trips.  It implies (epsilon, delta)-DP by the conversion
    of Balle et al. (2020, Thm. 21) (:func:`dpaudit.conversions.renyi_epsilon`).

    Parameters
    ----------
    alpha : float or sequence of float
        The orders, each finite and ``> 1``, no order twice.
    epsilon : float or sequence of float
        epsilon(alpha) at each order, finite, ``>= 0``.
    """

    alpha: tuple[float, ...]
    epsilon: tuple[float, ...]
    kind: ClassVar[str] = "renyi"
    bounds_renyi_divergence: ClassVar[bool] = True
    conversion_reference: ClassVar[str] = "Balle et al. 2020, Thm. 21"

    def __post_init__(self) -> None:
        orders = _orders(self.alpha)
        epsilons = (self.epsilon,) if _is_scalar(self.epsilon) else tuple(self.epsilon)
        if len(epsilons) != len(orders):
            raise InvalidArgument(
                f"epsilon={self.epsilon!r} must give one value per order in alpha={self.alpha!r} ({len(orders)})")
        epsilons = tuple(check_nonnegative_finite("epsilon", e) for e in epsilons)
        if len(set(orders)) != len(orders):
            raise InvalidArgument(f"alpha={self.alpha!r} must not repeat an order")
        pairs = sorted(zip(orders, epsilons))
        object.__setattr__(self, "alpha", tuple(a for a, _ in pairs))
        object.__setattr__(self, "epsilon", tuple(e for _, e in pairs))

    def epsilon_at_order(self, alpha: float) -> float:
        """epsilon(alpha) at one of the claim's orders."""
        table = dict(zip(self.alpha, self.epsilon))
        if alpha not in table:
            raise InvalidArgument(f"alpha={alpha!r} must be one of the claim's orders {list(self.alpha)}")
        return table[alpha]

    @property
    def renyi_orders(self) -> tuple[float, ...]:
        """The claimed orders, the only ones at which the claim bounds D_alpha."""
        return self.alpha

    def renyi_bound(self, alpha: float) -> float | None:
        """epsilon(alpha) at one of the claimed orders; None at any other order, where the claim says nothing."""
        return dict(zip(self.alpha, self.epsilon)).get(alpha)

    def _implies_by_parameters(self, other: Claim) -> bool:
        """RDP whose epsilon'(alpha) is at least epsilon(alpha) at each of its orders, all of them claimed here."""
        return _implies_renyi(self, other)

    @classmethod
    def definition(cls) -> list[tuple[Any, str]]:
        """D_alpha(M(D) || M(D')) <= epsilon(alpha) at each claimed order alpha (Mironov 2017, Def. 4)."""
        import sympy

        return [(_renyi_divergence_bound(sympy.Symbol("epsilon(alpha)")),
                 f"at each claimed order alpha (Mironov 2017, Def. 4); {_DIVERGENCE}")]

    def delta_at_epsilon(self, epsilon: float) -> float:
        """delta(epsilon), minimised over the claim's orders (Canonne, Kamath & Steinke 2020, Prop. 12)."""
        return conversions.renyi_delta(self.alpha, self.epsilon, epsilon)[0]

    def epsilon_at_delta(self, delta: float) -> float:
        """epsilon(delta), minimised over the claim's orders (Balle et al. 2020, Thm. 21)."""
        return conversions.renyi_epsilon(self.alpha, self.epsilon, delta)[0]

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "alpha": list(self.alpha), "epsilon": list(self.epsilon)}

    def __str__(self) -> str:
        if len(self.alpha) == 1:
            return f"({self.alpha[0]:g}, {self.epsilon[0]:g})-RDP"
        return "RDP at " + ", ".join(f"alpha={a:g}: {e:g}" for a, e in zip(self.alpha, self.epsilon))


@dataclass(frozen=True)
class GaussianDP(_Curve):
    """mu-Gaussian DP: T(M(D), M(D')) >= G_mu = T(N(0, 1), N(mu, 1)) (Dong, Roth & Su 2022, Def. 2.6).

    The Gaussian mechanism with sensitivity Delta and noise N(0, sigma^2) is (Delta/sigma)-GDP
    (Dong, Roth & Su 2022, Thm. 2.7).  mu-GDP holds exactly when (epsilon, delta(epsilon))-DP holds
    for every epsilon >= 0 with delta(epsilon) = Phi(-epsilon/mu + mu/2) - e^epsilon Phi(-epsilon/mu - mu/2)
    (Cor. 2.13; :func:`dpaudit.conversions.gdp_delta`).

    Parameters
    ----------
    mu : float
        Finite, ``>= 0``.
    """

    mu: float
    kind: ClassVar[str] = "gdp"
    bounds_trade_off_function: ClassVar[bool] = True
    conversion_reference: ClassVar[str] = "Dong, Roth & Su 2022, Cor. 2.13"
    conversion_is_exact: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_nonnegative_finite("mu", self.mu))

    def _implies_by_parameters(self, other: Claim) -> bool:
        """mu'-GDP for mu' >= mu (G_mu decreases in mu), and what (mu^2/2)-zCDP implies of zCDP and RDP claims.

        N(0, 1) vs N(mu, 1) has D_alpha = mu^2 alpha / 2, and the trade-off function bounds every
        f-divergence (Dong, Roth & Su 2022, Thm. 2.10; Blackwell), so mu-GDP implies (mu^2/2)-zCDP.
        """
        if isinstance(other, GaussianDP):
            return self.mu <= other.mu * _SLACK
        return other.bounds_renyi_divergence and ZeroConcentratedDP(self.mu**2 / 2).implies(other)

    @classmethod
    def definition(cls) -> list[tuple[Any, str]]:
        """T(M(D), M(D'))(a) >= G_mu(a) = Phi(Phi^-1(1 - a) - mu) for every a (Dong, Roth & Su 2022, Def. 2.6)."""
        import sympy

        mu = sympy.Symbol("mu", positive=True)
        g_mu = sympy.Function("Phi")(sympy.Function("Phi^-1")(1 - sympy.Symbol("a")) - mu)
        return [(sympy.Ge(sympy.Symbol("T(M(D), M(D'))(a)"), g_mu),
                 "for every type-I error a in [0, 1]: the smallest type-II error of a test of M(D) against M(D') "
                 "is at least that of N(0, 1) against N(mu, 1) (Dong, Roth & Su 2022, Def. 2.6); Phi is the "
                 "standard normal CDF, for all neighbours D ~ D'")]

    def delta_at_epsilon(self, epsilon: float) -> float:
        """delta(epsilon), exactly (Dong, Roth & Su 2022, Cor. 2.13)."""
        return conversions.gdp_delta(self.mu, epsilon)

    def epsilon_at_delta(self, delta: float) -> float:
        """epsilon(delta), the exact inverse of :meth:`delta_at_epsilon`."""
        return conversions.gdp_epsilon(self.mu, delta)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "mu": self.mu}

    def __str__(self) -> str:
        return f"{self.mu:g}-GDP"


@dataclass(frozen=True)
class PrivacyCurve(_Curve):
    """A privacy curve (privacy profile) tabulated: (epsilon_i, delta_i)-DP for every i.

    The points are sorted by epsilon; delta must not increase with epsilon (a larger epsilon never
    needs a larger delta: (epsilon, delta)-DP implies (epsilon', delta)-DP for epsilon' >= epsilon).
    Between points the curve is the step that follows from the tabulated ones:
    delta(epsilon) = delta_i for the largest epsilon_i <= epsilon, and 1 (no promise) below epsilon_0.

    Parameters
    ----------
    epsilon : sequence of float
        Strictly increasing, finite, ``>= 0``.
    delta : sequence of float
        In ``[0, 1]``, one per epsilon, non-increasing.
    """

    epsilon: tuple[float, ...]
    delta: tuple[float, ...]
    kind: ClassVar[str] = "curve"
    conversion_reference: ClassVar[str] = "the tabulated curve"
    conversion_is_exact: ClassVar[bool] = True

    def __post_init__(self) -> None:
        epsilons = _increasing("epsilon", self.epsilon)
        if _is_scalar(self.delta) or len(tuple(self.delta)) != len(epsilons):
            raise InvalidArgument(f"delta={self.delta!r} must give one value per epsilon ({len(epsilons)})")
        deltas = tuple(check_unit_interval("delta", d, high_open=False) for d in self.delta)
        for i in range(1, len(deltas)):
            if deltas[i] > deltas[i - 1]:
                raise InvalidArgument(
                    f"delta={self.delta!r} must not increase with epsilon: delta={deltas[i]!r} at epsilon={epsilons[i]!r} "
                    f"exceeds delta={deltas[i - 1]!r} at epsilon={epsilons[i - 1]!r}")
        object.__setattr__(self, "epsilon", epsilons)
        object.__setattr__(self, "delta", deltas)

    def delta_at_epsilon(self, epsilon: float) -> float:
        """delta_i of the largest tabulated epsilon_i <= epsilon, or 1 below the first point."""
        epsilon = check_nonnegative_finite("epsilon", epsilon)
        held = [d for e, d in zip(self.epsilon, self.delta) if e <= epsilon]
        return held[-1] if held else 1.0

    def epsilon_at_delta(self, delta: float) -> float:
        """The smallest tabulated epsilon_i with delta_i <= delta, or inf when none is."""
        delta = check_unit_interval("delta", delta, high_open=False)
        return next((e for e, d in zip(self.epsilon, self.delta) if d <= delta), math.inf)

    def working_point(self, delta: float) -> ApproxDP:
        """The claim at ``delta`` (:meth:`to_approx`), or where it promises nothing there (every delta_i > delta)
        its own point of least delta, the last."""
        if not math.isfinite(self.epsilon_at_delta(delta)):
            return ApproxDP(self.epsilon[-1], self.delta[-1])
        return self.to_approx(delta)

    @classmethod
    def definition(cls) -> list[tuple[Any, str]]:
        """P_D(S) <= e^epsilon P_D'(S) + delta(epsilon) for every epsilon of the curve (Dwork & Roth 2014, Def. 2.4)."""
        import sympy

        return [(_set_inequality(sympy.Function("delta")(sympy.Symbol("epsilon", positive=True))),
                 f"for every epsilon of the claimed curve epsilon -> delta(epsilon); {_SETS}")]

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "epsilon": list(self.epsilon), "delta": list(self.delta)}

    def __str__(self) -> str:
        points = ", ".join(f"({e:g}, {d:g})" for e, d in zip(self.epsilon, self.delta))
        return f"privacy curve {points}"


def _is_scalar(value: Any) -> bool:
    return not isinstance(value, (tuple, list)) and not (hasattr(value, "__len__") and not isinstance(value, str))


def _orders(alpha: Any) -> tuple[float, ...]:
    orders = (alpha,) if _is_scalar(alpha) else tuple(alpha)
    if not orders:
        raise InvalidArgument("alpha=() must hold at least one Rényi order")
    checked = tuple(check_real("alpha", a) for a in orders)
    for given, a in zip(orders, checked):
        if not (math.isfinite(a) and a > 1):
            raise InvalidArgument(f"alpha={given!r} must be a finite Rényi order > 1")
    return checked


def _increasing(name: str, values: Any) -> tuple[float, ...]:
    if _is_scalar(values) or not len(values):
        raise InvalidArgument(f"{name}={values!r} must be a non-empty sequence of numbers")
    checked = tuple(check_nonnegative_finite(name, v) for v in values)
    if any(b <= a for a, b in zip(checked, checked[1:])):
        raise InvalidArgument(f"{name}={values!r} must be strictly increasing")
    return checked


Claim = Union[PureDP, ApproxDP, ProbabilisticDP, ZeroConcentratedDP, RenyiDP, GaussianDP, PrivacyCurve]

CURVE_KINDS = ("zcdp", "renyi", "gdp", "curve")
"""The kinds of the claims that state a family of (epsilon, delta) guarantees rather than one."""

_KINDS = {cls.kind: cls for cls in (PureDP, ApproxDP, ProbabilisticDP, ZeroConcentratedDP, RenyiDP, GaussianDP, PrivacyCurve)}

CLAIM_KINDS = tuple(_KINDS)
"""Every claim's ``kind``: pure, approximate, probabilistic, then the :data:`CURVE_KINDS`."""


def claim_class(kind: str) -> type[Claim]:
    """The claim class whose ``kind`` (JSON tag) is ``kind``: ``claim_class("zcdp")`` is ZeroConcentratedDP."""
    if kind not in _KINDS:
        raise InvalidArgument(f"kind={kind!r} must be one of {sorted(_KINDS)}")
    return _KINDS[kind]


def check_claim(name: str, value: Any) -> Claim:
    """``value`` if it is a claim object (one of the seven kinds above), else InvalidArgument naming ``name``."""
    if not isinstance(value, tuple(_KINDS.values())):
        raise InvalidArgument(f"{name}={value!r} must be PureDP, ApproxDP, ProbabilisticDP, ZeroConcentratedDP, RenyiDP, "
                              "GaussianDP or PrivacyCurve, e.g. dpaudit.ZeroConcentratedDP(0.5)")
    return value


def claim_from_dict(data: dict[str, Any]) -> Claim:
    """Inverse of ``claim.as_dict()``: ``{"kind": one of pure, approximate, probabilistic, zcdp, renyi, gdp, curve, ...}``."""
    if not isinstance(data, dict) or data.get("kind") not in _KINDS:
        raise InvalidArgument(f"claim={data!r} must be a dict with kind one of {sorted(_KINDS)}")
    cls = _KINDS[data["kind"]]
    if cls is PureDP:
        return PureDP(data.get("epsilon"))
    if cls is ZeroConcentratedDP:
        return ZeroConcentratedDP(data.get("rho"))
    if cls is GaussianDP:
        return GaussianDP(data.get("mu"))
    if cls is RenyiDP:
        return RenyiDP(data.get("alpha"), data.get("epsilon"))
    return cls(data.get("epsilon"), data.get("delta"))
