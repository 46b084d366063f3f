"""Figures: drawn from a seeded re-sample, SVG only, with the claimed delta(epsilon) envelope."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit import ApproxDP, get
from dpaudit.reports.plots import claimed_delta, resample


def test_resample_is_seeded_and_disjoint_from_the_audit_stream():
    mechanism = get("laplace")
    pair = mechanism.pairs[0]
    first, again = resample(mechanism, pair, 42, 500), resample(mechanism, pair, 42, 500)
    other = resample(mechanism, pair, 43, 500)
    assert np.array_equal(first.rows_a, again.rows_a) and np.array_equal(first.rows_b, again.rows_b)
    assert not np.array_equal(first.rows_a, other.rows_a)
    assert "SeedSequence([42, 7])" in first.how


def test_every_figure_is_svg_with_a_caption_saying_it_was_resampled(laplace_report):
    for figure in laplace_report["plots"]["figures"]:
        assert figure["svg"].startswith("<svg") and figure["svg"].rstrip().endswith("</svg>")
        assert "<script" not in figure["svg"]
        assert "Re-sampled for this figure" in figure["caption"]


def test_flawed_report_plots_the_loss_beyond_the_claim(flawed_report):
    ids = {f["id"] for f in flawed_report["plots"]["figures"]}
    assert {"distributions", "privacy-loss", "bound-curve"} <= ids


@pytest.mark.parametrize(
    "epsilon, expected",
    [
        # at and above epsilon0 the envelope is delta0; at 0 it is 1 - e^-epsilon0 (1 - delta0)
        (1.0, 1e-3),
        (3.0, 1e-3),
        (0.0, 1 - np.exp(-1.0) * (1 - 1e-3)),
    ],
)
def test_claimed_delta_envelope(epsilon, expected):
    assert claimed_delta(np.array([epsilon]), 1.0, 1e-3)[0] == pytest.approx(expected, rel=1e-12)


def test_approximate_claims_get_a_delta_curve():
    from dpaudit.reports.plots import all_plots
    from dpaudit.auditor import audit

    mechanism = get("gaussian")
    assert isinstance(mechanism.claim, ApproxDP)
    result = audit(mechanism, samples=5_000, seed=3)
    figures = all_plots(mechanism, result.as_dict(), n=2_000)
    assert "delta-curve" in {f["id"] for f in figures}


def test_a_curve_claim_gets_the_privacy_curve_with_the_point_where_it_fails():
    from dpaudit import GaussianDP, Mechanism, QueryDistance
    from dpaudit.auditor import audit
    from dpaudit.reports.plots import all_plots

    def unit_gaussian(q, n, rng):
        return np.rint((q + rng.normal(0.0, 1.0, size=n)) * 2**16) / 2**16

    # N(0, 1) vs N(1, 1) is 1-GDP: 0.5-GDP is refuted (at 2 x 10^4 per side mu_LB is about 0.9).
    mechanism = Mechanism(name="gaussian-sigma-1", claim=GaussianDP(0.5), neighbours=QueryDistance(1.0),
                          sampler=unit_gaussian)
    result = audit(mechanism, pair=(0.0, 1.0), samples=20_000, seed=3, executor="in-process")
    assert result.violation and result.decided_by == "curve"
    figures = {f["id"]: f for f in all_plots(mechanism, result.as_dict(), n=2_000)}
    assert {"bound-curve", "privacy-curve"} <= set(figures)
    assert "where the claim fails" in figures["privacy-curve"]["svg"]
    assert "simultaneous over the whole curve" in figures["privacy-curve"]["caption"]



@pytest.mark.statistical
def test_a_per_step_release_gets_privacy_over_the_steps(schema_validator):
    from dpaudit.reports import build_report

    from .conftest import FIXED_ENVIRONMENT

    # the flawed twin with T = 4 steps: the whole report, valid against the schema, carries the figure
    document = build_report("dp-sgd-last-step-no-multiplier", env=FIXED_ENVIRONMENT, samples=5_000, seed=3,
                            plot_samples=2_000, skip_checks=("sensitivity",), executor="in-process")
    schema_validator.validate(document)
    figures = {f["id"]: f for f in document["plots"]["figures"]}
    caption = figures["privacy-over-steps"]["caption"]
    assert "T = 4 steps" in caption and "Bonferroni" in caption and "held-out" in caption
    assert "Star: the audit's own verified bound" in caption and "Re-sampled for this figure" in caption
    assert "audit's verified bound (all T steps)" in figures["privacy-over-steps"]["svg"]


def test_privacy_over_the_steps_only_for_per_step_releases():
    from dpaudit.auditor import audit
    from dpaudit.mechanisms.catalogue.dp_sgd import dp_sgd
    from dpaudit.reports.plots import all_plots

    for mechanism, expected in ((dp_sgd(sigma=1.0, steps=2), True), (dp_sgd(sigma=1.0, steps=1), False),
                                (dp_sgd(sigma=1.0, steps=2, threat="black-box"), False), (get("gaussian"), False)):
        result = audit(mechanism, samples=2_000, seed=3, executor="in-process")
        ids = {f["id"] for f in all_plots(mechanism, result.as_dict(), n=1_000)}
        assert ("privacy-over-steps" in ids) is expected, mechanism.description
