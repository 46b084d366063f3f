"""The shape of the package: its import graph has no cycle, and no arrow points up a layer.

The graph is read from the source with :mod:`ast`, not by importing it, so an import inside a
function body or under ``if TYPE_CHECKING:`` counts like one at the top of a module: every
``import`` and ``from ... import`` statement anywhere in a module is an arrow from that module.

* ``import dpaudit.a.b``, ``from dpaudit.a.b import name`` and the relative ``from .b import name``
  point to ``dpaudit.a.b``;
* ``from dpaudit.a import b`` where ``b`` is a submodule points to ``dpaudit.a.b``, and a name that is
  not a submodule to the package ``dpaudit.a``;
* Python runs a package's ``__init__`` before any of its submodules, so an arrow into ``dpaudit.a.b``
  from outside the package ``dpaudit.a`` points to ``dpaudit.a`` too;
* imports of other distributions are not arrows, nor are modules loaded by a string
  (``importlib.import_module``).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import dpaudit

ROOT = Path(dpaudit.__file__).resolve().parent

# Layers from the bottom up (DESIGN.md, "Rules of the house": claims/neighbours <- mechanisms <- proofs,
# auditor <- reports <- cli, plugin).  A module may import from its own part and from any lower layer,
# never from a higher one; the parts of one layer (proofs and auditor, cli and pytest_plugin) never
# import each other.  A module belongs to the part named by the longest prefix of its dotted name.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("dpaudit._version", "dpaudit._codec"),  # the standard library only
    ("dpaudit.errors",),
    ("dpaudit._registry",),  # one named, ordered registry (event families, proof procedures), raising errors
    ("dpaudit._validation",),  # argument checks, raising errors
    ("dpaudit.conversions",),  # between the claims' curves
    ("dpaudit.claims", "dpaudit.neighbours", "dpaudit._paths"),
    ("dpaudit.mechanisms", "dpaudit.strategies"),  # the Mechanism model (the framework); hypothesis strategies
    ("dpaudit.mechanisms.catalogue",),  # the catalogue's entries, built on the framework, which never imports them
    ("dpaudit.mechanisms.dp_sgd",),  # the deprecated name of dpaudit.mechanisms.catalogue.dp_sgd
    ("dpaudit.adapters",),  # OpenDP and diffprivlib objects as Mechanisms
    ("dpaudit.targets",),  # what a user names (catalogue name, module:attr, file, library object) -> a Mechanism
    ("dpaudit.proofs", "dpaudit.auditor", "dpaudit.certifier"),
    ("dpaudit.evidence",),  # results kept between runs under the key of what decides them (read by the shells)
    ("dpaudit.extend",),  # the extension API: event families of one's own
    ("dpaudit.reports",),
    ("dpaudit",),  # the front door (dpaudit/__init__.py) re-exports the layers below it
    ("dpaudit.cli", "dpaudit.pytest_plugin"),  # the shells
    ("dpaudit.__main__",),  # python -m dpaudit: the command line
)


def module_name(path: Path) -> str:
    """``dpaudit/a/b.py`` -> ``dpaudit.a.b``; ``dpaudit/a/__init__.py`` -> ``dpaudit.a``."""
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    return {module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


def _imported(node: ast.Import | ast.ImportFrom, importer: str, is_package: bool, known: set[str]) -> Iterator[str]:
    """The dpaudit modules one import statement of ``importer`` points to."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            name = alias.name
            while name and name not in known:  # ``import dpaudit.a.b`` binds dpaudit; it names dpaudit.a.b
                name = name.rpartition(".")[0]
            if name:
                yield name
        return
    if node.level:
        package = importer if is_package else importer.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{node.module}" if node.module else package
    else:
        base = node.module or ""
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        if submodule in known:
            yield submodule
        elif base in known:
            yield base


def _with_packages(target: str, importer: str, known: set[str]) -> Iterator[str]:
    """``target`` and the packages above it whose ``__init__`` importing it runs, not yet running for ``importer``."""
    yield target
    package = target.rpartition(".")[0]
    while package:
        if package in known and not (importer == package or importer.startswith(package + ".")):
            yield package
        package = package.rpartition(".")[0]


def import_graph() -> dict[str, set[str]]:
    """Module -> the dpaudit modules it imports (anywhere in its source; itself excluded)."""
    found = modules()
    known = set(found)
    graph: dict[str, set[str]] = {}
    for name, path in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        graph[name] = {
            module
            for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom))
            for target in _imported(node, name, is_package, known)
            for module in _with_packages(target, name, known)
        } - {name}
    return graph


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in index:
                    index[successor] = low[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], index[successor])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        components.append(sorted(component))
    return components


