"""``certify``: the epsilon of a sampler's own code, bounded from above by exact path enumeration.

The sampler runs once per path on an instrumented random source (:mod:`.source`); its paths are
enumerated best first with exact rational probabilities, loops merged into a Markov chain and helpers
summarised (:mod:`.law`); the two inputs' laws bound epsilon and delta (:mod:`.certificate`).  What
the code does is what is measured: the float comparisons, the rounding of ``log``, the draws a
rejection loop makes.

What cannot be certified, and why: a continuous output (each value of ``random()`` a different output:
there is nothing finite to enumerate); a vectorised sampler (``size=``: one path would be a whole
array); one value computed from several uniforms (``u1 + u2`` is not monotone in either, so a
comparison of it does not split one interval).  Each stops the enumeration of that mass with its reason;
the result is then "unknown", never a wrong "certified".
"""

from __future__ import annotations

import inspect
import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..claims import FLOAT_TOLERANCE, ApproxDP, Claim, PureDP
from .._validation import short_repr
from ..errors import InvalidArgument, MechanismError
from ..mechanisms.base import Mechanism
from ..targets import load_target, restated_point, stated_claim
from .certificate import delta_bounds, fraction_down, fraction_up, loss_mass_bounds, pair_bounds
from .law import Budget, Law, Summaries, enumerate_law
from .result import CertifyResult, InputLaw, OutcomeBound, Verdict, Witness, bracket_text
from .source import InstrumentedSource, patched_globals

__all__ = ["DEFAULT_TIME_LIMIT", "DEFAULT_TOLERANCE", "certify"]

#: Enumerate each input until its unexplored mass is at most this (or the budget ends).
DEFAULT_TOLERANCE = 1e-12
#: Seconds of enumeration per input of the pair.
DEFAULT_TIME_LIMIT = 30.0
DEFAULT_MAX_PATHS = 500_000
OBSERVED = ("output", "draws")


def certify(
    target: Any,
    *,
    pair: tuple[Any, Any] | None = None,
    pairs: Sequence[tuple[Any, Any]] | None = None,
    claim: Claim | None = None,
    epsilon: float | None = None,
    delta: float | None = None,
    observe: str = "output",
    summarise: Iterable[Callable[..., Any]] | str | bool = "auto",
    tolerance: float = DEFAULT_TOLERANCE,
    time_limit: float = DEFAULT_TIME_LIMIT,
    max_paths: int = DEFAULT_MAX_PATHS,
    named: str | None = None,
) -> CertifyResult:
    """Certify or refute the claim of a sampler's own code on neighbouring inputs, exactly.

    Parameters
    ----------
    target
        A one-run sampler ``f(data, rng)`` (``rng`` a ``random.Random``, or a numpy ``Generator`` used
        with scalar calls) or ``f(data)`` drawing from the global ``random`` functions; a
        ``"file.py:f"`` / ``"module:f"`` name; a catalogue name or a :class:`~dpaudit.Mechanism` with
        a one-run sampler (``Mechanism.one_run``).
    pair, pairs
        The neighbouring inputs (a, b), or several pairs: the bounds are the worst over them.  A
        Mechanism's recommended pairs are used when none is given.  The certificate covers the pairs
        enumerated: DP over a whole neighbour relation needs every pair of it.
    claim, epsilon, delta
        The claim: ``claim=`` a point claim (PureDP, ApproxDP), or ``epsilon=`` / ``delta=``; a
        Mechanism's own claim otherwise.  Without a claim the result brackets epsilon, verdict unknown.
    observe
        ``"output"``, or ``"draws"``: the adversary also sees how many draws the sampler made (a
        timing side channel); the law is then that of (output, number of draws).
    summarise
        ``"auto"``: the other functions of the sampler's module are summarised (one exact law per
        argument tuple); a list of functions (their modules' names are patched); ``False``: none.
        Summarising assumes a helper's result depends only on its arguments and its draws.
    tolerance, time_limit, max_paths
        Enumerate each input until its unexplored mass is at most ``tolerance``, or for ``time_limit``
        seconds, or ``max_paths`` paths.
    named
        How the user named the target (``"mine.py:f"``), for the messages and the result, when ``target``
        is the object already loaded.

    Returns
    -------
    CertifyResult
        ``certified`` when the hockey-stick delta at the claimed epsilon is certified at most the claimed
        delta (pure: every output enumerated, no ratio above e^epsilon), ``refuted`` when it is certified
        above it (with the output, both probability intervals and a path), else ``unknown``.
    """
    started = time.monotonic()
    request = _request(target, pair, pairs, claim, epsilon, delta, observe, summarise, tolerance, time_limit,
                       max_paths, named)
    inputs = _distinct_inputs(request.pairs)
    laws: dict[Any, tuple[Law, int, float]] = {}
    for key, data in inputs.items():
        laws[key] = _enumerate(request, data)
        _check_ran(request, data, laws[key][0])
    return _result(request, inputs, laws, time.monotonic() - started)


