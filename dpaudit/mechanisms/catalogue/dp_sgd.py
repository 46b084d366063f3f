"""DP-SGD on a logistic-regression model in numpy, its claim from a privacy accountant.

DP-SGD (Abadi, Chu, Goodfellow, McMahan, Mironov, Talwar & Zhang, "Deep learning with differential
privacy", CCS 2016, Alg. 1), step t = 1..T on parameters w (w_0 = 0):

* Poisson subsampling: each record enters the batch B_t independently with probability q;
* per-example gradients g_i = (sigmoid(<w, x_i>) - y_i) x_i of the logistic loss, each clipped to
  norm C: g_i <- g_i min(1, C / ||g_i||);
* the noisy sum G_t = sum_{i in B_t} g_i + N(0, sigma^2 C^2 I), and the step w <- w - eta G_t.

Under add/remove neighbours one step is the Poisson-subsampled Gaussian mechanism: the pair of
distributions (1 - q) N(0, sigma^2) + q N(1, sigma^2) vs N(0, sigma^2) (in units of C) dominates
it (Mironov, Talwar & Zhang 2019, "Renyi differential privacy of the sampled Gaussian mechanism";
Zhu, Dong & Wang 2022, "Optimal accounting of differential privacy via characteristic function").
The claim (epsilon, delta) is epsilon(delta) of T such steps: exact where a closed form exists
(q = 1, or T = 1; :func:`claimed_epsilon`), else the privacy-loss-distribution accountant's
(Google's ``dp_accounting``, ``PLDAccountant``: Koskela, Jalko & Honkela 2020; Doroshenko, Ghazi,
Kamath, Kumar & Manurangsi 2022, "Connect the dots").  The closed forms need no scipy, so listing
the catalogue stays light; :mod:`dpaudit.proofs.divergences.privacy_loss` checks both against the exact
privacy loss distribution.  The Renyi accountant
(``RdpAccountant``, Mironov et al. 2019) gives a second, looser opinion (:func:`accountant_epsilon`).

Records are tuples (x_1, ..., x_d, y) with y in {0, 1}.  The audit is the membership game on a
*canary* record (:class:`~dpaudit.neighbours.Canary`; Nasr, Hayes, Steinke, Balle, Tramer, Jagielski,
Carlini & Terzis, "Tight auditing of differentially private machine learning", USENIX Security
2023, Sect. 3):

* ``threat="white-box"`` -- the adversary chooses the canary's gradient (a "gradient canary",
  here -C u with u the unit vector of the canary's features, a Dirac canary along the last
  feature by default; ``canary_norm`` makes it longer) and observes every noisy
  update; the output is the T projections <G_t, u>.  A projection is a post-processing of what the
  adversary sees, so a lower bound on the projections' epsilon is a lower bound on DP-SGD's.
* ``threat="black-box"`` -- the canary is an ordinary example whose gradient the loss decides;
  the output is the final parameters w_T only.

Outputs are released on a 2^-16 grid of the noise scale (:mod:`dpaudit.mechanisms._grid`).

Each entry declares the :class:`~dpaudit.mechanisms.structure.GaussianSteps` its loop runs
(:func:`gaussian_steps`: read off the configuration, not the claim), from which
:mod:`dpaudit.proofs.structures.gaussian_steps` proves or refutes the claim.

The default dataset has zero last features, so its gradients are orthogonal to u: the white-box
projections at q = 1 are then exactly a Gaussian mechanism with shift C per step, the worst case
of the accountant's analysis, which an audit can approach.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

import numpy as np

from ..._validation import (
    check_one_of,
    check_positive_finite,
    check_positive_int,
    check_unit_interval,
)
from ...claims import ApproxDP
from ...errors import InvalidArgument, InvalidDataset
from ...neighbours import Canary
from .._grid import grid_for, snap_to_grid
from ..base import Mechanism, StepwiseRelease
from ..registry import register
from ..structure import GaussianSteps

__all__ = [
    "ACCOUNTANTS",
    "THREATS",
    "TrainingConfig",
    "accountant_epsilon",
    "claimed_epsilon",
    "gaussian_epsilon",
    "gaussian_steps",
    "projection_law",
    "subsampled_gaussian_delta",
    "subsampled_gaussian_epsilon",
    "train",
]

ACCOUNTANTS = ("pld", "rdp")
THREATS = ("white-box", "black-box")
SAMPLINGS = ("poisson", "fixed")

DATASET: tuple[tuple[float, ...], ...] = ((1.0, 0.0, 0.0, 1.0), (0.0, 1.0, 0.0, 0.0), (1.0, 1.0, 0.0, 1.0), (-1.0, 0.5, 0.0, 0.0))
"""Four examples (x_1, x_2, x_3, y) with x_3 = 0: orthogonal to the canary direction e_3."""
CANARY: tuple[float, ...] = (0.0, 0.0, 4.0, 1.0)
"""The canary example (0, 0, 4) with label 1: its loss gradient (sigmoid(4 w_3) - 1) 4 e_3 has norm 2 at w = 0."""


@cache
def accountant_epsilon(sigma: float, q: float, steps: int, delta: float, accountant: str = "pld") -> float:
    """epsilon(delta) of T Poisson-subsampled Gaussian steps (noise multiplier sigma, rate q), add/remove.

    ``accountant="pld"``: ``dp_accounting.pld.PLDAccountant`` (pessimistic discretisation, interval
    1e-4: an upper bound on the exact epsilon); ``"rdp"``: ``dp_accounting.rdp.RdpAccountant``
    (Mironov, Talwar & Zhang 2019, integer orders 2..256, with the conversion of Canonne, Kamath &
    Steinke 2020).
    """
    check_one_of("accountant", accountant, ACCOUNTANTS)
    import dp_accounting
    from dp_accounting import pld, rdp

    event = dp_accounting.SelfComposedDpEvent(
        dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma)), steps
    )
    counter = pld.PLDAccountant() if accountant == "pld" else rdp.RdpAccountant(orders=list(range(2, 257)))
    counter.compose(event)
    return float(counter.get_epsilon(delta))


def _log_ndtr(x: float) -> float:
    """ln Phi(x) in plain floats (math.erfc; the asymptotic series below -20), so the catalogue loads without scipy."""
    if x > -20.0:
        return math.log(0.5 * math.erfc(-x / math.sqrt(2.0)))
    return -x * x / 2.0 - math.log(-x) - 0.5 * math.log(2.0 * math.pi) + math.log1p(-1.0 / (x * x) + 3.0 / x**4)


def _root(decreasing: Callable[[float], float]) -> float:
    """The epsilon >= 0 where a decreasing function of epsilon crosses 0 (0 if it starts below), by bisection to 1e-12."""
    if decreasing(0.0) <= 0:
        return 0.0
    low, high = 0.0, 1.0
    while decreasing(high) > 0:
        low, high = high, 2.0 * high
    while high - low > 1e-12 * max(1.0, high):
        middle = (low + high) / 2.0
        low, high = (middle, high) if decreasing(middle) > 0 else (low, middle)
    return high


def gaussian_epsilon(mu: float, delta: float) -> float:
    """The exact epsilon(delta) of mu-GDP, the Gaussian mechanism with shift/noise ratio mu.

    delta(epsilon) = Phi(mu/2 - epsilon/mu) - e^epsilon Phi(-mu/2 - epsilon/mu) (Balle & Wang 2018,
    Thm. 8; Dong, Roth & Su 2022, Cor. 2.13) decreases in epsilon; the root is found by bisection
    and rounded up.  T Gaussian steps of noise multipliers sigma_t compose to
    mu = sqrt(sum_t 1/sigma_t^2) (Dong et al. 2022, Cor. 3.3).
    """

    def excess(epsilon: float) -> float:
        return math.exp(_log_ndtr(mu / 2 - epsilon / mu)) - math.exp(epsilon + _log_ndtr(-mu / 2 - epsilon / mu)) - delta

    return _root(excess)


def subsampled_gaussian_delta(epsilon: float, sigma: float, q: float, shift: float = 1.0) -> float:
    """delta(epsilon) of one Poisson-subsampled Gaussian step, exactly, under add/remove.

    The pair P = (1 - q) N(0, sigma^2) + q N(s, sigma^2), Q = N(0, sigma^2) (s = ``shift``, in units
    of C).  Its privacy loss L(x) = ln((1 - q) + q exp((2 s x - s^2) / (2 sigma^2))) increases in x,
    so the optimal sets are half-lines (Neyman-Pearson) and, with x* = sigma^2/s ln((e^eps - 1 + q)/q)
    + s/2 and x_* = sigma^2/s ln((e^-eps - 1 + q)/q) + s/2,

        delta_PQ = P(X > x*) - e^eps Q(X > x*),  delta_QP = Q(X < x_*) - e^eps P(X < x_*)

    (delta_QP = 0 when e^-eps <= 1 - q); delta = max of the two (both neighbouring orders, Zhu,
    Dong & Wang 2022, Sect. 5; Mironov, Talwar & Zhang 2019, Sect. 3).
    """
    log_ndtr = _log_ndtr

    def log_tail(x: float, low: bool) -> float:  # ln P(X > x) (low=False) or ln P(X < x) under P
        sign = 1.0 if low else -1.0
        a = math.log1p(-q) + log_ndtr(sign * x / sigma) if q < 1 else -math.inf
        b = math.log(q) + log_ndtr(sign * (x - shift) / sigma)
        return float(np.logaddexp(a, b))

    upper = sigma**2 / shift * math.log((math.exp(epsilon) - 1.0 + q) / q) + shift / 2.0
    delta_pq = math.exp(log_tail(upper, False)) - math.exp(epsilon + log_ndtr(-upper / sigma))
    inner = math.exp(-epsilon) - 1.0 + q
    delta_qp = 0.0
    if inner > 0:
        lower = sigma**2 / shift * math.log(inner / q) + shift / 2.0
        delta_qp = math.exp(log_ndtr(lower / sigma)) - math.exp(epsilon + log_tail(lower, True))
    return max(delta_pq, delta_qp, 0.0)


def subsampled_gaussian_epsilon(sigma: float, q: float, delta: float, shift: float = 1.0) -> float:
    """The exact epsilon(delta) of one Poisson-subsampled Gaussian step: the root of :func:`subsampled_gaussian_delta`."""
    return _root(lambda epsilon: subsampled_gaussian_delta(epsilon, sigma, q, shift) - delta)


def claimed_epsilon(noise_multipliers: tuple[float, ...], q: float, delta: float) -> tuple[float, str]:
    """epsilon(delta) of the Poisson-subsampled Gaussian steps and how it was computed.

    Where a closed form is exact it is used -- q = 1: Gaussian composition, mu = sqrt(sum 1/sigma_t^2)
    (:func:`gaussian_epsilon`); one step: :func:`subsampled_gaussian_epsilon` -- and the PLD
    accountant agrees with it to 1e-6 (tested); otherwise the PLD accountant
    (:func:`accountant_epsilon`, equal noise multipliers only).
    """
    if q == 1:
        return gaussian_epsilon(math.sqrt(sum(1.0 / s**2 for s in noise_multipliers)), delta), "exact Gaussian composition"
    if len(noise_multipliers) == 1:
        return subsampled_gaussian_epsilon(noise_multipliers[0], q, delta), "exact subsampled Gaussian"
    if len(set(noise_multipliers)) != 1:
        raise InvalidArgument(f"noise_multipliers={noise_multipliers!r} must be equal for the PLD accountant at q={q!r} < 1")
    return accountant_epsilon(noise_multipliers[0], q, len(noise_multipliers), delta), "PLD accountant (dp_accounting)"


@dataclass(frozen=True)
class TrainingConfig:
    """DP-SGD's hyper-parameters and the implementation choices the flawed twins get wrong.

    ``noise_multipliers`` holds sigma_t for each step; ``noise_divisor`` divides the noise (1 in
    DP-SGD); ``clip_each_example`` clips per example (DP-SGD) or only the batch sum;
    ``sampling`` is ``"poisson"`` (rate q) or ``"fixed"`` (each step a uniformly random batch of
    ``batch_size`` records drawn without replacement); ``canary_norm`` is the norm of the white-box
    gradient canary (the adversary's choice; per-example clipping cuts it to C).
    """

    noise_multipliers: tuple[float, ...]
    q: float = 1.0
    clip: float = 1.0
    learning_rate: float = 0.1
    threat: str = "white-box"
    canary: tuple[float, ...] = CANARY
    sampling: str = "poisson"
    clip_each_example: bool = True
    noise_divisor: float = 1.0
    batch_size: int = 1
    canary_norm: float | None = None

    def __post_init__(self) -> None:
        if not self.noise_multipliers:
            raise InvalidArgument("noise_multipliers=() must give one noise multiplier per step")
        for sigma in self.noise_multipliers:
            check_positive_finite("sigma", sigma)
        check_unit_interval("q", self.q, low_open=True, high_open=False)
        check_positive_finite("clip", self.clip)
        check_positive_finite("learning_rate", self.learning_rate)
        check_one_of("threat", self.threat, THREATS)
        check_one_of("sampling", self.sampling, SAMPLINGS)
        check_positive_finite("noise_divisor", self.noise_divisor)
        check_positive_int("batch_size", self.batch_size)
        if self.canary_norm is not None:
            check_positive_finite("canary_norm", self.canary_norm)

    @property
    def steps(self) -> int:
        return len(self.noise_multipliers)

    @property
    def direction(self) -> np.ndarray:
        """u: the unit vector of the canary's features (its gradient's direction at w = 0, up to sign)."""
        features = np.asarray(self.canary[:-1], dtype=float)
        norm = np.linalg.norm(features)
        if norm == 0:
            raise InvalidArgument(f"canary={self.canary!r} must have a non-zero feature vector")
        return features / norm

    @property
    def canary_gradient(self) -> np.ndarray:
        """The white-box gradient canary: -c u (c = ``canary_norm``, default C), the sign of a label-1 canary's loss gradient."""
        norm = self.clip if self.canary_norm is None else self.canary_norm
        return -norm * self.direction if self.canary[-1] == 1 else norm * self.direction


