"""How ``dpaudit prove`` and ``dpaudit audit`` read a restated claim: ``--claim``, ``--rho``, ``--mu``,
``--alpha`` beside ``--epsilon`` / ``--delta``, one meaning for both commands.

* ``--claim pure|approximate|probabilistic`` with ``--epsilon`` / ``--delta`` (a value left out is the
  mechanism's own); on a mechanism that claims a curve, they name a point of that curve.
* ``--rho R`` (zCDP), ``--mu M`` (Gaussian DP), ``--alpha A --epsilon E`` (Rényi DP at order A):
  each implies its ``--claim``, which may also be given; one of them per command line.  A curve claim
  stated so is read at the point ``--epsilon`` or ``--delta`` names (the other is read off its curve,
  :func:`dpaudit.targets.stated_claim`); for Rényi DP ``--epsilon`` is epsilon(alpha) and
  only ``--delta`` names a point.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from .._validation import check_nonnegative_finite, check_unit_interval
from ..claims import GaussianDP, PureDP, RenyiDP, ZeroConcentratedDP, claim_class
from ..errors import InvalidArgument
from ._common import NUMBER

__all__ = ["CLAIM_KINDS", "claim_flags", "claim_options", "restated_claim"]

F = TypeVar("F", bound=Callable[..., Any])

CLAIM_KINDS = ("pure", "approximate", "probabilistic", "zcdp", "renyi", "gdp")
"""The kinds ``--claim`` takes: every claim but the tabulated privacy curve, which has no option."""

# The option that states each curve kind's parameter.
_PARAMETERS = (("rho", "zcdp"), ("mu", "gdp"), ("alpha", "renyi"))


def claim_options(function: F) -> F:
    """Add ``--claim``, ``--rho``, ``--mu`` and ``--alpha`` (the same options, same help, on every command)."""
    options = [
        click.option("--claim", "claim_kind", type=click.Choice(CLAIM_KINDS), default=None,
                     help="Restate the kind of claim: pure, approximate, probabilistic (with --epsilon/--delta), zcdp "
                          "(--rho), gdp (--mu) or renyi (--alpha, --epsilon); a curve claim with --epsilon or --delta "
                          "is read at that point of its curve."),
        click.option("--rho", type=NUMBER, default=None, help="rho of a zero-concentrated DP claim (implies --claim zcdp)."),
        click.option("--mu", type=NUMBER, default=None, help="mu of a Gaussian DP claim (implies --claim gdp)."),
        click.option("--alpha", type=NUMBER, default=None,
                     help="The Rényi order of an RDP claim, with --epsilon = epsilon(alpha) (implies --claim renyi)."),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def claim_flags(claim_kind: str | None, rho: float | None, mu: float | None, alpha: float | None) -> list[str]:
    """The claim options as given, for a reproduce line (floats by ``repr``: exactly)."""
    flags = [f"--claim {claim_kind}"] if claim_kind is not None else []
    return flags + [f"--{name} {value!r}" for name, value in (("rho", rho), ("mu", mu), ("alpha", alpha))
                    if value is not None]


def restated_claim(own: Callable[[], Any], claim_kind: str | None, epsilon: float | None, delta: float | None,
                   rho: float | None = None, mu: float | None = None, alpha: float | None = None):
    """The claim the options restate, or None when none is given.

    ``own()`` gives the mechanism's own claim (None for a plain function, which carries none); it is
    called only when an option leaves a value to it.  Refused in one line (InvalidArgument): two of
    ``--rho`` / ``--mu`` / ``--alpha``; one of them with a ``--claim`` of another kind; a kind without
    its parameter where the mechanism's claim does not give it; ``--claim pure`` with a nonzero
    ``--delta``; a stated curve claim with both ``--epsilon`` and ``--delta``.
    """
    from ..targets import restated_point, stated_claim

    if all(v is None for v in (claim_kind, epsilon, delta, rho, mu, alpha)):
        return None
    # Each value given is checked on its own first, so a malformed one is named even where the claim
    # it restates would not use it.
    if epsilon is not None:
        check_nonnegative_finite("epsilon", epsilon)
    if delta is not None:
        check_unit_interval("delta", delta)
    for given, make in ((rho, ZeroConcentratedDP), (mu, GaussianDP), (alpha, lambda a: RenyiDP(a, 0.0))):
        if given is not None:
            make(given)
    parameters = [(name, kind) for (name, kind), value in zip(_PARAMETERS, (rho, mu, alpha)) if value is not None]
    if len(parameters) > 1:
        names = [f"--{name}" for name, _ in parameters]
        named = ", ".join(names[:-1]) + f" and {names[-1]}"
        raise InvalidArgument(f"{named} state different claims ({', '.join(k for _, k in parameters)}): give one")
    implying, implied = parameters[0] if parameters else (None, None)
    if claim_kind is not None and implied is not None and implied != claim_kind:
        raise InvalidArgument(f"--{implying} states a {implied} claim, not --claim {claim_kind}: drop --{implying} or "
                              f"give --claim {implied}")
    kind = claim_kind or implied
    if kind is not None:
        stated = f"--claim {kind}" if claim_kind else f"--{implying} (a --claim {kind} claim)"
    else:
        stated = "--epsilon" if epsilon is not None else "--delta"
    cache: list[Any] = []

    def mine() -> Any:
        if not cache:
            cache.append(own())
        return cache[0]

    def needs(option: str) -> InvalidArgument:
        whose = mine()
        return InvalidArgument(f"{stated} needs --{option} too (" + (
            f"the mechanism claims {whose})" if whose is not None else "a plain function carries no claim)"))

    def value(given: float | None, option: str) -> float:
        if given is not None:
            return given
        whose = mine()
        if isinstance(whose, chosen) and chosen is not RenyiDP:
            return getattr(whose, option)
        raise needs(option)

    if kind is None:  # --epsilon / --delta alone: the mechanism's claim restated in its own kind
        whose = mine()
        if whose is None:
            raise needs("epsilon")
        # On a curve claim they name a point of its curve; a delta > 0 makes a pure claim approximate.
        kind = "approximate" if whose.is_curve or (not whose.states_delta and delta) else whose.kind
    chosen = claim_class(kind)
    if chosen.is_curve:
        if chosen is ZeroConcentratedDP:
            curve: Any = ZeroConcentratedDP(value(rho, "rho"))
        elif chosen is GaussianDP:
            curve = GaussianDP(value(mu, "mu"))
        elif alpha is None and epsilon is None and isinstance(mine(), RenyiDP):
            curve = mine()
        else:  # --epsilon is epsilon(alpha), part of the claim; only --delta names a point of it
            curve, epsilon = RenyiDP(value(alpha, "alpha"), value(epsilon, "epsilon")), None
        if epsilon is not None and delta is not None:
            raise InvalidArgument(f"{stated} with --epsilon and --delta: give one, the point of its curve (the other "
                                  "is read off it), or neither to state the whole curve")
        return stated_claim(curve, epsilon, delta)
    if not chosen.states_delta:
        if delta:
            raise InvalidArgument(f"--claim pure has delta = 0, not --delta {delta!r}: drop --delta or give --claim "
                                  "approximate")
        if epsilon is None and (mine() is None or mine().is_curve):
            raise needs("epsilon")
        return PureDP(mine().epsilon if epsilon is None else epsilon)
    if epsilon is not None and delta is not None:
        return chosen(epsilon, delta)
    whose = mine()
    if whose is None:
        raise needs("epsilon" if epsilon is None else "delta")
    if whose.is_curve:  # --epsilon or --delta names a point of the mechanism's curve
        if epsilon is None and delta is None:
            raise InvalidArgument(f"--claim {kind} of the curve claim {whose} needs --delta or --epsilon (the point of "
                                  "its curve)")
        at = restated_point(whose, epsilon, delta)
        return chosen(at.epsilon, at.delta)
    return chosen(whose.epsilon if epsilon is None else epsilon, whose.delta if delta is None else delta)
