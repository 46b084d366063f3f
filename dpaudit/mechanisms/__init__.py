"""The Mechanism model: what runs, what is declared (a density, a program or a structure), and the registry.

The public face of the framework, for users and for the shells (CLI, plugin, reports), which import
from here and never from its modules.  The catalogue's entries live apart, in :mod:`.catalogue` (the
framework never imports them: :func:`get` and :func:`names` load them by name); the registry's
``catalogue()`` is read as :func:`dpaudit.catalogue`, since ``dpaudit.mechanisms.catalogue`` is that
subpackage.

Importing this package loads nothing: each name is read from its module when used (PEP 562), so
``dpaudit.catalogue()`` still costs no sympy.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

# public name -> the module of this package that defines it
_PUBLIC = {
    **dict.fromkeys(("RANDOMNESS", "Mechanism", "StepwiseRelease"), "dpaudit.mechanisms.base"),
    **dict.fromkeys(("SymbolicDensity",), "dpaudit.mechanisms.density"),
    **dict.fromkeys(("Noise", "NoisyMaxProgram", "ThresholdProgram", "noisy_max_program", "threshold_program"),
                    "dpaudit.mechanisms.programs"),
    **dict.fromkeys(("AdmissibleNoise", "GaussianSteps", "Part", "SequentialComposition", "WishartNoise"),
                    "dpaudit.mechanisms.structure"),
    **dict.fromkeys(("get", "names", "register"), "dpaudit.mechanisms.registry"),
}

__all__ = ["RANDOMNESS", "AdmissibleNoise", "GaussianSteps", "Mechanism", "Noise", "NoisyMaxProgram", "Part",
           "SequentialComposition", "StepwiseRelease", "SymbolicDensity", "ThresholdProgram", "WishartNoise", "get",
           "names", "noisy_max_program", "register", "threshold_program"]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs only
    from .base import RANDOMNESS, Mechanism, StepwiseRelease
    from .density import SymbolicDensity
    from .programs import (
        Noise,
        NoisyMaxProgram,
        ThresholdProgram,
        noisy_max_program,
        threshold_program,
    )
    from .registry import get, names, register
    from .structure import (
        AdmissibleNoise,
        GaussianSteps,
        Part,
        SequentialComposition,
        WishartNoise,
    )


def __getattr__(name: str) -> Any:
    if name in _PUBLIC:  # read from its module on every use, not kept here: a test may replace it there
        return getattr(import_module(_PUBLIC[name]), name)
    raise AttributeError(f"module 'dpaudit.mechanisms' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_PUBLIC))
