"""The reports of the whole catalogue in one folder: ``<name>.html``, ``<name>.json``, ``index.html``.

Mechanisms are reported in parallel worker processes (one report per task); every report records
the seed and sample budget it was made with, and the index lists every mechanism with its verdicts.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

__all__ = ["CATALOGUE_COMMAND", "CATALOGUE_PROOF_TIMEOUT", "CATALOGUE_SAMPLES", "index_entry", "write_catalogue"]

# Verification samples per side for each catalogue report: the whole catalogue then takes a few
# minutes on two cores (111 s measured; the time is printed by `dpaudit report --all`).
CATALOGUE_SAMPLES = 1_000_000
CATALOGUE_SEED = 20260101
# A proof still running after this many seconds is stopped and recorded as such in its report.
CATALOGUE_PROOF_TIMEOUT = 60.0
CATALOGUE_COMMAND = "dpaudit report --all -o reports/"


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


def _one(name: str, directory: str, options: dict[str, Any]) -> dict[str, Any]:
    from . import build_report, write

    try:
        document = build_report(name, **options)
    except Exception as exc:  # noqa: BLE001 - one broken entry must not stop the catalogue run
        return {"name": name, "error": f"{type(exc).__name__}: {exc}"[:500], "overall": "error", "html": "", "json": "",
                "claim": "", "unit": "", "flawed": None, "proof": "error", "audit": "error",
                "epsilon_lower_bound": None, "checks": {}}
    write(document, Path(directory) / f"{name}.html")
    write(document, Path(directory) / f"{name}.json")
    return index_entry(document)


def write_catalogue(
    directory: str | Path,
    *,
    names: list[str] | None = None,
    jobs: int | None = None,
    on_done: Callable[[dict[str, Any]], None] | None = None,
    **options: Any,
) -> list[dict[str, Any]]:
    """Report every catalogue mechanism (or ``names``) into ``directory``; write ``index.html``.

    ``options`` go to :func:`.build.build_report` (``samples``, ``seed``, ``confidence``, ...).
    ``jobs`` worker processes are used (default: the number of CPUs; each audit then samples in
    process unless ``executor`` says otherwise); ``on_done`` is called with
    each index entry as its report is written.  Returns the entries in name order.
    """
    from ..mechanisms.registry import names as catalogue_names
    from .model import environment
    from .render_html import render_index

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    todo = sorted(names) if names is not None else catalogue_names()
    jobs = max(1, jobs or os.cpu_count() or 1)
    # The reports already run in parallel: each audit then samples in its own process only.
    options = {"executor": "in-process" if jobs > 1 else "auto", **options}
    entries: dict[str, dict[str, Any]] = {}
    if jobs == 1:
        for name in todo:
            entries[name] = _one(name, str(directory), options)
            if on_done:
                on_done(entries[name])
    else:
        with ProcessPoolExecutor(max_workers=min(jobs, len(todo))) as pool:
            futures = {pool.submit(_one, name, str(directory), options): name for name in todo}
            from concurrent.futures import as_completed

            for future in as_completed(futures):
                entry = future.result()
                entries[entry["name"]] = entry
                if on_done:
                    on_done(entry)
    ordered = [entries[name] for name in todo]
    index = render_index(ordered, title="dpaudit: audit reports of the catalogue", environment=environment(),
                         command=CATALOGUE_COMMAND)
    (directory / "index.html").write_text(index, encoding="utf-8")
    return ordered
