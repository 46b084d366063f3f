"""Run one stage of a report in a forked child process with a wall-clock limit.

sympy cannot be interrupted from inside a thread, so a proof that would run for minutes is run in a
child process (``fork`` start method: the mechanism, with its closures, is inherited, not pickled)
and terminated at the limit.  The child sends back ``function()``'s plain (picklable) result.  Where
``fork`` does not exist the stage runs inline, without a limit.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any

__all__ = ["run_with_timeout"]


def _child(function: Callable[[], Any], connection: Any) -> None:
    try:
        connection.send(("ok", function()))
    except BaseException as exc:  # noqa: BLE001 - everything is reported to the parent as text
        connection.send(("error", f"{type(exc).__name__}: {exc}"))
    finally:
        connection.close()


def run_with_timeout(function: Callable[[], Any], timeout: float | None) -> tuple[str, Any]:
    """``("ok", value)``, ``("error", message)`` or ``("timeout", None)`` after ``timeout`` seconds."""
    if timeout is None or "fork" not in multiprocessing.get_all_start_methods():
        try:
            return "ok", function()
        except Exception as exc:  # noqa: BLE001 - the caller records the message in the report
            return "error", f"{type(exc).__name__}: {exc}"
    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(function, sender), daemon=True)
    process.start()
    sender.close()
    try:
        if receiver.poll(timeout):
            try:
                return receiver.recv()
            except EOFError:
                return "error", f"the child process died (exit code {process.exitcode})"
        return "timeout", None
    finally:
        receiver.close()
        if process.is_alive():
            process.terminate()
        process.join(5)
