"""Shipping a mechanism to worker processes: by catalogue name, by target spec, or pickled.

Workers rebuild the mechanism from a :class:`MechanismRef`: a catalogue entry by name (a Mechanism
object is recognised as a catalogue entry when its sampler has the same code and the same captured
values as the entry's), a ``package.module:attr`` or ``file.py:attr`` target by that spec (the file
path made absolute), anything else by pickle (``cloudpickle`` when installed, which also ships
closures).  :func:`ship` says why when none of these works.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..mechanisms.base import Mechanism

__all__ = ["MechanismRef", "ship"]


@dataclass(frozen=True)
class MechanismRef:
    """How a worker rebuilds the mechanism: ``kind`` is ``"name"``, ``"target"`` or ``"pickle"``.

    ``randomness`` is the wrapped function's randomness kind for a ``"target"`` (it decides how the
    function is called, so workers must not infer it anew).  ``side_channels`` are the side channels
    (:mod:`.side_channels`) the worker's mechanism records beside each output.
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
                from .side_channels import with_side_channels

                built = with_side_channels(built, self.side_channels)
            _BUILT[key] = built
        return built

    def _build(self) -> Mechanism:
        from ..mechanisms.registry import get
        from ..mechanisms.targets import resolve

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
    from ..mechanisms.registry import get, names

    if mechanism.name not in names():
        return False
    entry = get(mechanism.name)
    return _same_function(mechanism.sampler, entry.sampler)


def _pickled(mechanism: Mechanism) -> bytes | None:
    try:
        return pickle.dumps(mechanism)
    except Exception:
        pass
    try:
        import cloudpickle
    except ImportError:
        return None
    try:
        return cloudpickle.dumps(mechanism)
    except Exception:
        return None


def ship(mechanism: Mechanism, target: Any) -> tuple[MechanismRef | None, str | None]:
    """A :class:`MechanismRef` for ``mechanism`` (named ``target`` by the user), or None and why not."""
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
        f"mechanism {mechanism.name!r} cannot be shipped to worker processes (its sampler is a closure or "
        "lambda that neither pickle nor cloudpickle can serialise); ran in process -- give it as a catalogue "
        "name, package.module:attr or file.py:attr to use the process pool or Dask"
    )
