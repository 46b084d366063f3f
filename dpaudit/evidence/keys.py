"""The key of a stored result: everything that decides it, written down and hashed.

An audit's key (:func:`audit_key`) holds

* the mechanism: a catalogue entry by its name (its code is dpaudit's, so dpaudit's version below
  declares it); a Mechanism by its declaration (``Mechanism.as_dict()``: name, claim, relation,
  sensitivity, randomness...) and the fingerprint of its sampler and one-run function; a plain
  function by its fingerprint (:mod:`.fingerprint`: its source and what it calls in the user's code);
  an OpenDP / diffprivlib object by its type, its repr and the library's version;
* the claim (or the epsilon / delta stated), the pair, the relation (``neighbours``), the example data,
  ``d_in`` and the randomness of a plain function;
* the budget and levels: ``samples``, ``search_samples``, ``confidence``, ``verdict_confidence``,
  ``method``, ``candidates``, ``early_stopping``, ``learned``, ``curve``;
* the seed and the checks;
* the versions of dpaudit, numpy, scipy, sympy and statsmodels and Python's major.minor.

A proof's key (:func:`proof_key`, verb ``"prove"``) and a certificate's (:func:`certificate_key`, verb
``"certify"``) hold the mechanism's identity, the claim, their options and the versions (mpmath too).

Left out: where the work runs (``executor``, ``workers``), the ``checkpoint`` file and the progress
bar, which the result does not depend on (:class:`dpaudit.auditor.AuditConfig`).  The digest is the
SHA-256 of the canonical JSON of these parts (sorted keys).
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import sys
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from .. import _version
from .._codec import to_json
from ..adapters import library_of
from ..mechanisms import Mechanism
from ..targets import load_target
from .fingerprint import code_fingerprint

__all__ = ["EvidenceKey", "audit_key", "certificate_key", "mechanism_identity", "proof_key", "versions"]

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_LIBRARIES = ("numpy", "scipy", "sympy", "statsmodels")


@dataclass(frozen=True)
class EvidenceKey:
    """What decides one result (``parts``, plain JSON) and its SHA-256 ``digest``; ``verb`` says which
    (``"audit"``)."""

    verb: str
    parts: dict[str, Any]
    digest: str

    @classmethod
    def of(cls, verb: str, parts: dict[str, Any]) -> EvidenceKey:
        text = json.dumps({"verb": verb, **parts}, sort_keys=True, default=_fallback, allow_nan=False)
        return cls(verb, json.loads(text), hashlib.sha256(text.encode("utf-8")).hexdigest())


def _fallback(value: Any) -> Any:
    """What ``json.dumps`` writes for a value :func:`to_json` left as it was: its code fingerprint."""
    return code_fingerprint(value)


@functools.lru_cache(maxsize=None)
def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def versions(*extra: str) -> dict[str, str | None]:
    """dpaudit's version (read now, from :mod:`dpaudit._version`), the numeric libraries' (and those named
    in ``extra``) and Python's."""
    return {"dpaudit": _version.__version__, **{name: _installed(name) for name in (*_LIBRARIES, *extra)},
            "python": f"{sys.version_info.major}.{sys.version_info.minor}"}


def mechanism_identity(target: Any) -> dict[str, Any]:
    """What decides the outputs of ``target`` (any target ``audit()`` takes), as plain JSON."""
    if isinstance(target, str):
        if ":" not in target:
            return {"catalogue": target}
        return {"named": target, **mechanism_identity(load_target(target))}
    if isinstance(target, Mechanism):
        return {"mechanism": to_json(target.as_dict()), "code": code_fingerprint(target.sampler, target.one_run)}
    library = library_of(target)
    if library is not None:
        return {"library": library, "version": _installed(library), "type": type(target).__qualname__,
                "repr": _ADDRESS.sub("", repr(target))}
    return {"callable": code_fingerprint(target)}


def _relation(neighbours: Any) -> Any:
    if neighbours is None or isinstance(neighbours, str):
        return neighbours
    described = neighbours.as_dict() if callable(getattr(neighbours, "as_dict", None)) else None
    return {"as_dict": to_json(described), "code": code_fingerprint(neighbours)}


def audit_key(config: Any) -> EvidenceKey:
    """The key of the audit a built :class:`dpaudit.auditor.AuditConfig` asks for (module docstring)."""
    claim = config.claim.as_dict() if config.claim is not None else None
    parts = {
        "mechanism": mechanism_identity(config.target),
        "claim": to_json(claim), "epsilon": config.epsilon, "delta": config.delta,
        "pair": to_json(config.pair), "neighbours": _relation(config.neighbours), "data": to_json(config.data),
        "d_in": to_json(config.d_in), "randomness": config.randomness,
        "samples": config.samples, "search_samples": config.search_samples, "confidence": config.confidence,
        "verdict_confidence": config.verdict_confidence, "method": config.method,
        "candidates": config.candidates, "early_stopping": config.early_stopping, "learned": config.learned,
        "curve": config.curve,
        "seed": config.seed, "checks": list(config.checks), "time_limit": config.time_limit,
        "versions": versions(),
    }
    return EvidenceKey.of("audit", parts)


# The exact deciders' arithmetic besides numpy / scipy / sympy: mpmath re-verifies a proof's counterexample and
# the certifier (dpaudit.certifier.certificate, .certify) computes with it.
_EXACT_LIBRARIES = ("mpmath",)


def _options(options: dict[str, Any]) -> dict[str, Any]:
    """Keyword options as plain JSON (sorted; a claim by its ``as_dict``, a function by its fingerprint
    through :func:`_fallback`)."""
    return {name: to_json(value.as_dict() if callable(getattr(value, "as_dict", None)) else value)
            for name, value in sorted(options.items())}


def proof_key(mechanism: Any, options: dict[str, Any]) -> EvidenceKey:
    """The key of ``dpaudit.prove(mechanism, **options)``: the mechanism's identity (a Mechanism's also the
    fingerprint of its declaration -- density, program, structure -- which is what the prover reads), the
    options (``claim``, ``numeric``, ``time_budget``) and the versions."""
    identity = mechanism_identity(mechanism)
    if isinstance(mechanism, Mechanism):
        identity["declaration"] = code_fingerprint(mechanism.density, mechanism.program, mechanism.structure)
    parts = {"mechanism": identity, "options": _options(options), "versions": versions(*_EXACT_LIBRARIES)}
    return EvidenceKey.of("prove", parts)


def certificate_key(target: Any, claim: dict[str, Any], pair: Any, observe: str,
                    options: dict[str, Any]) -> EvidenceKey:
    """The key of ``dpaudit.certify(target, pair=pair, observe=observe, **claim, **options)``: the target's
    identity (a plain function by its fingerprint; a Mechanism by its declaration and the fingerprints of
    its sampler and one-run function), the claim stated, the pair, what is observed, the other options
    (``claim``, ``pairs``, ``tolerance``, ``time_limit``, ``max_paths``, ``summarise``) and the versions."""
    parts = {"mechanism": mechanism_identity(target), "claim": to_json(claim), "pair": to_json(pair),
             "observe": observe, "options": _options(options), "versions": versions(*_EXACT_LIBRARIES)}
    return EvidenceKey.of("certify", parts)
