"""Resolve what a user names into a Mechanism: a catalogue name, ``package.module:attr``,
``path/to/file.py:attr``, a Mechanism, an OpenDP measurement or diffprivlib mechanism object
(:mod:`dpaudit.adapters`), or a plain callable (with the claim given separately)."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from ._validation import check_nonnegative_finite, check_unit_interval, did_you_mean, short_repr
from .adapters import adapt, library_of
from .claims import ApproxDP, Claim, PureDP, check_claim
from .errors import InvalidArgument, UnknownMechanism
from .mechanisms.base import Mechanism, check_run_signature
from .mechanisms.registry import get, unknown_name

__all__ = ["check_plain_callable", "is_plain_callable", "load_attribute", "load_target", "resolve", "restated_point",
           "stated_claim", "target_name"]


def target_name(target: Any) -> str:
    """``target`` as the user gave it, for a message: the text typed (``'mine.py:noisy_sum'``, a catalogue name),
    a function's name, a Mechanism's name, a value's short repr (``42``), else the object's class -- never a repr
    with a memory address."""
    if isinstance(target, str):
        return repr(target)
    if isinstance(target, Mechanism):
        return f"<Mechanism {target.name!r}>"
    if isinstance(target, type):
        return f"<class {target.__qualname__}>"
    name = getattr(target, "__name__", None)
    if callable(target) and isinstance(name, str):
        return name
    shown = short_repr(target)
    return f"<{type(target).__qualname__} object>" if _ADDRESS.search(shown) else shown


_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


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
            close = did_you_mean(part, (name for name in dir(value) if not name.startswith("_")))
            hint = f"; {close}" if close else ""
            raise UnknownMechanism(f"target={target!r}: {module_part!r} has no attribute {attr!r}{hint}") from None
    return value


def _claim_for(epsilon: float | None, delta: float | None, named: str) -> Claim:
    """The point claim ``epsilon=`` / ``delta=`` state for a plain function (``named`` as the user named it)."""
    if epsilon is None:
        raise InvalidArgument(f"{named} is a plain function, which carries no claim: give epsilon= (or claim=)")
    return ApproxDP(epsilon, delta) if delta else PureDP(epsilon)


def restated_point(claim: Claim, epsilon: float | None, delta: float | None) -> Claim:
    """The (epsilon, delta) claim that overrides ``claim``; a curve claim (zCDP, RDP, GDP, curve) fills the
    missing coordinate from its own curve: epsilon(delta) or delta(epsilon) (:mod:`dpaudit.conversions`)."""
    if claim.is_curve:
        if epsilon is None:
            return claim.to_approx(delta)
        if delta is None:
            delta = claim.delta_at_epsilon(epsilon)
            if delta >= 1:
                raise InvalidArgument(f"claim {claim} promises nothing at epsilon={epsilon!r} (delta = 1): give delta= too")
    eps = claim.epsilon if epsilon is None else epsilon
    dlt = claim.delta if delta is None else delta
    return ApproxDP(eps, dlt) if dlt else PureDP(eps)


def stated_claim(claim: Any, epsilon: float | None = None, delta: float | None = None) -> Claim:
    """The claim ``claim=`` states, read at the point ``epsilon=`` or ``delta=`` names on a curve claim.

    A point claim (PureDP, ApproxDP, ProbabilisticDP) states its epsilon and delta itself: with either
    given too the call is refused.  A curve claim (zCDP, RDP, GDP, a privacy curve) with one of them
    is the (epsilon, delta)-DP it implies there (:func:`restated_point`: epsilon(delta) or
    delta(epsilon)); with both, which would not read the claim at all, the call is refused.
    """
    claim = check_claim("claim", claim)
    if epsilon is None and delta is None:
        return claim
    given = " and ".join(f"{name}={value!r}" for name, value in (("epsilon", epsilon), ("delta", delta))
                         if value is not None)
    if not claim.is_curve:
        raise InvalidArgument(f"claim={claim} states its epsilon and delta itself; {given} would restate them: give "
                              "claim= or epsilon=/delta=, not both")
    if epsilon is not None and delta is not None:
        raise InvalidArgument(f"claim={claim} with {given}: give one of them, the point of the claim's curve (the "
                              "other is read off it), or neither to audit the whole curve")
    return restated_point(claim, epsilon, delta)


def load_target(target: Any) -> Any:
    """What ``target`` names, before it becomes a Mechanism: a Mechanism, or a plain callable.

    A catalogue name gives its Mechanism; ``package.module:attr`` / ``file.py:attr`` the attribute (a
    zero-argument factory is called); anything else is returned as it is.
    """
    if not isinstance(target, str):
        return target
    named = f"target={target!r}"
    if ":" not in target:
        try:
            return get(target)
        except UnknownMechanism:
            raise UnknownMechanism(unknown_name("target", target)) from None
    loaded = load_attribute(target)
    if callable(loaded) and not isinstance(loaded, Mechanism):
        # A zero-argument factory returning a Mechanism is accepted too.
        try:
            factory = not inspect.signature(loaded).parameters
        except (TypeError, ValueError):
            factory = False
        if factory:
            try:
                loaded = loaded()
            except Exception as exc:  # the user's factory may raise anything: bad input, said so
                raise UnknownMechanism(f"{named}: calling it (a factory) raised {type(exc).__name__}: {exc}") from exc
    return loaded


def is_plain_callable(loaded: Any) -> bool:
    """True for a plain function: it carries neither a claim nor a neighbour relation (a Mechanism
    and a library object -- OpenDP measurements are callable -- carry both)."""
    return callable(loaded) and not isinstance(loaded, Mechanism) and library_of(loaded) is None


def check_plain_callable(named: str, target: Any) -> None:
    """A plain callable must be a function of (data, rng) or (data, n, rng), not a class (``named`` says
    how the user named it, e.g. ``target='mod:f'``)."""
    if isinstance(target, type):
        raise UnknownMechanism(f"{named} is a class, not a mechanism: give a function f(data, rng) or "
                               "f(data, n, rng), a Mechanism, or a library object")
    check_run_signature(named, target)


def resolve(
    target: Any,
    *,
    claim: Any = None,
    epsilon: float | None = None,
    delta: float | None = None,
    randomness: str | None = None,
    d_in: Any = None,
    named: str | None = None,
) -> Mechanism:
    """Turn ``target`` into a Mechanism.

    A Mechanism or catalogue name keeps its own claim unless ``epsilon``/``delta`` override it (for a
    curve claim such as zCDP, one of them picks the point of its curve: ``delta=1e-5`` alone gives
    the (epsilon(1e-5), 1e-5)-DP it implies); a
    callable (given directly or loaded from ``module:attr``) needs ``epsilon`` or ``claim``.  An OpenDP
    ``Measurement`` takes its claim from its privacy map at ``d_in``, a diffprivlib mechanism from
    its own parameters (:mod:`dpaudit.adapters`); ``d_in`` is refused for anything else.
    ``claim`` (any claim object, :func:`stated_claim`) replaces whatever claim the target carries; an
    OpenDP measurement still needs ``d_in`` then, for its neighbour relation.
    ``randomness`` applies to callables only (:meth:`Mechanism.from_callable`).  ``named`` is how the user named
    the target, for messages (``"target='mine.py:f'"`` when ``target`` was loaded from that text; default: from
    ``target`` itself, :func:`target_name`).
    """
    if epsilon is not None:
        epsilon = check_nonnegative_finite("epsilon", epsilon)
    if delta is not None:
        delta = check_unit_interval("delta", delta)
    stated = None if claim is None else stated_claim(claim, epsilon, delta)
    original = target
    target = load_target(target)
    as_typed, named = named is not None, named or f"target={target_name(original)}"
    adapted = adapt(target, d_in=d_in) if stated is not None else adapt(target, epsilon=epsilon, delta=delta, d_in=d_in)
    if adapted is not None:
        if randomness is not None and randomness != adapted.randomness:
            raise InvalidArgument(
                f"randomness={randomness!r} applies to a plain function; the {adapted.family} object draws from "
                f"randomness={adapted.randomness!r}, which its adapter knows"
            )
        if stated is None:
            return adapted
        return replace(adapted, claim=stated,
                       description=f"{adapted.description}; audited against claim= {stated} instead of {adapted.claim}")
    if isinstance(target, Mechanism):
        if randomness is not None and randomness != target.randomness:
            raise InvalidArgument(
                f"randomness={randomness!r} applies to a plain function; the Mechanism {target.name!r} declares "
                f"randomness={target.randomness!r} (its sampler takes a numpy Generator)"
            )
        if stated is not None:
            return replace(target, claim=stated)
        if epsilon is None and delta is None:
            return target
        return replace(target, claim=restated_point(target.claim, epsilon, delta))
    if callable(target):
        check_plain_callable(named, target)
        own = stated if stated is not None else _claim_for(epsilon, delta, named)
        return Mechanism.from_callable(target, claim=own, randomness=randomness)
    if target is original and not as_typed:
        raise UnknownMechanism(
            f"{named} is not a Mechanism, a catalogue name, a callable, an OpenDP Measurement or a "
            "diffprivlib mechanism"
        )
    raise UnknownMechanism(f"{named} gave {target_name(target)}, which is neither a Mechanism nor a callable")
