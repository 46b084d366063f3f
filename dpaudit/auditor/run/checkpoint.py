"""Checkpoints: a long audit's finished work on disk, so that an interrupted audit resumes where it was.

The file is one JSON document::

    {"format": "dpaudit-checkpoint", "version": 1,
     "fingerprint": {"mechanism": ..., "claim": ..., "pair": ..., "seed": ..., "samples": ..., ...},
     "search": {... the search stage's outcome ...} or null,
     "streams": {"1.1.0.2": {"done": [[0, 12]], "hits": [5012], "rows": 786432}, ...},
     "sha256": "<digest of everything above>"}

A *stream* is one side of one verification batch; its chunks are numbered, ``done`` lists the
finished chunk numbers as half-open ranges and ``hits`` the summed hit counts of those chunks (one per
verified event; integer sums, so the order chunks finish in does not matter).  The search stage's
outcome (the pair and the events it chose) is stored once it is complete; an audit interrupted during
the search stage repeats it (it is at most ``search_budget``: 5 x 10^5 to 2 x 10^6 draws per side).

Every update rewrites the file atomically: write a temporary file in the same directory, ``fsync`` it,
``os.replace`` it over the old one, ``fsync`` the directory.  A reader therefore sees the previous or
the new state, never a torn one, and killing the process at any moment loses at most the chunks in
flight.  Resuming refuses a file that is corrupted (bad JSON or digest) or made for another audit (a
different mechanism, claim, pair, seed, budget, confidence, method or checks), naming what differs.

If a write fails during the audit (the disk filled up, the folder was removed), the audit goes on: the
checkpoint moves to a new file in the temporary folder, and :attr:`Checkpoint.note` says where (the
audit puts it in its result's notes) -- finished chunks are never lost to a failed write.

An audit given no file keeps its checkpoint in memory (``path`` None); if its executor fails midway (a Dask
scheduler lost, a chunk whose workers die), :meth:`Checkpoint.keep` writes it to a new file in the temporary folder,
so the finished chunks survive the fault there too.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ...errors import InvalidArgument

__all__ = ["FORMAT", "Checkpoint", "VERSION", "stream_name"]

FORMAT = "dpaudit-checkpoint"
VERSION = 1


def stream_name(key: tuple[int, ...]) -> str:
    return ".".join(str(int(k)) for k in key)


def _digest(body: dict[str, Any]) -> str:
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def _add_range(ranges: list[list[int]], index: int) -> list[list[int]]:
    """Insert chunk ``index`` into sorted, merged half-open ranges."""
    merged: list[list[int]] = []
    for lo, hi in sorted([*ranges, [index, index + 1]]):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    return merged


class Checkpoint:
    """The checkpoint file of one audit (``path``; None: kept in memory until :meth:`keep`), identified by its
    ``fingerprint``."""

    def __init__(self, path: str | os.PathLike[str] | None, fingerprint: dict[str, Any]) -> None:
        self.path = None if path is None else Path(path)
        self.fingerprint = json.loads(json.dumps(fingerprint))  # plain JSON values, as stored
        self.search: dict[str, Any] | None = None
        self.streams: dict[str, dict[str, Any]] = {}
        self.resumed_chunks = 0
        self.note: str | None = None  # set when a write failed and the checkpoint moved
        self._unwritable = False  # no file could be written: the audit goes on in memory
        if self.path is not None and self.path.exists():
            self._load()

    def _load(self) -> None:
        where = f"checkpoint={str(self.path)!r}"
        try:
            data = json.loads(self.path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InvalidArgument(f"{where} is corrupted ({exc}); delete it to start the audit afresh") from None
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise InvalidArgument(f"{where} is not a dpaudit checkpoint (no format={FORMAT!r})")
        if data.get("version") != VERSION:
            raise InvalidArgument(f"{where} has version={data.get('version')!r}; this dpaudit reads version {VERSION}")
        body = {k: v for k, v in data.items() if k != "sha256"}
        if data.get("sha256") != _digest(body):
            raise InvalidArgument(f"{where} is corrupted (its sha256 digest does not match its content); delete it")
        stored = data.get("fingerprint", {})
        for key in sorted(set(stored) | set(self.fingerprint)):
            if stored.get(key) != self.fingerprint.get(key):
                raise InvalidArgument(
                    f"{where} was made for a different audit: {key}={stored.get(key)!r} there, "
                    f"{self.fingerprint.get(key)!r} now; use another file or delete it"
                )
        self.search = data.get("search")
        self.streams = data.get("streams", {})
        self.resumed_chunks = self.finished_chunks

    def done(self, key: tuple[int, ...]) -> tuple[set[int], list[int], int]:
        """(finished chunk numbers, their summed hits, their summed rows) of stream ``key``."""
        stream = self.streams.get(stream_name(key))
        if stream is None:
            return set(), [], 0
        finished = {i for lo, hi in stream["done"] for i in range(lo, hi)}
        return finished, list(stream["hits"]), int(stream["rows"])

    def add(self, key: tuple[int, ...], index: int, hits: tuple[int, ...], rows: int) -> None:
        """Record chunk ``index`` of stream ``key`` as finished and write the file."""
        name = stream_name(key)
        stream = self.streams.setdefault(name, {"done": [], "hits": [0] * len(hits), "rows": 0})
        stream["done"] = _add_range(stream["done"], int(index))
        stream["hits"] = [int(a) + int(b) for a, b in zip(stream["hits"], hits)]
        stream["rows"] = int(stream["rows"]) + int(rows)
        self.save()

    @property
    def finished_chunks(self) -> int:
        """How many chunks it holds as finished (resumed ones included)."""
        return sum(hi - lo for stream in self.streams.values() for lo, hi in stream["done"])

    def keep(self) -> str | None:
        """The file that holds the finished work, written now: this checkpoint's, or for one kept in memory a new file
        in the temporary folder; None when nothing is finished yet or no file can be written."""
        if self.path is None:
            if self.search is None and not self.streams:
                return None
            try:
                descriptor, kept = tempfile.mkstemp(prefix="dpaudit-checkpoint-", suffix=".json")
                os.close(descriptor)
            except OSError:
                return None
            self.path = Path(kept)
        self.save()
        return None if self._unwritable else str(self.path)

    def set_search(self, outcome: dict[str, Any]) -> None:
        self.search = json.loads(json.dumps(outcome))
        self.save()

    def save(self) -> None:
        """Write the file; if that fails, move the checkpoint to the temporary folder and say so in :attr:`note`."""
        if self._unwritable or self.path is None:
            return
        try:
            self._write()
        except OSError as exc:
            failed, why = self.path, exc.strerror or type(exc).__name__
            try:
                descriptor, moved = tempfile.mkstemp(prefix=f"dpaudit-{failed.stem}-", suffix=failed.suffix or ".json")
                os.close(descriptor)
                self.path = Path(moved)
                self._write()
            except OSError:
                self._unwritable = True
                self.note = (f"checkpoint {str(failed)!r} could not be written ({why}) and could not be written "
                             "anywhere else; the audit went on without it")
                return
            self.note = (f"checkpoint {str(failed)!r} could not be written ({why}); its finished chunks are kept in "
                         f"{moved} (give that file as the checkpoint, --checkpoint {moved}, to resume)")

    def _write(self) -> None:
        """Atomic rewrite: temporary file, fsync, rename, fsync of the directory."""
        body = {
            "format": FORMAT,
            "version": VERSION,
            "fingerprint": self.fingerprint,
            "search": self.search,
            "streams": self.streams,
        }
        text = json.dumps({**body, "sha256": _digest(body)}, sort_keys=True)
        directory = self.path.parent if str(self.path.parent) else Path(".")
        temporary = directory / f".{self.path.name}.{os.getpid()}.tmp"
        try:
            with open(temporary, "w") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(temporary, self.path)
        except OSError:
            if directory.is_dir():
                temporary.unlink(missing_ok=True)
            raise
        try:
            descriptor = os.open(directory, os.O_RDONLY)
        except OSError:  # pragma: no cover - platforms without directory descriptors
            return
        try:
            os.fsync(descriptor)
        except OSError:  # pragma: no cover
            pass
        finally:
            os.close(descriptor)
