"""Output paths: checked before any work starts, and a place to put finished work when writing fails.

Every file dpaudit writes (a report, a checkpoint, the reports of a catalogue run or of the pytest
plugin) is checked by :func:`check_output_file` or :func:`check_output_folder` before sampling or
proving begins, so a typo in a path costs no work: the check raises
:class:`~dpaudit.errors.InvalidArgument` with the option, the path and the reason on one line.  The
parent folder must exist already (dpaudit creates at most the last folder of ``-o DIR``), be a folder
and accept a new file -- tried by creating and deleting an empty temporary file there, which is the
only test that also holds for read-only file systems and for the superuser.

If writing still fails after the work (the disk filled up, the folder was removed meanwhile),
:func:`write_or_keep` saves the text in the system's temporary folder instead and says where.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from .errors import InvalidArgument

__all__ = ["check_output_file", "check_output_folder", "write_or_keep"]


def _as_path(name: str, path: Any) -> Path:
    if not isinstance(path, (str, os.PathLike)) or isinstance(path, bytes):
        raise InvalidArgument(f"{name}={path!r} must be a path (str or os.PathLike)")
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise InvalidArgument(f"{name}={path!r} must be a non-empty path")
    if "\x00" in text:
        raise InvalidArgument(f"{name}={text!r} must not contain a NUL character")
    return Path(text)


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _check_folder_accepts_files(name: str, path: Path, folder: Path) -> None:
    """``folder`` exists, is a folder, and a new file can be created in it."""
    shown = str(folder) or "."
    if not folder.exists():
        raise InvalidArgument(f"{name}={str(path)!r}: the folder {shown!r} does not exist; create it first")
    if not folder.is_dir():
        raise InvalidArgument(f"{name}={str(path)!r}: {shown!r} is not a folder")
    try:
        with tempfile.NamedTemporaryFile(dir=folder, prefix=".dpaudit-write-test-"):
            pass
    except OSError as exc:
        raise InvalidArgument(f"{name}={str(path)!r}: cannot write in the folder {shown!r} ({_reason(exc)})") from None


def check_output_file(name: str, path: Any) -> Path:
    """The file ``path`` can be (re)written: its folder exists and accepts files; it is not a folder.

    ``name`` is how the caller names the path in the message (``"--checkpoint"``, ``"checkpoint"``).
    """
    path = _as_path(name, path)
    try:
        if path.is_dir():
            raise InvalidArgument(f"{name}={str(path)!r} is a folder; give a file name")
        _check_folder_accepts_files(name, path, path.parent)
        if path.exists() and not os.access(path, os.W_OK):
            raise InvalidArgument(f"{name}={str(path)!r} exists and is not writable")
    except OSError as exc:  # a name too long, a path through a file, ...
        raise InvalidArgument(f"{name}={str(path)!r} cannot be written ({_reason(exc)})") from None
    return path


def check_output_folder(name: str, path: Any) -> Path:
    """The folder ``path`` exists and accepts files, or can be created in a folder that does."""
    path = _as_path(name, path)
    try:
        if path.exists():
            if not path.is_dir():
                raise InvalidArgument(f"{name}={str(path)!r} is a file, not a folder")
            _check_folder_accepts_files(name, path, path)
        else:
            _check_folder_accepts_files(name, path, path.parent)
    except OSError as exc:
        raise InvalidArgument(f"{name}={str(path)!r} cannot be written ({_reason(exc)})") from None
    return path


def write_or_keep(text: str, path: str | os.PathLike[str]) -> tuple[Path, str | None]:
    """Write ``text`` to ``path``; if that fails, to a new file in the temporary folder.

    Returns ``(where it is, None)`` or ``(where it is, why path failed)``.  Raises ``OSError`` only
    when both fail (then the caller prints the text).
    """
    path = Path(path)
    try:
        path.write_text(text, encoding="utf-8")
        return path, None
    except OSError as exc:
        why = f"could not write {str(path)!r} ({_reason(exc)})"
    descriptor, kept = tempfile.mkstemp(prefix=f"dpaudit-{path.stem}-", suffix=path.suffix)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
    return Path(kept), why
