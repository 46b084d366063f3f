"""Evidence that lasts between runs: results stored under the key of everything that decides them.

A CI run audits the same mechanisms push after push; most pushes change none of them.  The store
keeps each result under a key (:mod:`.keys`) made of the mechanism's code (:mod:`.fingerprint`), its
declaration, the claim, the pair and relation, the budget and levels, the seed, the checks and the
versions of dpaudit and the numeric libraries.  A result whose key is unchanged is read back
instead of recomputed, with the run that computed it; anything that could change it misses.

Never weaker than recomputing: a stored result is the result the same computation gives (the seed is
in the key, and an audit is a function of its seed), so a stored violation fails as it did; a result
that no seed reproduces (a mechanism drawing its own randomness) is never stored; an unreadable file
is said in one line and recomputed (:mod:`.store`).

:func:`recall_audit` is what the pytest plugin and ``dpaudit audit --store`` call; :func:`recall_proof` and
:func:`recall_certificate` are what the plugin's ``dp.assert_proved`` / ``dp.assert_certified`` call.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# public name -> the module that defines it, loaded on first use (PEP 562): the pytest plugin reads
# RunStamp while it configures a run, before numpy (which the keys need) is loaded
_PUBLIC = {
    **dict.fromkeys(("code_fingerprint", "is_users_module"), "dpaudit.evidence.fingerprint"),
    **dict.fromkeys(("EvidenceKey", "audit_key", "certificate_key", "mechanism_identity", "proof_key", "versions"),
                    "dpaudit.evidence.keys"),
    **dict.fromkeys(("FORMAT", "FORMAT_VERSION", "EvidenceStore", "RunStamp", "Stored"), "dpaudit.evidence.store"),
    **dict.fromkeys(("Evidence", "Recorded", "certificate_record", "proof_record", "recall_audit",
                     "recall_certificate", "recall_proof"), "dpaudit.evidence.recall"),
}

__all__ = ["FORMAT", "FORMAT_VERSION", "Evidence", "EvidenceKey", "EvidenceStore", "Recorded", "RunStamp", "Stored",
           "audit_key", "certificate_key", "certificate_record", "code_fingerprint", "is_users_module",
           "mechanism_identity", "proof_key", "proof_record", "recall_audit", "recall_certificate", "recall_proof",
           "versions"]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .fingerprint import code_fingerprint, is_users_module
    from .keys import EvidenceKey, audit_key, certificate_key, mechanism_identity, proof_key, versions
    from .recall import (Evidence, Recorded, certificate_record, proof_record, recall_audit, recall_certificate,
                         recall_proof)
    from .store import FORMAT, FORMAT_VERSION, EvidenceStore, RunStamp, Stored


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:
        value = getattr(import_module(_PUBLIC[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dpaudit.evidence' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
