"""``dpaudit prove``: prove or refute a mechanism's claim from its declared density, program or structure."""

from __future__ import annotations

import sys

import click

from .._validation import check_positive_finite
from ..errors import InvalidArgument
from ._claims import claim_options, restated_claim
from ._common import (
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_VIOLATION,
    NUMBER,
    audit_command,
    debug_option,
    echo_json,
    guarded,
    json_option,
)


@click.command("prove")
@click.argument("target")
@click.option("--epsilon", type=NUMBER, help="Restate epsilon (checks the numeric instance); for --claim renyi, epsilon(alpha).")
@click.option("--delta", type=NUMBER, help="Restate delta (checks the numeric instance).")
@claim_options
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
    from ..mechanisms import Mechanism
    from ..proofs import DEFAULT_TIME_BUDGET, Verdict, check_provable
    from ..proofs import prove as run_prove
    from ..targets import load_target, resolve

    if time_budget is not None:  # checked before the claim's options, which would otherwise speak first
        check_positive_finite("time_budget", time_budget)
    loaded = load_target(target)
    try:  # a plain function: said before its missing claim, with the command that does check it
        check_provable(f"mechanism={target!r}", loaded)
    except InvalidArgument as exc:
        raise InvalidArgument(f"{exc}: {audit_command(target, epsilon, delta)}") from None
    mechanism = loaded if isinstance(loaded, Mechanism) else resolve(target)
    claim = restated_claim(lambda: mechanism.claim, claim_kind, epsilon, delta, rho, mu, alpha)
    budget = DEFAULT_TIME_BUDGET if time_budget is None else time_budget
    result = run_prove(mechanism, claim=claim, numeric=numeric, time_budget=budget)
    if as_json:
        echo_json(result.as_dict())
    else:
        click.echo(str(result))
    code = {Verdict.PROVED: EXIT_OK, Verdict.REFUTED: EXIT_VIOLATION, Verdict.UNKNOWN: EXIT_UNKNOWN}[result.verdict]
    sys.exit(code)


COMMAND = prove
