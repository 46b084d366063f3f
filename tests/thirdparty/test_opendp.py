"""OpenDP measurements audited as a user hands them over: ``dpaudit.audit(measurement, d_in=1)``.

OpenDP samples from the operating system's CSPRNG and cannot be seeded: the audit's seed fixes
dpaudit's own choices but not the library's draws, so these audits are not reproducible draw for
draw.  Each "no violation" assertion therefore runs at confidence 1 - 1e-6: if the measurement keeps
its claim it fails with probability at most 1e-6.  Power assertions are derived in the comments.
"""

import math

import pytest

pytest.importorskip("opendp")

import opendp.prelude as dp  # noqa: E402

import dpaudit  # noqa: E402
from dpaudit import (  # noqa: E402
    AddRemove,
    ApproxDP,
    InvalidArgument,
    PureDP,
    QueryDistance,
    UnknownMechanism,
    ZeroConcentratedDP,
    audit,
)
from dpaudit.adapters.opendp import ZCDP_DELTA  # noqa: E402

pytestmark = [pytest.mark.thirdparty]

dp.enable_features("contrib")

CONFIDENCE = 1 - 1e-6
SEED = 20261122


def laplace(scale=1.0, kind=int):
    domain = dp.atom_domain(T=kind, nan=False) if kind is float else dp.atom_domain(T=kind)
    return dp.m.make_laplace(domain, dp.absolute_distance(T=kind), scale=scale)


def gaussian(scale=2.0):
    return dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=scale)


def test_claim_comes_from_the_privacy_map_at_d_in():
    # make_laplace's map: epsilon = d_in / scale.
    assert dpaudit.resolve(laplace(scale=2.0), d_in=1).claim == PureDP(0.5)
    at_two = dpaudit.resolve(laplace(scale=2.0), d_in=2)
    assert at_two.claim == PureDP(1.0)
    assert at_two.neighbours == QueryDistance(2.0)
    assert at_two.pairs == ((0.0, 2.0),)
    # Approximate DP: the map gives (epsilon, delta).
    approximate = dp.c.make_approximate(laplace(scale=1.0, kind=float))
    assert dpaudit.resolve(approximate, d_in=1.0).claim == PureDP(1.0)
    # A dataset measurement: symmetric distance 1 is add/remove one record.
    summed = dp.t.make_sum(dp.vector_domain(dp.atom_domain(bounds=(0, 10))), dp.symmetric_distance()) >> dp.m.then_laplace(
        scale=10.0)
    mechanism = dpaudit.resolve(summed, d_in=1)
    assert mechanism.claim == PureDP(1.0) and mechanism.neighbours == AddRemove()
    assert mechanism.domain == (0, 10)


def test_zcdp_measurement_claims_its_rho_and_delta_picks_a_point():
    # make_gaussian(scale 2) is rho-zCDP with rho = d_in^2 / (2 scale^2) = 0.125: the claim is that rho,
    # audited on the whole curve.  With delta= the claim is the (epsilon, delta) OpenDP's own conversion
    # gives there (Canonne, Kamath & Steinke 2020), never looser than Bun & Steinke 2016, Prop. 1.3:
    # epsilon <= rho + 2 sqrt(rho ln(1/delta)).
    measurement = gaussian(scale=2.0)
    rho = 0.125
    assert dpaudit.resolve(measurement, d_in=1).claim == ZeroConcentratedDP(rho)
    claim = dpaudit.resolve(measurement, d_in=1, delta=ZCDP_DELTA).claim
    expected, _ = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(measurement), ZCDP_DELTA).map(1)
    assert claim == ApproxDP(expected, ZCDP_DELTA)
    assert rho < claim.epsilon <= rho + 2 * math.sqrt(rho * math.log(1 / ZCDP_DELTA))
    # A smaller delta, a larger epsilon.
    stricter = dpaudit.resolve(measurement, d_in=1, delta=1e-8).claim
    assert stricter.delta == 1e-8 and stricter.epsilon > claim.epsilon


@pytest.mark.statistical
@pytest.mark.parametrize("kind", [int, float], ids=["integer", "float"])
def test_laplace_passes_through_the_batched_call(kind):
    # Validity: P[violation | the measurement is 1-DP] <= 1e-6.  Power: on the default pair (0, 1) the
    # realised epsilon equals the claim; the joint bound's gap at N = 10^4 and z = 4.9 is about
    # 4.9 sqrt(2 e / N) = 0.11, so the bound exceeds 0.5 unless the sampler is far weaker than claimed.
    result = audit(laplace(kind=kind), d_in=kind(1), samples=10_000, seed=SEED, confidence=CONFIDENCE,
                   executor="in-process")
    assert not result.violation, result.reason
    assert result.epsilon_lower_bound > 0.5
    # n draws went through OpenDP's composition of 2^j copies, and the time per draw is reported.
    assert result.run.batching.startswith("n draws in at most log2(n) + 1 OpenDP calls")
    assert result.run.draws >= 4 * 10_000 * 0.9
    assert 0 < result.seconds_per_draw < 0.01
    # OpenDP cannot be seeded: the result says so.
    assert result.reproducible is False and "draws its own randomness" in result.reproducibility


