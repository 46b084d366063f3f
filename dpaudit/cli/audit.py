"""``dpaudit audit TARGET``: a Monte Carlo lower bound on the epsilon TARGET realises.

Exit 0 pass, 1 violation, 2 bad input or usage, 3 underpowered.
"""

from __future__ import annotations

import shlex
import sys
from typing import Any

import click

from ..auditor import (
    CHECK_SWITCHES,
    DEFAULT_CHECKS,
    DEFAULT_CONFIDENCE,
    DEFAULT_CONNECT_TIMEOUT,
    DEFAULT_TIME_LIMIT,
    DEFAULT_SAMPLES,
    DEFAULT_VERDICT_CONFIDENCE,
    METHODS,
    SEARCH_FLOOR,
    SEARCH_ROWS,
    SEARCH_VALUES,
    AuditConfig,
    run_audit,
)
from ..errors import ExecutorLost, MechanismError, TimeLimitExceeded
from ..evidence import Evidence, EvidenceStore, RunStamp, recall_audit
from ..mechanisms import RANDOMNESS
from ..reports import certify_audited
from ._claims import claim_flags, claim_options, restated_claim
from ._common import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_VIOLATION,
    NUMBER,
    check_outputs,
    options_hint,
    debug_option,
    echo_json,
    guarded,
    inputs_note,
    json_option,
    parse_distance,
    parse_input,
    parse_pair,
)

EXIT_FOR_VERDICT = {"pass": EXIT_OK, "violation": EXIT_VIOLATION, "underpowered": EXIT_UNKNOWN}


def _reproduction(target: str, result: Any, given: dict[str, Any]) -> str:
    """The command line that reruns this audit: the seed and budget it ran with (``result``'s, or the
    configuration's, which names them alike), and every option given."""
    parts = ["dpaudit audit", target, f"--seed {result.seed}", f"--samples {result.samples}"]
    for name in ("epsilon", "delta"):
        if given[name] is not None:
            parts.append(f"--{name} {given[name]!r}")
    if given["a_json"] is not None:
        parts += [f"--a '{given['a_json']}'", f"--b '{given['b_json']}'"]
    if result.confidence != DEFAULT_CONFIDENCE:
        parts.append(f"--confidence {result.confidence!r}")
    if result.verdict_confidence != max(result.confidence, DEFAULT_VERDICT_CONFIDENCE):
        parts.append(f"--verdict-confidence {result.verdict_confidence!r}")
    if given["method"] != "auto":
        parts.append(f"--method {given['method']}")
    parts += claim_flags(given["claim_kind"], given["rho"], given["mu"], given["alpha"])
    valued = (("neighbours", f"--neighbours {shlex.quote(str(given['neighbours']))}"),
              ("data_json", f"--data '{given['data_json']}'"), ("randomness", f"--randomness {given['randomness']}"),
              ("d_in_json", f"--d-in {given['d_in_json']}"), ("search_samples", f"--search-samples {given['search_samples']}"))
    parts += [flag for name, flag in valued if given[name] is not None]
    parts += [flag for name, flag in _SWITCHES if given[name]]
    return " ".join(parts)


def _resume(target: str, config: AuditConfig, given: dict[str, Any], checkpoint: str | None) -> str:
    """The command that resumes this audit after its executor failed midway: the same audit (its seed included) on
    the same executor, with the checkpoint that keeps the finished chunks."""
    parts = [_reproduction(target, config, given)]
    if given["executor"] != "auto":
        parts.append(f"--executor {shlex.quote(given['executor'])}")
    if given["workers"] is not None:
        parts.append(f"--workers {given['workers']}")
    if given["connect_timeout"] != DEFAULT_CONNECT_TIMEOUT:
        parts.append(f"--connect-timeout {given['connect_timeout']:g}")
    if given["time_limit"] is not None:
        parts.append(f"--time-limit {given['time_limit']:g}")
    if checkpoint is not None:
        parts.append(f"--checkpoint {shlex.quote(checkpoint)}")
    return " ".join(parts)


_SWITCHES = (("no_early_stop", "--no-early-stop"), ("no_float_checks", "--no-float-checks"),
             ("no_correlation_check", "--no-correlation-check"), ("sensitivity_check", "--sensitivity-check"),
             ("no_draw_count", "--no-draw-count"), ("wall_time", "--wall-time"),
             ("no_learned_events", "--no-learned-events"), ("with_curve", "--curve"))