def _check_ran(request: _Request, data: Any, law: Law) -> None:
    """A sampler that raised on every path of an input was given a bad input (or is broken): said so."""
    if law.outcomes or not law.reasons:
        return
    side = next((name for pair in request.pairs for name, x in zip("ab", pair) if x is data), None)
    named = f"{side}={short_repr(data)}" if side else f"input {short_repr(data)}"
    for _, reason in law.reasons:
        if "the sampler raised" in reason:
            raise MechanismError(f"target={request.name!r}: on {named} the sampler reached no output: {reason}")


@dataclass(frozen=True)
class _Request:
    name: str
    sampler: Callable[..., Any]
    takes_rng: bool
    pairs: tuple[tuple[Any, Any], ...]
    claim: Claim | None
    observe_draws: bool
    helpers: tuple[Callable[..., Any], ...]
    tolerance: Fraction
    time_limit: float
    max_paths: int


def _request(target: Any, pair: Any, pairs: Any, claim: Any, epsilon: Any, delta: Any, observe: str,
             summarise: Any, tolerance: float, time_limit: float, max_paths: int, named: str | None) -> _Request:
    if observe not in OBSERVED:
        raise InvalidArgument(f"observe={observe!r} must be one of {', '.join(map(repr, OBSERVED))}")
    if not (isinstance(tolerance, (int, float)) and 0 <= tolerance < 1):
        raise InvalidArgument(f"tolerance={tolerance!r} must be a number in [0, 1) (the unexplored mass to stop at)")
    if not (isinstance(time_limit, (int, float)) and math.isfinite(time_limit) and time_limit > 0):
        raise InvalidArgument(f"time_limit={time_limit!r} must be a positive finite number of seconds")
    if not (isinstance(max_paths, int) and max_paths > 0):
        raise InvalidArgument(f"max_paths={max_paths!r} must be a positive integer")
    loaded = load_target(target)
    name = named or (target if isinstance(target, str) else getattr(loaded, "name", None) or getattr(
        loaded, "__qualname__", None) or type(loaded).__name__)
    own_claim: Claim | None = None
    own_pairs: tuple = ()
    if isinstance(loaded, Mechanism):
        sampler = getattr(loaded, "one_run", None)
        if sampler is None:
            raise InvalidArgument(
                f"target={name!r} has no one-run sampler (Mechanism.one_run): certify enumerates a function "
                "f(data, rng) that draws scalars from rng; its sampler draws n outputs at once"
            )
        own_claim, own_pairs = loaded.claim, tuple(loaded.pairs)
    elif isinstance(loaded, type):
        # a class is callable, but calling it builds an object: it is no sampler of one output
        raise InvalidArgument(
            f"target={name!r} is a class; certify needs a function f(data, rng) that returns one output"
        )
    elif callable(loaded):
        sampler = loaded
    else:
        raise InvalidArgument(f"target={target!r} is neither a function f(data, rng) nor a Mechanism")
    takes_rng = _takes_rng(name, sampler)
    chosen = _pairs(name, pair, pairs, own_pairs)
    return _Request(
        name=str(name),
        sampler=sampler,
        takes_rng=takes_rng,
        pairs=chosen,
        claim=_claim(claim, epsilon, delta, own_claim),
        observe_draws=observe == "draws",
        helpers=_helpers(sampler, summarise),
        tolerance=Fraction(tolerance),
        time_limit=float(time_limit),
        max_paths=max_paths,
    )


