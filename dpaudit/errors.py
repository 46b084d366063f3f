"""The one exception tree of dpaudit.

Every error dpaudit raises on purpose derives from :class:`DPAuditError`, so a caller can catch
them all at once; each also derives from the matching builtin (``ValueError``, ``TypeError``) so
ordinary ``except ValueError`` code keeps working.  Messages name the argument, show the value
with ``!r`` and state the rule that was broken.
"""

from __future__ import annotations

__all__ = [
    "DPAuditError",
    "DPAuditWarning",
    "DeclarationMismatchWarning",
    "ExecutorLost",
    "ExecutorUnavailable",
    "InvalidArgument",
    "InvalidDataset",
    "MechanismError",
    "NotNeighbouring",
    "TimeLimitExceeded",
    "UnderpoweredWarning",
    "UnknownMechanism",
]


class DPAuditError(Exception):
    """Base class of every error dpaudit raises on purpose."""


class InvalidArgument(DPAuditError, ValueError):
    """An argument is outside its documented range or of the wrong kind."""


class InvalidDataset(InvalidArgument):
    """A dataset (or query value) handed to a mechanism or relation is malformed."""


class NotNeighbouring(InvalidArgument):
    """A pair handed to a neighbour relation that checks it is not neighbouring."""


class UnknownMechanism(InvalidArgument, LookupError):
    """A catalogue name or import target does not name a mechanism."""


class MechanismError(DPAuditError, RuntimeError):
    """A mechanism under test misbehaved: it raised, returned NaN, the wrong shape or type."""


class ExecutorUnavailable(DPAuditError, ConnectionError):
    """The executor asked for cannot run the audit's chunks (a scheduler that does not answer, a missing
    optional dependency): a fault of where the audit runs, never a verdict."""


class ExecutorLost(ExecutorUnavailable):
    """The executor failed midway through an audit: its scheduler was lost, or the workers running one chunk died
    each time it was tried (killed past their memory limit, crashed).  The chunks finished before are kept in the
    checkpoint file ``checkpoint`` (None when none could be written), so the same audit rerun with it resumes."""

    def __init__(self, message: str, checkpoint: str | None = None) -> None:
        super().__init__(message)
        self.checkpoint = checkpoint


class TimeLimitExceeded(DPAuditError, TimeoutError):
    """An audit's ``time_limit`` passed before the verification's first look: no look supports any verdict.
    (Once a look is complete the audit returns what its last complete look supports instead.)"""


class DPAuditWarning(UserWarning):
    """Base class of dpaudit's warnings."""


class UnderpoweredWarning(DPAuditWarning):
    """An audit's sample budget could not reach the claim: neither a pass nor a violation is evidence."""


class DeclarationMismatchWarning(DPAuditWarning):
    """A mechanism states a value twice, differently (its sensitivity and its density's), and the
    prover had to choose: the message says which value it used and what the proof then covers."""
