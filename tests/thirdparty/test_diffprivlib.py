"""diffprivlib mechanism objects audited as a user hands them over: ``dpaudit.audit(Laplace(...))``.

The adapter seeds diffprivlib's own random source from the audit's generator, so every audit here is
deterministic for its seed.  Thresholds are derived in the comments; a "no violation" assertion runs
at confidence 1 - 1e-6, so it fails for at most one seed in a million if the mechanism keeps its claim.
"""

import pytest

pytest.importorskip("diffprivlib")

from diffprivlib.mechanisms import (  # noqa: E402
    Binary,
    Exponential,
    Gaussian,
    GaussianAnalytic,
    Geometric,
    Laplace,
    LaplaceTruncated,
    Snapping,
    Vector,
)

import dpaudit  # noqa: E402
from dpaudit import ApproxDP, InvalidArgument, PureDP, QueryDistance, audit  # noqa: E402

pytestmark = [pytest.mark.thirdparty]

CONFIDENCE = 1 - 1e-6
SEED = 20261122


@pytest.mark.statistical
@pytest.mark.parametrize(
    "mechanism",
    [
        Laplace(epsilon=1.0, sensitivity=1.0),
        Laplace(epsilon=1.0, sensitivity=1.0, random_state=5),
        GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=1.0),
    ],
    ids=["laplace", "laplace-random-state", "gaussian-analytic"],
)
def test_float_release_is_flagged(mechanism):
    # diffprivlib releases fl(value + noise) in doubles.  On the default pair (0, 1) the outputs y of
    # M(0) that no double n gives as fl(1 + n) are impossible under M(1) (ulp-lattice lemma,
    # Mironov 2012); measured share 0.35 (Laplace) and 0.20 (Gaussian) of M(0)'s outputs.  With
    # 2000 verification draws per side (the same share with a RandomState: the sampler is the same
    # four-uniform formula), the one-sided bounds at level 1e-6 give LCB >= 0.15 and, for
    # 0 hits, UCB = 1 - (1e-6)^(1/2000) = 0.0069: epsilon >= ln(0.15 / 0.0069) = 3.1 > 2, far above
    # the claim of 1 whatever the seed.
    result = audit(mechanism, samples=2000, seed=SEED, confidence=CONFIDENCE, executor="in-process")
    assert result.violation, result.reason
    assert result.support_mismatch and result.hits[1] == 0
    assert result.epsilon_lower_bound > 2.0
    assert any(f.check == "lattice" for f in result.findings)
    assert result.reproducible


@pytest.mark.statistical
def test_binary_is_audited_on_its_labels():
    # Binary(epsilon=1) keeps the label with probability e / (1 + e) = 0.731: on (value0, value1) the
    # realised epsilon is exactly 1.  Validity at 1 - 1e-6.  Power: at N = 2 x 10^4 the joint bound's
    # gap is about 4.9 sqrt(0.368 / N + 2.72 / N) = 0.06, so the bound exceeds 0.5.
    result = audit(Binary(epsilon=1.0, value0="no", value1="yes"), samples=20_000, seed=SEED, confidence=CONFIDENCE,
                   executor="in-process")
    assert not result.violation, result.reason
    assert result.epsilon_lower_bound > 0.5
    assert set(result.pair) == {"no", "yes"}
    assert "'yes'" in result.event or "'no'" in result.event  # the labels, not their codes


def test_random_source_of_the_object_is_kept_and_seeded():
    # The secure default (SystemRandom) and a RandomState take different code paths in diffprivlib
    # (e.g. the Gaussian's normalvariate vs standard_normal): each is replaced by a seeded one of its kind.
    assert dpaudit.resolve(Laplace(epsilon=1.0, sensitivity=1.0)).randomness == "python-random"
    assert dpaudit.resolve(Laplace(epsilon=1.0, sensitivity=1.0, random_state=5)).randomness == "random-state"