"""The command's yes/no flags, by the name click gives them, in the order a reproduce line lists them."""



def _check_flags() -> tuple[tuple[str, str, bool], ...]:
    """Each check, the flag that decides it (by the name click gives it) and whether the flag turns it on
    (else off), from the checks' own switches (:data:`dpaudit.auditor.CHECK_SWITCHES`), in their order:
    ``--no-SWITCH`` leaves out a default check, ``--SWITCH`` adds another."""
    return tuple((name, ("" if name not in DEFAULT_CHECKS else "no_") + switch.replace("-", "_"),
                  name not in DEFAULT_CHECKS)
                 for switch, names in CHECK_SWITCHES.items() for name in names)


_CHECK_FLAGS = _check_flags()
"""Each check, the flag that decides it, and whether the flag turns it on (else off), in the audit's order."""


def _configuration(target: str, given: dict[str, Any]) -> AuditConfig:
    """The audit's configuration from the command's options: the inputs parsed from JSON, the claim restated,
    the checks named, every option then checked by :meth:`AuditConfig.build` as ``audit()`` checks it."""
    pair = parse_pair(given["a_json"], given["b_json"])
    d_in = None if given["d_in_json"] is None else parse_distance(given["d_in_json"])
    data = None if given["data_json"] is None else parse_input("--data", given["data_json"])
    claim = None
    stated = (given["claim_kind"], given["rho"], given["mu"], given["alpha"])
    if any(v is not None for v in stated):  # else --epsilon / --delta go to audit() as given
        claim = restated_claim(lambda: _own_claim(target, d_in, given["randomness"]), stated[0], given["epsilon"],
                               given["delta"], *stated[1:])
    checks = [name for name, flag, turns_on in _CHECK_FLAGS if bool(given[flag]) == turns_on]
    return AuditConfig.build(
        target, claim=claim, epsilon=None if claim is not None else given["epsilon"],
        delta=None if claim is not None else given["delta"], pair=pair, neighbours=given["neighbours"], data=data,
        samples=given["samples"], search_samples=given["search_samples"], seed=given["seed"],
        confidence=given["confidence"], verdict_confidence=given["verdict_confidence"], method=given["method"],
        executor=given["executor"], workers=given["workers"], checkpoint=given["checkpoint"],
        early_stopping=not given["no_early_stop"], progress=False if given["as_json"] else given["progress"],
        checks=checks, d_in=d_in, randomness=given["randomness"],
        learned=not given["no_learned_events"], curve=given["with_curve"], time_limit=given["time_limit"],
        connect_timeout=given["connect_timeout"],
    )


def _own_claim(target: str, d_in: Any, randomness: str | None) -> Any:
    """TARGET's own claim, for a --claim that leaves a value to it; None for a plain function (checked first)."""
    from ..targets import check_plain_callable, is_plain_callable, load_target, resolve

    loaded = load_target(target)
    if is_plain_callable(loaded):
        check_plain_callable(f"target={target!r}", loaded)
        return None
    return resolve(loaded, d_in=d_in, randomness=randomness).claim


def _print_result(result: Any, reproduction: str, certificate: Any, why: str) -> None:
    from ..auditor import not_reproducible_suffix, result_lines

    lines = result_lines(result, reproduction + not_reproducible_suffix(result))
    lines[-1:-1] = _bracket_lines(result, certificate, why)  # the reproduce line stays last
    for line in lines:
        click.echo(line)


def _bracket_lines(result: Any, certificate: Any, why: str) -> list[str]:
    """The two-sided result: the audited lower bound beside the certified upper bound (one line), or why
    there is none; nothing where certify does not apply."""
    if certificate is None:
        return [f"  bracket : none, the certification failed ({why})"] if why else []
    verdict = f"certify: {certificate.verdict.value} for {certificate.claim}, {certificate.observed} observed"
    if certificate.epsilon_up == float("inf") and not certificate.refuted:
        stopped = {law.stopped_by for law in certificate.laws} - {"complete", "tolerance"}
        limit = f" (stopped by the {' and '.join(sorted(stopped))})" if stopped else ""
        return [f"  bracket : no finite certified upper bound{limit}: unexplored mass {certificate.unexplored:.3g} "
                f"({verdict})"]
    return [f"  bracket : {certificate.bracket(result.epsilon_lower_bound)} -- audited >= "
            f"{result.epsilon_lower_bound:.4f} at {result.confidence:g}; certified by exact path "
            f"enumeration of the one-run sampler ({verdict})"]


