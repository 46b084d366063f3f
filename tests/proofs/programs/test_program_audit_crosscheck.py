"""The prover's verdicts on programs against the auditor's: a proved entry is not flagged by a
10^5-sample audit, a refuted one is flagged at its witness pair.

Budgets.  Proved entries: 10^5 samples per side at confidence 1 - 1e-6 (the verdict's false-alarm
probability is at most 1e-6 by the auditor's guarantee, so this test fails with probability <= 1e-6 for
each correct entry; the seed is fixed besides).  Refuted entries: the witness's exact probabilities p1,
p2 and log ratio L give the samples an estimate needs to separate L from epsilon,
n* = (5 (p1^-1/2 + p2^-1/2) / (L - epsilon))^2 (delta method, 5 standard errors each side); the audit
gets 2 n* per side at its pair, rounded up to 10^5.
"""

from __future__ import annotations

import math

import pytest

import dpaudit
from dpaudit.proofs import Verdict, prove
from dpaudit.proofs.programs.counterexamples import samples_to_see

pytestmark = [pytest.mark.statistical, pytest.mark.slow]

PROVED = ["above-threshold", "svt-lyu-1", "svt-lyu-2", "report-noisy-max"]
# svt-lyu-3's most visible witness needs 2 n* ~ 1.3e7 samples per side (minutes on 2 cores): left out here
REFUTED = ["svt-lyu-4", "svt-lyu-6"]
CONFIDENCE = 1 - 1e-6


@pytest.mark.parametrize("name", PROVED)
def test_a_proved_program_is_not_flagged(name):
    assert prove(name).verdict is Verdict.PROVED
    result = dpaudit.audit(name, samples=10**5, seed=1, confidence=CONFIDENCE, verdict_confidence=CONFIDENCE,
                           executor="in-process")
    assert result.verdict.value != "violation", (result.epsilon_lower_bound, result.event)


@pytest.mark.parametrize("name", REFUTED)
def test_a_refuted_program_is_flagged_at_its_witness_pair(name):
    proof = prove(name)
    assert proof.verdict is Verdict.REFUTED
    witness = proof.counterexample
    p1, p2 = witness.extra["probability_first"], witness.extra["probability_second"]
    n = 2 * samples_to_see(p1, p2, witness.log_ratio, witness.bound)
    samples = max(10**5, math.ceil(n / 10**5) * 10**5)
    result = dpaudit.audit(name, pair=tuple(tuple(x) for x in witness.inputs), samples=samples, seed=1,
                           early_stopping=False, executor="in-process")
    assert result.verdict.value == "violation", (samples, result.epsilon_lower_bound, result.event)
