"""The reports of the whole catalogue in one folder: ``<name>.html``, ``<name>.json``, ``index.html``.

Mechanisms are reported in parallel worker processes (one report per task); every report records
the seed and sample budget it was made with, and the index lists every mechanism with its verdicts.

A run keeps what it has done.  While reports remain to be built, :data:`PROGRESS_FILE` in the folder
lists the finished ones with the settings they were made with (rewritten atomically after each).  An
interrupted run (Ctrl-C, :class:`CatalogueInterrupted`) still writes ``index.html``, the missing
reports marked as such; a rerun with the same settings and names builds only the missing reports,
and removes the progress file once the catalogue is complete.  A report that could not be written
where asked is kept in a temporary file, named in its index entry's ``error``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._paths import write_or_keep
from .._validation import check_positive_int
from .._version import __version__
from .build import check_options
from .model import environment
from .render_html import render_index

__all__ = [
    "CATALOGUE_COMMAND",
    "CATALOGUE_PROOF_TIMEOUT",
    "CATALOGUE_SAMPLES",
    "PROGRESS_FILE",
    "CatalogueInterrupted",
    "CatalogueRun",
    "index_entry",
    "write_catalogue",
]

# Verification samples per side for each catalogue report: the whole catalogue then takes a few
# minutes on two cores (111 s measured; the time is printed by `dpaudit report --all`).
CATALOGUE_SAMPLES = 1_000_000
CATALOGUE_SEED = 20260101
# A proof still running after this many seconds is stopped and recorded as such in its report.
CATALOGUE_PROOF_TIMEOUT = 60.0
CATALOGUE_COMMAND = "dpaudit report --all -o reports/"
# The finished reports of a run that is not complete (hidden: it exists only until the run completes).
PROGRESS_FILE = ".dpaudit-progress.json"


@dataclass(frozen=True)
class CatalogueRun:
    """What :func:`write_catalogue` did: the index entries in name order and where the index is.

    ``reused`` counts the reports an interrupted earlier run had finished; ``problems`` holds one line
    per thing that could not be done as asked (the index kept elsewhere); ``notes`` what the user
    should know (a progress file left by other settings was ignored).
    """

    entries: list[dict[str, Any]]
    index: Path
    reused: int = 0
    problems: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def missing(self) -> list[str]:
        """The mechanisms whose reports were not built (the run was interrupted)."""
        return [e["name"] for e in self.entries if e["overall"] == "missing"]


class CatalogueInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`write_catalogue`, raised once the index and the progress file are written."""

    def __init__(self, run: CatalogueRun) -> None:
        super().__init__(f"{len(run.missing)} of {len(run.entries)} reports missing; index at {run.index}")
        self.run = run


def index_entry(document: dict[str, Any]) -> dict[str, Any]:
    """One row of the index: names, verdicts and where the two files are."""
    name = document["mechanism"]["name"]
    audit = document["audit"]["result"] or {}
    verdicts = document["summary"]["verdicts"]
    return {
        "name": name,
        "claim": document["claim"]["statement"],
        "unit": document["unit_of_privacy"]["description"],
        "flawed": document["mechanism"]["flawed"],
        "proof": verdicts["proof"],
        "audit": verdicts["audit"],
        "epsilon_lower_bound": audit.get("epsilon_lower_bound"),
        "checks": {k.split(":", 1)[1]: v for k, v in verdicts.items() if k.startswith("check:")},
        "overall": document["summary"]["overall"],
        "html": f"{name}.html",
        "json": f"{name}.json",
    }


def _placeholder(name: str, status: str, error: str | None = None) -> dict[str, Any]:
    """The index row of a mechanism without a report: ``error`` (it failed) or ``missing`` (not built)."""
    entry = {"name": name, "overall": status, "html": "", "json": "", "claim": "", "unit": "", "flawed": None,
             "proof": status, "audit": status, "epsilon_lower_bound": None, "checks": {}}
    return {**entry, "error": error} if error is not None else entry


def _one(name: str, directory: str, options: dict[str, Any]) -> dict[str, Any]:
    from . import build_report, render  # looked up when called: the tests substitute dpaudit.reports.build_report

    try:
        document = build_report(name, **options)
    except Exception as exc:  # noqa: BLE001 - one broken entry must not stop the catalogue run
        return _placeholder(name, "error", f"{type(exc).__name__}: {exc}"[:500])
    entry = index_entry(document)
    problems = []
    for key, format in (("html", "html"), ("json", "json")):
        where, why = write_or_keep(render(document, format), Path(directory) / entry[key])
        if why is not None:
            problems.append(f"{why}; the finished report is kept in {where}")
    return {**entry, "error": "; ".join(problems)} if problems else entry


def _fingerprint(options: dict[str, Any]) -> dict[str, Any]:
    """What makes two runs' reports interchangeable: the version and the report options (not where they run)."""
    settings = {k: v for k, v in sorted(options.items()) if k not in ("executor", "env")}
    return json.loads(json.dumps({"dpaudit": __version__, "options": settings}, default=repr))


