"""The catalogue: classic mechanisms written with the framework of :mod:`dpaudit.mechanisms`, one module per family.

This package is content, the framework beside it (``base``, ``outputs``, ``density``, ``programs``,
``structure``, ``float_noise``, ``registry`` and the samplers' helpers) is what every mechanism, a user's
included, is built on.  Each module here registers its entries with
:func:`~dpaudit.mechanisms.registry.register`; the registry imports every module of this package, and
only of it, so adding a family is adding a module.  ``dpaudit.get(name)``, ``dpaudit.names()`` and
``dpaudit.catalogue()`` build the entries.

Families (module: entries)
    ``laplace``                laplace, laplace-sum, laplace-mean, laplace-vector
    ``gaussian``               gaussian, gaussian-analytic
    ``gaussian_curves``        gaussian-zcdp, gaussian-gdp (curve claims)
    ``geometric``              geometric (discrete Laplace)
    ``discrete_gaussian``      discrete-gaussian
    ``staircase``              staircase
    ``snapping``               snapping
    ``randomized_response``    rr, rr-two-coin, k-rr, rappor
    ``exponential``            exponential, report-noisy-max, report-noisy-max-2, top-k
    ``sparse_vector``          above-threshold, svt-lyu-1, svt-lyu-2
    ``smooth_sensitivity``     smooth-sensitivity-median
    ``thresholded_histogram``  thresholded-histogram
    ``meiser``                 meiser-k, meiser-k-merged (probabilistic DP)
    ``net_mechanism``          net-mechanism
    ``mwem``                   mwem
    ``wishart``                wishart
    ``dp_sgd``                 dp-sgd (white-box DP-SGD on a canary)
    ``flawed``                 the gallery of known-broken mechanisms (:mod:`.flawed`)
"""
