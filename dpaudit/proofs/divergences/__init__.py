"""Divergences and privacy curves: zero-concentrated, Rényi and Gaussian DP, and privacy loss distributions.

* :mod:`.procedure` -- the ``privacy-curve`` procedure (a tabulated curve, point by point) and the
  ``renyi-divergence`` procedure (zCDP, RDP and GDP of a declared density);
* :mod:`.renyi` -- the Rényi divergence of a declared density in closed form (normal, Laplace, discrete
  Gaussian, finite pmf);
* :mod:`.concentrated` -- zCDP, RDP and GDP claims decided from it (and the trade-off function of the
  normal density), each proved claim ending with its conversion to (epsilon, delta)-DP;
* :mod:`.privacy_loss` -- the exact privacy loss distribution of composed Poisson-subsampled Gaussian
  steps, and accountants checked against it.
"""
