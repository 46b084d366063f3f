"""The data and pure functions of benchmarks/dp_sniper_suite.py: the peers' published figures as
transcribed, GeoSample's epsilon, RAPPOR's pair epsilon, and the two samplers against their pmfs."""

from __future__ import annotations

import importlib.util
import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def _load_suite():
    spec = importlib.util.spec_from_file_location("dp_sniper_suite", BENCHMARKS / "dp_sniper_suite.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("dp_sniper_suite", module)
    spec.loader.exec_module(module)
    return module


suite = _load_suite()


def test_published_figures_come_back_from_their_probabilities_at_the_peers_budget():
    # Reference: eval_sp2021/reference-results/{dd_search_reg_data,statdp_1_data,statdp_2_data}.log of
    # DP-Sniper's artefact.  Each published eps_lcb is the Clopper-Pearson union bound at 0.90 of its
    # event's p1, p2 at 2 x 10^8 per side, so peer_at must give it back.  Tolerance: the figures are
    # written to 4 decimals (5e-5); DP-Sniper's p1, p2 to 6 decimals, i.e. relative 5e-5 at p ~ 0.01,
    # moving ln(p1/p2) by at most 1e-4 (total 1.5e-4); StatDP's p1, p2 are written in full (5e-5).
    for row in suite.ROWS:
        at_budget = suite.peer_at(*row.dp_sniper_event, suite.PEER_SAMPLES)
        assert at_budget == pytest.approx(row.dp_sniper, abs=1.5e-4), row.name
        if row.statdp is not None:
            assert suite.peer_at(row.statdp.p1, row.statdp.p2, suite.PEER_SAMPLES) == pytest.approx(
                row.statdp.eps_lcb, abs=5e-5), row.name


def test_every_dp_sniper_mechanism_is_a_row_once():
    # exp_default.py of DP-Sniper's artefact runs these 20 mechanisms.
    assert len({row.name for row in suite.ROWS}) == len(suite.ROWS) == 20


def _geo_sample_pmf(count: int) -> np.ndarray:
    cdf = suite.geo_sample_cdf(count, 5, 3).astype(float)
    return np.diff(np.concatenate([[0.0], cdf])) / cdf[-1]


def test_geo_sample_pmfs_of_adjacent_counts_differ_by_exactly_the_theorems_epsilon():
    # Balcer & Vadhan 2018, Thm. 4.7: GeoSample(0.1, 5) is ln(1 + 2^-3)-DP, and tightly so.
    losses = [np.max(np.abs(np.log(_geo_sample_pmf(c)) - np.log(_geo_sample_pmf(c + 1)))) for c in range(5)]
    assert max(losses) == pytest.approx(suite.geo_sample_epsilon(), rel=1e-12)
    assert suite.geo_sample_epsilon() == pytest.approx(math.log(9 / 8), rel=1e-15)


def _frequencies_match(counts: np.ndarray, probabilities: np.ndarray, n: int, tests: int) -> bool:
    # Each count is Binomial(n, p): two-sided z test at alpha = 1e-6, Bonferroni over ``tests`` counts,
    # so a correct sampler fails with probability <= 1e-6 (the seed is fixed besides).
    z = stats.norm.isf(1e-6 / (2 * tests))
    spread = np.sqrt(n * probabilities * (1 - probabilities))
    return bool(np.all(np.abs(counts - n * probabilities) <= z * spread + 1e-9))


@pytest.mark.statistical
def test_truncated_geometric_sampler_follows_geo_sample_pmf():
    rng, n = np.random.default_rng(1), 200_000
    sample = suite.truncated_geometric()
    for count in range(6):
        counts = np.bincount(sample((float(count),), n, rng).astype(int), minlength=6)
        assert _frequencies_match(counts, _geo_sample_pmf(count), n, 36), count
    # Power: the pmf of the neighbouring count is rejected (ratios up to 9/8 at 2 x 10^5 draws).
    counts = np.bincount(sample((2.0,), n, rng).astype(int), minlength=6)
    assert not _frequencies_match(counts, _geo_sample_pmf(1), n, 6)


def test_rappor_pair_epsilon_is_the_largest_log_likelihood_ratio_over_all_outputs():
    pytest.importorskip("mmh3")
    for f, p, q in ((0.75, 0.45, 0.55), (0.95, None, None), (0.5, 0.25, 0.75)):
        one_given_one, one_given_zero = suite.rappor_bit_probabilities(f, p, q)
        for a, b in itertools.combinations(range(-3, 4), 2):
            # Brute force over every 20-bit report s: ln P[s | a] - ln P[s | b], bit by bit.
            reports = np.arange(2**suite.RAPPOR_BITS)
            loss = np.zeros(reports.size)
            for bit in range(suite.RAPPOR_BITS):
                ones = (reports >> bit) & 1
                pa = one_given_one if bit in suite.bloom_filter(a) else one_given_zero
                pb = one_given_one if bit in suite.bloom_filter(b) else one_given_zero
                loss += np.where(ones == 1, math.log(pa / pb), math.log((1 - pa) / (1 - pb)))
            assert suite.rappor_pair_epsilon(a, b, f, p, q) == pytest.approx(np.max(np.abs(loss)), rel=1e-12, abs=1e-12)


def test_rappor_of_dp_snipers_pair_differs_in_six_bits():
    # MurmurHash3 mod 20 with seeds 0..3: 1 -> {3, 10, 13}, 0 -> {0, 11, 18} (DP-Sniper's classifier
    # weights in dd_search_reg_data.log line 114 single out the same six bits).
    pytest.importorskip("mmh3")
    assert suite.bloom_filter(1) == {3, 10, 13} and suite.bloom_filter(0) == {0, 11, 18}
    assert suite.rappor_pair_epsilon(1, 0, 0.75, 0.45, 0.55) == pytest.approx(6 * math.log(0.5125 / 0.4875), rel=1e-12)


@pytest.mark.statistical
def test_rappor_samplers_report_each_bit_with_its_probability():
    pytest.importorskip("mmh3")
    rng, n = np.random.default_rng(2), 100_000
    for f, p, q in ((0.75, 0.45, 0.55), (0.95, None, None)):
        one_given_one, one_given_zero = suite.rappor_bit_probabilities(f, p, q)
        for value in (0, 1):
            expected = np.full(suite.RAPPOR_BITS, one_given_zero)
            expected[sorted(suite.bloom_filter(value))] = one_given_one
            counts = suite.rappor(f, p, q)((float(value),), n, rng).sum(axis=0)
            assert _frequencies_match(counts, expected, n, 80), (f, value)


def test_a_report_of_some_rows_leaves_the_whole_tables_files_alone(tmp_path, monkeypatch, capsys):
    results, black_box = tmp_path / "suite.json", tmp_path / "black_box.json"
    monkeypatch.setattr(suite, "RESULTS", results)
    monkeypatch.setattr(suite, "BLACK_BOX_RESULTS", black_box)
    monkeypatch.setattr(sys, "argv", ["dp_sniper_suite.py", "--report", "--only", "LaplaceMechanism",
                                      "--columns", "on,black-box", "--samples", "1000000"])
    suite.main()
    assert not results.exists() and not black_box.exists()
    assert "--only: suite.json and black_box.json are left as they were" in capsys.readouterr().out


def test_the_oracle_limit_of_the_first_answer_rows_is_below_dp_snipers_published_bound_at_2e7():
    # The exact first-answer law sums to 1 at DP-Sniper's pair, and the best event's 0.90 bound at the
    # median counts lies below the published 2 x 10^8 figure at 2 x 10^7 per side, above it at 2 x 10^8.
    for name in suite.FIRST_ANSWER_THRESHOLDS:
        row = suite.ROW_BY_NAME[name]
        for inputs in row.pair:
            assert suite.first_answer_probabilities(inputs, suite.FIRST_ANSWER_THRESHOLDS[name]).sum() == (
                pytest.approx(1.0, abs=1e-6))
        assert suite.oracle_limit(row, 20_000_000) < row.dp_sniper < suite.oracle_limit(row, 200_000_000)


def test_the_first_answer_law_matches_the_rows_own_sampler():
    # 2 x 10^5 runs of each cut-off-1 row's sampler at each input of DP-Sniper's pair: every index's frequency
    # within 5 binomial standard errors of its quadrature probability (seeded; a miss by chance has
    # probability below 10^-5 over the 44 comparisons).
    rng = np.random.default_rng(11)
    n = 200_000
    for name, threshold in suite.FIRST_ANSWER_THRESHOLDS.items():
        row = suite.ROW_BY_NAME[name]
        for inputs in row.pair:
            out = row.sampler(inputs, n, rng)
            answered = out == 1.0
            first = np.where(answered.any(axis=1), answered.argmax(axis=1), out.shape[1])
            frequency = np.bincount(first, minlength=out.shape[1] + 1) / n
            p = suite.first_answer_probabilities(inputs, threshold)
            assert np.all(np.abs(frequency - p) <= 5 * np.sqrt(p * (1 - p) / n)), (name, inputs)


def test_the_search_column_is_planned_at_the_smallest_n_and_searches_its_multiple_of_n():
    rows = [suite.ROW_BY_NAME["LaplaceMechanism"], suite.ROW_BY_NAME["SVT1"]]
    cells = suite.planned(rows, [10**6, 10**7], 1, ("black-box-search",), (1, 2))
    assert {(c.row, c.column, c.samples, c.seed) for c in cells} == {
        (row.name, "black-box-search", 10**6, seed) for row in rows for seed in (1, 2)}
    result = suite.black_box_audit(rows[0], 2_000, 1, suite.SEARCH_FACTOR * 2_000)
    assert result.search_samples == suite.SEARCH_FACTOR * 2_000
    assert suite.black_box_audit(rows[0], 2_000, 1).search_samples == 2_000  # the default: min(N, the floor)
