"""Privacy claims: the promise a mechanism makes.

A mechanism M is *(epsilon, delta)-differentially private* for a neighbour relation ~ if for all
D ~ D' and every measurable set S of outputs

    P[M(D) in S] <= e^epsilon * P[M(D') in S] + delta                           (Dwork & Roth 2014, Def. 2.4)

``PureDP(epsilon)`` is the case delta = 0.  ``ProbabilisticDP(epsilon, delta)`` is the stronger
per-output statement of Meiser (2018, IACR ePrint 2018/277, Def. 2): for all D ~ D' the privacy
loss ln(p_D(y) / p_D'(y)) exceeds epsilon only on a set of outputs of probability at most delta under
M(D).  Probabilistic DP implies approximate DP with the same (epsilon, delta) but, unlike approximate
DP, it is *not* closed under post-processing (Meiser 2018, Sect. 3).

Claims are frozen values that validate themselves; they never change after construction.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Union

from ._validation import check_nonnegative_finite, check_unit_interval
from .errors import InvalidArgument

__all__ = ["ApproxDP", "Claim", "ProbabilisticDP", "PureDP", "claim_from_dict"]


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


Claim = Union[PureDP, ApproxDP, ProbabilisticDP]

_KINDS = {cls.kind: cls for cls in (PureDP, ApproxDP, ProbabilisticDP)}


def claim_from_dict(data: dict[str, Any]) -> Claim:
    """Inverse of ``claim.as_dict()``: ``{"kind": "pure"|"approximate"|"probabilistic", ...}``."""
    if not isinstance(data, dict) or data.get("kind") not in _KINDS:
        raise InvalidArgument(f"claim={data!r} must be a dict with kind one of {sorted(_KINDS)}")
    cls = _KINDS[data["kind"]]
    if cls is PureDP:
        return PureDP(data.get("epsilon"))
    return cls(data.get("epsilon"), data.get("delta"))
