"""Deprecated: the former path of :mod:`dpaudit.proofs.divergences.privacy_loss`, which the README documented.

Importing it warns (``DeprecationWarning``) and gives the same objects; import from
``dpaudit.proofs.divergences.privacy_loss`` instead.
"""

from __future__ import annotations

import warnings

from .divergences.privacy_loss import AccountantCheck, EpsilonBracket, check_accountant, exact_epsilon

__all__ = ["AccountantCheck", "EpsilonBracket", "check_accountant", "exact_epsilon"]

warnings.warn(
    "dpaudit.proofs.privacy_loss is deprecated: import check_accountant and exact_epsilon from "
    "dpaudit.proofs.divergences.privacy_loss",
    DeprecationWarning,
    stacklevel=2,
)
