"""``dpaudit report TARGET -o PATH``: prove, audit and render an audit report (HTML, JSON or Markdown).

``dpaudit report --all -o reports/`` does the whole catalogue into a folder with an index.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from ..auditor import DEFAULT_CONFIDENCE
from ..errors import InvalidArgument
from ..reports import (
    CATALOGUE_PROOF_TIMEOUT,
    CATALOGUE_SAMPLES,
    CATALOGUE_SEED,
    CatalogueInterrupted,
    write_catalogue,
)
from . import EXIT_CODES
from ._common import (
    EXIT_BAD_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_VIOLATION,
    NUMBER,
    check_outputs,
    debug_option,
    echo_json,
    guarded,
    inputs_note,
    json_option,
    options_hint,
    parse_distance,
    parse_input,
    parse_pair,
    save_finished,
)

_OVERALL_EXIT = {"pass": EXIT_OK, "violation": EXIT_VIOLATION, "unknown": EXIT_UNKNOWN}


def _bar(total: int, unit: str) -> Any:
    from tqdm import tqdm

    # disable=None: the bar shows on a terminal and stays quiet when stderr is not a TTY.
    return tqdm(total=total, unit=unit, disable=None, file=sys.stderr, leave=False)


def _one(target: str, output: Path, options: dict[str, Any], as_json: bool) -> int:
    # looked up when called: dpaudit.reports.build_report is the seam the tests substitute
    from ..reports import STAGES, build_report, format_for, render

    format = format_for(output, "-o/--output")  # refuse a bad suffix before any work
    check_outputs(files={"-o/--output": output})
    with _bar(len(STAGES), "stage") as bar:
        def progress(stage: str) -> None:
            bar.set_description(stage)
            bar.update(1)

        document = build_report(target, progress=progress, output=output, **options)
    where, problem = save_finished(render(document, format), output, "-o/--output")
    summary = document["summary"]
    if as_json:
        echo_json({"path": where, **summary, "settings": document["settings"]})
    else:
        verdicts = ", ".join(f"{k}: {v}" for k, v in summary["verdicts"].items())
        click.echo(f"{summary['overall'].upper()}: {document['mechanism']['name']} ({verdicts})")
        click.echo(f"  wrote {where}")
        click.echo(f"  reproduce: {document['settings']['reproduce']}")
    if problem is not None:  # the work is done and kept; the path the user asked for is what failed
        click.echo(f"dpaudit: error: {problem}", err=True)
        return EXIT_BAD_INPUT
    audit_section = document["audit"]
    if audit_section["status"] == "error":  # the report is written, but the audit the user asked for could not run
        inputs = inputs_note(options.get("pair"), options.get("data"))
        click.echo(f"dpaudit: error: the audit could not run: {options_hint(audit_section['note'])}{inputs}", err=True)
        return EXIT_BAD_INPUT
    return _OVERALL_EXIT[summary["overall"]]


def _all(output: Path, options: dict[str, Any], jobs: int | None, as_json: bool) -> int:
    from ..mechanisms import names

    if output.suffix:
        raise InvalidArgument(f"-o/--output={str(output)!r} must be a folder for --all (no file suffix)")
    check_outputs(folders={"-o/--output": output})
    if jobs is not None and jobs < 1:
        raise InvalidArgument(f"--jobs={jobs!r} must be a positive number of worker processes")
    options = {**options}
    options["samples"] = options["samples"] or CATALOGUE_SAMPLES
    options["seed"] = CATALOGUE_SEED if options["seed"] is None else options["seed"]
    if options["proof_timeout"] is None:
        options["proof_timeout"] = CATALOGUE_PROOF_TIMEOUT
    started = time.perf_counter()
    with _bar(len(names()), "mechanism") as bar:
        def done(entry: dict[str, Any]) -> None:
            bar.set_description(entry["name"])
            bar.update(1)

        try:
            run = write_catalogue(output, jobs=jobs, on_done=done, **options)
        except CatalogueInterrupted as stop:
            run = stop.run
    elapsed = time.perf_counter() - started
    entries, missing = run.entries, run.missing
    written = len(entries) - len(missing) - sum("error" in e for e in entries)
    if as_json:
        echo_json({"path": str(output), "index": str(run.index), "elapsed_s": round(elapsed, 1), "reports": entries,
                   "reused": run.reused, "missing": missing, "problems": list(run.problems), "notes": list(run.notes)})
    else:
        for e in entries:
            if e["overall"] != "missing":
                click.echo(f"{e['overall']:<9} {e['name']:<32} proof {e['proof']:<9} audit {e['audit']}")
            if "error" in e:
                click.echo(f"  dpaudit: error: {e['name']}: {e['error']}", err=True)
        for problem in run.problems:
            click.echo(f"  dpaudit: error: {problem}", err=True)
        for note in run.notes:
            click.echo(f"  note: {note}")
        reused = f" ({run.reused} more kept from the interrupted run before)" if run.reused else ""
        click.echo(
            f"wrote {written - run.reused} reports{reused} and {run.index} in {elapsed:.1f} s "
            f"({options['samples']} verification samples per side, seed {options['seed']})"
        )
    if missing:
        click.echo(f"dpaudit: interrupted: {len(missing)} of {len(entries)} reports missing (listed in {run.index}); "
                   "rerun the same command to build only those", err=True)
        return EXIT_INTERRUPTED
    # The catalogue holds known-broken entries on purpose: --all exits 0 once every report is written.
    return EXIT_UNKNOWN if any("error" in e for e in entries) or run.problems else EXIT_OK


@click.command("report", epilog=EXIT_CODES)
@click.argument("target", required=False)
@click.option("-o", "--output", type=click.Path(), required=True,
              help="Report file (.html, .json or .md picks the format); a folder with --all.")
@click.option("--all", "all_", is_flag=True, help="Report every catalogue mechanism into the folder -o.")
@click.option("--epsilon", type=NUMBER, default=None, help="Claimed epsilon (default: the mechanism's claim).")
@click.option("--delta", type=NUMBER, default=None, help="Claimed delta (default: the mechanism's claim, else 0).")
@click.option("--d-in", "d_in_json", default=None, metavar="NUMBER",
              help="OpenDP measurements only: the input distance at which the privacy map gives the claim.")
@click.option("--a", "a_json", default=None, metavar="JSON", help="First neighbouring input to audit, as JSON.")
@click.option("--b", "b_json", default=None, metavar="JSON", help="Second neighbouring input to audit, as JSON.")
@click.option("--data", "data_json", default=None, metavar="JSON",
              help="Example dataset (JSON array) the pair search starts from when --a/--b are absent.")
@click.option("--neighbours", default=None, metavar="RELATION",
              help="Neighbour relation: add-remove, replace, local, query-distance[:SENSITIVITY[:NORM]] or canary:RECORD (as for audit).")
@click.option("--samples", type=int, default=None,
              help="Verification samples per side (default 10^6, also with --all).")
@click.option("--seed", type=int, default=None, help="Seed that reproduces the report (default: drawn; fixed with --all).")
@click.option("--confidence", type=NUMBER, default=DEFAULT_CONFIDENCE, show_default=True, help="Confidence of the audit's bounds.")
@click.option("--plots/--no-plots", default=True, show_default=True, help="Draw the figures.")
@click.option("--curve", "with_curve", is_flag=True,
              help="Also measure the empirical privacy curve and plot it beside the claimed curve.")
@click.option("--skip-check", "skip_checks", multiple=True,
              type=click.Choice(["float-support", "lattice", "correlated-noise", "sensitivity"]),
              help="An implementation check not to run (repeatable).")
@click.option("--proof-timeout", type=NUMBER, default=None,
              help="Stop a proof after this many seconds (default: no limit; 60 with --all).")
@click.option("--jobs", type=int, default=None, help="Worker processes for --all (default: number of CPUs).")
@json_option
@debug_option
@guarded
def report(
    target: str | None,
    output: str,
    all_: bool,
    epsilon: float | None,
    delta: float | None,
    d_in_json: str | None,
    a_json: str | None,
    b_json: str | None,
    data_json: str | None,
    neighbours: str | None,
    samples: int | None,
    seed: int | None,
    confidence: float,
    plots: bool,
    with_curve: bool,
    skip_checks: tuple[str, ...],
    proof_timeout: float | None,
    jobs: int | None,
    as_json: bool,
    debug: bool,
) -> None:
    """Prove and audit TARGET and write a report a privacy engineer can read, file and share.

    TARGET is a catalogue name, package.module:attr or path/to/file.py:attr.  The report states the
    claim and unit of privacy, the proof (certificate or counterexample), the empirical audit, the
    implementation checks, figures and the environment that reproduces it.  With --all, every
    catalogue mechanism is reported into the folder -o with an index.html (exit 0 when all are written,
    3 when some could not be).  Ctrl-C keeps the finished reports and marks the missing ones in the
    index (exit 130); the same command again builds only the missing ones.  Every output path is
    checked before any work.
    """
    if all_ == (target is not None):
        raise InvalidArgument("give either TARGET or --all (not both, not neither)")
    if not output.strip():  # click would read '' as the current folder
        raise InvalidArgument(f"-o/--output={output!r} must name a file (TARGET) or a folder (--all)")
    d_in = None if d_in_json is None else parse_distance(d_in_json)
    pair = parse_pair(a_json, b_json)
    data = None if data_json is None else parse_input("--data", data_json)
    options = dict(epsilon=epsilon, delta=delta, d_in=d_in, samples=samples, seed=seed, confidence=confidence, plots=plots,
                   proof_timeout=proof_timeout, skip_checks=skip_checks, curve=with_curve)
    if all_:
        if epsilon is not None or delta is not None or d_in is not None:
            raise InvalidArgument("--epsilon, --delta and --d-in state one mechanism's claim; they do not apply to --all")
        if pair is not None or data is not None or neighbours is not None:
            raise InvalidArgument("--a, --b, --data and --neighbours state one mechanism's inputs; they do not apply "
                                  "to --all")
        sys.exit(_all(Path(output), options, jobs, as_json))
    sys.exit(_one(target, Path(output), {**options, "pair": pair, "data": data, "neighbours": neighbours}, as_json))


COMMAND = report
