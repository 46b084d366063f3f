"""DP-SGD implementation slips: the right accountant's claim over a training loop that breaks it.

Each twin runs :func:`dpaudit.mechanisms.catalogue.dp_sgd.train` with one implementation choice wrong and
claims what the PLD accountant gives for the loop it was meant to be (white-box gradient canary,
delta = 1e-5; epsilons in units where the clip norm C = 1).  True epsilons are exact for the pair
given, from :func:`~dpaudit.mechanisms.catalogue.dp_sgd.gaussian_epsilon` (Gaussian composition) and
:func:`~dpaudit.mechanisms.catalogue.dp_sgd.subsampled_gaussian_epsilon` (one subsampled step).

``dp-sgd-fixed-batch`` -- batches of B = 2 records drawn without replacement while the accountant
    assumes Poisson sampling at q = B/N = 1/2 (N = 4).  Under add/remove a fixed-size batch that
    takes the canary drops another record: with the other records' gradients at +C u and the
    canary's at -C u the batch sum moves by 2C with probability B/(N + 1) = 2/5, a subsampled
    Gaussian of sensitivity 2C (Lebeda, Regehr, Kamath & Steinke 2024, "Avoiding pitfalls for
    privacy accounting of subsampled mechanisms under composition").  sigma = 2, T = 1: claim 1.35,
    true epsilon 3.27.
``dp-sgd-clip-after-sum`` -- clips the batch's summed gradient, not each example's.  The sum moves
    from +C u (four records of gradient 2u, clipped) to -C u (plus the adversary's canary of norm
    100): sensitivity 2C.  sigma = 2, q = 1, T = 1: claim 1.99, true epsilon 4.38 (mu = 2/sigma = 1).
``dp-sgd-noise-batch-mean`` -- noise sigma C / B with B = 4 the batch size, the scale that suits the
    batch *mean*, added to the sum.  sigma = 4, q = 1, T = 1: claim 0.93, true epsilon 4.38
    (mu = B/sigma = 1).
``dp-sgd-last-step-no-multiplier`` -- the last of T = 4 steps adds noise C instead of sigma C (the
    noise multiplier left out).  sigma = 4, q = 1: claim 1.99, true epsilon 4.84
    (mu = sqrt(3/sigma^2 + 1)).
"""

from __future__ import annotations

import math

from ...base import Mechanism
from ...registry import register
from ..dp_sgd import (
    DATASET,
    TrainingConfig,
    dp_sgd_mechanism,
    gaussian_epsilon,
    subsampled_gaussian_epsilon,
)

__all__: list[str] = []

DELTA = 1e-5
ANTI_ALIGNED = ((0.0, 0.0, 4.0, 0.0),) * 4
"""Four records (0, 0, 4) with label 0: loss gradient sigmoid(4 w_3) 4 e_3 = 2 e_3 at w = 0, opposite the canary's."""
SOURCE = "Abadi et al. 2016 (CCS), Alg. 1, implemented wrongly; cf. Chua et al. 2024 (ICML), Lebeda et al. 2024"


@register("dp-sgd-fixed-batch")
def dp_sgd_fixed_batch(sigma: float = 2.0) -> Mechanism:
    """Fixed-size batches (B = 2 of N = 4) without replacement under a Poisson accountant at q = 1/2."""
    config = TrainingConfig(noise_multipliers=(sigma,), q=0.5, sampling="fixed", batch_size=2)
    return dp_sgd_mechanism(
        "dp-sgd-fixed-batch",
        config,
        sigma,
        DELTA,
        data=ANTI_ALIGNED,
        flaw="samples fixed-size batches without replacement but accounts for Poisson sampling: under add/remove "
        "the canary displaces another record, sensitivity 2C",
        true_epsilon=subsampled_gaussian_epsilon(sigma, 2 / 5, DELTA, shift=2.0),
        source=SOURCE,
    )


@register("dp-sgd-clip-after-sum")
def dp_sgd_clip_after_sum(sigma: float = 2.0) -> Mechanism:
    """Clips the summed batch gradient instead of each example's: sensitivity 2C."""
    config = TrainingConfig(noise_multipliers=(sigma,), clip_each_example=False, canary_norm=100.0)
    return dp_sgd_mechanism(
        "dp-sgd-clip-after-sum",
        config,
        sigma,
        DELTA,
        data=ANTI_ALIGNED,
        flaw="clips the batch's gradient sum instead of each example's gradient: one example moves the clipped "
        "sum from +C u to -C u, sensitivity 2C",
        true_epsilon=gaussian_epsilon(2.0 / sigma, DELTA),
        source=SOURCE,
    )


@register("dp-sgd-noise-batch-mean")
def dp_sgd_noise_batch_mean(sigma: float = 4.0, batch_size: int = 4) -> Mechanism:
    """Noise sigma C / B (the batch mean's scale) added to the batch sum: true mu = B / sigma."""
    config = TrainingConfig(noise_multipliers=(sigma,), noise_divisor=float(batch_size))
    return dp_sgd_mechanism(
        "dp-sgd-noise-batch-mean",
        config,
        sigma,
        DELTA,
        data=DATASET,
        flaw=f"adds noise sigma C / B (B = {batch_size}) to the gradient sum: the mean's scale on the sum",
        true_epsilon=gaussian_epsilon(batch_size / sigma, DELTA),
        source=SOURCE,
    )


@register("dp-sgd-last-step-no-multiplier")
def dp_sgd_last_step_no_multiplier(sigma: float = 4.0, steps: int = 4) -> Mechanism:
    """The last step's noise is C, not sigma C: true mu = sqrt((T - 1) / sigma^2 + 1)."""
    config = TrainingConfig(noise_multipliers=(sigma,) * (steps - 1) + (1.0,))
    return dp_sgd_mechanism(
        "dp-sgd-last-step-no-multiplier",
        config,
        sigma,
        DELTA,
        data=DATASET,
        flaw="leaves the noise multiplier out of the last step's noise (std C instead of sigma C)",
        true_epsilon=gaussian_epsilon(math.sqrt((steps - 1) / sigma**2 + 1.0), DELTA),
        source=SOURCE,
    )
