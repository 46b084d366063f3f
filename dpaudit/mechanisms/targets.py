"""Resolve what a user names into a Mechanism: a catalogue name, ``package.module:attr``,
``path/to/file.py:attr``, a Mechanism, or a plain callable (with the claim given separately)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any

from .._validation import check_nonnegative_finite, check_unit_interval
from ..claims import ApproxDP, Claim, PureDP
from ..errors import InvalidArgument, UnknownMechanism
from .base import Mechanism, check_run_signature
from .registry import get, unknown_name

__all__ = ["load_attribute", "resolve"]


def load_attribute(target: str) -> Any:
    """Load ``package.module:attr`` or ``path/to/file.py:attr`` (``attr`` may be dotted)."""
    module_part, _, attr = target.rpartition(":")
    if not module_part or not attr:
        raise UnknownMechanism(f"target={target!r} must be a catalogue name, package.module:attr or file.py:attr")
    if module_part.endswith(".py"):
        path = Path(module_part)
        if not path.is_file():
            raise UnknownMechanism(f"target={target!r}: no file {str(path)!r}")
        module_name = f"_dpaudit_target_{abs(hash(str(path.resolve())))}"
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise UnknownMechanism(f"target={target!r}: cannot import {str(path)!r}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            sys.modules.pop(module_name, None)
            raise UnknownMechanism(f"target={target!r}: importing {str(path)!r} raised {type(exc).__name__}: {exc}") from exc
    else:
        try:
            module = importlib.import_module(module_part)
        except ImportError as exc:
            raise UnknownMechanism(f"target={target!r}: cannot import module {module_part!r} ({exc})") from exc
    value: Any = module
    for part in attr.split("."):
        try:
            value = getattr(value, part)
        except AttributeError:
            raise UnknownMechanism(f"target={target!r}: {module_part!r} has no attribute {attr!r}") from None
    return value


def _claim_for(epsilon: float | None, delta: float | None, what: str) -> Claim:
    if epsilon is None:
        raise InvalidArgument(f"target={what} is a plain callable, which carries no claim: epsilon is required "
                              "(--epsilon on the command line)")
    return ApproxDP(epsilon, delta) if delta else PureDP(epsilon)


def resolve(target: Any, *, epsilon: float | None = None, delta: float | None = None) -> Mechanism:
    """Turn ``target`` into a Mechanism.

    A Mechanism or catalogue name keeps its own claim unless ``epsilon``/``delta`` override it; a
    callable (given directly or loaded from ``module:attr``) needs ``epsilon``.
    """
    if epsilon is not None:
        epsilon = check_nonnegative_finite("epsilon", epsilon)
    if delta is not None:
        delta = check_unit_interval("delta", delta)
    original, named = target, f"target={target!r}"
    if isinstance(target, str):
        if ":" in target:
            target = load_attribute(target)
        else:
            try:
                target = get(target)
            except UnknownMechanism:
                raise UnknownMechanism(unknown_name("target", target)) from None
        if callable(target) and not isinstance(target, Mechanism):
            # A zero-argument factory returning a Mechanism is accepted too.
            import inspect

            try:
                factory = not inspect.signature(target).parameters
            except (TypeError, ValueError):
                factory = False
            if factory:
                try:
                    target = target()
                except Exception as exc:  # the user's factory may raise anything: bad input, said so
                    raise UnknownMechanism(f"{named}: calling it (a factory) raised {type(exc).__name__}: {exc}") from exc
    if isinstance(target, Mechanism):
        if epsilon is None and delta is None:
            return target
        eps = target.claim.epsilon if epsilon is None else epsilon
        dlt = target.claim.delta if delta is None else delta
        from dataclasses import replace

        return replace(target, claim=ApproxDP(eps, dlt) if dlt else PureDP(eps))
    if callable(target):
        check_run_signature(named, target)
        return Mechanism.from_callable(target, claim=_claim_for(epsilon, delta, repr(target)))
    if target is original:
        raise UnknownMechanism(f"{named} is neither a Mechanism, a callable nor a name")
    raise UnknownMechanism(f"{named} gave {target!r}, which is neither a Mechanism nor a callable")