@pytest.mark.statistical
@pytest.mark.slow
def test_zcdp_gaussian_passes_on_its_own_rho_and_fails_a_halved_one():
    # Validity: make_gaussian is rho-zCDP, so with the verdict at 1 - 1e-6 (CONFIDENCE) the curve's
    # simultaneous bounds refute its own rho with probability <= 1e-6.
    measurement = gaussian(scale=1.0)
    rho = float(measurement.map(1))  # 1 / (2 scale^2) = 0.5
    result = audit(measurement, d_in=1, samples=100_000, seed=SEED, confidence=CONFIDENCE, executor="in-process")
    assert not result.violation, result.reason
    assert result.claim == ZeroConcentratedDP(rho) and result.curve is not None
    assert result.curve.rho_lower_bound <= rho
    # Power: against rho / 2 = 0.25.  At 10^5 per side and level 1 - 1e-6 the curve's rho bound for this
    # discrete Gaussian of scale 1 was 0.344 (seed 5; OpenDP draws its own randomness, so every run
    # differs), against 0.31 for the continuous one (tests/auditor/test_curve.py): the halved claim is
    # flagged by a margin of about 0.09, many times the bound's run-to-run spread.
    halved = dpaudit.resolve(measurement, d_in=1)
    from dataclasses import replace

    flagged = audit(replace(halved, claim=ZeroConcentratedDP(rho / 2)), samples=100_000, seed=SEED,
                    confidence=CONFIDENCE, executor="in-process")
    assert flagged.violation and flagged.decided_by == "curve", flagged.reason


def test_d_in_is_required():
    with pytest.raises(InvalidArgument, match=r"^d_in is required to audit an OpenDP Measurement") as info:
        audit(laplace(), samples=1000)
    assert "\n" not in str(info.value)


def test_d_in_outside_the_relation_is_refused():
    summed = dp.t.make_sum(dp.vector_domain(dp.atom_domain(bounds=(0, 10))), dp.symmetric_distance()) >> dp.m.then_laplace(
        scale=10.0)
    with pytest.raises(InvalidArgument, match=r"^d_in=2: dpaudit audits SymmetricDistance at d_in=1"):
        dpaudit.resolve(summed, d_in=2)


def test_a_transformation_is_not_a_measurement():
    transformation = dp.t.make_sum(dp.vector_domain(dp.atom_domain(bounds=(0, 10))), dp.symmetric_distance())
    with pytest.raises(InvalidArgument, match=r"^the OpenDP object is a Transformation, not a Measurement") as info:
        audit(transformation, d_in=1, samples=1000)
    assert "\n" not in str(info.value)


def test_an_object_that_is_no_mechanism_is_a_one_line_error():
    with pytest.raises(UnknownMechanism, match=r"^target=42 is not a Mechanism.*OpenDP Measurement") as info:
        audit(42, samples=1000)
    assert "\n" not in str(info.value)


@pytest.mark.statistical
def test_cli_audits_a_measurement_in_a_python_file(tmp_path):
    from click.testing import CliRunner

    from dpaudit.cli import main

    target = tmp_path / "mechanisms.py"
    target.write_text(
        "import opendp.prelude as dp\n"
        "dp.enable_features('contrib')\n"
        "laplace = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)\n"
    )
    # Validity at 1 - 1e-6, as above; exit code 0 is a pass (at 15 000 samples per side the reach,
    # a deterministic function of N and the confidence, is 0.92 > 0.9: not underpowered).
    result = CliRunner().invoke(main, ["audit", f"{target}:laplace", "--d-in", "1", "--samples", "15000",
                                       "--confidence", str(CONFIDENCE), "--executor", "in-process", "--seed", "1"])
    assert result.exit_code == 0, result.output
    assert "claims 1-DP" in result.output
    assert "batching: n draws in at most log2(n) + 1 OpenDP calls" in result.output
    assert "--d-in 1" in result.output  # the reproduce line


@pytest.mark.statistical
def test_report_of_a_measurement_in_a_python_file(tmp_path):
    import json

    from click.testing import CliRunner

    from dpaudit.cli import main

    target = tmp_path / "mechanisms.py"
    target.write_text(
        "import opendp.prelude as dp\n"
        "dp.enable_features('contrib')\n"
        "laplace = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)\n"
    )
    # Validity at 1 - 1e-6 and reach 0.92 at 15 000 samples, as in the CLI audit test above: exit 0.
    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["report", f"{target}:laplace", "--d-in", "1", "-o", str(out), "--samples",
                                       "15000", "--confidence", str(CONFIDENCE), "--seed", "1", "--no-plots"])
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text())
    assert "--d-in 1" in document["settings"]["reproduce"]
    assert "not reproducible" in document["settings"]["reproduce"]


def test_float_outputs_are_not_fl_sums_so_the_lattice_lemma_proves_nothing():
    # OpenDP rounds the exact real q + noise once to a double, so an output off fl(q_b + n)'s lattice
    # can still come from q_b: the adapter says float_sum=False and the leak families get no query
    # values to prove emptiness from (their events would only be observed on fresh samples).
    from dpaudit.auditor.events.leaks.families import query_vectors
    from dpaudit.targets import resolve

    mechanism = resolve(laplace(kind=float), d_in=1.0)
    assert mechanism.float_sum is False
    assert query_vectors(mechanism, mechanism.pairs[0], 1) is None