def _takes_rng(name: str, sampler: Callable[..., Any]) -> bool:
    try:
        signature = inspect.signature(sampler)
    except (TypeError, ValueError):
        return True
    for count, takes in ((2, True), (1, False)):
        try:
            signature.bind(*range(count))
            return takes
        except TypeError:
            continue
    raise InvalidArgument(f"target={name!r} must be called as f(data, rng) or f(data); its signature is {signature}")


def _pairs(name: str, pair: Any, pairs: Any, own: tuple) -> tuple[tuple[Any, Any], ...]:
    if pair is not None and pairs is not None:
        raise InvalidArgument("give pair= or pairs=, not both")
    chosen = [pair] if pair is not None else list(pairs) if pairs is not None else list(own)
    if not chosen:
        raise InvalidArgument(f"target={name!r}: the neighbouring inputs to enumerate are required: pair=(a, b) "
                              "(on the command line --a and --b)")
    for item in chosen:
        if not (isinstance(item, (tuple, list)) and len(item) == 2):
            raise InvalidArgument(f"pair={item!r} must be two inputs (a, b)")
    return tuple((a, b) for a, b in chosen)


def _claim(claim: Any, epsilon: Any, delta: Any, own: Claim | None) -> Claim | None:
    if claim is not None:
        chosen = stated_claim(claim, epsilon, delta)
    elif own is not None:
        chosen = own if epsilon is None and delta is None else restated_point(own, epsilon, delta)
    elif epsilon is not None:
        chosen = ApproxDP(epsilon, delta) if delta else PureDP(epsilon)
    elif delta is not None:
        raise InvalidArgument("delta= alone states no claim: give epsilon= too")
    else:
        return None
    if chosen.is_curve:
        raise InvalidArgument(
            f"claim {chosen} is a curve: certify checks one (epsilon, delta) point of it; give epsilon= or delta="
        )
    return chosen


def _helpers(sampler: Callable[..., Any], summarise: Any) -> tuple[Callable[..., Any], ...]:
    if summarise is False or summarise is None:
        return ()
    function = inspect.unwrap(getattr(sampler, "func", sampler))
    if summarise == "auto":
        return _module_helpers(function)
    if isinstance(summarise, str):
        raise InvalidArgument(f"summarise={summarise!r} must be 'auto', False or a list of functions")
    helpers = tuple(summarise)
    for helper in helpers:
        if not inspect.isfunction(helper):
            raise InvalidArgument(f"summarise= lists {helper!r}, which is not a Python function")
    return helpers


_LIBRARIES = frozenset(sys.stdlib_module_names) | {"numpy", "scipy", "sympy", "mpmath", "dpaudit.certifier"}


def _module_helpers(function: Callable[..., Any]) -> tuple[Callable[..., Any], ...]:
    """The functions of the sampler's module, and of the modules of the functions its code reaches.

    So a sampler ``x + discrete_laplace(t, s, rng)`` that imported ``discrete_laplace`` from a module
    of helpers has that module's functions summarised too, and so does a closure calling another
    closure (``inner(data, rng)``, ``selection.one_run(...)``) defined in a module of helpers (see
    :func:`_reached`); the standard library and numpy are not.
    """
    modules = {getattr(f, "__module__", None) for f in _reached(function)}
    modules = {m for m in modules if m and not _is_library(m)}
    namespace = getattr(function, "__globals__", {})
    found: dict[int, Callable[..., Any]] = {}
    for module_name in modules:
        module = sys.modules.get(module_name)
        for value in vars(module).values() if module is not None else namespace.values():
            if inspect.isfunction(value) and value.__module__ == module_name and value is not function:
                found[id(value)] = value
    return tuple(found.values())


def _is_library(module_name: str) -> bool:
    return any(module_name == lib or module_name.startswith(lib + ".") for lib in _LIBRARIES)


