"""The whole privacy curve: an empirical lower bound on delta(epsilon) from one set of samples.

:mod:`.empirical` (the :class:`EmpiricalCurve`, its simultaneous Clopper-Pearson bounds and the mu and
rho bounds derived from it), :mod:`.stage` (the audit's curve stage: the events fixed on a pilot,
counted on fresh samples), :mod:`.claims` (zCDP, Renyi, Gaussian-DP and privacy-curve claims decided
on the curve).
"""

from .empirical import EmpiricalCurve

__all__ = ["EmpiricalCurve"]
