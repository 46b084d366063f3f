"""The catalogue registry: ``@register`` names a factory; :func:`catalogue` builds every entry.

Each family module of the catalogue package :mod:`dpaudit.mechanisms.catalogue` (its ``flawed``
gallery included) registers zero-argument-callable factories that return a :class:`Mechanism` whose
``name`` equals the registered name.  Every module of that package, and only of it, is imported on
first use, so adding a family is adding a module there; the framework beside this module registers
nothing.  Every entry is marked ``thread_safe`` (its sampler draws only from the generator it is given).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import pkgutil
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import InvalidArgument, UnknownMechanism
from .base import Mechanism

__all__ = ["CATALOGUE", "catalogue", "get", "names", "register"]

Factory = TypeVar("Factory", bound=Callable[..., Mechanism])

CATALOGUE = "dpaudit.mechanisms.catalogue"
"""The package whose modules define the catalogue's entries (imported by name: the framework does not
import its content)."""

_FACTORIES: dict[str, Callable[[], Mechanism]] = {}
_LOADED = False


def register(name: str) -> Callable[[Factory], Factory]:
    """Register ``factory`` as catalogue entry ``name`` (called with no arguments to build it)."""

    def decorate(factory: Factory) -> Factory:
        @functools.wraps(factory)
        def build(*args: Any, **kwargs: Any) -> Mechanism:
            mechanism = factory(*args, **kwargs)
            return dataclasses.replace(mechanism, runtime=mechanism.runtime.marked_thread_safe())

        if name in _FACTORIES and _FACTORIES[name].__wrapped__ is not factory:
            raise ValueError(f"catalogue name {name!r} registered twice")
        _FACTORIES[name] = build
        return build  # type: ignore[return-value]

    return decorate


def _load() -> None:
    """Import every module of the :data:`CATALOGUE` package and its subpackages (each registers its entries)."""
    global _LOADED
    if _LOADED:
        return
    package = importlib.import_module(CATALOGUE)
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{CATALOGUE}."):
        importlib.import_module(info.name)
    _LOADED = True


def names() -> list[str]:
    """Every catalogue name, sorted (correct entries and the flawed gallery)."""
    _load()
    return sorted(_FACTORIES)


def unknown_name(label: str, name: str) -> str:
    """``<label>='<name>' is not a catalogue mechanism`` and up to three close names (or where the list is)."""
    from .._validation import did_you_mean

    hint = did_you_mean(name, _FACTORIES) or "run `dpaudit catalog` for the list"
    return f"{label}={name!r} is not a catalogue mechanism; {hint}"


def get(name: str) -> Mechanism:
    """Build the catalogue entry ``name``; :class:`UnknownMechanism` lists close names otherwise."""
    _load()
    if not isinstance(name, str):
        raise InvalidArgument(f"name={name!r} must be a catalogue name (a str); see dpaudit.names()")
    if name not in _FACTORIES:
        raise UnknownMechanism(unknown_name("name", name))
    mechanism = _FACTORIES[name]()
    if mechanism.name != name:
        raise ValueError(f"factory registered as {name!r} built a mechanism named {mechanism.name!r}")
    return mechanism


def catalogue() -> list[Mechanism]:
    """Every catalogue entry, built, in name order."""
    return [get(name) for name in names()]