def _reached(function: Callable[..., Any]) -> list[Callable[..., Any]]:
    """The Python functions the sampler's code can reach by name, the sampler first, outside the libraries.

    From a function: the globals its code names, the values of its closure cells, and the attributes its
    code names of those values (``selection.one_run``, ``helpers.draw``: attributes the sampler's own code
    reads when it runs, so reading them here runs nothing the sampler would not); then the same from every
    function found.
    """
    seen: dict[int, Callable[..., Any]] = {}
    work = [function]
    while work:
        current = work.pop()
        if id(current) in seen or not inspect.isfunction(current):
            continue
        seen[id(current)] = current
        code = current.__code__
        names = _global_names(code)
        namespace = current.__globals__
        values = [namespace[n] for n in names if n in namespace]
        for cell in current.__closure__ or ():
            try:
                values.append(cell.cell_contents)
            except ValueError:  # an empty cell
                continue
        for value in values:
            if inspect.isfunction(value):
                if not _is_library(value.__module__ or ""):
                    work.append(value)
                continue
            if isinstance(value, type) or _is_library(getattr(value, "__name__", "") if inspect.ismodule(value)
                                                      else type(value).__module__ or ""):
                continue
            for name in names:
                try:
                    attribute = getattr(value, name, None)
                except Exception:  # an attribute that cannot be read here is not followed
                    continue
                if inspect.isfunction(attribute) and not _is_library(attribute.__module__ or ""):
                    work.append(attribute)
    return list(seen.values())


def _global_names(code: Any) -> set[str]:
    if code is None:
        return set()
    names = set(code.co_names)
    for constant in code.co_consts:
        if inspect.iscode(constant):
            names |= _global_names(constant)
    return names


def _hashable_input(value: Any) -> Any:
    if isinstance(value, list):
        return ("list", tuple(_hashable_input(v) for v in value))
    if hasattr(value, "tolist"):
        return ("array", repr(value.tolist()))
    try:
        hash(value)
    except TypeError:
        return ("repr", repr(value))
    return value


def _enumerate(request: _Request, data: Any) -> tuple[Law, int, float]:
    """The law of the sampler on ``data``, its summaries' path count and the seconds it took."""
    started = time.monotonic()
    deadline = started + request.time_limit
    source = InstrumentedSource()
    helper_budget = Budget(tolerance=request.tolerance / 1000, max_paths=request.max_paths, deadline=deadline,
                           finish_paths=0)
    summaries = Summaries(observe_draws=request.observe_draws, budget=helper_budget)
    function = inspect.unwrap(getattr(request.sampler, "func", request.sampler))
    namespaces = _namespaces(function, request.helpers)
    wrapped = {id(h): summaries.wrap(h) for h in request.helpers}
    saved: list[tuple[dict[str, Any], str, Any]] = []
    for namespace in namespaces:
        for key, value in list(namespace.items()):
            if id(value) in wrapped:
                saved.append((namespace, key, value))
                namespace[key] = wrapped[id(value)]
    args = (data, source) if request.takes_rng else (data,)
    try:
        with patched_globals(namespaces, source):
            law = enumerate_law(request.sampler, args, summaries=summaries, observe_draws=request.observe_draws,
                                budget=Budget(tolerance=request.tolerance, max_paths=request.max_paths,
                                              deadline=deadline))
    finally:
        for namespace, key, value in reversed(saved):
            namespace[key] = value
    # what a summarised helper could not follow is said too (its mass is that of each call's own law)
    law.reasons.extend((mass, f"{reason} (on {float(mass):.3g} of that call's law)")
                       for reason, mass in summaries.reasons.items())
    return law, summaries.paths, time.monotonic() - started


def _namespaces(function: Callable[..., Any], helpers: tuple[Callable[..., Any], ...]) -> list[dict[str, Any]]:
    found: dict[int, dict[str, Any]] = {}
    for item in (*_reached(function), *helpers):
        namespace = getattr(item, "__globals__", None)
        if namespace is not None:
            found[id(namespace)] = namespace
    return list(found.values())


