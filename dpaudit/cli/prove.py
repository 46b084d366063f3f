"""``dpaudit prove``: prove or refute a mechanism's claim from its declared density, program or structure."""

from __future__ import annotations

import sys

import click

from ..claims import ApproxDP
from ._common import (
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_VIOLATION,
    NUMBER,
    debug_option,
    echo_json,
    guarded,
    json_option,
)


def _restated_claim(mechanism, claim_kind: str | None, epsilon: float | None, delta: float | None,
                    rho: float | None = None, mu: float | None = None, alpha: float | None = None):
    """The claim the options restate, or None.  --rho / --mu / --alpha alone imply --claim zcdp / gdp / renyi."""
    from .._validation import check_nonnegative_finite, check_unit_interval
    from ..claims import (
        CURVE_KINDS,
        GaussianDP,
        ProbabilisticDP,
        PureDP,
        RenyiDP,
        ZeroConcentratedDP,
    )
    from ..errors import InvalidArgument
    from ..mechanisms.targets import restated_point

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
    own = mechanism.claim
    implying = "rho" if rho is not None else "mu" if mu is not None else "alpha" if alpha is not None else None
    implied = {"rho": "zcdp", "mu": "gdp", "alpha": "renyi", None: None}[implying]
    kind = claim_kind or implied or own.kind
    if claim_kind is None and implied is None and own.kind in CURVE_KINDS and (epsilon is not None or delta is not None):
        kind = "approximate"  # --epsilon / --delta name a point of the curve claim, as for audit
    stated = f"--claim {kind}" if claim_kind or not implied else f"--{implying} (a --claim {kind} claim)"

    def value(given: float | None, option: str, field: str) -> float:
        if given is not None:
            return given
        if own.kind == kind and kind != "renyi":
            return getattr(own, field)
        raise InvalidArgument(f"{stated} needs --{option} too (the mechanism claims {own})")

    if kind == "zcdp":
        return ZeroConcentratedDP(value(rho, "rho", "rho"))
    if kind == "gdp":
        return GaussianDP(value(mu, "mu", "mu"))
    if kind == "renyi":
        if alpha is None and own.kind == "renyi" and epsilon is None:
            return own
        return RenyiDP(value(alpha, "alpha", "alpha"), value(epsilon, "epsilon", "epsilon"))
    if own.kind in CURVE_KINDS:
        if epsilon is None and delta is None:
            raise InvalidArgument(f"--claim {kind} of the curve claim {own} needs --delta or --epsilon (the point of its curve)")
        point = restated_point(own, epsilon, delta)
        return ProbabilisticDP(point.epsilon, point.delta) if kind == "probabilistic" else point
    eps = own.epsilon if epsilon is None else epsilon
    dlt = own.delta if delta is None else delta
    if kind == "pure":
        return PureDP(eps)
    return ApproxDP(eps, dlt) if kind == "approximate" else ProbabilisticDP(eps, dlt)


@click.command("prove")
@click.argument("target")
@click.option("--claim", "claim_kind", type=click.Choice(["pure", "approximate", "probabilistic", "zcdp", "renyi", "gdp"]),
              help="Restate the kind of claim.")
@click.option("--epsilon", type=NUMBER, help="Restate epsilon (checks the numeric instance); for --claim renyi, epsilon(alpha).")
@click.option("--delta", type=NUMBER, help="Restate delta (checks the numeric instance).")
@click.option("--rho", type=NUMBER, help="Restate rho of a zero-concentrated DP claim (implies --claim zcdp).")
@click.option("--mu", type=NUMBER, help="Restate mu of a Gaussian DP claim (implies --claim gdp).")
@click.option("--alpha", type=NUMBER, help="The Rényi order of a restated RDP claim (implies --claim renyi).")
@click.option("--numeric", is_flag=True, help="Check the catalogue instance's values instead of all parameter values.")
@click.option(
    "--time-budget",
    type=click.FloatRange(min=0.0, min_open=True),
    default=None,
    help="Seconds before the proof stops with verdict unknown (default: the prover's, 10 s).",
)
@json_option
@debug_option
@guarded
def prove(
    target: str,
    claim_kind: str | None,
    epsilon: float | None,
    delta: float | None,
    rho: float | None,
    mu: float | None,
    alpha: float | None,
    numeric: bool,
    time_budget: float | None,
    as_json: bool,
    debug: bool,
) -> None:
    """Prove TARGET's privacy claim (catalogue name, package.module:attr or file.py:attr).

    Exit 0 proved, 1 refuted (the witness is printed), 2 bad input, 3 unknown.
    """
    from .._validation import check_positive_finite
    from ..mechanisms.targets import resolve
    from ..proofs import prove as run_prove
    from ..proofs.prove import DEFAULT_TIME_BUDGET
    from ..proofs.result import Verdict

    if time_budget is not None:  # checked before the claim's options, which would otherwise speak first
        check_positive_finite("time_budget", time_budget)
    mechanism = resolve(target)
    claim = _restated_claim(mechanism, claim_kind, epsilon, delta, rho, mu, alpha)
    budget = DEFAULT_TIME_BUDGET if time_budget is None else time_budget
    result = run_prove(mechanism, claim=claim, numeric=numeric, time_budget=budget)
    if as_json:
        echo_json(result.as_dict())
    else:
        click.echo(str(result))
    code = {Verdict.PROVED: EXIT_OK, Verdict.REFUTED: EXIT_VIOLATION, Verdict.UNKNOWN: EXIT_UNKNOWN}[result.verdict]
    sys.exit(code)


COMMAND = prove