def _finished_earlier(directory: Path, fingerprint: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], str | None]:
    """The entries an interrupted earlier run with the same settings finished (their files still there)."""
    path = directory / PROGRESS_FILE
    if not path.exists():
        return {}, None
    try:
        state = json.loads(path.read_text(encoding="utf-8"))
        done = {e["name"]: e for e in state["done"]}
        same = state["fingerprint"] == fingerprint
    except (OSError, ValueError, KeyError, TypeError):
        return {}, f"{path} is unreadable; every report is built afresh"
    if not same:
        return {}, f"{path} was left by a run with other settings; every report is built afresh"
    kept = {n: e for n, e in done.items() if (directory / e["html"]).is_file() and (directory / e["json"]).is_file()}
    return kept, None


def _save_progress(directory: Path, fingerprint: dict[str, Any], entries: dict[str, dict[str, Any]]) -> None:
    """Atomic rewrite of the progress file; a failure to write it costs only the resume, never the run."""
    done = [e for e in entries.values() if "error" not in e]
    path = directory / PROGRESS_FILE
    temporary = directory / f"{PROGRESS_FILE}.{os.getpid()}.tmp"
    try:
        temporary.write_text(json.dumps({"fingerprint": fingerprint, "done": done}), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        pass


def _run(todo: list[str], directory: Path, options: dict[str, Any], jobs: int,
         finished: Callable[[dict[str, Any]], None]) -> None:
    """Build the reports of ``todo`` (serially or in ``jobs`` processes), handing each entry to ``finished``."""
    if jobs == 1:
        for name in todo:
            finished(_one(name, str(directory), options))
        return
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(todo)))
    futures: list[Future] = [pool.submit(_one, name, str(directory), options) for name in todo]
    collected: set[int] = set()
    try:
        for future in as_completed(futures):
            collected.add(id(future))
            finished(future.result())
    except BaseException:
        # Ctrl-C (or a failure): cancel what has not started, wait for what runs, keep what finished.
        pool.shutdown(wait=True, cancel_futures=True)
        for future in futures:
            if id(future) not in collected and future.done() and not future.cancelled() and future.exception() is None:
                finished(future.result())
        raise
    pool.shutdown(wait=True)


def write_catalogue(
    directory: str | Path,
    *,
    names: list[str] | None = None,
    jobs: int | None = None,
    on_done: Callable[[dict[str, Any]], None] | None = None,
    **options: Any,
) -> CatalogueRun:
    """Report every catalogue mechanism (or ``names``) into ``directory``; write ``index.html``.

    ``options`` go to :func:`.build.build_report` (``samples``, ``seed``, ``confidence``, ...).
    ``jobs`` worker processes are used (default: the number of CPUs; each audit then samples in
    process unless ``executor`` says otherwise); ``on_done`` is called with
    each index entry as its report is written (or found finished by an earlier interrupted run).
    Returns the :class:`CatalogueRun` (entries in name order).  Ctrl-C writes the index, missing
    reports marked, and raises :class:`CatalogueInterrupted`; rerunning with the same options builds
    only the missing reports.
    """
    from ..mechanisms import names as catalogue_names

    if jobs is not None:
        check_positive_int("jobs", jobs)
    check_options(**options)  # a bad option is refused once, not recorded as an error in every report
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    todo = sorted(names) if names is not None else catalogue_names()
    jobs = max(1, jobs or os.cpu_count() or 1)
    fingerprint = _fingerprint(options)
    # The reports already run in parallel: each audit then samples in its own process only.
    options = {"executor": "in-process" if jobs > 1 else "auto", **options}
    entries, note = _finished_earlier(directory, fingerprint)
    entries = {name: entry for name, entry in entries.items() if name in todo}
    reused = len(entries)
    for name in todo:
        if name in entries and on_done:
            on_done(entries[name])

    def finished(entry: dict[str, Any]) -> None:
        entries[entry["name"]] = entry
        _save_progress(directory, fingerprint, entries)
        if on_done:
            on_done(entry)

    remaining = [name for name in todo if name not in entries]
    interrupted = False
    try:
        if remaining:
            _save_progress(directory, fingerprint, entries)
            _run(remaining, directory, options, jobs, finished)
    except KeyboardInterrupt:
        interrupted = True
    ordered = [entries.get(name) or _placeholder(name, "missing") for name in todo]
    index = render_index(ordered, title="dpaudit: audit reports of the catalogue", environment=environment(),
                         command=CATALOGUE_COMMAND)
    where, why = write_or_keep(index, directory / "index.html")
    problems = (f"{why}; the index is kept in {where}",) if why else ()
    run = CatalogueRun(ordered, where, reused, problems, (note,) if note else ())
    if interrupted and run.missing:
        raise CatalogueInterrupted(run)
    if all("error" not in e for e in ordered):  # complete (perhaps finished while Ctrl-C was handled)
        (directory / PROGRESS_FILE).unlink(missing_ok=True)
    return run
