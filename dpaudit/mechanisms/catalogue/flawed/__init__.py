"""The flawed gallery: published or widespread DP mechanisms that break the claim they make.

Each entry is a :class:`~dpaudit.mechanisms.base.Mechanism` whose ``flaw`` says what is wrong,
whose ``true_epsilon`` is the epsilon it really achieves (``inf`` when unbounded), whose ``claim`` is
the one the buggy code makes and whose ``pairs`` are the neighbouring inputs that expose the flaw
best.  They are the counterexamples a prover must refute and an auditor must flag.

Noisy max (:mod:`.noisy_max`)
    ``noisy-max-value-laplace``      returns the noisy maximum value, not its index: k eps / 2.
    ``noisy-max-value-exponential``  the same with one-sided exponential noise: inf.
Sparse vector (:mod:`.sparse_vector`, Lyu, Su & Li 2017, Alg. 3-6; 10 queries, c = 1)
    ``svt-lyu-3``  outputs the noisy query value (Roth 2011): k eps / (2c), unbounded in k.
    ``svt-lyu-4``  eps1 = eps / 4, query noise not scaled by c (Lee & Clifton 2014): (1 + 6c) eps / 4.
    ``svt-lyu-5``  no query noise (Stoddard et al. 2014): inf.
    ``svt-lyu-6``  no cutoff (Chen et al. 2015): k eps / 2, unbounded in k.
Calibration (:mod:`.calibration`)
    ``laplace-scale-epsilon``      Laplace scale eps instead of 1 / eps: Delta / eps.
    ``rr-miscalibrated``           randomized response calibrated to 2 eps: 2 eps.
    ``exponential-no-factor-2``    exponential mechanism exp(eps u / Delta): 2 eps.
Floating point (:mod:`.floating_point`, Mironov 2012; true epsilon inf, algebra correct)
    ``laplace-float-textbook``     q + s (-b ln u) in doubles.
    ``laplace-scipy``              ``scipy.stats.laplace.rvs``.
    ``laplace-numpy``              ``numpy.random.Generator.laplace``.
    ``gaussian-box-muller``        Box-Muller normal noise.
    ``laplace-histogram-numpy``    a histogram with numpy Laplace noise per count (vector outputs).
Timing side channels (:mod:`.timing`, Jin, McMurtry, Rubinstein & Ohrimenko 2022; output exact)
    ``geometric-by-trials``        two-sided geometric by Bernoulli trials: the draw count reveals |noise|: inf.
Sensitivity (:mod:`.sensitivity`)
    ``clamped-mean-wrong-sensitivity``  noise scale (ub - lb) / (n eps) with n = |D|: inf.
    ``sum-clamp-after``                 clamps the total, not each record: (R / ub) eps.
    ``median-local-sensitivity``        noise scaled to the local sensitivity: inf.
DP-SGD (:mod:`.dp_sgd`, white-box gradient canary, delta = 1e-5; claims from the PLD accountant)
    ``dp-sgd-fixed-batch``              fixed-size batches under a Poisson accountant: 1.35 claimed, 3.27.
    ``dp-sgd-clip-after-sum``           clips the batch sum, not each example: 1.99 claimed, 4.38.
    ``dp-sgd-noise-batch-mean``         noise sigma C / B on the sum: 0.93 claimed, 4.38.
    ``dp-sgd-last-step-no-multiplier``  last step's noise C, not sigma C: 1.99 claimed, 4.84.
"""
