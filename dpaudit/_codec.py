"""The one JSON codec of dpaudit: what results, reports and the command line write, and how it is read back.

Strict JSON has lists, string-keyed objects, finite numbers, strings, booleans and null.  :func:`to_json`
turns a value into them, one way for every writer (``AuditResult.as_dict()``, the leak findings, the
proof results, ``Mechanism.as_dict()``, the report document, ``--json``):

* tuples become lists and dict keys strings; numpy arrays and scalars become Python lists and numbers
  (``tolist()``);
* a non-finite float becomes the string ``"inf"``, ``"-inf"`` or ``"nan"``;
* an enum member becomes its value;
* any other number (sympy, mpmath, ``Fraction``, ``Decimal``) becomes a float, and a sympy object that is
  no number (an expression with free symbols, a relation, ``true``) its text;
* anything else is left as it is, for the caller to refuse (``json.dumps`` raises ``TypeError``).

:func:`from_json` undoes what JSON cannot say: lists become tuples and the three strings floats.

It imports only the standard library (numpy's values are recognised by their ``tolist``, sympy's only
once sympy is loaded), so every module of dpaudit can use it and ``import dpaudit`` stays light.
"""

from __future__ import annotations

import enum
import math
import sys
from typing import Any

__all__ = ["from_json", "to_json"]

_NON_FINITE = ("inf", "-inf", "nan")

_WHOLE_LIMIT = 2**53  # every integer of smaller magnitude is a double exactly


def to_json(value: Any, *, whole_as_int: bool = False) -> Any:
    """``value`` as plain JSON data (see the module docstring).

    With ``whole_as_int`` a float with no fractional part and magnitude below 2**53 is written as an
    int (``1.0`` as ``1``), as a proof states its exact numbers.
    """
    if hasattr(value, "tolist") and not isinstance(value, (str, bytes)):
        value = value.tolist()
    if isinstance(value, enum.Enum):
        value = value.value
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, (list, tuple)):
        return [to_json(v, whole_as_int=whole_as_int) for v in value]
    if isinstance(value, dict):
        return {str(k): to_json(v, whole_as_int=whole_as_int) for k, v in value.items()}
    if not isinstance(value, float):
        if not hasattr(type(value), "__float__"):
            sympy = sys.modules.get("sympy")  # a sympy object exists only once sympy is loaded
            return str(value) if sympy is not None and isinstance(value, sympy.Basic) else value
        try:
            value = float(value)
        except (TypeError, ValueError):  # a sympy expression with free symbols
            return str(value)
    if not math.isfinite(value):
        return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
    if whole_as_int and value.is_integer() and abs(value) < _WHOLE_LIMIT:
        return int(value)
    return value


def from_json(value: Any) -> Any:
    """Inverse of :func:`to_json` for a stored value: lists (within lists too) become tuples, the strings
    "inf", "-inf" and "nan" floats; anything else, dicts included, is returned as it is (a record's reader
    converts the fields it knows)."""
    if isinstance(value, list):
        return tuple(from_json(v) for v in value)
    if isinstance(value, str) and value in _NON_FINITE:
        return float(value)
    return value
