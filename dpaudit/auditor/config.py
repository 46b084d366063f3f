"""What an audit was asked: :class:`AuditConfig`, validated once, with every default in one place.

``dpaudit.audit(target, **options)``, ``dpaudit audit`` (the CLI), the pytest plugin and the report
builder all build their configuration with :meth:`AuditConfig.build`; the stages read it and never
check an argument again.  The CLI's help reads the defaults from here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from typing import Any

from .._paths import check_output_file
from .._validation import (
    check_flag,
    check_nonnegative_finite,
    check_nonnegative_int,
    check_one_of,
    check_positive_finite,
    check_positive_int,
    check_probability_open,
    check_unit_interval,
    did_you_mean,
    is_flag,
)
from ..claims import Claim
from ..errors import InvalidArgument
from ..mechanisms.base import RANDOMNESS
from ..targets import stated_claim
from .bounds import METHODS
from .events.leaks.events import DEFAULT_CHECKS, check_names
from .run.sampling import fresh_seed

__all__ = ["DEFAULT_CONFIDENCE", "DEFAULT_CONNECT_TIMEOUT", "DEFAULT_SAMPLES", "DEFAULT_TIME_LIMIT",
           "DEFAULT_VERDICT_CONFIDENCE", "MAX_SAMPLES", "MIN_SAMPLES", "SEARCH_EVENTS", "AuditConfig"]

DEFAULT_CONFIDENCE = 0.95
DEFAULT_VERDICT_CONFIDENCE = 0.999
DEFAULT_SAMPLES = 1_000_000
MIN_SAMPLES = 100
# Far beyond any audit that finishes (10^15 draws per side are months of sampling at 10^8 draws/s),
# and below the largest Poisson mean numpy draws (~9.2e18), which sizes the verification batches.
MAX_SAMPLES = 10**15
SEARCH_EVENTS = 10_000
"""The events the search scores per pair (the Bonferroni divisor of its score, :mod:`.confidence`)."""
DEFAULT_TIME_LIMIT = None
"""No time limit: an audit runs until its looks decide (``time_limit``)."""
DEFAULT_CONNECT_TIMEOUT = 5.0
"""Seconds to reach a Dask scheduler (``dask://HOST:PORT``) before the audit stops with one line (``connect_timeout``)."""


@dataclass(frozen=True)
class AuditConfig:
    """What was asked of an audit, validated once (:meth:`build`); the defaults are the field defaults.

    Parameters
    ----------
    target : Mechanism, str, callable or library object
        A Mechanism, a catalogue name, ``package.module:attr``, ``file.py:attr``, a plain function
        ``f(data, n, rng)`` (n runs, vectorised) or ``f(data, rng)`` (one run, batched), an OpenDP
        ``Measurement`` (with ``d_in``) or a diffprivlib mechanism object (:mod:`dpaudit.adapters`).
    claim : Claim, optional
        The claim to audit, any kind: ``PureDP``, ``ApproxDP``, ``ProbabilisticDP``,
        ``ZeroConcentratedDP``, ``RenyiDP``, ``GaussianDP`` or ``PrivacyCurve``.  It replaces the
        mechanism's own (``AuditResult.claim`` is the claim audited); a plain callable may give it
        instead of ``epsilon``.  A curve claim is decided on the whole empirical privacy curve, as a
        mechanism's declared one is (:mod:`.curve.claims`).  With ``epsilon`` or ``delta`` (one of
        them) a curve claim is audited at the point of its curve they name; a point claim states both
        itself and is refused with either (:func:`dpaudit.targets.stated_claim`).  Once
        built, ``claim`` is the claim so stated and ``epsilon``/``delta`` are None.
    epsilon, delta : float, optional
        The claim to audit; default the mechanism's own.  Required (epsilon, or ``claim``) for a plain
        callable; ``delta`` defaults to 0 then.
    pair : (a, b), optional
        Neighbouring inputs; when absent they are searched (:mod:`dpaudit.auditor.pairs`).  For a
        plain function the pair is the user's statement: it is audited as given, under the relation
        its shapes state (sizes differing by one record: add/remove; one record changed: replace;
        two numbers: query values at their distance), else recorded as "pair given, relation
        unchecked" (:mod:`dpaudit.auditor.relation`).
    neighbours : NeighbourRelation or str, optional
        The relation to audit under: ``AddRemove()``, ``Replace()``, ``QueryDistance(...)``,
        ``Local()``, ``Canary(record)``, an object of your own with the methods of
        :class:`~dpaudit.neighbours.NeighbourRelation`, or a name (``"add-remove"``, ``"replace"``,
        ``"local"``, ``"query-distance:1:l1"``).  It replaces a Mechanism's own relation; a given pair must be
        neighbouring under it.  ``AuditResult.neighbours`` records the relation used and its source.
    data : optional
        An example input the pair search starts from when no pair is given: a dataset (its
        neighbours, and the relation's patterns on datasets of its size over its value range) or,
        under query-value neighbours, the base query value.  A plain function given a dataset is
        audited under add/remove unless ``neighbours`` says otherwise.
    samples : int
        Verification samples per side (default ``DEFAULT_SAMPLES``); the search stage spends up to
        :func:`.audit.search_budget` more per side (:func:`.audit.search_start` of them, and the rest
        when its choice has not settled on those).  With ``early_stopping`` an audit whose estimate
        lies above the claim while its verdict-level bound does not extends to at most 4 x ``samples``
        (:mod:`.sequential`).
    search_samples : int, optional
        Search-stage samples per side instead of :func:`.audit.search_budget`, at least ``MIN_SAMPLES``
        (all of them spent: the search does not stop early).
    seed : int
        Seed of the ``SeedSequence`` behind every draw; drawn from OS entropy if absent (the built
        configuration always holds one, which the result records).
    confidence : float
        Joint confidence of the reported estimates (``epsilon_lower_bound``, ``delta_lower_bound``),
        in (0, 1).
    verdict_confidence : float
        The level the verdict is taken at, in (0, 1): a mechanism that keeps its claim comes back
        ``violation`` with probability at most 1 - max(``confidence``, ``verdict_confidence``) (0.001
        by default).  When ``confidence`` is stricter (the pytest plugin passes 1 - 1e-6), the verdict
        is taken at ``confidence`` and the two bounds coincide; the built configuration holds the max.
    method : {"auto", "joint", "union"}
        The bound (:mod:`dpaudit.auditor.bounds`); ``"auto"`` takes ``"joint"`` at delta = 0 (the
        tighter of the two, measured by ``benchmarks/tightness.py``) and ``"union"`` otherwise.
    candidates : int
        How many of the best search-stage events to verify (Bonferroni-corrected).
    early_stopping : bool
        Verify in growing batches, stop once the answer is certain and extend when it is not
        (:mod:`.sequential`); with False, one look at the full budget.
    executor : str or executor object
        ``"auto"`` (threads for ``thread_safe`` mechanisms; else in process, moving to a process
        pool when the remaining work is long), ``"in-process"``, ``"threads"``, ``"process-pool"``,
        ``"dask-local"`` or ``"dask://HOST:PORT"``.  The result does not depend on it.  On Dask a worker lost
        midway changes nothing (its chunks run again elsewhere); a scheduler lost midway, or a chunk whose
        workers die each time it is tried (past their memory limit), raises :class:`~dpaudit.errors.ExecutorLost`
        naming the fault and the checkpoint that keeps the finished chunks (a temporary file when ``checkpoint``
        is not given), with which the same audit resumes.
    workers : int, optional
        Threads, processes of the pool or of the local Dask cluster (default: every core).
    checkpoint : str or os.PathLike, optional
        File that keeps finished work; an interrupted audit rerun with the same file resumes.  Its
        folder must exist and accept files (checked before any work).  If writing it fails during the
        audit, the work is kept in a temporary file named in ``AuditResult.notes`` and ``run``.
    progress : bool, optional
        Show a progress bar on standard error (default: when it is a terminal).
    checks : "default", "all", None or names
        Implementation-leak checks (:mod:`.events.leaks.events`): ``"lattice"``, ``"float-support"`` and
        ``"correlated-noise"`` (the default) add event families to the search stage;
        ``"draw-count"`` (default) records the number of random draws of each run of a one-run
        function beside its output, ``"wall-time"`` (not default: load makes it noisy) its wall time
        (:mod:`.events.side_channels`), so events can read them;
        ``"sensitivity"`` falsifies the declared sensitivity (deterministic, seconds; not default).
        None or ``()`` turns them off.  Each finding lands in ``AuditResult.findings``.  Once built,
        the tuple of names.
    d_in : number, optional
        For an OpenDP ``Measurement`` only: the input distance at which its privacy map gives the
        claim (and the neighbour relation; :mod:`dpaudit.adapters.opendp`).  Required for one.
    randomness : {"generator", "random-state", "python-random", "own"}, optional
        For a plain callable: what its randomness argument is (a ``numpy.random.Generator``, a
        ``numpy.random.RandomState``, a ``random.Random``) or ``"own"`` when it takes none; read
        from its signature when absent (:meth:`dpaudit.Mechanism.from_callable`).  With ``"own"``
        the result says ``reproducible=False``.
    learned : bool
        On vector outputs, add the learned events of :mod:`.events.learned` to the search: a logistic
        regression trained on a quarter of the search samples, its score thresholded on the rest.
    time_limit : float, optional
        Seconds the audit may take (default ``DEFAULT_TIME_LIMIT``: none).  At the limit the verification stops at
        its last complete look and the result says what that look supports: the violation it decided, else
        ``underpowered`` (never a pass the look did not reach), the stop reason naming the chunk in flight -- its
        data and seed, where a call that hangs hangs.  Finished chunks stay in the ``checkpoint``, so the same
        audit rerun resumes.  A limit passed before the first look (in the search stage) raises
        :class:`~dpaudit.errors.TimeLimitExceeded` saying so.  A chunk still running is abandoned, not waited for.
    connect_timeout : float
        Seconds to reach the scheduler of ``executor="dask://HOST:PORT"`` (default ``DEFAULT_CONNECT_TIMEOUT``);
        past them :class:`~dpaudit.errors.ExecutorUnavailable` names the address.
    curve : bool
        Also bound the whole privacy curve delta(epsilon) of the verified pair from below, simultaneously
        over the curve, with lower bounds on mu (Gaussian DP) and rho (zCDP) derived from it
        (``AuditResult.curve``; :mod:`.curve.empirical`, :mod:`.curve.stage`): costs
        ``search_budget(N)`` + N more outputs per side.
    """

    target: Any
    claim: Claim | None = None
    epsilon: float | None = None
    delta: float | None = None
    pair: tuple[Any, Any] | None = None
    neighbours: Any = None
    data: Any = None
    samples: int = DEFAULT_SAMPLES
    search_samples: int | None = None
    seed: int | None = None
    confidence: float = DEFAULT_CONFIDENCE
    verdict_confidence: float = DEFAULT_VERDICT_CONFIDENCE
    method: str = "auto"
    candidates: int = 1
    early_stopping: bool = True
    executor: Any = "auto"
    workers: int | None = None
    checkpoint: str | os.PathLike[str] | None = None
    progress: bool | None = None
    checks: Any = "default"
    d_in: Any = None
    randomness: str | None = None
    learned: bool = True
    curve: bool = False
    time_limit: float | None = DEFAULT_TIME_LIMIT
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT

    @classmethod
    def build(cls, target: Any, **options: Any) -> AuditConfig:
        """The configuration of ``audit(target, **options)``, every option checked and normalised.

        An option that is not a field is refused by name, with the closest field suggested; each
        value is checked as its field's docstring says (InvalidArgument naming the option).
        """
        known = [f.name for f in fields(cls) if f.name != "target"]
        for name in options:
            if name not in known:
                close = did_you_mean(name, known, n=1)
                hint = f" ({close})" if close else ""
                raise InvalidArgument(f"audit() got an unknown option {name}={options[name]!r}{hint}; "
                                      f"the options are {', '.join(known)}")
        given = {f.name: f.default for f in fields(cls) if f.name != "target"} | options
        return cls(target=target, **_checked(given))

    @property
    def explicit_checks(self) -> bool:
        """Whether the checks differ from the default ones (side channels named beyond the default are
        then said where they cannot be seen, :func:`.events.side_channels.observed`)."""
        return set(self.checks) != set(DEFAULT_CHECKS)


def _checked(given: dict[str, Any]) -> dict[str, Any]:
    """Every option of ``given`` validated and normalised, in the order the checks report errors."""
    values = dict(given)
    values["confidence"] = check_probability_open("confidence", given["confidence"])
    values["verdict_confidence"] = max(values["confidence"],
                                       check_probability_open("verdict_confidence", given["verdict_confidence"]))
    if given["epsilon"] is not None:
        values["epsilon"] = check_nonnegative_finite("epsilon", given["epsilon"])
    if given["delta"] is not None:
        values["delta"] = check_unit_interval("delta", given["delta"])
    if given["claim"] is not None:  # the claim it states, at the point epsilon= / delta= name on a curve claim
        values["claim"] = stated_claim(given["claim"], values["epsilon"], values["delta"])
        values["epsilon"] = values["delta"] = None
    values["samples"] = _samples("samples", given["samples"], DEFAULT_SAMPLES)
    if given["search_samples"] is not None:
        values["search_samples"] = _samples("search_samples", given["search_samples"], None)
    values["candidates"] = check_positive_int("candidates", given["candidates"])
    if values["candidates"] > SEARCH_EVENTS:
        raise InvalidArgument(f"candidates={given['candidates']!r} must be at most {SEARCH_EVENTS} "
                              "(the events the search scores)")
    if given["workers"] is not None:
        check_positive_int("workers", given["workers"])
    values["early_stopping"] = check_flag("early_stopping", given["early_stopping"])
    if given["randomness"] is not None:
        check_one_of("randomness", given["randomness"], RANDOMNESS)
    values["learned"], values["curve"] = check_flag("learned", given["learned"]), check_flag("curve", given["curve"])
    if given["progress"] is not None and not is_flag(given["progress"]):
        raise InvalidArgument(f"progress={given['progress']!r} must be True, False or None "
                              "(a bar when stderr is a terminal)")
    values["checks"] = check_names(given["checks"])
    values["seed"] = fresh_seed() if given["seed"] is None else check_nonnegative_int("seed", given["seed"])
    if given["checkpoint"] is not None:
        values["checkpoint"] = check_output_file("checkpoint", given["checkpoint"])
    check_one_of("method", given["method"], METHODS)
    if given["time_limit"] is not None:
        values["time_limit"] = check_positive_finite("time_limit", given["time_limit"])
    values["connect_timeout"] = check_positive_finite("connect_timeout", given["connect_timeout"])
    return values


def _samples(name: str, value: Any, default: int | None) -> int:
    """A sample size per side in [MIN_SAMPLES, MAX_SAMPLES] (``default`` when None)."""
    n = default if value is None else check_positive_int(name, value)
    if not MIN_SAMPLES <= n <= MAX_SAMPLES:
        raise InvalidArgument(f"{name}={value!r} must be at least {MIN_SAMPLES} and at most {MAX_SAMPLES:.0e}")
    return n