def _examples(data: Any, width: int) -> tuple[np.ndarray, np.ndarray]:
    try:
        table = np.asarray(data, dtype=float).reshape(-1, width)
    except (TypeError, ValueError):
        raise InvalidDataset(f"data={data!r} must be a sequence of records (x_1, ..., x_d, y) of length {width}") from None
    if len(table) and not np.isin(table[:, -1], (0.0, 1.0)).all():
        raise InvalidDataset(f"data={data!r}: every record's label (its last entry) must be 0 or 1")
    return table[:, :-1], table[:, -1]


def _batches(config: TrainingConfig, n: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """The (n, m) 0/1 matrix of batch membership: Poisson(q), or ``batch_size`` records without replacement."""
    if config.sampling == "poisson":
        return (rng.random((n, m)) < config.q).astype(float) if config.q < 1 else np.ones((n, m))
    ranks = rng.random((n, m)).argsort(axis=1).argsort(axis=1)  # a uniform permutation per run
    return (ranks < config.batch_size).astype(float)


def _clipped_sum(
    config: TrainingConfig, w: np.ndarray, x: np.ndarray, y: np.ndarray, is_canary: np.ndarray, batch: np.ndarray
) -> np.ndarray:
    """(n, d) batch sums of the clipped gradients at parameters w (n, d) for batch memberships (n, m)."""
    residual = 1.0 / (1.0 + np.exp(-(w @ x.T))) - y  # (n, m): sigmoid(<w, x_i>) - y_i
    gradients = residual[:, :, None] * x[None, :, :]
    if config.threat == "white-box":
        gradients[:, is_canary, :] = config.canary_gradient
    if config.clip_each_example:
        norms = np.linalg.norm(gradients, axis=2, keepdims=True)
        gradients = gradients * np.minimum(1.0, config.clip / np.maximum(norms, 1e-300))
    total = np.einsum("nm,nmd->nd", batch, gradients)
    if not config.clip_each_example:
        norm = np.linalg.norm(total, axis=1, keepdims=True)
        total = total * np.minimum(1.0, config.clip / np.maximum(norm, 1e-300))
    return total


def _batch_law(config: TrainingConfig, m: int) -> tuple[np.ndarray, list[Fraction]]:
    """Every batch the sampler can draw from m records, as an (k, m) 0/1 matrix, and its exact probability."""
    rows = np.array(list(itertools.product((0.0, 1.0), repeat=m))).reshape(-1, m)
    sizes = rows.sum(axis=1).astype(int)
    q, size = Fraction(config.q), min(config.batch_size, m)  # exact rationals (q: the double's exact value)
    if config.sampling == "poisson":
        exact = [q**k * (1 - q) ** (m - k) for k in sizes.tolist()]
    else:
        exact = [Fraction(1, math.comb(m, size)) if k == size else Fraction(0) for k in sizes.tolist()]
    keep = [k for k, w in enumerate(exact) if w > 0]
    return rows[keep], [exact[k] for k in keep]


MAX_EXACT_RECORDS = 12
"""Datasets up to this size have their batch law enumerated (2^m batches) for the exact projection law."""


def projection_law(config: TrainingConfig, data: Any) -> tuple[tuple[float, float], ...] | None:
    """The law of one step's noiseless canary projection <S_t, u> / C at w = 0, as (probability, value) pairs.

    Enumerates every batch the sampler draws (:func:`_batch_law`) and evaluates the loop's own
    clipped sum (:func:`_clipped_sum`) on it; None when the dataset has more than
    :data:`MAX_EXACT_RECORDS` records.
    """
    width = len(config.canary)
    table = np.asarray(data, dtype=float).reshape(-1, width)
    if len(table) > MAX_EXACT_RECORDS:
        return None
    x, y = _examples(table, width)
    is_canary = (table == np.asarray(config.canary)).all(axis=1)
    batches, weights = _batch_law(config, len(table))
    totals = _clipped_sum(config, np.zeros((len(batches), x.shape[1])), x, y, is_canary, batches)
    values = np.round(totals @ config.direction / config.clip, 12)
    law: dict[float, Fraction] = {}
    for value, weight in zip(values.tolist(), weights):
        law[value] = law.get(value, Fraction(0)) + weight
    return tuple((float(p), v) for v, p in sorted(law.items()))  # each probability rounded once to a double


def gaussian_steps(config: TrainingConfig, data: Any) -> GaussianSteps:
    """The :class:`~dpaudit.mechanisms.structure.GaussianSteps` that :func:`train` runs with ``config`` on ``data``.

    Read off the configuration, not the claim: the sensitivity from where the loop clips and how it
    samples, the canary's inclusion probability from the sampler, and the exact projection law from
    the loop's gradient code when it is the same at every step -- one step (w = 0), or per-example
    clipping with every other record orthogonal to the canary direction u (their clipped gradients
    then have projection 0 whatever w is, and the canary's white-box gradient is fixed).
    """
    records = len(np.asarray(data, dtype=float).reshape(-1, len(config.canary)))
    if not config.clip_each_example:
        sensitivity, reason = 2.0, "the batch sum is clipped to norm C, so two clipped sums differ by at most 2C"
    elif config.sampling == "fixed":
        sensitivity, reason = 2.0, ("a fixed-size batch that takes the canary drops another record: two clipped "
                                    "gradients of norm <= C change, at most 2C")
    else:
        sensitivity, reason = 1.0, "per-example clipping: the canary adds one gradient of norm <= C to the sum"
    q = config.q if config.sampling == "poisson" else min(1.0, config.batch_size / (records + 1))
    features = np.asarray(data, dtype=float).reshape(-1, len(config.canary))[:, :-1]
    orthogonal = bool(np.all(np.abs(features @ config.direction) == 0.0))
    projections = None
    if config.threat != "white-box":
        why = "the black-box release is the final parameters, not the canary projections"
    elif config.steps > 1 and not (config.clip_each_example and orthogonal):
        why = "after the first step the other records' clipped gradients depend on w, so the projections' law moves"
    else:
        laws = (projection_law(config, data), projection_law(config, tuple(data) + (config.canary,)))
        if laws[0] is None or laws[1] is None:
            why = f"more than {MAX_EXACT_RECORDS} records: the batch law is not enumerated"
        else:
            projections = laws
            why = ("one step from w = 0" if config.steps == 1 else
                   "per-example clipping and every other record orthogonal to u: each step's projection law is the same")
            why += "; enumerated over every batch the sampler draws, through the loop's own clipped sum"
    step, bound = grid_for(min(config.noise_multipliers) * config.clip / config.noise_divisor)
    if config.threat != "white-box":
        step, bound = 0.0, math.inf
    return GaussianSteps(
        noise_multipliers=config.noise_multipliers,
        noise_divisor=config.noise_divisor,
        sampling=config.sampling,
        q=q,
        sensitivity=sensitivity,
        sensitivity_reason=reason,
        pair=(tuple(data), tuple(data) + (config.canary,)),
        projections=projections,
        projection_reason=why,
        grid=step,
        clamp=bound,
        clip=config.clip,
    )


def train(config: TrainingConfig, data: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """n independent DP-SGD runs on ``data``: (n, T) canary projections (white-box) or (n, d) final parameters.

    Outputs are released on the power-of-two grid of :mod:`dpaudit.mechanisms._grid` for the noise's
    scale (post-processing: no floating-point lattice reveals the input, Mironov 2012).
    """
    width = len(config.canary)
    x, y = _examples(data, width)
    m, d = x.shape
    is_canary = (np.asarray(data, dtype=float).reshape(-1, width) == np.asarray(config.canary)).all(axis=1)
    u = config.direction
    w = np.zeros((n, d))
    projections = np.empty((n, config.steps))
    for step, sigma in enumerate(config.noise_multipliers):
        batch = _batches(config, n, m, rng)
        total = _clipped_sum(config, w, x, y, is_canary, batch)
        noisy = total + rng.normal(0.0, sigma * config.clip / config.noise_divisor, size=(n, d))
        projections[:, step] = noisy @ u
        w = w - config.learning_rate * noisy
    scale = min(config.noise_multipliers) * config.clip / config.noise_divisor
    if config.threat == "white-box":
        return snap_to_grid(projections, scale)
    return snap_to_grid(w, config.learning_rate * scale)


def dp_sgd_mechanism(
    name: str,
    config: TrainingConfig,
    claim_sigma: float,
    delta: float,
    *,
    data: tuple = DATASET,
    **fields: Any,
) -> Mechanism:
    """The Mechanism running :func:`train` with ``config``, claiming the PLD accountant's epsilon for sigma = claim_sigma."""
    epsilon, how = claimed_epsilon((claim_sigma,) * config.steps, config.q, delta)
    canary = Canary(config.canary)

    def sample(dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
        return train(config, dataset, n, rng)

    if config.threat == "white-box" and config.steps >= 2:
        fields.setdefault("stepwise", StepwiseRelease(
            config.steps,
            lambda t, at_delta: claimed_epsilon((claim_sigma,) * t, config.q, at_delta)[0],
            how,
        ))
    fields.setdefault(
        "description",
        f"DP-SGD, logistic model, {config.threat}: sigma={claim_sigma:g}, q={config.q:g}, T={config.steps}, "
        f"C={config.clip:g}; eps={epsilon:.4g} at delta={delta:g} ({how})",
    )
    return Mechanism(
        name=name,
        claim=ApproxDP(epsilon, delta),
        neighbours=canary,
        sampler=sample,
        family="dp-sgd",
        domain=data,
        pairs=((data, data + (config.canary,)), (data + (config.canary,), data)),
        float_sum=False,
        structure=gaussian_steps(config, data),
        **fields,
    )


def _config(sigma: float, q: float, steps: int, threat: str) -> TrainingConfig:
    sigma = check_positive_finite("sigma", sigma)
    steps = check_positive_int("steps", steps)
    return TrainingConfig(noise_multipliers=(sigma,) * steps, q=q, threat=threat)


@register("dp-sgd")
def dp_sgd(sigma: float = 1.0, q: float = 1.0, steps: int = 1, delta: float = 1e-5, threat: str = "white-box") -> Mechanism:
    """DP-SGD with a gradient canary, claim from the PLD accountant (sigma=1, q=1, T=1: eps 4.38 at 1e-5)."""
    delta = check_unit_interval("delta", delta, low_open=True)
    config = _config(sigma, q, steps, threat)
    true = claimed_epsilon(config.noise_multipliers, q, delta)[0] if (q == 1 or steps == 1) and threat == "white-box" else None
    return dp_sgd_mechanism(
        "dp-sgd",
        config,
        sigma,
        delta,
        true_epsilon=true,
        source="Abadi et al. 2016 (CCS), Alg. 1; canary audit of Nasr et al. 2023 (USENIX Security)",
    )
