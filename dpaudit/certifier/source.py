"""The random source, instrumented: the primitives a sampler draws through, as symbolic draws.

:class:`InstrumentedSource` is a :class:`random.Random` whose primitives draw :class:`~.symbolic.Symbolic`
values from the current enumeration run, and which also answers numpy ``Generator``'s scalar calls:

=====================================  ==========================================================
call                                   exact law (CPython 3.11 / numpy 2: read from their sources)
=====================================  ==========================================================
``random()``                           ``j / 2**53``, ``j`` uniform on ``[0, 2**53)`` (both)
``getrandbits(k)``                     ``j`` uniform on ``[0, 2**k)``
``randrange(a, b, step)``, ``randint``  ``a + step * j``, ``j`` uniform (rejection from random bits)
``choice(seq)``, ``shuffle``, ``sample``  uniform indices through ``_randbelow``
``choices(pop, weights)``              ``bisect(cum_weights, random() * total)``: the library's own
                                       float code runs on the symbolic ``random()``
``uniform(a, b)``                      ``a + (b - a) * random()``
``integers(lo, hi, endpoint=False)``   ``lo + j`` (Lemire's method with rejection: exactly uniform)
``choice(a, p=...)`` (numpy)           ``searchsorted(cumsum(p) / sum, random(), 'right')``
=====================================  ==========================================================

A vectorised call (``size=`` other than None) or a sampler the library draws in another way (numpy's
ziggurat normals and exponentials, ``gauss``, ``expovariate``'s C ``log``) is refused with a one-line
reason.  For samplers that use the global ``random`` functions, :func:`patched_globals` binds them, and
the ``math`` functions of the sampler's module, to versions that follow symbolic values, for the run.
"""

from __future__ import annotations

import bisect
import contextlib
import math
import random
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from .paths import current_run
from .symbolic import Symbolic, Unsupported

__all__ = ["InstrumentedSource", "patched_globals", "symbolic_math"]

_GRID = 2**53


def _draw(size: int, label: str, fn: Callable[[int], Any], caller: types.FrameType | None,
          event: tuple) -> Symbolic:
    run = current_run()
    draw = run.new_draw(size, label, caller, event)
    return Symbolic(run, draw, fn, draw.label)


def _refuse_size(name: str, size: Any) -> None:
    if size is not None:
        raise Unsupported(
            f"{name}(size={size!r}) is a vectorised draw; certify follows one run with scalar draws "
            "(write the sampler for one output, or give the mechanism a one-run sampler)"
        )


class InstrumentedSource(random.Random):
    """A ``random.Random`` (and numpy-``Generator``-like) source whose draws are enumerated exactly."""

    _dpaudit_source = True

    def __init__(self) -> None:
        super().__init__(0)

    def __repr__(self) -> str:
        return "rng"

    def seed(self, *args: Any, **kwargs: Any) -> None:  # seeding changes nothing: every path is enumerated
        return None

    def getstate(self) -> Any:
        raise Unsupported("getstate(): the state of an enumerated random source cannot be saved")

    def setstate(self, state: Any) -> None:
        raise Unsupported("setstate(): the state of an enumerated random source cannot be restored")

    # -- random.Random -------------------------------------------------------------------------------
    def random(self, size: Any = None) -> Symbolic:  # type: ignore[override]
        _refuse_size("random", size)
        return _draw(_GRID, "random()", lambda j: j * 2.0**-53, sys._getframe(1), ("random",))

    def getrandbits(self, k: int) -> Symbolic:  # type: ignore[override]
        k = int(k)
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        return _draw(2**k, f"getrandbits({k})", lambda j: j, sys._getframe(1), ("getrandbits", k))

    def _randbelow(self, n: int) -> Symbolic:  # type: ignore[override]
        return _draw(int(n), f"randbelow({n})", lambda j: j, sys._getframe(2), ("randbelow", int(n)))

    def randrange(self, start: int, stop: int | None = None, step: int = 1) -> Symbolic:  # type: ignore[override]
        start, stop = (0, int(start)) if stop is None else (int(start), int(stop))
        step = int(step)
        if step == 0:
            raise ValueError("zero step for randrange()")
        count = (stop - start + step - (1 if step > 0 else -1)) // step
        if count <= 0:
            raise ValueError(f"empty range in randrange({start}, {stop}, {step})")
        label = f"randrange({start}, {stop})" if step == 1 else f"randrange({start}, {stop}, {step})"
        return _draw(count, label, lambda j: start + step * j, sys._getframe(1), ("randrange", start, stop, step))

    def randint(self, a: int, b: int) -> Symbolic:  # type: ignore[override]
        a, b = int(a), int(b)
        return _draw(b - a + 1, f"randint({a}, {b})", lambda j: a + j, sys._getframe(1), ("randint", a, b))

    def uniform(self, a: float, b: float) -> Any:  # type: ignore[override]
        u = _draw(_GRID, "random()", lambda j: j * 2.0**-53, sys._getframe(1), ("uniform",))
        return a + (b - a) * u

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None) -> Any:  # type: ignore[override]
        """``random.Random.choice(seq)`` and numpy's scalar ``Generator.choice(a, p=...)``."""
        _refuse_size("choice", size)
        population: Sequence[Any] = range(int(a)) if isinstance(a, int) else a
        n = len(population)
        if n == 0:
            raise IndexError("Cannot choose from an empty sequence")
        caller = sys._getframe(1)
        if p is None:
            index = _draw(n, f"choice of {n}", lambda j: j, caller, ("choice", n))
        else:
            weights = [float(w) for w in p]
            cdf = list(_cumsum(weights))
            total = cdf[-1]
            cdf = [c / total for c in cdf]
            u = _draw(_GRID, "random()", lambda j: j * 2.0**-53, caller, ("choice-p", tuple(cdf)))
            index = bisect.bisect_right(cdf, u)
        return population[index]

    # -- numpy Generator, scalar calls ---------------------------------------------------------------
    def integers(self, low: int, high: int | None = None, size: Any = None, dtype: Any = None,
                 endpoint: bool = False) -> Symbolic:
        _refuse_size("integers", size)
        low, high = (0, int(low)) if high is None else (int(low), int(high))
        if endpoint:
            high += 1
        if high <= low:
            raise ValueError("high <= low")
        return _draw(high - low, f"integers({low}, {high})", lambda j: low + j, sys._getframe(1),
                     ("integers", low, high))

    def __getattr__(self, name: str) -> Any:
        raise Unsupported(
            f"the sampler calls rng.{name}(), which certify does not follow: only random(), getrandbits(), "
            "randrange(), randint(), choice(), choices(), shuffle(), sample(), uniform() and numpy's "
            "integers() draw through one uniform exactly"
        )

    for _name in ("gauss", "normalvariate", "lognormvariate", "expovariate", "vonmisesvariate",
                  "gammavariate", "betavariate", "paretovariate", "weibullvariate", "triangular",
                  "binomialvariate", "randbytes", "standard_normal", "normal", "exponential",
                  "laplace", "geometric", "binomial", "poisson", "bytes", "permutation"):
        locals()[_name] = property(lambda self, _n=_name: self.__getattr__(_n))
    del _name


