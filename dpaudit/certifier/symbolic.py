"""A value computed from one random draw, followed through the sampler's own operations.

Every primitive of the random source draws an integer ``j`` uniform on ``[0, size)``: ``random()`` is
``j / 2**53`` (CPython's ``random.Random.random`` and numpy's ``Generator.random`` both return
``j * 2**-53`` for ``j`` uniform below ``2**53``), ``randrange(n)`` and ``integers(lo, hi)`` are
``lo + j`` (both exactly uniform: rejection from random bits).  A :class:`Symbolic` stands for
``fn(j)``, where ``fn`` is the *real* chain of Python operations the sampler applied to the draw
(``1 - u``, ``math.log``, ``* c``, ``math.floor``, ...), so the code's own rounding is what is measured.

Only monotone steps are followed (adding, subtracting or multiplying by a constant, dividing, ``log``,
``exp``, ``sqrt``, ``floor``, ``ceil``, ``abs`` and powers where the sign does not change), so ``fn`` is
monotone in ``j``.  Then a comparison ``fn(j) < c`` holds on a prefix or a suffix of the draw's current
interval, found by bisection over the integers with the real float operations (about 53 evaluations),
and splits the interval in two: the run branches, each side with probability (points kept) / (points
before).  A value that must become a number (an index, ``int()``, an output) takes the value
``fn(lo)`` on the run of grid points where ``fn`` equals it, and the rest of the interval is another branch.
A step that is not monotone or mixes two draws stops the run with a one-line reason
(:class:`Unsupported`): the enumeration then says "unknown" for that mass, never a wrong number.
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable
from fractions import Fraction
from typing import Any

__all__ = ["Draw", "Symbolic", "Unsupported", "is_symbolic"]

#: A value with at most this many points left in its interval may be made concrete to combine it with
#: another draw (each point a branch); above it, a step mixing two draws is refused.
SMALL_INTERVAL = 4096

#: A concrete value reached over a single grid point of an interval at least this large means a
#: (nearly) continuous value reached the output or a conversion: enumerating it is hopeless.
CONTINUOUS_INTERVAL = 2**20


class Unsupported(Exception):
    """The sampler did something the enumeration cannot follow exactly; the message says what and where."""


class Draw:
    """One call to a primitive of the random source: an integer uniform on ``[0, size)``."""

    __slots__ = ("index", "size", "label")

    def __init__(self, index: int, size: int, label: str) -> None:
        self.index = index
        self.size = size
        self.label = label

    def __repr__(self) -> str:
        return f"Draw({self.label}, size={self.size})"


def is_symbolic(value: Any) -> bool:
    return isinstance(value, Symbolic)


def _monotone(name: str) -> Callable[[Any], Any]:
    """The method applying a monotone function ``name`` of the math module (or of abs/neg)."""
    function = getattr(math, name)

    def method(self: Symbolic) -> Symbolic:
        return self._then(function, name, check_sign=False)

    method.__name__ = name
    return method


class Symbolic:
    """``fn(j)`` for the draw ``j`` of :attr:`draw`, a monotone function given by the sampler's own code.

    ``run`` is the :class:`~.paths.Run` the draw belongs to: it holds the draw's interval and decides
    the branches.
    """

    __slots__ = ("run", "draw", "fn", "text")

    def __init__(self, run: Any, draw: Draw, fn: Callable[[int], Any], text: str) -> None:
        self.run = run
        self.draw = draw
        self.fn = fn
        self.text = text

    # -- what the enumeration asks -------------------------------------------------------------
    def interval(self) -> tuple[int, int]:
        return self.run.interval(self.draw)

    def ends(self) -> tuple[Any, Any]:
        """``fn`` at both ends of the interval, after the run has set aside an end where the code raises."""
        return self.run.ends(self)

    def concrete(self, where: str) -> Any:
        """The value, made concrete: a branch over the runs of grid points on which it is constant."""
        return self.run.concretize(self, where)

    def compare(self, op: Callable[[Any, Any], bool], other: Any, symbol: str) -> bool:
        other = self._constant(other, symbol)
        if isinstance(other, _Mine):  # this value was made concrete to meet another draw
            return bool(op(other.mine, other.theirs))
        fn = self.fn
        return self.run.split(
            self.draw, lambda j: bool(op(fn(j), other)), f"{self.text} {symbol} {other!r}", self
        )

    # -- building new values ------------------------------------------------------------------
    def _constant(self, other: Any, symbol: str) -> Any:
        """``other`` as a constant; or, when it is another value from a draw, one of the two made concrete.

        A step mixing two draws is not monotone in either, so it is followed only when one of the two
        has at most :data:`SMALL_INTERVAL` points left (each a branch); else it is refused.  When this
        value is the one made concrete, a :class:`_Mine` carries both sides.
        """
        if not isinstance(other, Symbolic):
            if getattr(other, "shape", ()) != ():
                raise Unsupported(f"{self.text} {symbol} an array: only scalar values of a draw are followed")
            return other
        smaller = min((self, other), key=lambda v: v.run.size(v.draw))
        if smaller.run.size(smaller.draw) > SMALL_INTERVAL:
            detail = "the same draw twice" if other.draw is self.draw else (
                f"two draws ({self.draw.label} and {other.draw.label})"
            )
            raise Unsupported(
                f"{self.text} {symbol} {other.text}: one step mixes {detail}; only values from one draw "
                "through monotone steps are followed (make one side a number first -- int(...) of a discrete "
                "value, or compute it in a helper function, which is summarised)"
            )
        if smaller is other:
            return other.concrete(symbol)
        return _Mine(self.concrete(symbol), other)

    def _then(self, function: Callable[[Any], Any], text: str, *, check_sign: bool = True) -> Any:
        """``function(self)``, after checking that it is monotone on the current interval."""
        if check_sign:
            low, high = self.ends()
            if (low < 0 < high) or (high < 0 < low):
                return function(self._small_or_refused(
                    f"{text}({self.text}) changes sign inside its interval: not monotone there", text))
        fn = self.fn
        return Symbolic(self.run, self.draw, lambda j: function(fn(j)), f"{text}({self.text})")

    def _small_or_refused(self, problem: str, where: str) -> Any:
        """A step that is not monotone here: followed on a small integer draw made concrete (a branch per
        value), refused on a large one with ``problem`` as the reason."""
        if self.run.size(self.draw) <= SMALL_INTERVAL:
            return self.concrete(where)
        raise Unsupported(problem)

    def _not_monotone(self, other: Any, symbol: str, reflected: bool) -> str | None:
        """Why ``self symbol other`` (or ``other symbol self``) is not monotone on the interval, if it is not."""
        if symbol == "%":
            return f"{self.text} % {other!r}: a remainder is not monotone"
        if symbol in ("/", "//") and reflected:
            low, high = self.ends()
            if min(low, high) <= 0 <= max(low, high):
                return f"{other!r} {symbol} {self.text}: the divisor's interval contains 0"
        if symbol == "**":
            if reflected and not (isinstance(other, (int, float)) and other > 0):
                return f"{other!r} ** {self.text}: only a positive constant base is monotone"
            low, high = self.ends()
            if not reflected and min(low, high) < 0 < max(low, high):
                return f"{self.text} ** {other!r} changes sign inside its interval: not monotone"
        return None

    def _binary(self, other: Any, op: Callable[[Any, Any], Any], symbol: str, reflected: bool) -> Any:
        other = self._constant(other, symbol)
        if isinstance(other, _Mine):
            return op(other.theirs, other.mine) if reflected else op(other.mine, other.theirs)
        problem = self._not_monotone(other, symbol, reflected)
        if problem is not None:
            mine = self._small_or_refused(problem, symbol)
            return op(other, mine) if reflected else op(mine, other)
        fn = self.fn
        if reflected:
            return Symbolic(self.run, self.draw, lambda j: op(other, fn(j)), f"({other!r} {symbol} {self.text})")
        return Symbolic(self.run, self.draw, lambda j: op(fn(j), other), f"({self.text} {symbol} {other!r})")

    # arithmetic (monotone in the draw when the other operand is a constant)
    def __add__(self, o: Any) -> Any:
        return self._binary(o, operator.add, "+", False)

    def __radd__(self, o: Any) -> Any:
        return self._binary(o, operator.add, "+", True)

    def __sub__(self, o: Any) -> Any:
        return self._binary(o, operator.sub, "-", False)

    def __rsub__(self, o: Any) -> Any:
        return self._binary(o, operator.sub, "-", True)

    def __mul__(self, o: Any) -> Any:
        return self._binary(o, operator.mul, "*", False)

    def __rmul__(self, o: Any) -> Any:
        return self._binary(o, operator.mul, "*", True)

    def __truediv__(self, o: Any) -> Any:
        return self._binary(o, operator.truediv, "/", False)

    def __rtruediv__(self, o: Any) -> Any:
        return self._binary(o, operator.truediv, "/", True)

    def __floordiv__(self, o: Any) -> Any:
        return self._binary(o, operator.floordiv, "//", False)

    def __rfloordiv__(self, o: Any) -> Any:
        return self._binary(o, operator.floordiv, "//", True)

    def __mod__(self, o: Any) -> Any:
        return self._binary(o, operator.mod, "%", False)

    def __rmod__(self, o: Any) -> Any:
        return self._binary(o, operator.mod, "%", True)

    def __pow__(self, o: Any) -> Any:
        return self._binary(o, operator.pow, "**", False)

    def __rpow__(self, o: Any) -> Any:
        return self._binary(o, operator.pow, "**", True)

    def __neg__(self) -> Symbolic:
        return self._then(operator.neg, "-", check_sign=False)

    def __pos__(self) -> Symbolic:
        return self

    def __abs__(self) -> Symbolic:
        return self._then(abs, "abs")

    def __floor__(self) -> Symbolic:
        return self._then(math.floor, "floor", check_sign=False)

    def __ceil__(self) -> Symbolic:
        return self._then(math.ceil, "ceil", check_sign=False)

    def __trunc__(self) -> Symbolic:
        return self._then(math.trunc, "trunc", check_sign=False)

    def __round__(self, ndigits: int | None = None) -> Symbolic:
        return self._then(lambda v: round(v, ndigits), "round", check_sign=False)

    # monotone functions, called by the math functions patched for the run and by numpy's object loops
    log = _monotone("log")
    log1p = _monotone("log1p")
    log2 = _monotone("log2")
    log10 = _monotone("log10")
    exp = _monotone("exp")
    expm1 = _monotone("expm1")
    sqrt = _monotone("sqrt")
    floor = __floor__
    ceil = __ceil__

    # comparisons split the draw's interval
    def __lt__(self, o: Any) -> bool:
        return self.compare(operator.lt, o, "<")

    def __le__(self, o: Any) -> bool:
        return self.compare(operator.le, o, "<=")

    def __gt__(self, o: Any) -> bool:
        return self.compare(operator.gt, o, ">")

    def __ge__(self, o: Any) -> bool:
        return self.compare(operator.ge, o, ">=")

    def __eq__(self, o: Any) -> bool:  # type: ignore[override]
        # {j : fn(j) == c} is an interval for monotone fn: below it fn < c, above it fn > c
        if isinstance(o, float) and math.isnan(o):
            return False
        if isinstance(o, Symbolic):
            other = self._constant(o, "==")
            if isinstance(other, _Mine):
                return bool(other.mine == other.theirs)
            o = other
        return not self.compare(operator.lt, o, "<") and not self.compare(operator.gt, o, ">")

    def __ne__(self, o: Any) -> bool:  # type: ignore[override]
        return not self.__eq__(o)

    def __bool__(self) -> bool:
        return self.__ne__(0)

    # conversions make the value concrete
    def __index__(self) -> int:
        value = self.concrete("an index")
        return operator.index(value)

    def __int__(self) -> int:
        return int(self.concrete("int()"))

    def __float__(self) -> float:
        return float(self.concrete("float()"))

    def __hash__(self) -> int:
        return hash(self.concrete("hash()"))

    def __format__(self, spec: str) -> str:
        return format(self.concrete("format()"), spec)

    @property
    def numerator(self) -> int:
        """For ``Fraction(value)``: the value made concrete, then its numerator (a continuous one is refused)."""
        return Fraction(self.concrete("a Fraction")).numerator

    @property
    def denominator(self) -> int:
        return Fraction(self.concrete("a Fraction")).denominator

    def __repr__(self) -> str:
        return f"<{self.text}>"


# Fraction(rng.randrange(t), t), as the CKS reference code writes it, reads numerator and denominator
numbers.Rational.register(Symbolic)


class _Mine:
    """This value made concrete (``mine``) to meet another draw's value (``theirs``) in one step."""

    __slots__ = ("mine", "theirs")

    def __init__(self, mine: Any, theirs: Symbolic) -> None:
        self.mine = mine
        self.theirs = theirs
