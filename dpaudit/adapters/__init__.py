"""Third-party mechanism objects audited as they are: one small module per library.

* :mod:`.opendp` -- an OpenDP ``Measurement``: the claim comes from its privacy map at ``d_in``;
  n draws go through OpenDP's composition of 2^j copies (at most log2(n) + 1 calls).
* :mod:`.diffprivlib` -- a diffprivlib mechanism (``Laplace``, ``Gaussian``, ``Geometric``,
  ``Binary``, ``Exponential``, ``Snapping``...): epsilon, delta and sensitivity are read from it, its
  random source is seeded from the audit's generator.

:func:`adapt` recognises these objects by the module their type was defined in, so neither library
is imported unless the caller already holds one of its objects (``import dpaudit`` stays light).
Install both with ``pip install 'dpaudit[thirdparty]'``.
"""

from __future__ import annotations

from typing import Any

from .._validation import short_repr
from ..errors import InvalidArgument
from ..mechanisms.base import Mechanism
from .diffprivlib import from_mechanism
from .opendp import from_measurement

__all__ = ["LIBRARIES", "adapt", "library_of"]

LIBRARIES = ("opendp", "diffprivlib")


def library_of(target: Any) -> str | None:
    """``"opendp"`` or ``"diffprivlib"`` when ``target``'s type comes from that library, else None."""
    for cls in type(target).__mro__:
        root = (getattr(cls, "__module__", None) or "").partition(".")[0]
        if root in LIBRARIES:
            return root
    return None


def adapt(
    target: Any,
    *,
    epsilon: float | None = None,
    delta: float | None = None,
    d_in: Any = None,
) -> Mechanism | None:
    """``target`` as a :class:`Mechanism` when it is an OpenDP or diffprivlib object, else None.

    ``d_in`` (the input distance of an OpenDP privacy map) is refused for anything that is not an
    OpenDP object.  ``epsilon`` / ``delta`` override the claim read from the object, as they do
    for a Mechanism.
    """
    library = library_of(target)
    if isinstance(target, type) and (target.__module__ or "").partition(".")[0] in LIBRARIES:
        raise InvalidArgument(
            f"{target.__name__} is a class: audit an instance of it, e.g. {target.__name__}(epsilon=1.0, ...)"
        )
    if library == "opendp":
        return from_measurement(target, d_in=d_in, epsilon=epsilon, delta=delta)
    if d_in is not None:
        what = f"a diffprivlib {type(target).__name__}" if library else f"{type(target).__name__} {short_repr(target, 50)}"
        hint = (
            "its epsilon, delta and sensitivity are read from the object"
            if library
            else "the claim comes from epsilon= / delta= or the Mechanism"
        )
        raise InvalidArgument(
            f"d_in={d_in!r} applies to OpenDP measurements only (the input distance of their privacy map); "
            f"the target is {what}: drop d_in ({hint})"
        )
    if library == "diffprivlib":
        return from_mechanism(target, epsilon=epsilon, delta=delta)
    return None
