"""Read a result from the evidence store, or compute it and keep it: an audit (:func:`recall_audit`), a
proof (:func:`recall_proof`) or a certificate (:func:`recall_certificate`).

An audit reads back as the full :class:`~dpaudit.auditor.AuditResult`.  A proof or a certificate is kept
as its *record* (:func:`proof_record`, :func:`certificate_record`): the verdict, the reason and the lines
a failure prints, with the result's ``as_dict()`` for the record; the pytest plugin decides and words the
test's outcome from the record whether it was computed now or read back, so the two cannot differ.  Read
back, the caller gets a :class:`Recorded` in place of the result object.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable
from typing import Any

from .keys import EvidenceKey, audit_key, certificate_key, proof_key
from .store import EvidenceStore, RunStamp, Stored

__all__ = ["Evidence", "Recorded", "certificate_record", "proof_record", "recall_audit", "recall_certificate",
           "recall_proof"]


@dataclass(frozen=True)
class Evidence:
    """A result and where it came from: ``stored`` is the run that computed it when it was read from the
    store (None when computed now); ``problems`` are the one-line notes about the store (an ignored file,
    a failed write)."""

    result: Any
    stored: RunStamp | None = None
    problems: tuple[str, ...] = ()
    record: dict[str, Any] | None = None  # a proof's or certificate's record (None for an audit)

    @property
    def provenance(self) -> str:
        """``from the evidence store: run ID (AT)``, or ``computed in this run``."""
        if self.stored is None:
            return "computed in this run"
        return f"from the evidence store: run {self.stored.id} ({self.stored.at})"


def recall_audit(config: Any, store: EvidenceStore | None, run: RunStamp, *, fresh: bool = False) -> Evidence:
    """The audit ``config`` (a built :class:`dpaudit.auditor.AuditConfig`) asks for: read from ``store``
    when its key is there (unless ``fresh``), else run (:func:`dpaudit.auditor.run_audit`) and kept.

    Errors of the audit itself propagate as from ``run_audit``; the store's troubles never do.
    """
    from ..auditor import AuditResult, run_audit

    def read_back(stored: Stored) -> tuple[Any, None]:
        return AuditResult.from_dict(stored.result), None

    return _recall("audit", lambda: audit_key(config), lambda: run_audit(config),
                   _audit_document, read_back, store, run, fresh)


def proof_record(result: Any) -> dict[str, Any]:
    """What a test's outcome needs of a :class:`~dpaudit.proofs.result.ProofResult`: its verdict, reason,
    counterexample and printed form as text, and ``as_dict()`` (``result``)."""
    witness = getattr(result, "counterexample", None)
    return {"verdict": _verdict_text(result), "reason": getattr(result, "reason", "") or "",
            "counterexample": None if witness is None else str(witness), "printed": str(result),
            "result": result.as_dict()}


def certificate_record(result: Any) -> dict[str, Any]:
    """What a test's outcome needs of a :class:`~dpaudit.certifier.result.CertifyResult`: its verdict,
    reason, whether a claim was stated, ``lines()`` and ``as_dict()`` (``result``)."""
    return {"verdict": _verdict_text(result), "reason": result.reason, "claim_stated": result.claim is not None,
            "lines": list(result.lines()), "result": result.as_dict()}


_RECORD_FIELDS = {"prove": {"verdict", "reason", "counterexample", "printed", "result"},
                  "certify": {"verdict", "reason", "claim_stated", "lines", "result"}}


def _verdict_text(result: Any) -> str:
    verdict = getattr(result, "verdict", None)
    return str(getattr(verdict, "value", verdict))


@dataclass(frozen=True)
class Recorded:
    """A proof or certificate read back from the store, standing in for the result object: ``verdict``
    (the result's Verdict enum), ``reason``, ``proved`` / ``certified`` / ``refuted``, ``lines()`` (a
    certificate's), ``str()`` (the printed form), ``as_dict()``, and any other key of ``as_dict()`` as
    an attribute (``epsilon_up``, ``method``...)."""

    verb: str
    record: dict[str, Any]
    stored: RunStamp

    @property
    def verdict(self) -> Any:
        if self.verb == "prove":
            from ..proofs.result import Verdict
        else:
            from ..certifier.result import Verdict
        return Verdict(self.record["verdict"])

    @property
    def reason(self) -> str:
        return self.record["reason"]

    @property
    def proved(self) -> bool:
        return self.record["verdict"] == "proved"

    @property
    def certified(self) -> bool:
        return self.record["verdict"] == "certified"

    @property
    def refuted(self) -> bool:
        return self.record["verdict"] == "refuted"

    def lines(self) -> list[str]:
        return list(self.record.get("lines") or str(self).splitlines())

    def as_dict(self) -> dict[str, Any]:
        return dict(self.record["result"])

    def __str__(self) -> str:
        return self.record.get("printed") or "\n".join(self.record["lines"])

    def __getattr__(self, name: str) -> Any:
        result = self.__dict__.get("record", {}).get("result", {})
        if name in result:
            return result[name]
        raise AttributeError(f"a {self.verb} result read back from the evidence store has no {name!r}")


def recall_proof(mechanism: Any, options: dict[str, Any], store: EvidenceStore | None, run: RunStamp, *,
                 fresh: bool = False) -> Evidence:
    """``dpaudit.prove(mechanism, **options)``, read from ``store`` when its key (:func:`.keys.proof_key`) is
    there (unless ``fresh``), else computed and its record kept.  Every verdict is kept: proved and refuted
    are exact; an unknown (also one stopped by ``time_budget``) fails the test read back or recomputed."""
    from ..proofs import prove

    return _recall("prove", lambda: proof_key(mechanism, options), lambda: prove(mechanism, **options),
                   proof_record, _read_record("prove"), store, run, fresh)


def recall_certificate(target: Any, claim: dict[str, Any], pair: Any, observe: str, options: dict[str, Any],
                       store: EvidenceStore | None, run: RunStamp, *, fresh: bool = False) -> Evidence:
    """``dpaudit.certify(target, pair=pair, observe=observe, **claim, **options)``, read from ``store`` when
    its key (:func:`.keys.certificate_key`) is there (unless ``fresh``), else computed and its record kept.

    A result that stopped at its ``time_limit`` (or ``max_paths``) is kept too, although another machine
    might have gone further: a certified result is a proof whatever the machine that found it, a refuted
    one is exact, and an unknown fails the test either way (read back or recomputed).
    """
    from ..certifier import certify

    return _recall("certify", lambda: certificate_key(target, claim, pair, observe, options),
                   lambda: certify(target, pair=pair, observe=observe, **claim, **options),
                   certificate_record, _read_record("certify"), store, run, fresh)


def _audit_document(result: Any) -> dict[str, Any] | None:
    """What is kept of an audit: its ``as_dict()``; nothing for one no seed reproduces (a mechanism drawing
    its own randomness) or one the time limit cut short (it depends on the machine's speed, not only on
    the key)."""
    cut_short = "time limit" in str(getattr(getattr(result, "stopping", None), "reason", "") or "")
    return result.as_dict() if result.reproducible and not cut_short else None


def _read_record(verb: str) -> Callable[[Stored], tuple[Recorded, dict[str, Any]]]:
    """How a proof's or certificate's stored record reads back: a :class:`Recorded` and the record."""
    def read_back(stored: Stored) -> tuple[Recorded, dict[str, Any]]:
        missing = _RECORD_FIELDS[verb] - set(stored.result)
        if missing:
            raise KeyError(f"its record lacks {', '.join(sorted(missing))}")
        return Recorded(verb, stored.result, stored.run), stored.result
    return read_back


def _recall(verb: str, key_of: Callable[[], EvidenceKey], compute: Callable[[], Any],
            kept: Callable[[Any], dict[str, Any] | None], read_back: Callable[[Stored], tuple[Any, Any]],
            store: EvidenceStore | None, run: RunStamp, fresh: bool) -> Evidence:
    """What ``read_back`` makes of the entry under ``key_of()`` in ``store`` (unless ``fresh``), or
    ``compute()``'s result with ``kept(result)`` written under the key (None: not kept).  The Evidence's
    ``record`` is a proof's or certificate's record (``kept(result)``, or the one read back), None for an
    audit.  A computation that raises propagates and nothing is kept; the store's troubles never do."""
    record_of = (lambda result: None) if verb == "audit" else kept
    if store is None:
        result = compute()
        return Evidence(result, record=record_of(result))
    problems = []
    try:
        key = key_of()
    except Exception as exc:  # noqa: BLE001 - the key reads the user's objects; any failure means "not stored"
        result = compute()
        return Evidence(result, record=record_of(result),
                        problems=(f"dpaudit: could not key this {verb} for the evidence store "
                                  f"({type(exc).__name__}: {exc}); computed, not stored",))
    if not fresh:
        stored, problem = store.recall(key)
        if problem is not None:
            problems.append(problem)
        if stored is not None:
            try:
                result, record = read_back(stored)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                problems.append(f"dpaudit: ignored the evidence file {str(store.path(key))!r} (its result does not "
                                f"read back: {type(exc).__name__}: {exc}); recomputed")
            else:
                return Evidence(result, stored.run, record=record)
    result = compute()
    document = kept(result)
    if document is not None:
        problem = store.keep(key, document, run)
        if problem is not None:
            problems.append(problem)
    return Evidence(result, problems=tuple(problems), record=record_of(result))
