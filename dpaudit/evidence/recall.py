"""Read a result from the evidence store, or compute it and keep it (:func:`recall_audit`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .keys import audit_key
from .store import EvidenceStore, RunStamp

__all__ = ["Evidence", "recall_audit"]


@dataclass(frozen=True)
class Evidence:
    """A result and where it came from: ``stored`` is the run that computed it when it was read from the
    store (None when computed now); ``problems`` are the one-line notes about the store (an ignored file,
    a failed write)."""

    result: Any
    stored: RunStamp | None = None
    problems: tuple[str, ...] = ()

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

    if store is None:
        return Evidence(run_audit(config))
    problems = []
    try:
        key = audit_key(config)
    except Exception as exc:  # noqa: BLE001 - the key reads the user's objects; any failure means "not stored"
        return Evidence(run_audit(config), problems=(f"dpaudit: could not key this audit for the evidence store "
                                                     f"({type(exc).__name__}: {exc}); computed, not stored",))
    if not fresh:
        stored, problem = store.recall(key)
        if problem is not None:
            problems.append(problem)
        if stored is not None:
            try:
                return Evidence(AuditResult.from_dict(stored.result), stored.run)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                problems.append(f"dpaudit: ignored the evidence file {str(store.path(key))!r} (its result does not "
                                f"read back: {type(exc).__name__}: {exc}); recomputed")
    result = run_audit(config)
    # a result cut short by the time limit depends on the machine's speed, not only on the key: not kept
    cut_short = "time limit" in str(getattr(getattr(result, "stopping", None), "reason", "") or "")
    if result.reproducible and not cut_short:
        problem = store.keep(key, result.as_dict(), run)
        if problem is not None:
            problems.append(problem)
    return Evidence(result, problems=tuple(problems))
