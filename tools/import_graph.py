"""bleukit's import graph, read from the source with ``ast`` (nothing is imported): which module
imports which, at any depth of its code, including the modules it loads by string.

Why by string too: a module loaded with ``importlib.import_module("...")``, through a lazy-export
table (``lazy_attributes(__name__, {...})``, :mod:`bleukit._lazy`) or by a helper given its name
(``_Lazy("bleukit.metrics.bleu.libm")``) is an import like any other at run time; a graph that
skips them hides the circles they make. Read as edges:

- ``import x`` / ``from x import y`` anywhere (function-level too), ``TYPE_CHECKING`` blocks aside;
- ``import_module(NAME)``: a string literal (relative ones against ``__name__``/``__package__``),
  or an f-string whose placeholders are ``__name__``/``__package__`` (the module's own name) or
  stand for one name each (``f"bleukit.metrics.{name}.cli"`` is every ``bleukit.metrics.*.cli``;
  in a module that holds a registry of ``"module:attribute"`` strings, as ``bleukit.tokenizers``
  does, only the modules the registry names); an f-string that starts with another placeholder
  names no module by itself (``_lazy.py``'s loader: the tables that call it are read instead);
- ``lazy_attributes(__name__, TABLE)``: ``package.<value>`` for every value of ``TABLE`` (a dict
  literal, or a module-level name bound to one);
- a call of a *loader* given a string literal that is exactly the name of one of the package's
  modules: ``import_module``, ``__import__``, ``find_spec``, and every function or class of the
  package whose code hands a name it was given to ``import_module`` (formula.py's former
  ``_Lazy("bleukit.metrics.bleu.libm")``, which made a circle that a plain import graph missed).

Used by tests/core/test_architecture.py (no circle, layers) and tools/architecture_doc.py (the
diagram in docs/architecture.md).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "bleukit"
#: evaluate module files are data that evaluate.load copies, not modules of the package
NOT_MODULES = (SRC / "evaluate_module" / "modules",)
_ONE_NAME = "[A-Za-z_][A-Za-z0-9_]*"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> Dict[str, Path]:
    """Every module of the package: name -> file."""
    return {module_name(p): p for p in sorted(SRC.rglob("*.py"))
            if not any(folder in p.parents for folder in NOT_MODULES)}


def _type_checking_nodes(tree: ast.AST) -> Set[int]:
    skip: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for b in node.body for n in ast.walk(b))
    return skip


def _callee(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


def _own(expr: ast.AST, name: str, package: str) -> Optional[str]:
    """``__name__`` or ``__package__`` as the module's own name, else None."""
    if isinstance(expr, ast.Name) and expr.id == "__name__":
        return name
    if isinstance(expr, ast.Name) and expr.id == "__package__":
        return package
    return None


def _pattern(arg: ast.AST, name: str, package: str) -> Optional[str]:
    """A regular expression for the module names ``import_module(arg)`` may load, or None (a name
    the call works out at run time). Each placeholder for one name is a group ``w<i>``."""
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        target = arg.value
        if target.startswith("."):
            level = len(target) - len(target.lstrip("."))
            anchor = package.split(".")[: len(package.split(".")) - level + 1]
            target = ".".join(anchor + ([target.lstrip(".")] if target.lstrip(".") else []))
        return re.escape(target)
    if isinstance(arg, ast.JoinedStr):
        parts = []
        for i, value in enumerate(arg.values):
            if isinstance(value, ast.Constant):
                parts.append(re.escape(str(value.value)))
            elif isinstance(value, ast.FormattedValue):
                own = _own(value.value, name, package)
                if own is None and i == 0:
                    return None  # starts with an arbitrary name: no module by itself
                parts.append(re.escape(own) if own is not None else f"(?P<w{i}>{_ONE_NAME})")
        return "".join(parts)
    own = _own(arg, name, package)
    return re.escape(own) if own is not None else None


def _dict_values(table: ast.AST, tree: ast.Module) -> List[str]:
    """The string values of a dict literal, or of the module-level dict literal a name is bound to."""
    if isinstance(table, ast.Name):
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
                node, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == table.id for t in targets) and node.value is not None:
                table = node.value
                break
    if not isinstance(table, ast.Dict):
        return []
    return [v.value for v in table.values if isinstance(v, ast.Constant) and isinstance(v.value, str)]


#: what loads a module named by its argument, wherever it is called
LOADERS = frozenset({"import_module", "__import__", "find_spec"})


def loaders(files: Iterable[Path]) -> Set[str]:
    """:data:`LOADERS` and the names of the package's functions and classes that load a module by
    a name they were given: ``import_module(x)`` where ``x`` is not worked out in the call."""
    found = set(LOADERS)
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            for call in ast.walk(node):
                if (isinstance(call, ast.Call) and _callee(call) == "import_module" and call.args
                        and isinstance(call.args[0], (ast.Name, ast.Attribute, ast.Subscript))):
                    found.add(node.name)
    # lazy_attributes' tables are read where it is called; a dunder method is not called by name
    return {n for n in found if n == "__import__" or not n.startswith("__")} - {"lazy_attributes"}


def _registry(tree: ast.AST) -> Set[str]:
    """The module parts of the ``"module:attribute"`` strings a module holds."""
    spelled = (n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str))
    return {s.partition(":")[0] for s in spelled if re.fullmatch(rf"{_ONE_NAME}:{_ONE_NAME}", s)}


def _matches(pattern: str, known: Set[str], registry: Set[str]) -> Set[str]:
    found = {m: re.fullmatch(pattern, m) for m in known}
    hits = {m for m, match in found.items() if match}
    named = {m for m in hits if all(v in registry for v in found[m].groupdict().values())}  # type: ignore[union-attr]
    return named or hits