@click.command("audit")
@click.argument("target")
@click.option("--epsilon", type=NUMBER, default=None,
              help="Claimed epsilon (default: the mechanism's claim); for --claim renyi, epsilon(alpha).")
@click.option("--delta", type=NUMBER, default=None, help="Claimed delta (default: the mechanism's claim, else 0).")
@claim_options
@click.option(
    "--neighbours",
    default=None,
    metavar="RELATION",
    help="Neighbour relation: add-remove, replace, local, query-distance[:SENSITIVITY[:NORM]] or canary:RECORD (a JSON record; default: the "
    "mechanism's; for a plain function, what --a/--b show, else add-remove with --data, else query-distance).",
)
@click.option(
    "--data",
    "data_json",
    default=None,
    metavar="JSON",
    help="Example dataset (JSON array) the pair search starts from when --a/--b are absent; its size and value range "
    "give the searched datasets.",
)
@click.option(
    "--d-in",
    "d_in_json",
    default=None,
    metavar="NUMBER",
    help="OpenDP measurements only: the input distance at which the privacy map gives the claim (e.g. 1).",
)
@click.option(
    "--randomness",
    type=click.Choice(RANDOMNESS),
    default=None,
    help="For a plain function: what its randomness argument is (numpy Generator, numpy RandomState, "
    "random.Random) or 'own' when it takes none (default: read from its signature).",
)
@click.option("--a", "a_json", default=None, metavar="JSON", help="First neighbouring input, as JSON.")
@click.option("--b", "b_json", default=None, metavar="JSON", help="Second neighbouring input, as JSON.")
@click.option("--samples", type=int, default=None,
              help=f"Verification samples per side (default {DEFAULT_SAMPLES:,}; up to 4x when the verdict is on the edge).")
@click.option("--search-samples", type=int, default=None,
              help=f"Search-stage samples per side (default: half of --samples, but at least {SEARCH_FLOOR:,} or all of "
                   f"--samples when fewer; at most {SEARCH_ROWS[1]:,} rows or {SEARCH_VALUES:,} numbers per side, "
                   f"whichever is fewer, and that cap is never below {SEARCH_ROWS[0]:,} rows).")
@click.option("--seed", type=int, default=None, help="Seed that reproduces the audit (default: drawn and printed).")
@click.option("--confidence", type=NUMBER, default=DEFAULT_CONFIDENCE, show_default=True,
              help="Confidence of the reported bound (the estimate).")
@click.option("--verdict-confidence", type=NUMBER, default=DEFAULT_VERDICT_CONFIDENCE, show_default=True,
              help="Confidence the verdict is taken at (at least --confidence): a mechanism that keeps its claim is "
                   "reported as a violation with probability at most 1 - this.")
@click.option(
    "--method", type=click.Choice(METHODS), default="auto", show_default=True, help="The bound."
)
@click.option(
    "--executor",
    default="auto",
    show_default=True,
    metavar="auto|in-process|threads|process-pool|dask-local|dask://HOST:PORT",
    help="Where the sampling chunks run; the result does not depend on it.",
)
@click.option("--workers", type=int, default=None, help="Processes of the pool or local Dask cluster (default: all cores).")
@click.option("--connect-timeout", type=NUMBER, default=DEFAULT_CONNECT_TIMEOUT, show_default=True, metavar="SECONDS",
              help="Seconds to reach a dask://HOST:PORT scheduler; past them the audit stops with one line (exit 2).")
@click.option("--time-limit", type=NUMBER, default=DEFAULT_TIME_LIMIT, metavar="SECONDS",
              help="Seconds the audit may take (default: no limit).  At the limit it stops at its last complete look "
                   "and reports what that look supports: the violation it decided, else underpowered (exit 3), the "
                   "chunk in flight named by its data and seed; --checkpoint keeps the finished work to resume.")
@click.option("--checkpoint", type=click.Path(dir_okay=False), default=None, help="Keep finished work in FILE; rerun to resume.")
@click.option("--no-early-stop", is_flag=True, help="Verify the whole budget in one look (no sequential stopping).")
@click.option("--progress/--no-progress", default=None, help="Progress bar on stderr (default: when it is a terminal).")
@click.option("--no-float-checks", is_flag=True, help="Leave out the float lattice and float-support event families.")
@click.option("--no-learned-events", is_flag=True, help="Leave out the learned events (a classifier's score) on vector outputs.")
@click.option("--no-correlation-check", is_flag=True, help="Leave out the correlated-noise events of vector outputs.")
@click.option("--sensitivity-check", is_flag=True, help="Also falsify the declared sensitivity (slow: seconds).")
@click.option("--no-draw-count", is_flag=True, help="Do not record the random draws of each run of a one-run function.")
@click.option("--wall-time", is_flag=True, help="Also record each run's wall time (one-run functions; noisy under load).")
@click.option("--curve", "with_curve", is_flag=True,
              help="Also bound the whole privacy curve delta(epsilon) of the pair, with lower bounds on mu (GDP) and rho (zCDP).")
