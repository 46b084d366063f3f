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
    "ApproxDP",
    "Claim",
    "GaussianDP",
    "PrivacyCurve",
    "ProbabilisticDP",
    "PureDP",
    "RenyiDP",
    "ZeroConcentratedDP",
    "check_claim",
    "claim_from_dict",
]


@dataclass(frozen=True)
class PureDP:
    """Pure epsilon-differential privacy: P[M(D) in S] <= e^epsilon P[M(D') in S].

    Parameters
    ----------
    epsilon : float
        Finite, ``>= 0``.
    """

    epsilon: float
    kind: ClassVar[str] = "pure"

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_nonnegative_finite("epsilon", self.epsilon))

    @property
    def delta(self) -> float:
        """Pure DP is the case delta = 0."""
        return 0.0

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "epsilon": self.epsilon, "delta": 0.0}

    def __str__(self) -> str:
        return f"{self.epsilon:g}-DP"


@dataclass(frozen=True)
class _EpsilonDelta:
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

    def __str__(self) -> str:
        return f"probabilistic ({self.epsilon:g}, {self.delta:g})-DP"


class _Curve:
    """The shared face of the curve claims: (epsilon, delta) read off the curve, and its tabulation.

    Each subclass defines ``delta_at_epsilon(epsilon)`` and ``epsilon_at_delta(delta)``.
    """

    kind: ClassVar[str]

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

    def __post_init__(self) -> None:
        object.__setattr__(self, "rho", check_nonnegative_finite("rho", self.rho))

    def renyi(self, alpha: float | Sequence[float]) -> "RenyiDP":
        """The RDP claim it implies at the order(s) ``alpha``: epsilon(alpha) = rho alpha."""
        orders = _orders(alpha)
        return RenyiDP(orders, tuple(self.rho * a for a in orders))

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

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_nonnegative_finite("mu", self.mu))

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
