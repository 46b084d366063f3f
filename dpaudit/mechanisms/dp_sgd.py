"""Deprecated name of :mod:`dpaudit.mechanisms.catalogue.dp_sgd`, where DP-SGD lives with the rest of the catalogue.

``from dpaudit.mechanisms.dp_sgd import train`` (the path earlier READMEs showed) keeps working and warns
with a DeprecationWarning.  The name is bound to the catalogue module itself, so every function and
class it gives is the very object the new path gives.
"""

from __future__ import annotations

import sys
import warnings

from .catalogue import dp_sgd

warnings.warn(
    "dpaudit.mechanisms.dp_sgd is deprecated: import from dpaudit.mechanisms.catalogue.dp_sgd",
    DeprecationWarning,
    stacklevel=2,
)
sys.modules[__name__] = dp_sgd