def shortest_cycle(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """A shortest cycle through the component's first module, as the modules met in order (first repeated)."""
    start, members = component[0], set(component)
    previous: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for successor in sorted(graph[node] & members):
                if successor == start:
                    path = [node]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [start, *reversed(path[:-1]), start]
                if successor not in previous:
                    previous[successor] = node
                    following.append(successor)
        frontier = following
    raise AssertionError(f"{component} is not strongly connected")


def layer_of(module: str) -> tuple[int, str]:
    """(layer index, part) of a module: the part is the longest prefix of its name listed in LAYERS
    (the part ``dpaudit`` is the front door alone: a module listed nowhere is in no layer)."""
    best: tuple[int, str] | None = None
    for level, parts in enumerate(LAYERS):
        for part in parts:
            inside = module == part or (part != ROOT.name and module.startswith(part + "."))
            if inside and (best is None or len(part) > len(best[1])):
                best = (level, part)
    if best is None:
        raise AssertionError(f"{module} is in no layer: add its part to LAYERS in {__file__}")
    return best


def upward_arrows(graph: dict[str, set[str]]) -> list[str]:
    """Every arrow into a higher layer, or between two parts of one layer, as ``importer -> imported``."""
    wrong = []
    for importer, imported in sorted(graph.items()):
        level, part = layer_of(importer)
        for target in sorted(imported):
            target_level, target_part = layer_of(target)
            if target_level > level or (target_level == level and target_part != part):
                wrong.append(f"{importer} ({part}) -> {target} ({target_part})")
    return wrong


def test_import_graph_has_no_cycle() -> None:
    graph = import_graph()
    cycles = [f"{' -> '.join(shortest_cycle(graph, component))}  (strongly connected: {', '.join(component)})"
              for component in strongly_connected(graph)]
    assert not cycles, "import cycles:\n" + "\n".join(cycles)


def test_imports_point_down_the_layers() -> None:
    wrong = upward_arrows(import_graph())
    assert not wrong, "imports against the layers (DESIGN.md):\n" + "\n".join(wrong)


def test_graph_reads_every_kind_of_import() -> None:
    graph = import_graph()
    assert "dpaudit.auditor.bounds" in graph["dpaudit.auditor.verification"]  # from . import bounds
    assert "dpaudit.errors" in graph["dpaudit.claims"]  # from .errors import ...
    assert "dpaudit.adapters.opendp" in graph["dpaudit.adapters"]  # inside a function: from .opendp import ...
    assert "dpaudit.mechanisms.density" in graph["dpaudit.mechanisms.base"]  # under TYPE_CHECKING
    assert "dpaudit.targets" in graph["dpaudit.pytest_plugin.session"]  # absolute: from dpaudit.targets import ...
    assert "dpaudit.auditor" in graph["dpaudit.reports.checks"]  # the package whose submodule it imports


def test_checks_name_what_they_find() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert strongly_connected(graph) == [["a", "b", "c"]]
    assert shortest_cycle(graph, ["a", "b", "c"]) == ["a", "b", "c", "a"]
    assert layer_of("dpaudit.reports.model")[0] < layer_of("dpaudit")[0] < layer_of("dpaudit.cli.audit")[0]
    assert layer_of("dpaudit.mechanisms.registry")[0] < layer_of("dpaudit.mechanisms.catalogue.flawed.timing")[0]
    with pytest.raises(AssertionError, match="dpaudit.unlisted is in no layer"):
        layer_of("dpaudit.unlisted")
    upward = {"dpaudit.claims": {"dpaudit.auditor.audit"}, "dpaudit.proofs.prove": {"dpaudit.auditor.result"},
              "dpaudit.auditor.audit": {"dpaudit.claims"}, "dpaudit.auditor.result": set()}
    assert upward_arrows(upward) == [
        "dpaudit.claims (dpaudit.claims) -> dpaudit.auditor.audit (dpaudit.auditor)",
        "dpaudit.proofs.prove (dpaudit.proofs) -> dpaudit.auditor.result (dpaudit.auditor)",
    ]


# -- the shells use the public faces only

SHELLS = ("dpaudit.cli", "dpaudit.pytest_plugin", "dpaudit.reports")
"""The shells over the verbs (DESIGN.md, "Three verbs, one vocabulary"): they import what they use from
a public face, never from the modules behind it."""


def is_face(module: str) -> bool:
    """A public face: the front door ``dpaudit``, or ``dpaudit.<name>`` -- a top-level module or a
    subpackage's ``__init__`` -- whose name starts with no underscore; what it offers is its ``__all__``."""
    parts = module.split(".")
    return parts[0] == ROOT.name and len(parts) <= 2 and not parts[-1].startswith("_")


def is_root_private(module: str) -> bool:
    """A private module of the root package (``dpaudit._codec``, ``_paths``, ``_validation``, ``_version``):
    the helpers every part of dpaudit shares, shells included, at the bottom of the layers; no user's."""
    parts = module.split(".")
    return parts[0] == ROOT.name and len(parts) == 2 and parts[1].startswith("_")


def face_names(module: str) -> set[str]:
    """The names a face offers: its ``__all__``."""
    import importlib

    return set(getattr(importlib.import_module(module), "__all__", ()))


def _imports_of(path: Path, name: str) -> Iterator[tuple[int, str, str]]:
    """(line, module, name) for every name a module imports from dpaudit (``*`` for ``import dpaudit.x``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == ROOT.name or alias.name.startswith(ROOT.name + "."):
                    yield node.lineno, alias.name, "*"
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            module = (f"{base}.{node.module}" if node.module else base) if node.level else node.module or ""
            if module == ROOT.name or module.startswith(ROOT.name + "."):
                for alias in node.names:
                    yield node.lineno, module, alias.name


def deep_imports(shells: tuple[str, ...] = SHELLS) -> list[str]:
    """Every import of a shell from a module that is not a public face, or of a name outside its face's
    ``__all__``, as ``file:line: name from module`` (a shell's own modules and the root's private helpers
    excepted)."""
    wrong = []
    for name, path in modules().items():
        shell = next((s for s in shells if name == s or name.startswith(s + ".")), None)
        if shell is None:
            continue
        where = path.relative_to(ROOT.parent)
        for line, module, imported in _imports_of(path, name):
            if module == shell or module.startswith(shell + ".") or is_root_private(module):
                continue
            if module == ROOT.name and imported == "*":  # import dpaudit: its attributes are its face
                continue
            if not is_face(module):
                wrong.append(f"{where}:{line}: {imported} from {module} (not a public face)")
            elif imported not in face_names(module):
                wrong.append(f"{where}:{line}: {imported} from {module} (not in {module}.__all__)")
    return wrong


def test_shells_import_public_names_only() -> None:
    wrong = deep_imports()
    assert not wrong, ("the shells import from the public faces only (a package's __init__ or a top-level "
                       "module, names in its __all__):\n" + "\n".join(wrong))


def test_the_faces_offer_what_they_list() -> None:
    import importlib

    faces = sorted(name for name in modules() if is_face(name))
    assert {"dpaudit.auditor", "dpaudit.proofs", "dpaudit.mechanisms", "dpaudit.reports"} <= set(faces)
    missing = [f"{face}.{name}" for face in faces for name in sorted(face_names(face))
               if not hasattr(importlib.import_module(face), name)]
    assert not missing, "names listed in __all__ that the face does not give: " + ", ".join(missing)


def test_deep_imports_are_named_with_their_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert is_face("dpaudit") and is_face("dpaudit.auditor") and is_face("dpaudit.claims")
    assert not is_face("dpaudit.auditor.result") and not is_face("dpaudit._codec") and is_root_private("dpaudit._codec")
    package = tmp_path / "dpaudit"
    (package / "cli").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "cli" / "__init__.py").write_text("")
    (package / "cli" / "run.py").write_text(
        "from ..auditor import audit, bounds\nfrom ..auditor.result import Verdict\nfrom . import other\n"
        "from .._codec import to_json\nimport dpaudit.proofs.prove\n")
    monkeypatch.setattr(f"{__name__}.ROOT", package)
    assert deep_imports(("dpaudit.cli",)) == [
        "dpaudit/cli/run.py:1: bounds from dpaudit.auditor (not in dpaudit.auditor.__all__)",
        "dpaudit/cli/run.py:2: Verdict from dpaudit.auditor.result (not a public face)",
        "dpaudit/cli/run.py:5: * from dpaudit.proofs.prove (not a public face)",
    ]


# What may be imported without being a dependency of the core install: the extras' libraries, each only from
# the place that needs it, and cloudpickle, whose import is guarded (plain pickle without it).
EXTRA_IMPORTS = {
    "opendp": "dpaudit/adapters/", "diffprivlib": "dpaudit/adapters/",
    "dask": "dpaudit/auditor/run/executors.py", "distributed": "dpaudit/auditor/run/executors.py",
    "pytest": "dpaudit/pytest_plugin/", "cloudpickle": "dpaudit/auditor/run/",
}


def test_every_library_the_package_imports_is_installed_by_pip_install_dot():
    """``pip install -e .`` (the README's first command) installs every library the package imports outside the
    extras' own modules: hypothesis, once only in the test extra, made every ``dpaudit report`` fail."""
    import tomllib
    from importlib.metadata import packages_distributions

    project = tomllib.loads((ROOT.parent / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {re.split(r"[<>=!\[ ;]", spec, maxsplit=1)[0].lower().replace("_", "-")
                for spec in project["dependencies"]}
    distributions = packages_distributions()
    missing = []
    for path in sorted(ROOT.rglob("*.py")):
        where = path.relative_to(ROOT.parent).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                modules = [alias.name.split(".")[0] for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                modules = [node.module.split(".")[0]]
            else:
                continue
            for module in modules:
                if module in sys.stdlib_module_names or module in ("dpaudit", "__future__"):
                    continue
                if module in EXTRA_IMPORTS and where.startswith(EXTRA_IMPORTS[module]):
                    continue
                names = {name.lower().replace("_", "-") for name in distributions.get(module, [module])}
                if not names & declared:
                    missing.append(f"{where}:{node.lineno}: {module}")
    assert not missing, "imported but not in [project] dependencies:\n" + "\n".join(missing)
