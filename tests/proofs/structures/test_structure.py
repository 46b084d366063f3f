"""Proofs from declared structure: the five catalogue entries are proved with a chain of checked steps,
and wrong compositions (mutants of each entry) are never proved."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy
from click.testing import CliRunner

from dpaudit.claims import ApproxDP, PureDP
from dpaudit.cli import main
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.catalogue.exponential import exponential_mechanism, top_k
from dpaudit.mechanisms.catalogue.flawed.calibration import exponential_no_factor_2
from dpaudit.mechanisms.catalogue.laplace import laplace_count
from dpaudit.mechanisms.catalogue.mwem import mwem
from dpaudit.mechanisms.catalogue.net_mechanism import net_mechanism
from dpaudit.mechanisms.registry import get
from dpaudit.mechanisms.catalogue.smooth_sensitivity import (
    smooth_median,
    smooth_sensitivity_median,
)
from dpaudit.mechanisms.structure import Part, SequentialComposition
from dpaudit.mechanisms.catalogue.wishart import wishart
from dpaudit.proofs import Verdict, prove

BUDGET = 10.0


@pytest.mark.parametrize(
    ("name", "steps"),
    [
        ("mwem", ["part 1", "sensitivity 1", "part 2", "sensitivity 2", "sequential composition", "post-processing"]),
        ("top-k", ["part 1", "sensitivity 1", "part 2", "sensitivity 2", "sequential composition", "post-processing"]),
        ("net-mechanism", ["part 1", "sensitivity 1", "post-processing"]),
        ("smooth-sensitivity-median", ["noise density", "sliding", "dilation", "smooth bound", "admissible noise"]),
        ("wishart", ["Wishart density", "log ratio", "trace bound", "off-support mass", "support split"]),
    ],
)
def test_catalogue_entry_is_proved_with_its_chain(name, steps):
    result = prove(name, time_budget=BUDGET)
    assert result.proved, result.reason
    names = [step.name for step in result.certificate.steps]
    assert names[: len(steps)] == steps and names[-1] == "final inequality"
    assert result.scope == "instance"
    assert result.as_dict()["certificate"]["steps"][0]["mathml"].startswith("<m")


def test_mwem_chain_states_the_budget_split():
    text = str(prove("mwem", time_budget=BUDGET))
    # T = 2 rounds at eps = 1: four runs at eps/(2T) = 0.25 each
    assert "Eq(epsilon_1, 0.25)" in text and "4 runs in sequence (part 1 x 2, part 2 x 2)" in text


def test_wishart_bounds_are_the_derived_values():
    result = prove("wishart", time_budget=BUDGET)
    support_split = next(s for s in result.certificate.steps if s.name == "support split")
    # epsilon' = 1/(2 c n) with c = 3/(2 n eps): eps/3; delta' = P[chi^2_2 <= 2 eps/3] = 1 - e^(-eps/3)
    assert support_split.expression == sympy.Tuple(
        sympy.Eq(sympy.Symbol("epsilon"), sympy.Rational(1, 3)), sympy.Eq(sympy.Symbol("delta"), 1 - sympy.exp(-sympy.Rational(1, 3)))
    )


def test_cli_prove_mwem_prints_the_chain():
    result = CliRunner().invoke(main, ["prove", "mwem"])
    assert result.exit_code == 0, result.output
    for words in ("PROVED", "[part 1]", "[sensitivity 2]", "[sequential composition]", "[post-processing]", "[final inequality]"):
        assert words in result.output


def test_cli_unknown_structure_exit_3():
    result = CliRunner().invoke(main, ["prove", "wishart", "--claim", "pure"])
    assert result.exit_code == 3, result.output
    assert "weaker than the claim" in result.output


# --- mutants: wrong compositions, none of which may be proved --------------------------------------


def _mwem_per_round(epsilon: float, per_round: float, query_range: float = 1.0):
    """MWEM (T = 2) whose selections and measurements each run at ``per_round``, claiming ``epsilon``."""
    m = mwem(epsilon=epsilon, rounds=2)
    parts = (
        Part("select", exponential_mechanism(epsilon=per_round, k=4), "scores", query_range, "query rows", repeat=2),
        Part("measure", laplace_count(epsilon=per_round), "q_i(B)", query_range, "query rows", repeat=2),
    )
    return dataclasses.replace(m, structure=SequentialComposition(parts, "the synthetic distribution"))


def _smooth(**changes):
    m = smooth_median(epsilon=1.0)
    return dataclasses.replace(m, structure=dataclasses.replace(m.structure, **changes))


def _gaussian_noise():
    z = sympy.Symbol("z", real=True)
    return sympy.exp(-(z**2) / 2) / sympy.sqrt(2 * sympy.pi), z


def _wishart(**changes):
    m = wishart()
    return dataclasses.replace(m, structure=dataclasses.replace(m.structure, **changes))


MUTANTS = {
    # MWEM: the budget eps not split over the 2T runs (each run at eps): composition gives 4 eps
    "mwem-epsilon-not-split": (lambda: _mwem_per_round(1.0, 1.0), "step 'final inequality'"),
    # MWEM: split over T instead of 2T (selection and measurement both at eps/T)
    "mwem-split-over-T": (lambda: _mwem_per_round(1.0, 0.5), "step 'final inequality'"),
    # MWEM: queries whose values span 2 (e.g. weights 0/2) move the scores by 2 > Delta = 1
    "mwem-query-sensitivity-2": (lambda: _mwem_per_round(1.0, 0.25, query_range=2.0), "step 'sensitivity 1'"),
    # top-k claiming eps per round instead of k eps
    "top-k-claims-eps": (lambda: dataclasses.replace(top_k(), claim=PureDP(1.0)), "step 'final inequality'"),
    # top-k whose rounds use the exponential mechanism without the factor 2 (a refuted part)
    "top-k-no-factor-2": (
        lambda: dataclasses.replace(top_k(), structure=dataclasses.replace(
            top_k().structure, parts=tuple(dataclasses.replace(p, mechanism=exponential_no_factor_2()) for p in top_k().structure.parts)
        )),
        "step 'part 1'",
    ),
    # net mechanism at 2 eps (weights eps N u instead of eps N u / 2) claiming eps
    "net-doubled-weights": (lambda: dataclasses.replace(net_mechanism(epsilon=2.0), claim=PureDP(1.0)), "step 'final inequality'"),
    # smooth sensitivity with too large a smoothing parameter beta = eps (dilation costs 3 eps > eps/2)
    "smooth-beta-too-large": (lambda: _smooth(beta=1.0), "step 'dilation'"),
    # noise scale S/alpha with alpha = eps instead of eps/8 (sliding costs 3^(3/4) eps > eps/2)
    "smooth-alpha-too-large": (lambda: _smooth(alpha=1.0), "step 'sliding'"),
    # S computed with beta = 1 while the noise is calibrated for beta = 0.1: S is not 0.1-smooth
    "smooth-bound-not-smooth": (lambda: _smooth(smooth_bound=lambda x: smooth_sensitivity_median(x, 1.0, 1.0)), "step 'smooth bound'"),
    # the NRS pitfall: noise scaled to the local sensitivity itself (0 on (0, 0, 0), so S is not > 0)
    "smooth-local-sensitivity": (lambda: _smooth(smooth_bound=_smooth().structure.local_sensitivity), "step 'smooth bound'"),
    # Gaussian noise is not admissible for pure DP: its score z is unbounded
    "smooth-gaussian-noise": (lambda: _smooth(noise_density=_gaussian_noise), "step 'sliding'"),
    # Wishart with d + 2 degrees of freedom: the determinant term makes the ratio unbounded
    "wishart-dof-d+2": (lambda: _wishart(dof=3 + 1), "step 'log ratio'"),
    # Wishart with C = 1/(n eps) I (scale too small by 2/3): epsilon' = eps/2 > the claimed eps/3
    "wishart-scale-too-small": (lambda: _wishart(scale=1 / (4 * 1.0)), "step 'final inequality'"),
    # the paper's pure claim
    "wishart-pure": (lambda: dataclasses.replace(wishart(), claim=PureDP(1.0)), "step 'final inequality'"),
    # the true (eps/3, delta') with delta' understated by 10 %
    "wishart-delta-understated": (
        lambda: dataclasses.replace(wishart(), claim=ApproxDP(1 / 3, 0.9 * -np.expm1(-1 / 3))),
        "step 'final inequality'",
    ),
}


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_wrong_composition_is_never_proved(name):
    build, step = MUTANTS[name]
    result = prove(build(), time_budget=BUDGET)
    assert result.verdict is Verdict.UNKNOWN, result
    assert step in result.reason
    assert result.certificate is None


def test_at_least_eight_mutants():
    assert len(MUTANTS) >= 8


def test_mutant_declarations_are_themselves_sound_when_claimed_correctly():
    # The same declarations with the claim their composition supports are proved: the mutants fail for
    # the reason named, not because the declaration is malformed.
    assert prove(dataclasses.replace(_mwem_per_round(1.0, 1.0), claim=PureDP(4.0)), time_budget=BUDGET).proved
    assert prove(dataclasses.replace(_wishart(scale=0.25), claim=ApproxDP(0.5, 1.0 - np.exp(-0.5))), time_budget=BUDGET).proved


def test_a_part_without_density_is_unknown_at_that_part():
    m = top_k()
    # report-noisy-max without its program: no density, no program, no structure
    part = dataclasses.replace(m.structure.parts[0], mechanism=dataclasses.replace(get("report-noisy-max"), program=None))
    mutant = dataclasses.replace(m, structure=SequentialComposition((part,), "the index"), claim=PureDP(1.0))
    with pytest.raises(InvalidArgument, match=r"part 1 .* must declare a symbolic density, a program or a structure"):
        prove(mutant, time_budget=BUDGET)


# --- a refutation from a declared structure, confirmed by the auditor at its witness pair -----------


def test_noise_scaled_to_local_sensitivity_is_refuted_with_an_atom():
    result = prove("median-local-sensitivity", time_budget=BUDGET)
    assert result.refuted, result.reason
    witness = result.counterexample
    x, x_prime = witness.inputs
    m = get("median-local-sensitivity")
    # S(x) = 0 < S(x'), recomputed with the sampler's code: M(x) is the atom f(x)
    assert m.structure.smooth_bound(x) == 0 < m.structure.smooth_bound(x_prime)
    assert np.all(m.sample(x, 100, np.random.default_rng(0)) == witness.output)
    assert witness.log_ratio == float("inf") and "re-verified" not in str(witness)


@pytest.mark.statistical
def test_the_auditor_flags_the_refuted_entry_at_its_witness_pair():
    import dpaudit

    witness = prove("median-local-sensitivity", time_budget=BUDGET).counterexample
    # M(x) is an atom that M(x') never hits: the loss is infinite, far beyond any sampling error at 10^4
    audit = dpaudit.audit("median-local-sensitivity", pair=tuple(map(list, witness.inputs)), samples=10**4,
                          seed=20261125, confidence=1 - 1e-6, executor="in-process", progress=False)
    assert audit.verdict.value == "violation"


def test_smooth_entry_with_a_zero_scale_is_not_refuted_when_its_output_is_rounded():
    # On the release grid M(x') also puts mass on f(x): no atom argument; the smooth-bound step fails instead.
    result = prove(MUTANTS["smooth-local-sensitivity"][0](), time_budget=BUDGET)
    assert result.verdict is Verdict.UNKNOWN and result.counterexample is None


@pytest.mark.parametrize("name", ["mwem", "smooth-sensitivity-median", "wishart"])
def test_a_structure_proof_stops_at_its_time_budget(name):
    result = prove(name, time_budget=0.001)
    assert result.verdict is Verdict.UNKNOWN and "time budget exhausted at step" in result.reason
