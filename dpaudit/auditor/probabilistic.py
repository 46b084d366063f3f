"""Refuting a probabilistic-DP claim on discrete outputs by certifying a bad set of atoms.

Definition (Meiser, "Approximate and probabilistic differential privacy definitions", IACR ePrint
2018/277, Def. 2, in its form for discrete outputs): M is (epsilon, delta)-probabilistically DP when,
for every *ordered* neighbouring pair (a, b), the bad set

    B_eps(a, b) = {o : P[M(a) = o] > e^epsilon P[M(b) = o]}

has mass P[M(a) in B_eps] <= delta.  It implies approximate (epsilon, delta)-DP (Meiser 2018,
Lemma 1) but not conversely, and it is not closed under post-processing, so an audit through
approximate DP alone cannot see its failures (``meiser-k-merged``: one atom of mass 0.73 with loss
1.0137 > epsilon = 1, while the hockey-stick divergence stays at delta).

The test, for outputs taking finitely many values (atoms: whole output rows):

1. *Selection* (search samples, :func:`choose_bad_set`): for each direction, the atoms whose
   estimated ratio exceeds e^epsilon are ordered by the p-value their counts would give at the
   verification size, and the prefix S that is most likely to pass both tests below is kept.
2. *Certification* (fresh samples, :func:`certify`): with Poissonised sample sizes N_a, N_b ~
   Poisson(n), the atom counts k_a(o), k_b(o) are independent Poisson(n p_a(o)), Poisson(n p_b(o)),
   so given T_o = k_a(o) + k_b(o), k_a(o) ~ Bin(T_o, pi_o) with pi_o = p_a(o) / (p_a(o) + p_b(o))
   exactly (Przyborowski & Wilenski 1940).  The one-sided Clopper-Pearson lower bound on pi_o at level
   1 - alpha_1 / |S| gives a lower bound L_o on ln(p_a(o) / p_b(o)); by Bonferroni all |S| of them hold
   at once with probability >= 1 - alpha_1.  Given N_a, k_a(S) ~ Bin(N_a, P_a(S)), and its
   Clopper-Pearson lower bound at level 1 - alpha_2 holds with probability >= 1 - alpha_2.

Guarantee.  If min_o L_o > epsilon and the lower bound on P_a(S) exceeds delta, then S is inside
B_eps and P[M(a) in B_eps] >= P_a(S) > delta: the claim is refuted, wrongly with probability at most
alpha_1 + alpha_2 (union bound), whatever the mechanism and however S was chosen (the selection
uses other samples).  More: for every epsilon' < L = min_o L_o the same S lies in B_eps', so L is a
lower confidence bound on the smallest epsilon' for which (epsilon', delta)-P-DP can hold, and the
certified P_a(S) one on the mass of the bad set at epsilon.  (Holm's step-down would reject with
slightly less evidence, but gives no simultaneous bound L; Bonferroni gives both.)

Two levels.  The counts are certified twice: with the estimate's alphas (the reported L and mass
bound, at the audit's ``confidence``) and with the verdict's (``verdict_confidence``, stricter); the
claim is refuted -- ``refuted``, which sets the audit's verdict -- only at the verdict's level.  The
set S is chosen for the verdict's alphas (the decision is what the selection must serve).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._codec import to_json
from . import bounds
from .events.sets import RowSet, row_keys
from .records import BadSetFinding
from .run.sampling import generator

__all__ = ["BadSet", "Certified", "MAX_ATOMS", "bad_set_test", "certify", "choose_bad_set", "probabilistic_test",
           "select_bad_set"]

MAX_ATOMS = 1024


@dataclass(frozen=True)
class BadSet:
    """Atoms S (whole output rows) believed to lie in the bad set of the ordered pair (a, b)."""

    pair: tuple[Any, Any]
    atoms: tuple[tuple[float, ...], ...]
    predicted_score: float

    @property
    def event(self) -> RowSet:
        return RowSet(self.atoms)


@dataclass(frozen=True)
class Certified:
    """What the fresh samples certify about a :class:`BadSet` (counts oriented as in ``bad.pair``).

    ``atom_bounds``, ``epsilon_lower_bound`` and ``mass_lower_bound`` hold at the estimate's
    ``alphas``; the ``verdict_`` bounds at ``verdict_alphas``, where ``refuted`` is decided.
    """

    bad: BadSet
    hits_a: tuple[int, ...]
    hits_b: tuple[int, ...]
    sizes: tuple[int, int]
    atom_bounds: tuple[float, ...]
    epsilon_lower_bound: float
    mass_lower_bound: float
    refuted: bool
    alphas: tuple[float, float]
    verdict_epsilon_lower_bound: float
    verdict_mass_lower_bound: float
    verdict_alphas: tuple[float, float]
    estimate_refutes: bool  # the estimate's bounds alone would refute: "not significant" when not ``refuted``

    def finding(self, claim: Any, confidence: float, verdict_confidence: float | None = None) -> BadSetFinding:
        """The result's finding: the check, the event, the counts and why it refutes."""
        verdict_confidence = confidence if verdict_confidence is None else verdict_confidence

        return BadSetFinding.from_dict(to_json({
            "check": "probabilistic-dp",
            "verdict": "violation" if self.refuted else "consistent",
            "event": self.bad.event.describe(),
            "event_spec": self.bad.event.as_dict(),
            "pair": list(self.bad.pair),
            "hits": [sum(self.hits_a), sum(self.hits_b)],
            "atom_hits": [list(self.hits_a), list(self.hits_b)],
            "sample_sizes": list(self.sizes),
            "atom_epsilon_lower_bounds": list(self.atom_bounds),
            "epsilon_lower_bound": self.epsilon_lower_bound,
            "mass_lower_bound": self.mass_lower_bound,
            "confidence": confidence,
            "verdict_epsilon_lower_bound": self.verdict_epsilon_lower_bound,
            "verdict_mass_lower_bound": self.verdict_mass_lower_bound,
            "verdict_confidence": verdict_confidence,
            "reason": (
                f"every one of the {len(self.atom_bounds)} output(s) of {self.bad.event.describe()} has privacy loss "
                f">= {self.verdict_epsilon_lower_bound:.4g} > claimed epsilon {claim.epsilon:g}, and together they "
                f"have mass >= {self.verdict_mass_lower_bound:.4g} > claimed delta {claim.delta:g} under "
                f"{to_json(self.bad.pair[0])!r}: the bad set exceeds delta, so probabilistic DP fails (Meiser 2018, "
                f"Def. 2), at the verdict's confidence {verdict_confidence:g} (estimates at {confidence:g}: loss >= "
                f"{self.epsilon_lower_bound:.4g}, mass >= {self.mass_lower_bound:.4g})"
                if self.refuted
                else f"not refuted at the verdict's confidence {verdict_confidence:g}: atom loss >= "
                     f"{self.verdict_epsilon_lower_bound:.4g}, mass >= {self.verdict_mass_lower_bound:.4g} (estimates "
                     f"at {confidence:g}: {self.epsilon_lower_bound:.4g}, {self.mass_lower_bound:.4g})"
            ),
        }))


