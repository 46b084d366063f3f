"""Merge points: when two paths have reached the same program state, their futures have the same law.

A sampler's loop (rejection: ``while True: u = rng.randrange(t); ...; if accept: return y``) makes its
execution tree infinite and exponentially wide; but after each rejection the program is back in the
same state, so the law of what follows is the same.  :func:`state_key` names that state at a call made
by the sampler's function itself (a draw or a summarised helper), from the interpreter's own frame:

* the call instruction (``f_lasti``);
* the values of the local variables *live* after the call (read before being written on some path from
  there), found by a backward data-flow analysis of the function's bytecode.  A dead variable (``y``
  from the last iteration, about to be overwritten) does not distinguish states;
* nothing else may sit on the frame's value stack below the call: a ``for`` loop's iterator or a
  half-evaluated expression is state the frame does not show, so such a call is no merge point.  The
  stack depth at each instruction comes from :func:`dis.stack_effect` along the control-flow graph.

Conservative by construction: a function with an exception table (``try``/``with``), a generator, a
``global`` it assigns, a reference to ``locals``/``eval``/``exec``, an opcode touching locals that is not known here, or a live
value that is not a plain immutable number, string or tuple of them gives no key (no merge).  Merging
is then only slower, never wrong.  The key assumes what the whole enumeration assumes: the sampler's
result depends only on its arguments and its draws (no hidden mutable state).
"""

from __future__ import annotations

import dis
import inspect
import math
import types
from bisect import bisect_right
from collections.abc import Hashable
from fractions import Fraction
from functools import lru_cache
from typing import Any

from .symbolic import Symbolic

__all__ = ["NotPlain", "plain_key", "state_key"]

_READS = {"LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_AND_CLEAR"}
_WRITES = {"STORE_FAST", "DELETE_FAST"}
_UNCONDITIONAL = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP_ABSOLUTE", "JUMP"}
_TERMINAL = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"}
_CALLS = {"CALL", "CALL_FUNCTION", "CALL_METHOD", "CALL_KW"}
_OPAQUE_NAMES = {"locals", "vars", "eval", "exec", "_getframe", "currentframe"}
_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR


class _Analysis:
    """Per instruction of one code object: its offset and the live set after it; per call, the stack below it."""

    def __init__(self, offsets: list[int], below_call: dict[int, int], live_after: dict[int, frozenset[str]],
                 always: tuple[str, ...]) -> None:
        self.offsets = offsets
        self.below_call = below_call
        self.live_after = live_after
        self.always = always


@lru_cache(maxsize=512)
def _analyse(code: types.CodeType) -> _Analysis | None:
    if code.co_flags & _GENERATOR_FLAGS or _OPAQUE_NAMES & set(code.co_names):
        return None
    if getattr(code, "co_exceptiontable", b""):
        return None
    instructions = list(dis.get_instructions(code))
    if not instructions:
        return None
    if any(ins.opname in ("STORE_GLOBAL", "DELETE_GLOBAL") for ins in instructions):
        return None  # the function changes module state: its frame does not show the whole state
    index = {ins.offset: i for i, ins in enumerate(instructions)}
    successors: list[list[tuple[int, bool]]] = []
    for i, ins in enumerate(instructions):
        if "FAST" in ins.opname and ins.opname not in _READS | _WRITES:
            return None  # an opcode on locals this analysis does not model
        nxt: list[tuple[int, bool]] = []
        jumps = ins.opcode in dis.hasjrel or ins.opcode in dis.hasjabs
        if jumps:
            if ins.argval not in index:
                return None
            nxt.append((index[ins.argval], True))
        if ins.opname not in _UNCONDITIONAL | _TERMINAL and i + 1 < len(instructions):
            nxt.append((i + 1, False))
        successors.append(nxt)

    # stack depth before each instruction, propagated along the control-flow graph from depth 0
    depth: dict[int, int] = {0: 0}
    work = [0]
    while work:
        i = work.pop()
        ins = instructions[i]
        for j, jumped in successors[i]:
            try:
                effect = dis.stack_effect(ins.opcode, ins.arg if ins.opcode >= dis.HAVE_ARGUMENT else None,
                                          jump=jumped)
            except ValueError:
                return None
            new = depth[i] + effect
            if j in depth:
                if depth[j] != new:
                    return None
            else:
                depth[j] = new
                work.append(j)

    # live variables: backward fixed point of live_in = reads | (live_out - writes)
    live_in: list[frozenset[str]] = [frozenset()] * len(instructions)
    changed = True
    while changed:
        changed = False
        for i in range(len(instructions) - 1, -1, -1):
            ins = instructions[i]
            out = frozenset().union(*(live_in[j] for j, _ in successors[i])) if successors[i] else frozenset()
            if ins.opname in _READS:
                new = out | {ins.argval}
            elif ins.opname in _WRITES:
                new = out - {ins.argval}
            else:
                new = out
            if new != live_in[i]:
                live_in[i] = new
                changed = True
    live_after = {
        ins.offset: frozenset().union(*(live_in[j] for j, _ in successors[i])) if successors[i] else frozenset()
        for i, ins in enumerate(instructions)
    }
    # a call leaves its one result on top of what lay below it: the depth after it, less one
    below_call = {
        ins.offset: depth[i + 1] - 1
        for i, ins in enumerate(instructions)
        if ins.opname in _CALLS and i + 1 in depth
    }
    offsets = [ins.offset for ins in instructions]
    return _Analysis(offsets, below_call, live_after, tuple(code.co_cellvars + code.co_freevars))


def state_key(frame: types.FrameType) -> Hashable | None:
    """The program state of ``frame``, suspended in a call, as a hashable key; None when unknowable."""
    code = frame.f_code
    analysis = _analyse(code)
    if analysis is None:
        return None
    position = bisect_right(analysis.offsets, frame.f_lasti) - 1
    if position < 0:
        return None
    offset = analysis.offsets[position]
    if analysis.below_call.get(offset) != 0:
        return None
    values = frame.f_locals
    names = sorted(analysis.live_after[offset] | set(analysis.always))
    try:
        state = tuple((name, plain_key(values[name]) if name in values else _UNBOUND) for name in names)
    except NotPlain:
        return None
    return (code, offset, state)


_UNBOUND = ("unbound",)


class NotPlain(Exception):
    """A value that is not a plain immutable number, string or tuple of them (no key for it)."""


def plain_key(value: Any) -> Hashable:
    """An immutable value as a key that distinguishes what the code can distinguish (1 vs 1.0 vs True)."""
    if value is None or isinstance(value, (bool, int, str, bytes, Fraction)):
        return (type(value).__name__, value)
    if isinstance(value, float):
        return ("float", value.hex() if not math.isnan(value) else "nan")
    if isinstance(value, tuple):
        return ("tuple", tuple(plain_key(v) for v in value))
    if isinstance(value, frozenset):
        return ("frozenset", frozenset(plain_key(v) for v in value))
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.ModuleType, type)):
        return ("object", id(value))
    if isinstance(value, Symbolic):
        lo, hi = value.run.interval(value.draw)
        try:
            low, high = value.fn(lo), value.fn(hi - 1)
        except (ArithmeticError, ValueError):
            raise NotPlain from None
        if low == high:  # constant on what is left of its draw: it is that number now
            return plain_key(low)
        raise NotPlain
    if getattr(type(value), "_dpaudit_source", False):  # the instrumented random source: one per enumeration
        return ("source", id(value))
    raise NotPlain