def _input_law(data: Any, law: Law, summary_paths: int, seconds: float) -> InputLaw:
    ordered = sorted(law.outcomes.items(), key=lambda item: -item[1])
    residual = law.residual
    return InputLaw(
        input=data,
        outcomes=tuple(
            OutcomeBound(outcome, fraction_down(p), min(1.0, fraction_up(p + residual))) for outcome, p in ordered
        ),
        residual=min(1.0, fraction_up(residual)),
        complete=law.complete,
        paths=law.paths,
        summary_paths=summary_paths,
        nodes=law.nodes,
        seconds=seconds,
        set_aside=tuple((fraction_up(p), reason) for p, reason in law.reasons[:5]),
        stopped_by=law.stopped_by,
    )


def _result(request: _Request, inputs: dict[Any, Any], laws: dict[Any, tuple[Law, int, float]],
            seconds: float) -> CertifyResult:
    epsilon_low, epsilon_up, delta_up = 0.0, 0.0, 0.0
    delta_at_claim: tuple[float, float] | None = None
    delta_at_slack: tuple[float, float] | None = None
    witness: Witness | None = None
    for a, b in request.pairs:
        law_a, law_b = laws[_hashable_input(a)][0], laws[_hashable_input(b)][0]
        bounds = pair_bounds(law_a, law_b)
        if bounds.epsilon_low >= epsilon_low and bounds.witness is not None:
            x, y, law_x, law_y = (a, b, law_a, law_b) if bounds.witness_forward else (b, a, law_b, law_a)
            witness = Witness(
                outcome=bounds.witness,
                input_x=x,
                input_y=y,
                interval_x=_interval(law_x, bounds.witness),
                interval_y=_interval(law_y, bounds.witness),
                ratio_low=bounds.epsilon_low,
                path=law_x.witnesses.get(bounds.witness, ()),
            )
        epsilon_low = max(epsilon_low, bounds.epsilon_low)
        if bounds.epsilon_up >= epsilon_up:
            epsilon_up, delta_up = bounds.epsilon_up, max(delta_up, bounds.delta_up)
        if request.claim is not None:
            # what the claim bounds by delta: the hockey-stick divergence, or for probabilistic DP the
            # probability of the outputs whose privacy loss exceeds epsilon
            bounds_of = loss_mass_bounds if request.claim.bounds_loss_per_output else delta_bounds
            low, up = bounds_of(law_a, law_b, request.claim.epsilon)
            delta_at_claim = (low, up) if delta_at_claim is None else (
                max(delta_at_claim[0], low), max(delta_at_claim[1], up))
            low, up = bounds_of(law_a, law_b, request.claim.epsilon * (1 + FLOAT_TOLERANCE))
            delta_at_slack = (low, up) if delta_at_slack is None else (
                max(delta_at_slack[0], low), max(delta_at_slack[1], up))
    verdict, reason = _decide(request, delta_at_claim, delta_at_slack, epsilon_low, epsilon_up, delta_up, laws)
    return CertifyResult(
        target=request.name,
        claim=request.claim,
        pairs=request.pairs,
        verdict=verdict,
        reason=reason,
        epsilon_low=epsilon_low,
        epsilon_up=epsilon_up,
        delta_up=delta_up,
        delta_at_claim=delta_at_claim,
        observed="output and number of draws" if request.observe_draws else "output",
        laws=tuple(_input_law(data, *laws[key]) for key, data in inputs.items()),
        witness=witness,
        seconds=seconds,
    )


def _distinct_inputs(pairs: tuple[tuple[Any, Any], ...]) -> dict[Any, Any]:
    """The inputs of the pairs, each once (keyed by :func:`_hashable_input`), in their order."""
    seen: dict[Any, Any] = {}
    for pair in pairs:
        for x in pair:
            seen.setdefault(_hashable_input(x), x)
    return seen


def _interval(law: Law, outcome: Any) -> tuple[float, float]:
    low, high = law.interval(outcome)
    return fraction_down(low), min(1.0, fraction_up(high))