def string_loads(name: str, path: Path, known: Iterable[str], loader_names: Iterable[str] = LOADERS) -> Set[str]:
    """The modules ``name`` loads by string (see the module's text); ``loader_names``: what
    :func:`loaders` finds in the package."""
    known = set(known)
    loader_names = set(loader_names)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skip = _type_checking_nodes(tree)
    registry = _registry(tree)
    out: Set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip or not isinstance(node, ast.Call):
            continue
        callee = _callee(node)
        if callee == "import_module" and node.args:
            pattern = _pattern(node.args[0], name, package)
            if pattern is not None:
                out.update(_matches(pattern, known, registry))
        elif callee == "lazy_attributes" and len(node.args) == 2:
            owner = _own(node.args[0], name, package)
            if owner is not None:
                out.update(f"{owner}.{v}" for v in _dict_values(node.args[1], tree) if f"{owner}.{v}" in known)
        if callee in loader_names:
            out.update(a.value for a in node.args if isinstance(a, ast.Constant) and a.value in known)
    return out - {name}


def imports(name: str, path: Path, known: Iterable[str], loader_names: Iterable[str] = LOADERS) -> Set[str]:
    """Every bleukit module ``name`` imports, at any depth of its code (TYPE_CHECKING blocks aside),
    and every module it loads by string."""
    known = set(known)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skip = _type_checking_nodes(tree)
    out = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        out.update(t for t in targets if t in known and t != name)
    return out | string_loads(name, path, known, loader_names)


def graph() -> Dict[str, Set[str]]:
    """module -> the modules it imports (see :func:`imports`)."""
    found = modules()
    helpers = loaders(found.values())
    return {name: imports(name, path, found, helpers) for name, path in found.items()}


def cycles(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """Strongly connected components with more than one node (Tarjan), each sorted."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on_stack: Set[str] = set()
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def room(module: str) -> str:
    """The room a module lives in: its top-level module or package under ``bleukit`` (``metrics``
    for ``bleukit.metrics.bleu.formula``); ``bleukit`` itself is the facade."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "bleukit"


def room_graph(edges: Dict[str, Set[str]]) -> Dict[str, Set[str]]:
    """room -> the other rooms its modules import."""
    out: Dict[str, Set[str]] = {}
    for source, targets in edges.items():
        out.setdefault(room(source), set()).update(room(t) for t in targets if room(t) != room(source))
    return out


#: The layers, bottom first: (name, what it holds, its rooms). A module imports from its own layer
#: and the layers below it, never from one above (tests/core/test_architecture.py). The order is
#: the pipeline: inputs -> statistics, formula and result (each metric) -> the flow that makes and
#: sums tables -> analyses -> the metric functions -> adapters -> the facade.
LAYERS = (
    ("foundation", "version, defaults, lazy exports, the compiled kernels' loader, torch detection, "
                   "the JSON schemas, a command's process",
     ("_version", "_lazy", "_stack", "_torch", "_native", "_process", "defaults", "schemas")),
    ("inputs", "checked hypotheses and references, tokenizers, the threads contract, sacreBLEU's test sets",
     ("inputs", "tokenizers", "engine", "testsets")),
    ("metrics", "the protocol; per metric its options, statistics table, extractor, formula and result",
     ("metrics",)),
    ("flow", "tables of corpora, streams, token ids and pairs; resampled sums without numpy",
     ("pipeline", "accumulator", "ids", "pairwise", "resampling")),
    ("analyses", "significance, ranking, groups, documents, diversity, reports, explanations",
     ("analysis",)),
    ("functions", "each metric's corpus and sentence functions (sacreBLEU's keywords), textbook BLEU",
     ("bleu", "chrf", "ter", "textbook", "_functions")),
    ("adapters", "other libraries' APIs, the command line, the evaluate modules, frameworks, the app",
     ("compat", "evaluate_module", "cli", "sacrebleu", "integrations", "app")),
    ("facade", "bleukit's top-level names and python -m bleukit", ("bleukit", "__main__")),
)

#: Modules over this many lines are split along their seams.
MAX_LINES = 600


def layer_of(room_name: str) -> int:
    """The index in :data:`LAYERS` of the layer holding a room (``ValueError`` for none)."""
    for k, (_, _, rooms) in enumerate(LAYERS):
        if room_name in rooms:
            return k
    raise ValueError(f"room {room_name!r} is in no layer of tools/import_graph.py's LAYERS")


def upward_imports(edges: Dict[str, Set[str]]) -> List[str]:
    """``"a -> b"`` for every import of a module from a layer above its own."""
    return sorted(f"{a} -> {b}" for a, targets in edges.items() for b in targets
                  if layer_of(room(b)) > layer_of(room(a)))


def exported(path: Path) -> Optional[Set[str]]:
    """A module's ``__all__`` (a literal list or tuple of names), or None without one."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target if isinstance(
            node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and target.id == "__all__" and node.value is not None:
            return set(ast.literal_eval(node.value))
    return None


def imports_past_all() -> List[str]:
    """``"a: b.name"`` for every name a module imports from a module of another room that is not in
    that module's ``__all__`` (submodules aside)."""
    found = modules()
    out = []
    for name, path in found.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ImportFrom):
                continue
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if base not in found or room(base) == room(name):
                continue
            names = exported(found[base]) or set()
            out.extend(f"{name}: {base}.{a.name}" for a in node.names
                       if f"{base}.{a.name}" not in found and a.name not in names)
    return sorted(out)