@pytest.mark.statistical
@pytest.mark.parametrize(
    "mechanism, samples",
    [
        (Geometric(epsilon=1.0), 20_000),
        (Snapping(epsilon=1.0, sensitivity=1.0, lower=-10.0, upper=10.0), 10_000),
        (Exponential(epsilon=1.0, sensitivity=1.0, utility=[3.0, 2.0, 1.0, 0.0, 0.0]), 20_000),
    ],
    ids=["geometric", "snapping", "exponential"],
)
def test_correct_mechanism_passes(mechanism, samples):
    # Validity: if the mechanism is epsilon-DP, P[verdict = violation] <= 1e-6 (the audit's guarantee
    # at this confidence).  Power, on the whole budget (a default audit well inside its claim may stop
    # for futility at an early look, whose share of alpha is small): on the default pair the realised
    # epsilon is 1 (geometric, snapping: neighbouring outputs at likelihood ratio e^1) and the
    # exponential mechanism's chosen event {output = 0} has log-ratio about 0.68 (8 262 against 4 201
    # hits at N = 2 x 10^4).  The joint bound's gap at one look and z(1e-6) = 4.75 is about
    # 4.75 sqrt(2 e / N) = 0.08-0.11 for masses near 1/2, and 4.75 sqrt(1/8262 + 1/4201) = 0.09 for the
    # exponential's event, so the bound exceeds 0.4: a claim of 0.4 would be refuted.
    result = audit(mechanism, samples=samples, seed=SEED, confidence=CONFIDENCE, executor="in-process")
    assert not result.violation, result.reason
    whole = audit(mechanism, samples=samples, seed=SEED, confidence=CONFIDENCE, executor="in-process",
                  early_stopping=False)
    assert not whole.violation and whole.epsilon_lower_bound > 0.4


def test_claim_sensitivity_and_pair_are_read_from_the_object():
    gaussian = dpaudit.resolve(Gaussian(epsilon=0.5, delta=1e-6, sensitivity=2.0))
    assert gaussian.claim == ApproxDP(0.5, 1e-6)
    assert gaussian.neighbours == QueryDistance(2.0)
    assert gaussian.pairs == ((0.0, 2.0),)
    laplace = dpaudit.resolve(Laplace(epsilon=2.0, sensitivity=1.0))
    assert laplace.claim == PureDP(2.0)
    # Bounded: (0, sensitivity) is not inside [5, 10], so the pair starts at the lower bound.
    truncated = dpaudit.resolve(LaplaceTruncated(epsilon=1.0, sensitivity=1.0, lower=5.0, upper=10.0))
    assert truncated.pairs == ((5.0, 6.0),)
    # Exponential: the input is the utility vector, neighbours at l-infinity distance = sensitivity.
    exponential = dpaudit.resolve(Exponential(epsilon=1.0, sensitivity=1.0, utility=[3.0, 2.0, 0.0]))
    assert exponential.neighbours == QueryDistance(1.0, "linf")
    assert exponential.pairs == (((3.0, 2.0, 0.0), (4.0, 3.0, -1.0)),)


@pytest.mark.statistical
def test_seed_reproduces_the_library_draws():
    # diffprivlib's secure source (SystemRandom) is fed from the audit's seed: same seed, same counts.
    first = audit(Geometric(epsilon=1.0), samples=1000, seed=SEED, executor="in-process")
    again = audit(Geometric(epsilon=1.0), samples=1000, seed=SEED, executor="in-process")
    assert (first.hits, first.sample_sizes, first.event) == (again.hits, again.sample_sizes, again.event)


def test_d_in_for_a_diffprivlib_object_is_a_clear_error():
    with pytest.raises(InvalidArgument, match=r"^d_in=1 applies to OpenDP measurements only.*diffprivlib Laplace") as info:
        audit(Laplace(epsilon=1.0, sensitivity=1.0), d_in=1, samples=1000)
    assert "\n" not in str(info.value)


def test_unsupported_mechanism_is_a_one_line_error():
    vector = Vector(epsilon=1.0, function_sensitivity=1.0, dimension=3)
    with pytest.raises(InvalidArgument, match=r"^diffprivlib Vector is not supported by the adapter") as info:
        audit(vector, samples=1000)
    assert "\n" not in str(info.value)


def test_the_class_instead_of_an_instance_is_a_one_line_error():
    with pytest.raises(InvalidArgument, match=r"^Laplace is a class: audit an instance of it") as info:
        audit(Laplace, samples=1000)
    assert "\n" not in str(info.value)
