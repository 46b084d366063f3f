"""Argument checks shared by every public entry point.

Each check either returns the (normalised) value or raises :class:`~dpaudit.errors.InvalidArgument`
with a message of the shape ``"<name>=<value!r> must be <rule>"``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from .errors import InvalidArgument


def did_you_mean(name: str, known: Any, n: int = 3) -> str:
    """``did you mean a, b, c?`` with the (at most ``n``) names of ``known`` closest to ``name``
    (:func:`difflib.get_close_matches`), or "" when none is close."""
    import difflib

    close = difflib.get_close_matches(name, list(known), n=n)
    return f"did you mean {', '.join(close)}?" if close else ""


def short_repr(value: Any, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters for an error message (a broken ``__repr__`` is named,
    not raised: it must not hide the error being reported)."""
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001
        text = f"<{type(value).__name__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def is_flag(value: Any) -> bool:
    """Whether ``value`` is a yes/no value: ``True`` / ``False``, numpy's booleans included."""
    return isinstance(value, bool) or (type(value).__name__ in ("bool", "bool_") and type(value).__module__ == "numpy")


def check_flag(name: str, value: Any) -> bool:
    """A yes/no option (:func:`is_flag`) as a bool, else InvalidArgument naming ``name``."""
    if not is_flag(value):
        raise InvalidArgument(f"{name}={short_repr(value)} must be True or False")
    return bool(value)


def check_real(name: str, value: Any) -> float:
    """Return ``float(value)`` if it is a real number (not a bool), else raise."""
    if not _is_real(value):
        raise InvalidArgument(f"{name}={value!r} must be a real number")
    try:
        return float(value)
    except OverflowError:  # an int beyond the doubles
        raise InvalidArgument(f"{name}={value!r} must be a real number within the range of a double") from None


def check_nonnegative_finite(name: str, value: Any) -> float:
    """A real number with ``0 <= value < inf``."""
    x = check_real(name, value)
    if not (math.isfinite(x) and x >= 0):
        raise InvalidArgument(f"{name}={value!r} must be a finite number >= 0")
    return x


def check_positive_finite(name: str, value: Any) -> float:
    """A real number with ``0 < value < inf``."""
    x = check_real(name, value)
    if not (math.isfinite(x) and x > 0):
        raise InvalidArgument(f"{name}={value!r} must be a positive finite number")
    return x


def check_unit_interval(name: str, value: Any, *, low_open: bool = False, high_open: bool = True) -> float:
    """A real number in [0, 1) (the default), or with the ends opened/closed as asked."""
    x = check_real(name, value)
    low_ok = x > 0 if low_open else x >= 0
    high_ok = x < 1 if high_open else x <= 1
    if not (low_ok and high_ok):
        interval = ("(" if low_open else "[") + "0, 1" + (")" if high_open else "]")
        raise InvalidArgument(f"{name}={value!r} must lie in {interval}")
    return x


def check_probability_open(name: str, value: Any) -> float:
    """A probability strictly inside (0, 1), e.g. a confidence level."""
    return check_unit_interval(name, value, low_open=True, high_open=True)


def check_positive_int(name: str, value: Any) -> int:
    """A positive integer (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise InvalidArgument(f"{name}={value!r} must be a positive integer")
    return int(value)


def check_nonnegative_int(name: str, value: Any) -> int:
    """A non-negative integer (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise InvalidArgument(f"{name}={value!r} must be a non-negative integer")
    return int(value)


def check_one_of(name: str, value: Any, options: tuple[Any, ...]) -> Any:
    """``value`` must be one of ``options``."""
    try:
        known = value in options
    except (TypeError, ValueError):  # e.g. an array, whose comparison has no single truth value
        known = False
    if not known:
        raise InvalidArgument(f"{name}={value!r} must be one of {', '.join(map(repr, options))}")
    return value
