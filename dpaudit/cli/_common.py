"""Shared pieces of the CLI: error handling (one line, exit 2) and JSON output."""

from __future__ import annotations

import functools
import json
import math
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from ..errors import DPAuditError

F = TypeVar("F", bound=Callable[..., Any])

EXIT_OK, EXIT_VIOLATION, EXIT_BAD_INPUT, EXIT_UNKNOWN = 0, 1, 2, 3


def json_option(function: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")(function)


def debug_option(function: F) -> F:
    return click.option("--debug", is_flag=True, help="Show the full traceback on errors.")(function)


def guarded(function: F) -> F:
    """Turn dpaudit's errors into a one-line message and exit code 2 (full traceback with --debug)."""

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        debug = kwargs.get("debug", False)
        try:
            return function(*args, **kwargs)
        except (DPAuditError, ValueError, TypeError) as exc:
            if debug:
                raise
            click.echo(f"dpaudit: error: {exc}", err=True)
            sys.exit(EXIT_BAD_INPUT)

    return wrapper  # type: ignore[return-value]


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return "inf" if value > 0 else ("-inf" if value < 0 else "nan")
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def echo_json(document: Any) -> None:
    click.echo(json.dumps(_jsonable(document), indent=2, sort_keys=False))


def parse_distance(text: str) -> int | float:
    """``--d-in``: a JSON number (an integer stays an integer, as OpenDP's integer distances need)."""
    import json

    from ..errors import InvalidArgument

    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgument(f"--d-in={text!r} must be a number, e.g. --d-in 1")
    return value
