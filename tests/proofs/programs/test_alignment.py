"""The alignment prover: the certificates of the catalogue's sparse-vector and noisy-max entries, and a
property test of the checker against exact output probabilities."""

from __future__ import annotations

import itertools

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpaudit.mechanisms.density import symbol
from dpaudit.mechanisms.programs import Noise, NoisyMaxProgram, ThresholdProgram
from dpaudit.proofs import Verdict, prove
from dpaudit.proofs.programs.alignment import find_alignment
from dpaudit.proofs.programs.probabilities import ABSOLUTE_ERROR, output_probability

eps, sens = symbol("epsilon"), symbol("Delta")


def _shifts(result):
    return {s.name: str(s.expression.rhs) for s in result.certificate.steps if s.name.startswith("align ")}


def test_above_threshold_certificate_states_the_alignment():
    """Dwork & Roth Thm 3.23 / LightDP: rho moves by Delta, bottoms keep their noise, the top moves by Delta - d."""
    result = prove("above-threshold")
    assert result.verdict is Verdict.PROVED and result.scope == "all parameters"
    assert _shifts(result) == {"align rho": "Delta", "align nu_bottom": "0", "align nu_top": "Delta - d_t"}
    steps = {s.name: s for s in result.certificate.steps}
    assert str(steps["alignment cost"].expression.rhs) == "epsilon"
    assert str(steps["bottom answer"].expression) == "-Delta + d_b <= 0"
    assert result.details["holds_for_every_number_of_queries"] is True


@pytest.mark.parametrize("name", ["svt-lyu-1", "svt-lyu-2"])
def test_lyu_1_and_2_pay_epsilon_over_two_for_the_threshold_and_the_tops(name):
    result = prove(name)
    assert result.proved and result.scope == "all parameters"
    cost = next(s for s in result.certificate.steps if s.name == "alignment cost")
    assert "1 x rho" in cost.justification or "2 x rho" in cost.justification
    assert str(cost.expression.rhs) == "epsilon"


def test_report_noisy_max_shifts_the_winner_only():
    """Dwork & Roth Claim 3.9 as an alignment: the winner's noise moves by Delta - d_w (<= 2 Delta), cost epsilon."""
    result = prove("report-noisy-max")
    assert result.proved and _shifts(result) == {"align Z_winner": "Delta - d_w", "align Z_loser": "0"}


def test_noisy_max_with_one_sided_noise_is_proved_with_an_upward_shift():
    program = NoisyMaxProgram("rnm-exp", 4, noise=Noise("exponential", 2 * sens / eps), instance={eps: 1, sens: 1})
    alignment, _ = find_alignment(program, eps)
    assert alignment is not None and str(alignment.shifts["Z_winner"]) == "Delta - d_w"  # >= 0 for |d_w| <= Delta


def test_a_restated_smaller_claim_is_checked_at_the_instance():
    result = prove("above-threshold", claim=__import__("dpaudit").PureDP(0.5))
    assert result.verdict is not Verdict.PROVED and result.scope == "instance"


def test_releasing_the_value_of_two_noisy_answers_is_epsilon_dp():
    """max(q_1 + Z_1, q_2 + Z_2) with Lap(2 Delta/eps) is (k eps/2 =) eps-DP: both noises move by -d."""
    program = NoisyMaxProgram("rnm-value-2", 2, release="value", instance={eps: 1, sens: 1})
    alignment, _ = find_alignment(program, eps)
    assert alignment is not None and alignment.cost == eps


# ---- property: whatever the checker proves, no pair and output of a small instance exceeds e^epsilon ----

SCALES = (1, 2, 4, 8)


