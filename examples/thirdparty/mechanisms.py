"""Library mechanism objects, one per attribute, ready for ``dpaudit audit examples/thirdparty/mechanisms.py:NAME``.

OpenDP measurements need ``--d-in`` (the input distance at which their privacy map gives the claim);
diffprivlib mechanisms carry their own claim.  See README.md beside this file.
"""

import opendp.prelude as dp
from diffprivlib.mechanisms import Binary, Exponential, GaussianAnalytic, Geometric, Laplace, Snapping

dp.enable_features("contrib")

# OpenDP: audit with --d-in 1
opendp_laplace_int = dp.m.make_laplace(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=1.0)
opendp_laplace_float = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=1.0)
opendp_gaussian = dp.m.make_gaussian(dp.atom_domain(T=int), dp.absolute_distance(T=int), scale=2.0)  # zCDP
opendp_bounded_sum = dp.t.make_sum(
    dp.vector_domain(dp.atom_domain(bounds=(0, 10))), dp.symmetric_distance()
) >> dp.m.then_laplace(scale=10.0)  # a dataset measurement: d_in = 1 is one record added or removed

# diffprivlib: the claim, sensitivity and default pair are read from the object
diffprivlib_laplace = Laplace(epsilon=1.0, sensitivity=1.0)  # flagged: fl(value + noise) leaks through the low bits
diffprivlib_gaussian_analytic = GaussianAnalytic(epsilon=1.0, delta=1e-5, sensitivity=1.0)  # flagged, same reason
diffprivlib_geometric = Geometric(epsilon=1.0, sensitivity=1)
diffprivlib_snapping = Snapping(epsilon=1.0, sensitivity=1.0, lower=-10.0, upper=10.0)
diffprivlib_binary = Binary(epsilon=1.0, value0="no", value1="yes")
diffprivlib_exponential = Exponential(epsilon=1.0, sensitivity=1.0, utility=[3.0, 2.0, 1.0, 0.0, 0.0])
