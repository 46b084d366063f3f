"""Named registries: the ordered lists behind the extension points.

The auditor's event families (:mod:`dpaudit.auditor.events.family`) and the prover's procedures
(:mod:`dpaudit.proofs.procedures`) are each a :class:`Registry`: objects told apart by their ``name``,
asked in registration order; registering a second object under a known name replaces the first in place.
Every mistake is an :class:`~dpaudit.errors.InvalidArgument` naming what the registry holds.
"""

from __future__ import annotations

from typing import Any, Generic, Protocol, TypeVar

from .errors import InvalidArgument


class _Named(Protocol):
    name: str


T = TypeVar("T", bound=_Named)


class Registry(Generic[T]):
    """An ordered registry of named objects.

    Parameters
    ----------
    what : str
        What it holds, as messages say it (``"event family"``).
    required : tuple of str
        The attributes an object needs to be registered.
    guide : str
        Where the interface is described, named when an attribute is missing.
    """

    def __init__(self, what: str, required: tuple[str, ...], guide: str) -> None:
        self._what, self._required, self._guide = what, required, guide
        self._items: list[T] = []

    def register(self, item: T) -> T:
        """Add ``item`` after the ones registered before it, or in the place of the one of the same name."""
        missing = [a for a in self._required if not hasattr(item, a)]
        if missing:
            raise InvalidArgument(f"{self._what} {item!r} lacks {', '.join(missing)} (see {self._guide})")
        name: Any = getattr(item, "name", None)
        if not isinstance(name, str) or not name:
            raise InvalidArgument(f"{self._what} {item!r} needs a non-empty name, not {name!r}")
        for i, known in enumerate(self._items):
            if known.name == name:
                self._items[i] = item
                return item
        self._items.append(item)
        return item

    def unregister(self, name: str) -> None:
        """Remove the object called ``name``; an unknown name is an error."""
        for i, known in enumerate(self._items):
            if known.name == name:
                del self._items[i]
                return
        raise InvalidArgument(f"no {self._what} named {name!r}; registered: {[k.name for k in self._items]}")

    def items(self) -> tuple[T, ...]:
        """The registered objects, in registration order."""
        return tuple(self._items)

    def named(self, name: str) -> T | None:
        """The registered object called ``name``, or None."""
        return next((k for k in self._items if k.name == name), None)
