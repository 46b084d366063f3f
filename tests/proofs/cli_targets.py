"""Mechanisms the CLI tests load as ``tests.proofs.cli_targets:NAME``."""

from __future__ import annotations

from dpaudit.claims import PureDP
from dpaudit.mechanisms.base import Mechanism
from dpaudit.neighbours import QueryDistance
from tests.proofs import density_builders as D


def _floor():
    import sympy

    from dpaudit.mechanisms.density import SymbolicDensity

    y, q, eps = D.symbols("y", "q", "epsilon")
    # A staircase-like density written with floor(): infinitely many breakpoints, decided by pairing
    # floor(|z|) with floor(|z - w|) (dpaudit.proofs.inequalities.floor_terms).
    expr = sympy.exp(-eps * sympy.floor(sympy.Abs(y - q))) * (1 - sympy.exp(-eps)) / 2
    return SymbolicDensity(expr=expr, outputs=(y,), inputs=(q,), epsilon=eps, sensitivity=1, instance={eps: 1})


def _broken():
    raise ValueError("malformed expression")


gaussian_pure = D.as_mechanism("gaussian-pure", lambda: D.gaussian(claim_delta=False))
floor_density = D.as_mechanism("floor-density", _floor)
no_density = Mechanism(name="no-density", claim=PureDP(1.0), neighbours=QueryDistance(1.0), sampler=D._never)
broken_density = Mechanism(name="broken", claim=PureDP(1.0), neighbours=QueryDistance(1.0), sampler=D._never, density=_broken)