@st.composite
def programs(draw):
    k = draw(st.integers(1, 3))
    if draw(st.booleans()):
        release = draw(st.sampled_from(["index", "value"]))
        noise = Noise(draw(st.sampled_from(["laplace", "exponential"])), draw(st.sampled_from(SCALES)) * sens / eps)
        return NoisyMaxProgram("p", k, noise=noise, release=release, instance={eps: 1, sens: 1})
    rho = draw(st.sampled_from((None, *SCALES)))
    nu = draw(st.sampled_from((None, *SCALES)))
    cutoff = draw(st.sampled_from((None, 1, 2)))
    return ThresholdProgram(
        "p",
        k,
        threshold=draw(st.sampled_from((0, 1))),
        threshold_noise=None if rho is None else Noise("laplace", rho * sens / eps),
        query_noise=None if nu is None else Noise("laplace", nu * sens / eps),
        cutoff=cutoff,
        resample_threshold=cutoff is not None and rho is not None and draw(st.booleans()),
        release="value" if nu is not None and draw(st.booleans()) else "bit",
        instance={eps: 1, sens: 1},
    )


def _outputs(program):
    if isinstance(program, NoisyMaxProgram):
        return list(range(program.queries)) if program.release == "index" else [("<=", v) for v in range(-2, 4)]
    tops = [1] if program.release == "bit" else [("<=", v) for v in (-1, 0, 1, 2)]
    return list(itertools.product((0, -1, *tops), repeat=program.queries))


@settings(max_examples=60, deadline=None, derandomize=True)
@given(program=programs(), data=st.data())
def test_a_proved_program_keeps_every_ratio_within_e_epsilon(program, data):
    alignment, _ = find_alignment(program, eps)
    if alignment is None:
        return
    k = program.queries
    q = tuple(data.draw(st.lists(st.integers(-2, 2), min_size=k, max_size=k)))
    moved = tuple(x + d for x, d in zip(q, data.draw(st.lists(st.sampled_from((-1, 0, 1)), min_size=k, max_size=k))))
    with mpmath.workdps(60):
        for output in _outputs(program):
            p1, p2 = output_probability(program, q, output), output_probability(program, moved, output)
            # the exact values lie within ABSOLUTE_ERROR of these
            assert p1 - ABSOLUTE_ERROR <= mpmath.e * (p2 + ABSOLUTE_ERROR), (str(program), q, moved, output)
            assert p2 - ABSOLUTE_ERROR <= mpmath.e * (p1 + ABSOLUTE_ERROR), (str(program), q, moved, output)


def test_the_property_test_sees_proved_programs():
    """The strategy above is not vacuous: most of its programs with enough noise are proved."""
    proved = 0
    for rho, nu in itertools.product(SCALES, SCALES):
        program = ThresholdProgram("p", 2, threshold_noise=Noise("laplace", rho * sens / eps),
                                   query_noise=Noise("laplace", nu * sens / eps), cutoff=1, instance={eps: 1, sens: 1})
        proved += find_alignment(program, eps)[0] is not None
    assert proved >= 8


def test_monotone_queries_let_sparse_vector_halve_its_query_noise():
    """Lyu et al. 2017 Sect. 4.2: for monotone queries nu ~ Lap(c Delta / eps2) suffices (here 2 Delta / eps):
    proved per direction when declared monotone, not proved (and refuted) for arbitrary neighbours."""
    fields = {"threshold_noise": Noise("laplace", 2 * sens / eps), "query_noise": Noise("laplace", 2 * sens / eps),
                  "cutoff": 1, "instance": {eps: 1, sens: 1}}
    monotone = ThresholdProgram("svt-monotone", 6, monotone=True, **fields)
    result = prove(monotone.mechanism())
    assert result.proved and "monotone queries only" in result.certificate.statement
    assert {s.name.split(":")[0] for s in result.certificate.steps} == {"q' >= q", "q' <= q"}
    assert prove(ThresholdProgram("svt-any", 6, **fields).mechanism()).verdict is Verdict.REFUTED


def test_an_approximate_claim_on_a_program_without_alignment_is_unknown_with_the_pure_witness():
    result = prove("svt-lyu-4", claim=__import__("dpaudit").ApproxDP(0.1, 1e-3))
    assert result.verdict is Verdict.UNKNOWN and "pure_dp_witness" in result.details
