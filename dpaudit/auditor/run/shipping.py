"""Shipping a mechanism to worker processes: by catalogue name, by target spec, or pickled.

Workers rebuild the mechanism from a :class:`MechanismRef`: a catalogue entry by name (a Mechanism
object is recognised as a catalogue entry when its sampler has the same code and the same captured
values as the entry's), a ``package.module:attr`` or ``file.py:attr`` target by that spec (the file
path made absolute), anything else by pickle (``cloudpickle`` when installed, which also ships
closures).  :func:`ship` says why when none of these works.

Worker processes start with ``spawn``: each runs ``__main__`` again from its file or module.  Python
run from standard input (``python -``) names a file ``'<stdin>'`` that does not exist, so no worker
can start (:func:`spawn_blocker`); run with ``python -c``, in a REPL or in a notebook, ``__main__``
has no file at all, so workers start but cannot import what it defines -- such code is shipped by
value with ``cloudpickle`` (:func:`main_importable`).  A script without an
``if __name__ == "__main__":`` guard is run again by each worker, audit included: the worker leaves
quietly instead (:func:`leave_if_rerun_by_worker`) and the audit goes on in the main process.
"""

from __future__ import annotations

import io
import os
import pickle
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ...mechanisms.base import Mechanism
from ...mechanisms.registry import get, names
from ...targets import resolve
from .observed import with_side_channels

__all__ = ["MechanismRef", "leave_if_rerun_by_worker", "main_importable", "ship", "spawn_blocker"]


@dataclass(frozen=True)
class MechanismRef:
    """How a worker rebuilds the mechanism: ``kind`` is ``"name"``, ``"target"`` or ``"pickle"``.

    ``randomness`` is the wrapped function's randomness kind for a ``"target"`` (it decides how the
    function is called, so workers must not infer it anew).  ``side_channels`` are the side channels
    (:mod:`.observed`) the worker's mechanism records beside each output.
    """

    kind: str
    payload: Any
    label: str
    randomness: str | None = None
    side_channels: tuple[str, ...] = ()

    def build(self) -> Mechanism:
        key = (self.kind, self.payload if self.kind != "pickle" else hash(self.payload), self.randomness,
               self.side_channels)
        built = _BUILT.get(key)
        if built is None:
            built = self._build()
            if self.side_channels:
                built = with_side_channels(built, self.side_channels)
            _BUILT[key] = built
        return built

    def _build(self) -> Mechanism:
        if self.kind == "name":
            return get(self.payload)
        if self.kind == "target":
            # The claim plays no part in sampling; any epsilon lets a plain callable become a Mechanism.
            return resolve(self.payload, epsilon=1.0, randomness=self.randomness)
        return pickle.loads(self.payload)


_BUILT: dict[Any, Mechanism] = {}


def _same_function(f: Any, g: Any) -> bool:
    """Same code and equal captured values (nested functions compared the same way)."""
    if f is g:
        return True
    code_f, code_g = getattr(f, "__code__", None), getattr(g, "__code__", None)
    if code_f is None or code_f is not code_g:
        return False
    cells_f, cells_g = f.__closure__ or (), g.__closure__ or ()
    if len(cells_f) != len(cells_g):
        return False
    for a, b in zip(cells_f, cells_g):
        va, vb = a.cell_contents, b.cell_contents
        if callable(va) or callable(vb):
            if not _same_function(va, vb):
                return False
        else:
            try:
                if not bool(np.all(va == vb)):
                    return False
            except Exception:  # values that do not compare: not provably the same entry
                return False
    return True


def _catalogue_entry(mechanism: Mechanism) -> bool:
    """True when ``mechanism`` samples exactly like the catalogue entry of the same name."""
    if mechanism.name not in names():
        return False
    entry = get(mechanism.name)
    return _same_function(mechanism.sampler, entry.sampler)


def _main_path() -> str | None:
    """The file spawned workers run as ``__main__`` (None: they run none, or import it by module name)."""
    import multiprocessing.process

    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None):
        return None
    path = getattr(main, "__file__", None)
    if path is None:
        return None
    origin = multiprocessing.process.ORIGINAL_DIR  # where multiprocessing resolves a relative path
    return os.path.join(origin, path) if origin is not None and not os.path.isabs(path) else path