def _decide(request: _Request, delta_at_claim: tuple[float, float] | None,
            delta_at_slack: tuple[float, float] | None, epsilon_low: float, epsilon_up: float, delta_up: float,
            laws: dict[Any, tuple[Law, int, float]]) -> tuple[Verdict, str]:
    """The one rule: certified iff delta_up(claimed eps) <= claimed delta; refuted iff delta_low > it.

    Claims are floats: as everywhere in dpaudit (:data:`dpaudit.claims.FLOAT_TOLERANCE`), the claim is
    read at epsilon (1 + 1e-12) and delta (1 + 1e-12), so that a code whose probability ratio is the
    claimed e^epsilon up to the rounding of the claim's own float is neither refuted nor left unknown.
    """
    left = max(law.residual for law, _, _ in laws.values())
    reasons = [reason for law, _, _ in laws.values() for _, reason in law.reasons[:1]]
    bracket = bracket_text(epsilon_low, epsilon_up, delta_up)
    if request.claim is None or delta_at_claim is None or delta_at_slack is None:
        return Verdict.UNKNOWN, f"no claim given: the code's {bracket} on the pairs enumerated"
    claim = request.claim
    claimed_delta = claim.delta * (1 + FLOAT_TOLERANCE)
    bounded = ("the probability of an output whose privacy loss exceeds epsilon" if claim.bounds_loss_per_output
               else "the hockey-stick delta")
    low, up = delta_at_slack
    rounding = "" if delta_at_claim[1] <= claim.delta else (
        f"; within the claim's float rounding ({FLOAT_TOLERANCE:g} relative): at epsilon={claim.epsilon!r} exactly "
        f"the delta is <= {delta_at_claim[1]:.3g}"
    )
    if low > claimed_delta:
        if claim.delta == 0:
            return Verdict.REFUTED, (f"an output's probability ratio is certified above e^{claim.epsilon:g}: "
                                     f"epsilon >= {epsilon_low:.10g} on this pair")
        return Verdict.REFUTED, (f"{bounded} at epsilon={claim.epsilon:g} is certified >= {low:.6g} "
                                 f"> {claim.delta:g}")
    if up <= claimed_delta:
        if claim.delta == 0:
            return Verdict.CERTIFIED, (f"every path enumerated and no output's probability ratio exceeds "
                                       f"e^{claim.epsilon:g}: the code is {claim.epsilon:g}-DP on the pairs "
                                       f"enumerated ({bracket}){rounding}")
        return Verdict.CERTIFIED, (f"{bounded} at epsilon={claim.epsilon:g} is certified <= {up:.6g} "
                                   f"<= {claim.delta:g} on the pairs enumerated ({bracket}){rounding}")
    why = f"; set aside: {reasons[0]}" if reasons else ""
    stopped = {law.stopped_by for law, _, _ in laws.values()} - {"complete", "tolerance"}
    # Every path followed to its end or to a node of a loop, no helper summarised (their own residuals are cut
    # tails), nothing set aside: the mass left is exactly that of never leaving the loops reached.
    endless = [(x, law.residual) for x, (law, summary_paths, _) in laws.items()
               if law.stopped_by == "complete" and law.residual > 0 and not law.reasons and summary_paths == 0]
    if endless:
        hint = "; " + ", ".join(f"on input {x!r} the sampler never returns with probability {float(mass):.3g}"
                                for x, mass in endless) + " (every path explored: a loop it cannot leave)"
    elif stopped:
        hint = f"; the enumeration stopped at its {' and '.join(sorted(stopped))}"
    elif reasons:  # what was set aside is the cause: more paths would not follow it
        hint = ""
    else:
        hint = "; to close it, enumerate every path (tolerance=0, when the sampler's loops end) or state a delta"
    if claim.delta == 0 and not math.isinf(epsilon_up) and epsilon_up <= claim.epsilon * (1 + FLOAT_TOLERANCE):
        return Verdict.UNKNOWN, (f"the code is ({epsilon_up:.10g}, {delta_up:.3g})-DP on the pairs enumerated, but "
                                 f"pure {claim.epsilon:g}-DP needs the unexplored mass ({float(left):.3g}) closed"
                                 f"{why}{hint}")
    return Verdict.UNKNOWN, (f"{bounded} at epsilon={claim.epsilon:g} (read with the claim's float rounding, "
                             f"{FLOAT_TOLERANCE:g} relative) lies in [{low:.3g}, {up:.3g}], which contains the claimed "
                             f"{claim.delta:g}: unexplored mass {float(left):.3g}{why}{hint}")
