"""The code behind a mechanism as text that lasts between runs: what the evidence store keys on.

:func:`code_fingerprint` walks what a function names, the way Python resolves it when the function
runs, and writes one line per piece of the user's code it meets:

* a function of the user's -- any module whose file lies outside the standard library, the
  installed packages (``site-packages`` / ``dist-packages``) and dpaudit itself -- by its source
  (``inspect.getsource``; the compiled code when there is no source), its defaults, the values of its
  closure's cells and of every global it names (``co_names`` of its code and the code nested in it;
  for a module it names, the attributes of that module it names);
* a class of the user's by its source and its functions, an object by its class and its attributes;
* a function or class of a library by ``module.qualname@version`` (dpaudit's version for dpaudit's
  own: the catalogue entries are declared by the version that ships them), with the values of its
  closure (a catalogue factory's parameters live there);
* a value by its ``repr`` (floats exactly), an array by a SHA-256 of its bytes with dtype and shape.

Changing one constant a mechanism uses changes its fingerprint and no other mechanism's; changing a
comment changes it too (the source is read as written: conservative, never a stale hit).  Memory
addresses (``0x7f...``) are removed from reprs, so an object without a better description still keys
the same in the next run.  Standard library only.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import re
import sys
import sysconfig
import types
from pathlib import Path
from typing import Any

from .. import _version

__all__ = ["code_fingerprint", "is_users_module"]

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_MAX_ITEMS = 10_000  # a container beyond this is keyed by the digest of its repr
_MAX_DEPTH = 6  # objects inside objects: deeper ones are keyed by type and repr


@functools.lru_cache(maxsize=1)
def _library_roots() -> tuple[Path, ...]:
    paths = sysconfig.get_paths()
    roots = {paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib") if paths.get(name)}
    roots.add(str(Path(__file__).resolve().parents[1]))  # dpaudit itself
    return tuple(Path(root).resolve() for root in roots)


@functools.lru_cache(maxsize=4096)
def _is_users_file(file: str) -> bool:
    path = Path(file).resolve()
    if {"site-packages", "dist-packages"} & set(path.parts):
        return False
    return not any(path.is_relative_to(root) for root in _library_roots())


def is_users_module(name: str | None) -> bool:
    """Whether the module ``name`` is the user's code: loaded from a file outside the standard library,
    the installed packages and dpaudit (a built-in or frozen module is not)."""
    module = sys.modules.get(name or "")
    file = getattr(module, "__file__", None)
    return bool(file) and _is_users_file(file)


def _library_token(obj: Any) -> str:
    module = getattr(obj, "__module__", None) or ""
    top = module.partition(".")[0]
    if top == "dpaudit":
        version = _version.__version__
    else:
        version = getattr(sys.modules.get(top), "__version__", "")
    return f"{module}.{getattr(obj, '__qualname__', type(obj).__qualname__)}@{version}"


def _code_text(code: types.CodeType) -> str:
    """Compiled code as text, for a function whose source cannot be read."""
    consts = [(_code_text(c) if isinstance(c, types.CodeType) else repr(c)) for c in code.co_consts]
    return f"{code.co_code.hex()}|{consts}|{code.co_names}"


def _names(code: types.CodeType) -> list[str]:
    """The global and attribute names ``code`` and the code nested in it use, in order, once each."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _names(const)
    return list(dict.fromkeys(names))


