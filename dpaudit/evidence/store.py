"""The evidence store: a folder of JSON files, one per result, named by its key's digest.

Each file is a document::

    {"format": "dpaudit-evidence", "format_version": 1, "verb": "audit", "key": DIGEST,
     "parts": {...the key's parts...}, "run": {"id": ..., "at": ...}, "result": result.as_dict()}

written through the one codec (:func:`dpaudit._codec.to_json`) to a temporary file and moved into
place (``os.replace``), so a reader never sees half a file from this writer, and several pytest-xdist
workers can share the folder.  Data only: nothing in a store is code, nothing is unpickled or run.

A file that cannot be read back -- not JSON (truncated, corrupted), not a dpaudit evidence document
(foreign), another format version, another key -- is never an error: :meth:`EvidenceStore.recall`
returns no entry and one line saying which file and why, and the result is recomputed (and the file
overwritten with it).  A store that cannot be written is said in one line too, and the run goes on.
"""

from __future__ import annotations

import datetime as _datetime
import json
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .._codec import to_json

if TYPE_CHECKING:  # the keys load numpy; the store itself is standard library
    from .keys import EvidenceKey

__all__ = ["FORMAT", "FORMAT_VERSION", "EvidenceStore", "RunStamp", "Stored"]

FORMAT = "dpaudit-evidence"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class RunStamp:
    """The run that computed a result: an ``id`` (UTC time and four random hex digits) and when (``at``)."""

    id: str
    at: str

    @classmethod
    def now(cls) -> RunStamp:
        moment = _datetime.datetime.now(_datetime.timezone.utc).replace(microsecond=0)
        return cls(f"{moment:%Y%m%dT%H%M%SZ}-{secrets.token_hex(2)}", moment.isoformat().replace("+00:00", "Z"))

    def as_dict(self) -> dict[str, str]:
        return {"id": self.id, "at": self.at}


@dataclass(frozen=True)
class Stored:
    """An entry read back: the result's dict as written and the run that computed it."""

    verb: str
    key: str
    result: dict[str, Any]
    run: RunStamp


class EvidenceStore:
    """The folder ``directory`` of stored results (created, with its parents, on the first write)."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def path(self, key: EvidenceKey) -> Path:
        return self.directory / f"{key.verb}-{key.digest}.json"

    def recall(self, key: EvidenceKey) -> tuple[Stored | None, str | None]:
        """The entry stored under ``key`` (None when absent or unreadable) and, when a file was there but
        could not be used, one line saying which and why."""
        path = self.path(key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None, None
        except (OSError, UnicodeDecodeError) as exc:
            return None, _ignored(path, f"unreadable: {getattr(exc, 'strerror', None) or exc}")
        try:
            document = json.loads(text)
        except json.JSONDecodeError as exc:
            return None, _ignored(path, f"not valid JSON, truncated or corrupted: {exc.msg} at character {exc.pos} "
                                        f"of {len(text)}")
        why = _foreign(document, key)
        if why is not None:
            return None, _ignored(path, why)
        run = document["run"]
        return Stored(key.verb, key.digest, document["result"], RunStamp(str(run["id"]), str(run["at"]))), None

    def keep(self, key: EvidenceKey, result: dict[str, Any], run: RunStamp) -> str | None:
        """Write ``result`` under ``key``; None, or one line saying why it could not be kept."""
        document = {"format": FORMAT, "format_version": FORMAT_VERSION, "verb": key.verb, "key": key.digest,
                    "parts": key.parts, "run": run.as_dict(), "result": result}
        path = self.path(key)
        try:
            text = json.dumps(to_json(document), indent=1, allow_nan=False)
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".writing-", suffix=".json")
            try:
                with os.fdopen(handle, "w", encoding="utf-8") as stream:
                    stream.write(text)
                os.replace(temporary, path)
            except BaseException:
                Path(temporary).unlink(missing_ok=True)
                raise
        except (OSError, TypeError, ValueError) as exc:
            return f"dpaudit: could not keep the result in the evidence store {str(path)!r} " \
                   f"({getattr(exc, 'strerror', None) or exc}); it is recomputed next time"
        return None


def _foreign(document: Any, key: EvidenceKey) -> str | None:
    """Why ``document`` is not the entry stored under ``key``, or None when it is."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return "not a dpaudit evidence file"
    if document.get("format_version") != FORMAT_VERSION:
        return f"format version {document.get('format_version')!r}, this dpaudit reads {FORMAT_VERSION}"
    if document.get("verb") != key.verb or document.get("key") != key.digest:
        return "its key is not its name"
    run = document.get("run")
    if not isinstance(document.get("result"), dict) or not isinstance(run, dict) or not {"id", "at"} <= set(run):
        return "an entry without its result or run"
    return None


def _ignored(path: Path, why: str) -> str:
    return f"dpaudit: ignored the evidence file {str(path)!r} ({why}); recomputed"
