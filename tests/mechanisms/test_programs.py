"""Programs: the generated sampler is the catalogue's (same outputs for the same seed), and bad
declarations are refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

import dpaudit
from dpaudit.errors import InvalidArgument
from dpaudit.mechanisms.density import symbol
from dpaudit.mechanisms.programs import Noise, NoisyMaxProgram, ThresholdProgram
from dpaudit.mechanisms.registry import get

eps, sens = symbol("epsilon"), symbol("Delta")
WITH_PROGRAM = [
    "above-threshold", "svt-lyu-1", "svt-lyu-2", "svt-lyu-3", "svt-lyu-4", "svt-lyu-5", "svt-lyu-6",
    "report-noisy-max", "report-noisy-max-2", "noisy-max-value-laplace", "noisy-max-value-exponential",
]


def test_the_sparse_vector_and_noisy_max_entries_declare_programs():
    assert [name for name in dpaudit.names() if get(name).program is not None] == sorted(WITH_PROGRAM)


@pytest.mark.parametrize("name", WITH_PROGRAM)
def test_generated_sampler_gives_the_catalogue_outputs(name):
    """Same draws in the same order: for one seed the two samplers return the same outputs, so the
    model the prover decides is the code the auditor runs."""
    mechanism = get(name)
    program = mechanism.program()
    for pair in mechanism.pairs[:2]:
        for data in pair:
            for seed in (0, 1):
                expected = mechanism.sample(data, 3000, np.random.default_rng(seed))
                generated = program.mechanism().sample(data, 3000, np.random.default_rng(seed))
                np.testing.assert_array_equal(generated.astype(float), expected.astype(float))


def test_a_program_is_a_mechanism_that_prove_and_audit_accept():
    program = ThresholdProgram(
        "my-svt", 4, threshold=2, threshold_noise=Noise("laplace", 2 * sens / eps),
        query_noise=Noise("laplace", 4 * sens / eps), cutoff=1, instance={eps: 1, sens: 1},
    )
    mechanism = program.mechanism(description="AboveThreshold over 4 queries")
    assert mechanism.claim == dpaudit.PureDP(1.0) and mechanism.neighbours == dpaudit.QueryDistance(1.0, "linf")
    assert dpaudit.prove(mechanism).proved
    out = mechanism.sample((0, 1, 2, 3), 5, np.random.default_rng(0))
    assert out.shape == (5, 4) and set(np.unique(out)) <= {-1.0, 0.0, 1.0}


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: Noise("gaussian", 1), "distribution='gaussian' must be one of"),
        (lambda: Noise("laplace", -1), "must be a positive expression"),
        (lambda: ThresholdProgram("x", 0), "queries=0 must be a positive int"),
        (lambda: ThresholdProgram("x", 3, cutoff=0), "cutoff=0 must be a positive int or None"),
        (lambda: ThresholdProgram("x", 3, release="noisy"), "release='noisy' must be one of"),
        (lambda: ThresholdProgram("x", 3, release="value"), "release='value' needs query_noise"),
        (lambda: ThresholdProgram("x", 3, cutoff=None, resample_threshold=True), "needs a cutoff"),
        (lambda: ThresholdProgram("x", 3, threshold=symbol("T")), "without a value in instance="),
        (lambda: NoisyMaxProgram("x", 3, noise="laplace"), "must be a Noise"),
        (lambda: NoisyMaxProgram("x", 3, release="argmax"), "release='argmax' must be one of"),
    ],
)
def test_bad_declarations_are_refused(build, message):
    with pytest.raises(InvalidArgument, match=message.replace("(", r"\(").replace(")", r"\)")):
        build()


def test_a_program_refuses_the_wrong_number_of_queries():
    program = NoisyMaxProgram("x", 3, instance={eps: 1, sens: 1})
    with pytest.raises(dpaudit.InvalidDataset, match="vector of 3"):
        program.sample((1, 2), 4, np.random.default_rng(0))


def test_a_programs_mechanism_has_pairs_of_k_query_vectors_so_an_audit_needs_no_pair():
    from dpaudit import threshold_program

    program = threshold_program("my-svt", epsilon=1.0, queries=4, threshold=0.0, threshold_scale=lambda e, d: 2 * d / e,
                                query_scale=lambda e, d: 4 * d / e, cutoff=1)
    mechanism = program.mechanism()
    assert mechanism.domain == (0.0, 0.0, 0.0, 0.0)
    assert mechanism.pairs and all(len(a) == len(b) == 4 for a, b in mechanism.pairs)
    assert all(mechanism.neighbours.is_neighbouring(a, b) for a, b in mechanism.pairs)
    assert program.mechanism(pairs=(((0.0,) * 4, (1.0,) * 4),)).pairs == (((0.0,) * 4, (1.0,) * 4),)
