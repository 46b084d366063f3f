"""``dpaudit report TARGET -o PATH``: prove, audit and render an audit report (HTML, JSON or Markdown).

``dpaudit report --all -o reports/`` does the whole catalogue into a folder with an index.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import click

from ..errors import InvalidArgument
from . import EXIT_CODES
from ._common import EXIT_OK, EXIT_UNKNOWN, EXIT_VIOLATION, debug_option, echo_json, guarded, json_option, parse_distance

_OVERALL_EXIT = {"pass": EXIT_OK, "violation": EXIT_VIOLATION, "unknown": EXIT_UNKNOWN}


def _bar(total: int, unit: str) -> Any:
    from tqdm import tqdm

    # disable=None: the bar shows on a terminal and stays quiet when stderr is not a TTY.
    return tqdm(total=total, unit=unit, disable=None, file=sys.stderr, leave=False)


def _one(target: str, output: Path, options: dict[str, Any], as_json: bool) -> int:
    from ..reports import build_report, format_for, write
    from ..reports.build import STAGES

    format_for(output)  # refuse a bad suffix before any work
    with _bar(len(STAGES), "stage") as bar:
        def progress(stage: str) -> None:
            bar.set_description(stage)
            bar.update(1)

        document = build_report(target, progress=progress, **options)
    write(document, output)
    summary = document["summary"]
    if as_json:
        echo_json({"path": str(output), **summary, "settings": document["settings"]})
    else:
        verdicts = ", ".join(f"{k}: {v}" for k, v in summary["verdicts"].items())
        click.echo(f"{summary['overall'].upper()}: {document['mechanism']['name']} ({verdicts})")
        click.echo(f"  wrote {output}")
        click.echo(f"  reproduce: {document['settings']['reproduce']}")
    return _OVERALL_EXIT[summary["overall"]]


def _all(output: Path, options: dict[str, Any], jobs: int | None, as_json: bool) -> int:
    from ..mechanisms.registry import names
    from ..reports.catalogue import CATALOGUE_PROOF_TIMEOUT, CATALOGUE_SAMPLES, CATALOGUE_SEED, write_catalogue

    if output.suffix:
        raise InvalidArgument(f"output={str(output)!r} must be a folder for --all (no file suffix)")
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

        entries = write_catalogue(output, jobs=jobs, on_done=done, **options)
    elapsed = time.perf_counter() - started
    if as_json:
        echo_json({"path": str(output), "elapsed_s": round(elapsed, 1), "reports": entries})
    else:
        for e in entries:
            click.echo(f"{e['overall']:<9} {e['name']:<32} proof {e['proof']:<9} audit {e['audit']}")
            if "error" in e:
                click.echo(f"  dpaudit: error: {e['name']}: {e['error']}", err=True)
        click.echo(
            f"wrote {len(entries)} reports and {output / 'index.html'} in {elapsed:.1f} s "
            f"({options['samples']} verification samples per side, seed {options['seed']})"
        )
    # The catalogue holds known-broken entries on purpose: --all exits 0 once every report is written.
    return EXIT_UNKNOWN if any("error" in e for e in entries) else EXIT_OK


@click.command("report", epilog=EXIT_CODES)
@click.argument("target", required=False)
@click.option("-o", "--output", type=click.Path(path_type=Path), required=True,
              help="Report file (.html, .json or .md picks the format); a folder with --all.")
@click.option("--all", "all_", is_flag=True, help="Report every catalogue mechanism into the folder -o.")
@click.option("--epsilon", type=float, default=None, help="Claimed epsilon (default: the mechanism's claim).")
@click.option("--delta", type=float, default=None, help="Claimed delta (default: the mechanism's claim, else 0).")
@click.option("--d-in", "d_in_json", default=None, metavar="NUMBER",
              help="OpenDP measurements only: the input distance at which the privacy map gives the claim.")
@click.option("--samples", type=int, default=None,
              help="Verification samples per side (default 10^6, also with --all).")
@click.option("--seed", type=int, default=None, help="Seed that reproduces the report (default: drawn; fixed with --all).")
@click.option("--confidence", type=float, default=0.95, show_default=True, help="Confidence of the audit's bounds.")
@click.option("--plots/--no-plots", default=True, show_default=True, help="Draw the figures.")
@click.option("--skip-check", "skip_checks", multiple=True,
              type=click.Choice(["float-support", "lattice", "correlated-noise", "sensitivity"]),
              help="An implementation check not to run (repeatable).")
@click.option("--proof-timeout", type=float, default=None,
              help="Stop a proof after this many seconds (default: no limit; 60 with --all).")
@click.option("--jobs", type=int, default=None, help="Worker processes for --all (default: number of CPUs).")
@json_option
@debug_option
@guarded
def report(
    target: str | None,
    output: Path,
    all_: bool,
    epsilon: float | None,
    delta: float | None,
    d_in_json: str | None,
    samples: int | None,
    seed: int | None,
    confidence: float,
    plots: bool,
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
    3 when some could not be).
    """
    if all_ == (target is not None):
        raise InvalidArgument("give either TARGET or --all (not both, not neither)")
    d_in = None if d_in_json is None else parse_distance(d_in_json)
    options = dict(epsilon=epsilon, delta=delta, d_in=d_in, samples=samples, seed=seed, confidence=confidence, plots=plots,
                   proof_timeout=proof_timeout, skip_checks=skip_checks)
    if all_:
        if epsilon is not None or delta is not None or d_in is not None:
            raise InvalidArgument("--epsilon, --delta and --d-in state one mechanism's claim; they do not apply to --all")
        sys.exit(_all(output, options, jobs, as_json))
    sys.exit(_one(target, output, options, as_json))


COMMAND = report
