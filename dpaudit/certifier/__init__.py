"""Certify the epsilon of a sampler's own code by exact path enumeration.

``certify(f, pair=(a, b), epsilon=...)`` runs a one-run sampler ``f(data, rng)`` on an instrumented
random source, enumerates its execution paths with their exact probabilities (loops merged, helpers
summarised), and bounds epsilon from above with a certificate -- or refutes the claim exactly.  The
package's modules are its stages: :mod:`.symbolic` (values of one draw), :mod:`.source` (the random
primitives), :mod:`.paths` (one replayed path), :mod:`.frames` (merge points), :mod:`.law` (the
enumeration), :mod:`.certificate` (the bounds), :mod:`.result`, :mod:`.certify` (the entry point).
"""

from .certify import DEFAULT_MAX_PATHS, DEFAULT_TIME_LIMIT, DEFAULT_TOLERANCE, certify
from .result import CertifyResult, InputLaw, OutcomeBound, Verdict, Witness

__all__ = [
    "DEFAULT_MAX_PATHS",
    "DEFAULT_TIME_LIMIT",
    "DEFAULT_TOLERANCE",
    "CertifyResult",
    "InputLaw",
    "OutcomeBound",
    "Verdict",
    "Witness",
    "certify",
]