def spawn_blocker() -> str | None:
    """Why no spawned worker process can start here, or None.

    A spawned worker first runs the parent's ``__main__`` file again (``multiprocessing.spawn``);
    when that file does not exist -- ``'<stdin>'`` for ``python -`` -- every worker dies on start.
    """
    path = _main_path()
    if path is None or os.path.isfile(path):
        return None
    name = os.path.basename(path)
    return f"Python read __main__ from {name!r}, which spawned worker processes cannot run again"


def leave_if_rerun_by_worker() -> None:
    """End this process quietly if it is a spawned worker running the main script's top level again.

    ``multiprocessing`` starts a worker by running the parent's main script as ``__mp_main__``; an
    audit at the top level of a script without an ``if __name__ == "__main__":`` guard would run
    in every worker (and fail there on starting workers of its own).  Such a call is recognised by
    a frame executing the top level of ``__mp_main__`` on the stack: after one line on standard
    error the worker exits, the parent's pool loses it, and the parent runs the chunks itself
    (:class:`~.executors.ProcessPool`, which says so in the run note).
    """
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "<module>" and frame.f_globals.get("__name__") == "__mp_main__":
            sys.stderr.write(
                "dpaudit: a worker process ran this script's audit again (it has no "
                "`if __name__ == \"__main__\":` guard); the worker leaves, the audit goes on in the main process\n"
            )
            raise SystemExit(1)
        frame = frame.f_back


def main_importable() -> bool:
    """True when worker processes can import what ``__main__`` defines (it comes from a file or module)."""
    main = sys.modules.get("__main__")
    if getattr(getattr(main, "__spec__", None), "name", None):
        return True
    path = _main_path()
    return path is not None and os.path.isfile(path)


class _MainFinder(pickle.Pickler):
    """A pickler that notes whether the pickle refers to a class or function of ``__main__`` by name."""

    uses_main = False

    def persistent_id(self, obj: Any) -> None:
        if isinstance(obj, (type, types.FunctionType)) and getattr(obj, "__module__", None) == "__main__":
            self.uses_main = True
        return None


def _pickled(mechanism: Mechanism) -> bytes | None:
    """``mechanism`` as bytes a worker can load: plain pickle, else cloudpickle -- for closures, and
    for code defined in ``__main__``, which cloudpickle ships by value so that no worker has to find
    it by name (in a REPL or notebook it has no file to be found in).  Without cloudpickle, code of a
    ``__main__`` loaded from a file or module still travels by name (spawned workers run it again)."""
    buffer = io.BytesIO()
    finder = _MainFinder(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        finder.dump(mechanism)
        plain: bytes | None = buffer.getvalue()
    except Exception:
        plain = None
    if plain is not None and not finder.uses_main:
        return plain
    try:
        import cloudpickle

        return cloudpickle.dumps(mechanism)
    except Exception:
        return plain if plain is not None and main_importable() else None


def ship(mechanism: Mechanism, target: Any) -> tuple[MechanismRef | None, str | None]:
    """A :class:`MechanismRef` for ``mechanism`` (named ``target`` by the user), or None and why not."""
    blocker = spawn_blocker()
    if blocker is not None:
        return None, blocker
    if isinstance(target, str):
        if ":" not in target:
            return MechanismRef("name", target, target), None
        module_part, _, attr = target.rpartition(":")
        if module_part.endswith(".py"):
            target = f"{Path(module_part).resolve()}:{attr}"
        return MechanismRef("target", target, target, getattr(mechanism, "randomness", None)), None
    if _catalogue_entry(mechanism):
        return MechanismRef("name", mechanism.name, mechanism.name), None
    payload = _pickled(mechanism)
    if payload is not None:
        return MechanismRef("pickle", payload, mechanism.name), None
    return None, (
        f"mechanism {mechanism.name!r} cannot be shipped to worker processes (neither pickle nor cloudpickle "
        "can serialise its sampler, or it is defined in an interactive __main__ and cloudpickle is not installed); "
        "give it as a catalogue name, package.module:attr or file.py:attr to use the process pool or Dask"
    )