@click.option("--store", default=None, metavar="DIR",
              help="Evidence store (the pytest plugin's format): read the result back when everything that decides "
                   "it is unchanged (with --seed), else compute it and keep it in DIR.")
@click.option("--fresh", is_flag=True, help="With --store: recompute, reading nothing back (the result is kept).")
@json_option
@debug_option
@guarded
def audit(target: str, **given: Any) -> None:
    """Audit TARGET: a catalogue name, package.module:attr or path/to/file.py:attr.

    The attribute may be a Mechanism, a plain function (give --epsilon, or a claim by --claim, --rho,
    --mu or --alpha), an OpenDP Measurement (give --d-in: the claim is its privacy map there) or a
    diffprivlib mechanism object (its own claim).  --claim / --rho / --mu / --alpha restate the claim
    as for `dpaudit prove`; a zCDP, RDP or GDP claim is decided on the whole empirical privacy curve.

    Prints a lower bound on the epsilon TARGET realises at --confidence (the estimate), the bound at
    --verdict-confidence, and the verdict: violation when the latter exceeds the claim (or a check
    proves the claim false), pass otherwise (underpowered when the sample size could not reach the
    claim).
    """
    check_outputs(files={"--checkpoint": given["checkpoint"]}, folders={"--store": given["store"]})
    config = _configuration(target, given)
    try:
        if given["store"] is None:
            evidence = Evidence(run_audit(config))
        else:
            evidence = recall_audit(config, EvidenceStore(given["store"]), RunStamp.now(), fresh=given["fresh"])
    except MechanismError as exc:
        raise MechanismError(f"{exc}{inputs_note(config.pair, config.data)} (rerun with --seed {config.seed}; "
                             "--debug shows the mechanism's traceback)") from exc
    except ExecutorLost as exc:  # one line (the error guard): the fault, what is kept, the command that resumes
        raise ExecutorLost(f"{exc}: {_resume(target, config, given, exc.checkpoint)}", exc.checkpoint) from exc
    except KeyboardInterrupt:  # Ctrl-C: say what is kept and what resumes it (exit 130, never a verdict)
        if given["debug"]:
            raise
        checkpoint = given["checkpoint"]
        if checkpoint is not None:
            click.echo(f"dpaudit: interrupted; the finished chunks are kept in {checkpoint}: "
                       f"{_resume(target, config, given, checkpoint)} resumes the audit", err=True)
        else:
            click.echo("dpaudit: interrupted; nothing is kept (with --checkpoint FILE an interrupted audit keeps its "
                       "finished chunks, and the same command resumes it)", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except TimeLimitExceeded as exc:  # no look was complete: no verdict, which is not bad input either
        if given["debug"]:
            raise
        click.echo(f"dpaudit: underpowered: {options_hint(str(exc))}", err=True)
        sys.exit(EXIT_UNKNOWN)
    for problem in evidence.problems:  # an ignored store file, a failed write: one line each
        click.echo(problem, err=True)
    if given["store"] is not None and given["seed"] is None and not given["as_json"]:
        click.echo(f"dpaudit: --store without --seed: this run's drawn seed {config.seed} is part of the key, so only a "
                   f"rerun with --seed {config.seed} reads it back", err=True)
    result = evidence.result
    # The certified side of the bracket (a Mechanism with a one-run sampler only); never changes the verdict.
    certificate, why = certify_audited(config.target, result)
    if given["as_json"]:
        document = result.as_dict()
        if certificate is not None or why:
            document["certificate"] = certificate.as_dict() if certificate is not None else {"error": why}
        echo_json(document)
    else:
        if evidence.stored is not None:
            click.echo(f"dpaudit: {evidence.provenance} (--fresh recomputes)")
        _print_result(result, _reproduction(target, result, given), certificate, why)
    sys.exit(EXIT_FOR_VERDICT.get(result.verdict.value, EXIT_BAD_INPUT))


COMMAND = audit
