"""Shared pieces of the CLI: error handling (one line, exit 2), output paths checked before work, JSON output."""

from __future__ import annotations

import functools
import json
import re
import shlex
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from .._codec import to_json
from .._paths import check_output_file, check_output_folder, write_or_keep
from ..errors import DPAuditError, InvalidArgument, InvalidDataset

F = TypeVar("F", bound=Callable[..., Any])


class Number(click.types.FloatParamType):
    """A float option read as typed: ASCII digits only, and a nonzero value that a double cannot hold
    (``1e-400``, which ``float`` reads as 0) refused rather than silently changed."""

    name = "number"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if not text.isascii():
                self.fail(f"{value!r} is not a number written in ASCII digits", param, ctx)
            number = super().convert(text, param, ctx)
            mantissa = text.lower().split("e")[0]
            if number == 0.0 and any(c in "123456789" for c in mantissa):
                self.fail(f"{value!r} is too small for a double: it would be read as 0", param, ctx)
            return number
        return super().convert(value, param, ctx)


NUMBER = Number()

EXIT_OK, EXIT_VIOLATION, EXIT_BAD_INPUT, EXIT_UNKNOWN = 0, 1, 2, 3
# Ctrl-C: the shell's convention 128 + SIGINT, so an interrupted run is never read as a verdict.
EXIT_INTERRUPTED = 130


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) made one space."""
    return " ".join(str(text).split())


class OneLineErrors(click.Group):
    """A group whose usage errors (bad option values, unknown options, missing arguments) are one line.

    Click prints the usage, a hint and the error on four lines; dpaudit prints
    ``dpaudit <command>: error: <what click says> (see 'dpaudit <command> --help')`` on one, exit 2.
    Ctrl-C exits 130 with one line instead of click's exit 1, which would read as a violation.
    """

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            value = super().main(*args, standalone_mode=False, **kwargs)
        except click.ClickException as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # `dpaudit` alone: the help, as click shows it
                exc.show()
                sys.exit(EXIT_BAD_INPUT)
            context = getattr(exc, "ctx", None)
            # The program is called dpaudit however it was started (python -m, a test runner).
            where = " ".join(["dpaudit", *context.command_path.split()[1:]]) if context is not None else "dpaudit"
            hint = f" (see '{where} --help')" if isinstance(exc, click.UsageError) else ""
            click.echo(f"{where}: error: {one_line(exc.format_message())}{hint}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except click.Abort:
            click.echo("dpaudit: interrupted", err=True)
            sys.exit(EXIT_INTERRUPTED)
        sys.exit(value if isinstance(value, int) else EXIT_OK)


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
            click.echo(f"dpaudit: error: {options_hint(one_line(exc))}", err=True)
            sys.exit(EXIT_BAD_INPUT)

    return wrapper  # type: ignore[return-value]


def check_outputs(*, files: dict[str, Any] | None = None, folders: dict[str, Any] | None = None) -> None:
    """Check every output path a command will write before it does any work (InvalidArgument: exit 2).

    ``files`` and ``folders`` map the option as the user typed it (``"--checkpoint"``) to its value;
    ``None`` values (option not given) are skipped.  See :mod:`dpaudit._paths` for the rules.
    """
    for option, value in (files or {}).items():
        if value is not None:
            check_output_file(option, value)
    for option, value in (folders or {}).items():
        if value is not None:
            check_output_folder(option, value)


def save_finished(text: str, path: Any, option: str) -> tuple[str, str | None]:
    """Write finished work to ``path``; if that fails, keep it in a temporary file, else print it.

    Returns ``(where it is, None)`` or ``(where it is, a one-line error saying why and where)``.
    """
    try:
        where, why = write_or_keep(text, path)
    except OSError as exc:
        click.echo(text)
        return "standard output", (f"{option}: could not write {str(path)!r} nor a temporary file "
                                   f"({exc.strerror or exc}); the finished result is printed above")
    if why is None:
        return str(where), None
    return str(where), f"{option}: {why}; the finished result is kept in {where}"


def echo_json(document: Any) -> None:
    click.echo(json.dumps(to_json(document), indent=2, sort_keys=False))


def parse_distance(text: str) -> int | float:
    """``--d-in``: a JSON number (an integer stays an integer, as OpenDP's integer distances need)."""
    import json

    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        value = None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidArgument(f"--d-in={text!r} must be a number, e.g. --d-in 1")
    return value


def _as_input(value: Any) -> Any:
    """JSON arrays become tuples (hashable, like catalogue pairs); everything else is kept."""
    if isinstance(value, list):
        return tuple(_as_input(v) for v in value)
    return value


def parse_input(option: str, text: str) -> Any:
    """An input given on the command line as JSON (``--a``, ``--b``, ``--data``): a dataset or a query value."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidDataset(f"{option}={text!r} is not valid JSON ({exc.msg})") from None
    if isinstance(value, dict) or value is None or isinstance(value, bool):
        raise InvalidDataset(f"{option}={text!r} must be a dataset (JSON array of records) or a query value")
    return _as_input(value)


def parse_pair(a: str | None, b: str | None) -> tuple[Any, Any] | None:
    """``--a`` and ``--b`` as the pair of neighbouring inputs (both or neither)."""
    if a is None and b is None:
        return None
    if a is None or b is None:
        raise InvalidArgument("--a and --b must be given together (the two neighbouring inputs)")
    return parse_input("--a", a), parse_input("--b", b)


_ARGUMENT_OPTIONS = {"pair=": "--a/--b", "data=": "--data", "neighbours=": "--neighbours"}

_KEYWORD_OPTIONS = {
    "epsilon": "--epsilon", "delta": "--delta", "claim": "--claim/--rho/--mu/--alpha", "rho": "--rho", "mu": "--mu",
    "alpha": "--alpha", "samples": "--samples",
    "search_samples": "--search-samples", "seed": "--seed", "confidence": "--confidence",
    "verdict_confidence": "--verdict-confidence", "method": "--method", "executor": "--executor",
    "workers": "--workers", "checkpoint": "--checkpoint", "d_in": "--d-in", "time_limit": "--time-limit",
    "connect_timeout": "--connect-timeout", "time_budget": "--time-budget", "tolerance": "--tolerance",
    "max_paths": "--max-paths", "observe": "--observe",
}
"""The keywords of the Python API (how dpaudit's messages name an argument) and the options that give them on the
command line.  The messages are written once, in the API's words; the CLI says them in its own (:func:`options_hint`)."""

# A keyword as a message names it: ``epsilon=-1.0 must be ...`` or ``give epsilon=`` (not part of a longer word, nor
# a field in a repr such as ``ZeroConcentratedDP(rho=0.5)``).
_KEYWORD = re.compile(r"(?<![\w.\-(])(" + "|".join(sorted(_KEYWORD_OPTIONS, key=len, reverse=True)) + r")=(?=(\S?))")
# The target named as typed: a message about it starts ``target='mine.py:noisy_sum'`` (the TARGET argument), said as
# its text.  (An empty one keeps its keyword: ``''`` alone names nothing; elsewhere ``mechanism=`` may be a field, as
# in a checkpoint's "mechanism='laplace' there".)
_TARGET = re.compile(r"^(?:target|mechanism)=(?='[^'])")


def options_hint(message: str) -> str:
    """``message`` in the command line's words: the Python keywords it names said as the options that give them
    (``epsilon=-1`` as ``--epsilon=-1``, ``pair=`` as ``--a/--b``, the start hint), and the target by the text typed
    for it (``'mine.py:noisy_sum'``, not ``target='mine.py:noisy_sum'``).  :func:`guarded` applies it to every error."""
    from ..auditor import START_HINT

    text = message.replace(START_HINT, "give --a JSON --b JSON or --data JSON")
    for argument, option in _ARGUMENT_OPTIONS.items():
        if text.startswith(argument):
            return f"{option}: {text}"
    text = _TARGET.sub("", text)
    return _KEYWORD.sub(lambda m: _KEYWORD_OPTIONS[m.group(1)] + ("=" if m.group(2) and m.group(2) not in ",;)" else ""),
                        text)


def audit_command(target: str, epsilon: float | None, delta: float | None) -> str:
    """The ``dpaudit audit`` command line that samples ``target`` at the claim given (for a message that points to it)."""
    claim = f"--epsilon {epsilon!r}" if epsilon is not None else "--epsilon EPSILON"
    claim += f" --delta {delta!r}" if delta is not None else ""
    return f"dpaudit audit {shlex.quote(target)} {claim} --a JSON --b JSON"


def inputs_note(pair: Any, data: Any) -> str:
    """Said after a mechanism's error when it ran on inputs the user typed (or on neighbours of --data)."""
    return " (on the inputs given by --a / --b / --data)" if pair is not None or data is not None else ""