class _Walk:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.seen: set[int] = set()

    def token(self, obj: Any, depth: int = 0) -> str:
        """A short text for ``obj``; the user's functions and classes also add their lines."""
        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
            return repr(obj)
        if isinstance(obj, types.ModuleType):
            return f"module {obj.__name__}"
        if isinstance(obj, (tuple, list, set, frozenset)):
            if len(obj) > _MAX_ITEMS:
                return f"{type(obj).__name__} {_digest(repr(obj))}"
            items = [self.token(v, depth + 1) for v in obj]
            return f"{type(obj).__name__}({', '.join(sorted(items) if isinstance(obj, (set, frozenset)) else items)})"
        if isinstance(obj, dict):
            if len(obj) > _MAX_ITEMS:
                return f"dict {_digest(repr(obj))}"
            items = sorted(f"{self.token(k, depth + 1)}: {self.token(v, depth + 1)}" for k, v in obj.items())
            return "{" + ", ".join(items) + "}"
        if hasattr(obj, "dtype") and hasattr(obj, "shape") and hasattr(obj, "tobytes"):
            return f"array {obj.dtype} {tuple(obj.shape)} {hashlib.sha256(obj.tobytes()).hexdigest()[:16]}"
        if isinstance(obj, functools.partial):
            return f"partial({self.token(obj.func, depth + 1)}, {self.token(obj.args, depth + 1)}, " \
                   f"{self.token(obj.keywords, depth + 1)})"
        if isinstance(obj, types.MethodType):
            return f"method({self.token(obj.__func__, depth + 1)}, {self.token(obj.__self__, depth + 1)})"
        if isinstance(obj, types.FunctionType):
            return self.function(obj, depth)
        if isinstance(obj, (types.BuiltinFunctionType, types.BuiltinMethodType)):
            return f"builtin {getattr(obj, '__module__', None)}.{obj.__qualname__}"
        if isinstance(obj, type):
            return self.cls(obj, depth)
        return self.instance(obj, depth)

    def _first_visit(self, obj: Any, no_source: Any) -> tuple[str, str | None]:
        """The name of the user's function or class ``obj`` and its source (``no_source()`` when it has
        none), or None for the source when the walk met it before."""
        name = f"{obj.__module__}.{obj.__qualname__}"
        if id(obj) in self.seen:
            return name, None
        self.seen.add(id(obj))
        try:
            return name, inspect.getsource(obj)
        except (OSError, TypeError):
            return name, no_source()

    def function(self, f: types.FunctionType, depth: int) -> str:
        if not is_users_module(f.__module__):
            closure = ""
            if f.__closure__ and depth < _MAX_DEPTH:  # a factory's parameters
                closure = " " + self.token([_cell(c) for c in f.__closure__], depth + 1)
            return _library_token(f) + closure
        name, source = self._first_visit(f, lambda: _code_text(f.__code__))
        if source is None:
            return name
        parts = [f"def {name} {_digest(source)}",
                 f"defaults {self.token(f.__defaults__, depth + 1)} {self.token(f.__kwdefaults__, depth + 1)}"]
        for var, cell in zip(f.__code__.co_freevars, f.__closure__ or ()):
            parts.append(f"closure {var} = {self.token(_cell(cell), depth + 1)}")
        names = _names(f.__code__)
        for global_name in names:
            if global_name not in f.__globals__:
                continue  # an attribute name, or a builtin
            value = f.__globals__[global_name]
            parts.append(f"global {global_name} = {self.token(value, depth + 1)}")
            if isinstance(value, types.ModuleType) and is_users_module(value.__name__):
                for attribute in names:  # module.attribute of the user's own module
                    if attribute != global_name and hasattr(value, attribute):
                        token = self.token(getattr(value, attribute), depth + 1)
                        parts.append(f"global {global_name}.{attribute} = {token}")
        self.lines.append("; ".join(parts))
        return name

    def cls(self, cls: type, depth: int) -> str:
        if not is_users_module(cls.__module__):
            return _library_token(cls)
        name, source = self._first_visit(cls, lambda: f"{cls.__module__}.{cls.__qualname__}")
        if source is None:
            return name
        self.lines.append(f"class {name} {_digest(source)}")
        for attribute, value in sorted(vars(cls).items()):
            if isinstance(value, (staticmethod, classmethod)):
                value = value.__func__
            if isinstance(value, (types.FunctionType, property)):
                self.token(value.fget if isinstance(value, property) else value, depth + 1)
        return name

    def instance(self, obj: Any, depth: int) -> str:
        class_token = self.cls(type(obj), depth)
        state = getattr(obj, "__dict__", None)
        if state is None and hasattr(type(obj), "__dataclass_fields__"):
            state = {name: getattr(obj, name, None) for name in type(obj).__dataclass_fields__}
        if state is None or depth >= _MAX_DEPTH or id(obj) in self.seen:
            return f"{class_token} {_ADDRESS.sub('', repr(obj))[:2000]}"
        self.seen.add(id(obj))
        return f"{class_token}{self.token(dict(state), depth + 1)}"


def _cell(cell: Any) -> Any:
    try:
        return cell.cell_contents
    except ValueError:  # a cell not filled yet
        return "<empty cell>"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def code_fingerprint(*objects: Any) -> list[str]:
    """The lines that key ``objects`` (functions, samplers, classes, values): a token for each, then one
    line per function or class of the user's code they reach (see the module docstring)."""
    walk = _Walk()
    tokens = [walk.token(obj) for obj in objects]
    return [f"object {token}" for token in tokens] + walk.lines