def _cumsum(values: list[float]) -> Iterator[float]:
    total = 0.0
    for value in values:
        total += value
        yield total


# -- the math functions, following symbolic values -------------------------------------------------
def _follow(name: str) -> Callable[..., Any]:
    original = getattr(math, name)

    def function(x: Any, *rest: Any) -> Any:
        if isinstance(x, Symbolic) and not rest:
            return getattr(x, name)()
        if any(isinstance(v, Symbolic) for v in rest) or isinstance(x, Symbolic):
            raise Unsupported(f"math.{name} with several arguments of a draw")
        return original(x, *rest)

    function.__name__ = name
    function.__wrapped__ = original  # type: ignore[attr-defined]
    return function


_FOLLOWED = ("log", "log1p", "log2", "log10", "exp", "expm1", "sqrt", "floor", "ceil")


def symbolic_math() -> types.ModuleType:
    """A stand-in for the ``math`` module whose monotone functions accept symbolic values."""
    module = types.ModuleType("math")
    module.__dict__.update({k: v for k, v in vars(math).items() if not k.startswith("__")})
    for name in _FOLLOWED:
        setattr(module, name, _follow(name))
    return module


_MATH = symbolic_math()


@contextlib.contextmanager
def patched_globals(namespaces: list[dict[str, Any]], source: InstrumentedSource) -> Iterator[None]:
    """Inside: the module-level ``random`` functions draw from ``source``, and in each namespace the names
    bound to ``math`` or to its followed functions or to ``random``'s functions follow symbolic values."""
    saved: list[tuple[dict[str, Any], str, Any]] = []
    random_functions = {
        id(getattr(random, name)): getattr(source, name)
        for name in ("random", "getrandbits", "randrange", "randint", "choice", "choices", "shuffle",
                     "sample", "uniform")
    }
    math_functions = {id(getattr(math, name)): getattr(_MATH, name) for name in _FOLLOWED}
    namespaces = [vars(random), *namespaces]
    try:
        for namespace in namespaces:
            for name, value in list(namespace.items()):
                replacement = None
                if value is math:
                    replacement = _MATH
                elif id(value) in random_functions and not (namespace is vars(random) and name.startswith("_")):
                    replacement = random_functions[id(value)]
                elif id(value) in math_functions:
                    replacement = math_functions[id(value)]
                if replacement is not None:
                    saved.append((namespace, name, value))
                    namespace[name] = replacement
        yield
    finally:
        for namespace, name, value in reversed(saved):
            namespace[name] = value
