"""Published lower bounds of DP-Sniper and StatDP on the classic epsilon = 0.1 benchmark.

Every anchor below was reached at confidence 0.90 with 2 x 10^8 verification samples per side (plus
the tools' own search/training samples), on mechanisms claiming epsilon = 0.1:

* DP-Sniper -- Bichsel, Steffen, Bogunovic & Vechev, "DP-Sniper: Black-Box Discovery of
  Differential Privacy Violations using Classifiers", IEEE S&P 2021 (the reference logs of its
  artefact); its event rule keeps the c = 0.01 tail, which caps its bounds near ln(1/c) = 4.6.
* StatDP -- Ding, Wang, Wang, Zhang & Kifer, "Detecting Violations of Differential Privacy",
  CCS 2018, as re-run and verified on 2 x 10^8 fresh samples in DP-Sniper's evaluation.

``catalogue`` names the dpaudit entry that implements the same mechanism, ``factory`` its builder and
``parameters`` the keyword arguments that reproduce the benchmark's claim (epsilon = 0.1).  The
catalogue's neighbouring inputs are its own (the first recommended pair or a searched one), not
necessarily the ones the tools used, so a row compares *reported bounds on the same mechanism*, not
the same experiment.  ``limit`` is the oracle-event bound quoted with the anchor when the source
gives one (Laplace(0.1): 0.09976 at 2 x 10^8 per side, confidence 0.90).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["ANCHORS", "CONFIDENCE", "SAMPLES_PER_SIDE", "Anchor"]

CONFIDENCE = 0.90
SAMPLES_PER_SIDE = 200_000_000


@dataclass(frozen=True)
class Anchor:
    """One benchmark row: the mechanism, its true epsilon and the peers' published bounds."""

    benchmark: str
    catalogue: str
    factory: str  # "module:function" building the entry with ``parameters``
    parameters: dict[str, Any]
    true_epsilon: float
    dp_sniper: tuple[float, float] | None  # (low, high): a range when several runs were published
    statdp: float | None
    limit: float | None = None
    note: str = ""
    sources: tuple[str, ...] = field(default=("DP-Sniper (S&P 2021) reference logs",))

    def build(self):
        """The catalogue entry with this row's parameters (a :class:`dpaudit.Mechanism`)."""
        from dpaudit.targets import load_attribute

        return load_attribute(self.factory)(**self.parameters)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["true_epsilon"] = self.true_epsilon if math.isfinite(self.true_epsilon) else "inf"
        return data


ANCHORS: tuple[Anchor, ...] = (
    Anchor(
        benchmark="Laplace(0.1), scale 1/eps",
        catalogue="laplace",
        factory="dpaudit.mechanisms.catalogue.laplace:laplace_count",
        parameters={"epsilon": 0.1},
        true_epsilon=0.1,
        dp_sniper=(0.0968, 0.0976),
        statdp=None,
        limit=0.09976,
        note="correct mechanism: the bound should approach the limit, never exceed 0.1",
    ),
    Anchor(
        benchmark="SVT, Lee-Clifton (Lyu Alg. 4)",
        catalogue="svt-lyu-4",
        factory="dpaudit.mechanisms.catalogue.flawed.sparse_vector:svt_lyu_4",
        parameters={"epsilon": 0.1},
        true_epsilon=0.175,
        dp_sniper=(0.1696, 0.1696),
        statdp=0.1719,
    ),
    Anchor(
        benchmark="noisy max returning the value, Lap(2/eps), k = 5",
        catalogue="noisy-max-value-laplace",
        factory="dpaudit.mechanisms.catalogue.flawed.noisy_max:noisy_max_value_laplace",
        parameters={"epsilon": 0.1},
        true_epsilon=0.25,
        dp_sniper=(0.2488, 0.2488),
        statdp=None,
    ),
    Anchor(
        benchmark="Laplace with scale eps (NoisyHist2)",
        catalogue="laplace-scale-epsilon",
        factory="dpaudit.mechanisms.catalogue.flawed.calibration:laplace_scale_epsilon",
        parameters={"epsilon": 0.1},
        true_epsilon=10.0,
        dp_sniper=(4.60, 4.60),
        statdp=10.00,
        note="DP-Sniper's c = 0.01 floor caps it near ln(100) = 4.6",
    ),
    Anchor(
        benchmark="SVT without query noise (Lyu Alg. 5)",
        catalogue="svt-lyu-5",
        factory="dpaudit.mechanisms.catalogue.flawed.sparse_vector:svt_lyu_5",
        parameters={"epsilon": 0.1},
        true_epsilon=math.inf,
        dp_sniper=(1.76, 1.76),
        statdp=14.31,
        note="true epsilon = inf: every finite bound is capped by the sample size (StatDP's 14.31 is such a cap)",
    ),
    Anchor(
        benchmark="floating-point Laplace (numpy), eps = 0.1",
        catalogue="laplace-numpy",
        factory="dpaudit.mechanisms.catalogue.flawed.floating_point:laplace_numpy",
        parameters={"epsilon": 0.1},
        true_epsilon=math.inf,
        dp_sniper=(0.2521, 0.2521),
        statdp=None,
        note="Mironov (2012): the float lattice reveals the input",
    ),
)
