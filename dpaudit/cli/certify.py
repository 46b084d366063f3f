"""``dpaudit certify TARGET``: certify or refute the epsilon of a sampler's own code by exact path enumeration.

A thin shell over :func:`dpaudit.certify`: the options are its arguments (the inputs parsed from JSON as
``dpaudit audit`` parses them, the claim restated as ``dpaudit prove`` restates it), the text is
``CertifyResult.lines()``, the JSON its ``as_dict()``.  Exit 0 certified, 1 refuted, 2 bad input or usage,
3 unknown.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from ..certifier import DEFAULT_MAX_PATHS, DEFAULT_TIME_LIMIT, DEFAULT_TOLERANCE, Verdict, certify
from ..errors import InvalidArgument
from ..mechanisms import Mechanism
from ._claims import claim_flags, claim_options, restated_claim
from ._common import (
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_VIOLATION,
    NUMBER,
    debug_option,
    echo_json,
    guarded,
    json_option,
    parse_pair,
)

EXIT_FOR_VERDICT = {Verdict.CERTIFIED: EXIT_OK, Verdict.REFUTED: EXIT_VIOLATION, Verdict.UNKNOWN: EXIT_UNKNOWN}
OBSERVED = ("output", "draws")


def _claim(target: str, loaded: Any, given: dict[str, Any]) -> dict[str, Any]:
    """certify()'s claim arguments: ``claim=`` restated by --claim / --rho / --mu / --alpha (one point of a
    curve: certify decides (epsilon, delta) claims), else --epsilon / --delta as given, as ``dpaudit audit``."""
    stated = (given["claim_kind"], given["rho"], given["mu"], given["alpha"])
    if all(v is None for v in stated):
        if given["epsilon"] is None and given["delta"] is None:
            own = _own_claim(loaded)
            if own is not None and own.is_curve:
                raise InvalidArgument(f"TARGET {target!r} claims {own}, a curve: certify decides one (epsilon, delta) "
                                      "point of it; give --delta or --epsilon")
        return {"epsilon": given["epsilon"], "delta": given["delta"]}
    claim = restated_claim(lambda: _own_claim(loaded), stated[0], given["epsilon"], given["delta"], *stated[1:])
    if claim is not None and claim.is_curve:
        flag = next(f"--{name}" for name, value in (("rho", stated[1]), ("mu", stated[2]), ("alpha", stated[3]),
                                                    ("claim", stated[0])) if value is not None)
        raise InvalidArgument(f"{flag} states the curve claim {claim}: certify decides one (epsilon, delta) point of "
                              "it; give --delta or --epsilon too")
    return {"claim": claim}


def _own_claim(loaded: Any) -> Any:
    """The loaded TARGET's own claim (None for a plain function, which carries none)."""
    from ..targets import is_plain_callable, resolve

    return None if is_plain_callable(loaded) else resolve(loaded).claim


def _reproduction(target: str, given: dict[str, Any]) -> str:
    """The command line that reruns this certification (deterministic: no seed), every option given."""
    parts = ["dpaudit certify", target]
    if given["a_json"] is not None:
        parts += [f"--a '{given['a_json']}'", f"--b '{given['b_json']}'"]
    parts += [f"--{name} {given[name]!r}" for name in ("epsilon", "delta") if given[name] is not None]
    parts += claim_flags(given["claim_kind"], given["rho"], given["mu"], given["alpha"])
    if given["observe"] != "output":
        parts.append(f"--observe {given['observe']}")
    parts += [f"--{flag} {given[name]!r}" for name, flag in (("tolerance", "tolerance"), ("time_limit", "time-limit"),
                                                               ("max_paths", "max-paths")) if given[name] is not None]
    return " ".join(parts)


@click.command("certify")
@click.argument("target")
@click.option("--a", "a_json", default=None, metavar="JSON", help="First neighbouring input, as JSON.")
@click.option("--b", "b_json", default=None, metavar="JSON",
              help="Second neighbouring input, as JSON (default for a Mechanism: its recommended pairs).")
@click.option("--epsilon", type=NUMBER, default=None, help="Claimed epsilon (default: the mechanism's claim).")
@click.option("--delta", type=NUMBER, default=None, help="Claimed delta (default: the mechanism's claim, else 0).")
@claim_options
@click.option("--observe", type=click.Choice(OBSERVED), default="output", show_default=True,
              help="What the adversary sees: the output, or the output with the number of draws the sampler made.")
@click.option("--tolerance", type=NUMBER, default=None,
              help=f"Enumerate each input until its unexplored mass is at most this (default {DEFAULT_TOLERANCE:g}).")
@click.option("--time-limit", type=NUMBER, default=None,
              help=f"Seconds of enumeration per input (default {DEFAULT_TIME_LIMIT:g}).")
@click.option("--max-paths", type=int, default=None,
              help=f"Paths enumerated per input at most (default {DEFAULT_MAX_PATHS:,}).")
@json_option
@debug_option
@guarded
def certify_command(target: str, **given: Any) -> None:
    """Certify TARGET's claim on its own code: a catalogue name, package.module:attr or path/to/file.py:attr.

    TARGET is a one-run sampler f(data, rng) drawing scalars from a random.Random (or f(data) drawing
    from the global random), or a Mechanism with a one-run sampler (the catalogue's discrete entries).
    Its execution paths are enumerated with their exact probabilities on both inputs: the result is an
    interval per output, the unexplored mass and a certified upper bound on epsilon.

    Prints the verdict: certified (the claim holds on the pairs enumerated: a proof), refuted (an
    output's certified ratio, or the certified delta, exceeds the claim; with the witness) or unknown
    (the reason: mass left unexplored, an operation not followed, no claim given).
    """
    from ..targets import load_target

    loaded = load_target(target)  # once (a file.py target is imported here): an unknown TARGET is named first
    if not isinstance(loaded, Mechanism) and not callable(loaded):
        raise InvalidArgument(f"target={target!r} is neither a function f(data, rng) nor a Mechanism")
    pair = parse_pair(given["a_json"], given["b_json"])
    budget = {name: given[name] for name in ("tolerance", "time_limit", "max_paths") if given[name] is not None}
    result = certify(loaded, pair=pair, observe=given["observe"], **_claim(target, loaded, given), **budget,
                     named=target)
    if given["as_json"]:
        echo_json(result.as_dict())
    else:
        for line in result.lines():
            click.echo(line)
        click.echo(f"  reproduce: {_reproduction(target, given)}")
    sys.exit(EXIT_FOR_VERDICT[result.verdict])


COMMAND = certify_command
