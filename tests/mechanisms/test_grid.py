"""The float-safe release of continuous noise (dpaudit.mechanisms._grid)."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit.mechanisms._grid import grid_for, released, snap_to_grid


@pytest.mark.parametrize("value", [0, 7, 2.5, -1e6, np.array([3.0, 0.0, 1.0])])
@pytest.mark.parametrize("scale", [1.0, 0.37, 40.0])
def test_released_in_the_noise_array_is_value_plus_noise_snapped(value, scale):
    rng = np.random.default_rng(11)
    noise = rng.laplace(0.0, scale, size=(1000, 3) if np.ndim(value) else 1000)
    noise[:3] = [[1e300] * 3, [-1e300] * 3, [0.0] * 3] if np.ndim(value) else [1e300, -1e300, -0.0]
    expected = snap_to_grid(value + noise, scale)
    out = released(value, noise.copy(), scale)
    assert np.array_equal(out, expected)
    step, bound = grid_for(scale)
    assert np.all(np.abs(out) <= bound) and np.array_equal(np.rint(out / step) * step, out)
