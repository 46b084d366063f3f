"""The standard family's search: scoring the head of the approximate ranking exactly finds what scoring every event exactly finds."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.auditor.bounds import bonferroni_confidence
from dpaudit.auditor.events.standard import held_out_blocks, search_events
from dpaudit.auditor.targeting import SearchScore


def _laplace(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    return rng.laplace(0.0, 1.0, (n, 1)), rng.laplace(1.0, 1.0, (n, 1))


def _sparse_vector(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Lyu et al. Alg. 1 shape, eps = 1, threshold 0: the first answer above, then aborted (-1)."""

    def run(q: np.ndarray) -> np.ndarray:
        rho = rng.laplace(0.0, 2.0, (n, 1))
        above = q + rng.laplace(0.0, 4.0, (n, q.size)) >= rho
        out = above.astype(float)
        seen = np.cumsum(above, axis=1)
        out[:, 1:][seen[:, :-1] >= 1] = -1.0
        return out

    return run(np.r_[np.zeros(3), np.ones(3)]), run(np.r_[np.ones(3), np.zeros(3)])


@pytest.mark.parametrize("draw", [_laplace, _sparse_vector])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_approximate_head_finds_the_exact_best_of_every_group(draw, seed):
    rows_a, rows_b = draw(np.random.default_rng(seed), 20_000)
    for method, delta in (("joint", 0.0), ("union", 1e-4)):
        score = SearchScore(method, bonferroni_confidence(0.95, 10_000), delta)

        def exact(ka, na, kb, nb, score=score):  # the same bound without an approximation: every event scored
            return score(ka, na, kb, nb)

        for keep in (1, 2):
            fast = search_events(rows_a, rows_b, score, keep=keep)
            full = search_events(rows_a, rows_b, exact, keep=keep)
            assert len(fast) == len(full)
            assert [s.objective for s in fast] == pytest.approx([s.objective for s in full], abs=1e-12)


def test_the_answer_values_of_each_range_are_those_a_mask_and_a_sort_give():
    from dpaudit.auditor.events.standard import _values_by_range

    rng = np.random.default_rng(3)
    for _ in range(20):
        width, n = int(rng.integers(2, 12)), int(rng.integers(0, 500))
        ia, ib = rng.integers(0, width + 1, n), rng.integers(0, width + 1, n + 3)  # width: no answer
        va, vb = rng.normal(size=n).round(1), rng.normal(size=n + 3).round(1)
        va[rng.random(n) < 0.05] = np.nan
        answered = sorted(set(np.r_[ia, ib][np.r_[ia, ib] < width].tolist()))
        ranges = sorted({(i, i) for i in answered} | {(i, width - 1) for i in answered})
        got = _values_by_range(ranges, width, (ia, va), (ib, vb))
        for lo, hi in ranges:
            expected = (np.sort(va[(ia >= lo) & (ia <= hi)]), np.sort(vb[(ib >= lo) & (ib <= hi)]))
            assert all(np.array_equal(g, e, equal_nan=True) for g, e in zip(got[lo, hi], expected))


@pytest.mark.parametrize("rows", [0, 1, 3, 4, 5, 64, 65, 1003])
@pytest.mark.parametrize("every", [2, 4])
@pytest.mark.parametrize("block_rows", [1, 4, 16, 100])
def test_held_out_blocks_are_the_rows_np_delete_keeps(rows, every, block_rows):
    values = np.arange(rows * 3, dtype=float).reshape(rows, 3)
    blocks = list(held_out_blocks(values, every, block_rows))
    joined = np.concatenate(blocks) if blocks else np.empty((0, 3))
    assert np.array_equal(joined, np.delete(values, np.s_[0::every], axis=0))
