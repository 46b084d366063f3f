"""``dpaudit prove``: prove or refute a mechanism's claim from its declared density or structure."""

from __future__ import annotations

import sys

import click

from ._common import (
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_VIOLATION,
    debug_option,
    echo_json,
    guarded,
    json_option,
)


def _restated_claim(mechanism, claim_kind: str | None, epsilon: float | None, delta: float | None):
    from ..claims import ApproxDP, ProbabilisticDP, PureDP

    if claim_kind is None and epsilon is None and delta is None:
        return None
    kind = claim_kind or mechanism.claim.kind
    eps = mechanism.claim.epsilon if epsilon is None else epsilon
    dlt = mechanism.claim.delta if delta is None else delta
    if kind == "pure":
        return PureDP(eps)
    return ApproxDP(eps, dlt) if kind == "approximate" else ProbabilisticDP(eps, dlt)


@click.command("prove")
@click.argument("target")
@click.option("--claim", "claim_kind", type=click.Choice(["pure", "approximate", "probabilistic"]), help="Restate the kind of claim.")
@click.option("--epsilon", type=float, help="Restate epsilon (checks the numeric instance).")
@click.option("--delta", type=float, help="Restate delta (checks the numeric instance).")
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
    numeric: bool,
    time_budget: float | None,
    as_json: bool,
    debug: bool,
) -> None:
    """Prove TARGET's privacy claim (catalogue name, package.module:attr or file.py:attr).

    Exit 0 proved, 1 refuted (the witness is printed), 2 bad input, 3 unknown.
    """
    from ..mechanisms.targets import resolve
    from ..proofs import prove as run_prove
    from ..proofs.prove import DEFAULT_TIME_BUDGET
    from ..proofs.result import Verdict

    mechanism = resolve(target)
    claim = _restated_claim(mechanism, claim_kind, epsilon, delta)
    budget = DEFAULT_TIME_BUDGET if time_budget is None else time_budget
    result = run_prove(mechanism, claim=claim, numeric=numeric, time_budget=budget)
    if as_json:
        echo_json(result.as_dict())
    else:
        click.echo(str(result))
    code = {Verdict.PROVED: EXIT_OK, Verdict.REFUTED: EXIT_VIOLATION, Verdict.UNKNOWN: EXIT_UNKNOWN}[result.verdict]
    sys.exit(code)


COMMAND = prove