def _atom_codes(rows_a: np.ndarray, rows_b: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[tuple[float, ...]]] | None:
    keys_a, keys_b = row_keys(rows_a), row_keys(rows_b)
    patterns, inverse = np.unique(np.r_[keys_a, keys_b], return_inverse=True)
    total = keys_a.size + keys_b.size
    if patterns.size > min(MAX_ATOMS, max(1, total // 8)):
        return None
    inverse = inverse.ravel()
    table = np.r_[rows_a, rows_b].astype(float) + 0.0
    first = np.unique(inverse, return_index=True)[1]
    atoms = [tuple(float(v) for v in table[i]) for i in first]
    return inverse[: keys_a.size], inverse[keys_a.size :], atoms


def _ratio_p_values(ka: np.ndarray, kb: np.ndarray, epsilon: float) -> np.ndarray:
    """Exact conditional p-values of H0: p_a <= e^eps p_b, P[Bin(k_a + k_b, pi0) >= k_a], pi0 = e^eps / (1 + e^eps)."""
    from scipy.stats import binom

    pi0 = 1.0 / (1.0 + math.exp(-epsilon))
    return np.where(ka > 0, binom.sf(ka - 1, ka + kb, pi0), 1.0)


def choose_bad_set(
    rows_a: np.ndarray,
    rows_b: np.ndarray,
    pair: tuple[Any, Any],
    n_verify: int,
    epsilon: float,
    delta: float,
    alphas: tuple[float, float],
) -> tuple[BadSet | None, str]:
    """The set S of atoms, and its direction, most likely to refute (epsilon, delta)-P-DP; None and why if none.

    Atoms are whole output rows seen on the search samples (at most ``MAX_ATOMS`` and one per 8
    samples, else the outputs count as continuous).  In each direction the atoms with k_a > e^eps k_b
    are sorted by the exact conditional p-value of their counts scaled to ``n_verify`` (the counts
    the verification expects); prefix j of that order would need j p_(j) <= alpha_1 (Bonferroni) and
    P[Bin(n_verify, delta) >= k_a(S)] <= alpha_2, so the prefix minimising the larger of the two
    ratios p / alpha is kept.  S is returned only when its estimated mass exceeds delta.
    """
    from scipy.stats import binom

    coded = _atom_codes(rows_a, rows_b)
    if coded is None:
        return None, "probabilistic-DP test skipped: the outputs take too many values to treat as atoms"
    codes_a, codes_b, atoms = coded
    size = len(atoms)
    counts = (np.bincount(codes_a, minlength=size).astype(float), np.bincount(codes_b, minlength=size).astype(float))
    n_search = (codes_a.size, codes_b.size)
    best: BadSet | None = None
    for forward in (True, False):
        ca, cb = counts if forward else counts[::-1]
        na, nb = n_search if forward else n_search[::-1]
        ordered_pair = pair if forward else (pair[1], pair[0])
        believed = np.flatnonzero(ca / na > math.exp(epsilon) * cb / nb)
        if believed.size == 0:
            continue
        ka = np.round(ca[believed] * n_verify / na)
        kb = np.round(cb[believed] * n_verify / nb)
        p_atoms = _ratio_p_values(ka, kb, epsilon)
        order = np.argsort(p_atoms, kind="stable")
        j = np.arange(1, order.size + 1)
        p_epsilon = np.minimum(1.0, j * p_atoms[order])
        mass = np.cumsum(ka[order])
        p_delta = binom.sf(mass - 1, n_verify, delta)
        score = np.maximum(p_epsilon / alphas[0], p_delta / alphas[1])
        top = int(np.argmin(score))
        chosen = believed[order[: top + 1]]
        if ca[chosen].sum() / na <= delta:
            continue
        candidate = BadSet(ordered_pair, tuple(atoms[c] for c in sorted(chosen)), float(score[top]))
        if best is None or candidate.predicted_score < best.predicted_score:
            best = candidate
    if best is None:
        return None, "probabilistic-DP test skipped: no set of outputs with loss > epsilon and mass > delta on the search samples"
    return best, ""


def certify(
    bad: BadSet,
    hits_a: list[int],
    hits_b: list[int],
    sizes: tuple[int, int],
    epsilon: float,
    delta: float,
    alphas: tuple[float, float],
    verdict_alphas: tuple[float, float] | None = None,
) -> Certified:
    """Certify S on fresh Poissonised counts: per-atom joint lower bounds at 1 - alpha_1/|S|, mass at 1 - alpha_2.

    ``hits_a[i]``, ``hits_b[i]`` are the counts of atom i of ``bad.atoms`` among the ``sizes`` fresh
    samples of ``bad.pair``, both sizes drawn Poisson with the same mean (the joint bound's scale
    ratio is 1).  The bounds are computed at ``alphas`` (the estimate) and at ``verdict_alphas``
    (default ``alphas``), where ``refuted`` is decided.  See the module docstring for the guarantee.
    """
    ka, kb = np.asarray(hits_a, dtype=float), np.asarray(hits_b, dtype=float)

    def at(split: tuple[float, float]) -> tuple[np.ndarray, float, float]:
        level = bounds.bonferroni_confidence(1.0 - split[0], len(bad.atoms))
        atom_bounds = bounds.joint_bound(ka, kb, level, 1.0)
        low = float(np.min(atom_bounds)) if atom_bounds.size else -math.inf
        return atom_bounds, low, float(bounds.cp_lower(int(ka.sum()), int(sizes[0]), 1.0 - split[1])[()])

    verdict_alphas = alphas if verdict_alphas is None else verdict_alphas
    atom_bounds, low, mass = at(alphas)
    _, verdict_low, verdict_mass = at(verdict_alphas)
    return Certified(
        bad=bad,
        hits_a=tuple(int(h) for h in hits_a),
        hits_b=tuple(int(h) for h in hits_b),
        sizes=(int(sizes[0]), int(sizes[1])),
        atom_bounds=tuple(float(v) for v in atom_bounds),
        epsilon_lower_bound=low,
        mass_lower_bound=mass,
        refuted=bool(verdict_low > epsilon and verdict_mass > delta),
        alphas=(float(alphas[0]), float(alphas[1])),
        verdict_epsilon_lower_bound=verdict_low,
        verdict_mass_lower_bound=verdict_mass,
        verdict_alphas=(float(verdict_alphas[0]), float(verdict_alphas[1])),
        estimate_refutes=bool(low > epsilon and mass > delta),
    )


def select_bad_set(draws: Any, pair: tuple[Any, Any], n_search: int, n_verify: int, claim: Any,
                   alphas: tuple[float, float]) -> tuple[BadSet | None, str]:
    """:func:`choose_bad_set` on ``n_search`` fresh search samples per side (spawn-tree addresses ``(3, 0, side)``)."""
    a, b = pair
    rows_a, rows_b = draws.rows_many([((3, 0, 0), a, n_search), ((3, 0, 1), b, n_search)])
    return choose_bad_set(rows_a, rows_b, pair, n_verify, float(claim.epsilon), float(claim.delta), alphas)


def probabilistic_test(draws: Any, bad: BadSet, n_verify: int, claim: Any, alphas: tuple[float, float],
                       verdict_alphas: tuple[float, float] | None = None) -> Certified:
    """:func:`certify` ``bad`` on Poisson(``n_verify``) fresh samples per side (addresses ``(3, 2)`` for the
    sizes, ``(3, 1, side)`` for the draws)."""
    a, b = bad.pair
    sizes = generator(draws.seed, (3, 2)).poisson(n_verify, size=2)
    atoms = [RowSet((atom,)) for atom in bad.atoms]
    hits_a, hits_b = draws.counts_many([((3, 1, 0), a, int(sizes[0])), ((3, 1, 1), b, int(sizes[1]))], atoms)
    return certify(bad, hits_a, hits_b, (int(sizes[0]), int(sizes[1])), float(claim.epsilon), float(claim.delta), alphas,
                   verdict_alphas)


def bad_set_test(draws: Any, pair: tuple[Any, Any], n_search: int, n_verify: int, claim: Any,
                 alphas: tuple[float, float], verdict_alphas: tuple[float, float]) -> tuple[Certified | None, str]:
    """Select a bad set on fresh search samples (for the verdict's alphas) and certify it, with ``alphas`` =
    (alpha_1, alpha_2) for the atoms' joint bounds and the mass bound (module docstring) and likewise
    ``verdict_alphas``: the share of alpha the audit's :class:`~dpaudit.auditor.confidence.ConfidencePlan`
    gives the test.

    Returns the certification (None when no candidate set was found: then no alpha is spent, and the
    approximate-DP verification keeps all of it) and a note saying why not.
    """
    bad, why = select_bad_set(draws, pair, n_search, n_verify, claim, verdict_alphas)
    if bad is None:
        return None, why
    return probabilistic_test(draws, bad, n_verify, claim, alphas, verdict_alphas), ""
