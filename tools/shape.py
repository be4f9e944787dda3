"""The shape of the source: import cycles, private names crossing modules, long functions.

Read from the source with ``ast`` alone (nothing is imported), so a cycle
that only a function-level import closes is still found.

- **cycles**: for each package checked (a package counts its subpackages as
  part of it), the groups of its modules that import each other, directly or
  round a loop, with the imports inside each group;
- **private imports**: a name starting with one underscore (dunders are
  public) that one module takes from another module of the project: ``from m
  import _x``, ``m._x``, or ``getattr(m, "_x")`` / ``monkeypatch.setattr(m,
  "_x", ...)``, and the same of a class taken from it (``C._x``, ``m.C._x``:
  a private method is its module's); checked in ``src/depyf`` and in the code around it (tests,
  tools, benchmarks, examples), which uses public names only;
- **long functions**: the functions (methods and nested functions included,
  each counted from its ``def`` line to its last line) longer than the limit
  under one folder.

Exit status 1 when there is a cycle or a private import; long functions are
reported only.

Example::

    $ python tools/shape.py
    $ python tools/shape.py --long src/depyf/decompiler --max-lines 120
"""
from __future__ import annotations

import argparse
import ast
import functools
import os
import sys
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(REPO, "src")
ROOT_PACKAGE = "depyf"
#: The packages whose modules must not import each other round a loop.
CYCLE_PACKAGES = ("depyf.bytecode", "depyf.decompiler", "depyf.dynamo")
#: the folders besides the source whose files may use its public names only
OUTSIDE = ("tests", "tools", "bench", "examples")
LONG_FOLDER = os.path.join("src", "depyf", "decompiler", "structure")
MAX_LINES = 80
#: Calls that reach an attribute by its name in a string.
_ATTRIBUTE_CALLS = {"getattr", "setattr", "delattr", "hasattr"}


@dataclass(frozen=True)
class Module:
    name: str
    path: str
    is_package: bool

    @property
    def package(self):
        """The package relative imports start from."""
        return self.name if self.is_package else self.name.rpartition(".")[0]


@dataclass(frozen=True)
class Import:
    """One module naming another: ``source`` imports ``target`` at ``line``."""
    source: str
    target: str
    line: int
    #: the function holding the import, or "" at module level
    scope: str


@dataclass(frozen=True)
class PrivateUse:
    path: str
    line: int
    module: str
    name: str


@dataclass(frozen=True)
class LongFunction:
    path: str
    line: int
    qualname: str
    length: int


#: underscored names that are documented public API of every class of a kind
#: (``ast`` node classes, named tuples), not anybody's private name
_UNDERSCORED_API = frozenset({"_fields", "_attributes", "_field_types", "_replace", "_asdict",
                              "_make", "_field_defaults"})


def is_private(name):
    """One leading underscore, not a dunder, nor the ``_fields``-like API of
    ``ast`` nodes and named tuples.

    Example::

        >>> is_private("_x"), is_private("__all__"), is_private("x"), is_private("_fields")
        (True, False, False, False)
    """
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__")) \
        and name not in _UNDERSCORED_API


def find_modules(src=SRC, package=ROOT_PACKAGE):
    """Every module of the package under ``src``, by dotted name.

    Example::

        >>> find_modules()["depyf.bytecode"].is_package
        True
    """
    modules = {}
    top = os.path.join(src, *package.split("."))
    for folder, dirs, files in os.walk(top):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        parts = os.path.relpath(folder, src).split(os.sep)
        for file in sorted(files):
            if not file.endswith(".py"):
                continue
            path = os.path.join(folder, file)
            if file == "__init__.py":
                modules[".".join(parts)] = Module(".".join(parts), path, True)
            else:
                name = ".".join(parts + [file[:-3]])
                modules[name] = Module(name, path, False)
    return modules


@functools.lru_cache(maxsize=None)
def parse(path):
    """The tree of the file at ``path``, read once (every check walks the same trees)."""
    with open(path, encoding="utf-8") as f:
        return ast.parse(f.read(), path)


class _ImportReader(ast.NodeVisitor):
    """The imports of one file, every scope, and what each binds."""

    def __init__(self, name, package, modules):
        self.name = name
        self.package = package
        self.modules = modules
        self.scopes = []
        self.imports = []
        #: (line, module, name) for each name taken with ``from module import name``
        self.from_names = []
        #: local name -> module it is bound to, in any scope
        self.aliases = {}
        #: local name -> the module a name taken from it (a class, say) lives in
        self.defined_in = {}

    def _add(self, target, line):
        self.imports.append(Import(self.name, target, line, ".".join(self.scopes)))

    def _visit_scope(self, node):
        self.scopes.append(node.name)
        self.generic_visit(node)
        self.scopes.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _visit_scope

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name in self.modules or alias.name.split(".")[0] == ROOT_PACKAGE:
                self._add(alias.name, node.lineno)
            if alias.asname:
                self.aliases[alias.asname] = alias.name
            else:
                head = alias.name.split(".")[0]
                self.aliases[head] = head

    def visit_ImportFrom(self, node):
        base = self._base(node)
        if base is None:
            return
        for alias in node.names:
            submodule = "%s.%s" % (base, alias.name)
            if submodule in self.modules:
                self._add(submodule, node.lineno)
                self.aliases[alias.asname or alias.name] = submodule
            else:
                self._add(base, node.lineno)
                if alias.name != "*":
                    self.from_names.append((node.lineno, base, alias.name))
                    self.defined_in[alias.asname or alias.name] = base

    def _base(self, node):
        if node.level == 0:
            if (node.module or "").split(".")[0] != ROOT_PACKAGE:
                return None
            return node.module
        parts = self.package.split(".")
        parts = parts[:len(parts) - (node.level - 1)]
        return ".".join(parts + ([node.module] if node.module else []))


def read_imports(module, modules, tree=None):
    """What ``module`` imports from the project, and what it binds doing so."""
    reader = _ImportReader(module.name, module.package, modules)
    reader.visit(tree or parse(module.path))
    return reader


def import_graph(modules):
    """Every import of one project module by another, function-level ones included.

    Example::

        >>> edges = import_graph(find_modules())
        >>> any(e.source == "depyf.bytecode" and e.target == "depyf.bytecode.decode" for e in edges)
        True
    """
    edges = set()
    for module in modules.values():
        for edge in read_imports(module, modules).imports:
            if edge.target in modules and edge.target != edge.source:
                edges.add(edge)
    return sorted(edges, key=lambda e: (e.source, e.line, e.target))


@functools.lru_cache(maxsize=None)
def _source_graph():
    """``import_graph`` of the source, made once for every package checked."""
    return tuple(import_graph(find_modules()))


def in_package(name, package):
    return name == package or name.startswith(package + ".")


def strongly_connected(nodes, edges):
    """The groups of nodes that reach each other, larger than one node (Tarjan).

    Example::

        >>> strongly_connected(["a", "b", "c"], [("a", "b"), ("b", "a"), ("b", "c")])
        [['a', 'b']]
    """
    successors = {n: [] for n in nodes}
    for a, b in edges:
        successors[a].append(b)
    index, low, on_stack, stack, groups = {}, {}, set(), [], []

    def visit(node):
        # Iterative, so a long chain of imports cannot exhaust the recursion limit.
        work = [(node, iter(successors[node]))]
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        while work:
            current, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors[child])))
                elif child in on_stack:
                    low[current] = min(low[current], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[current])
            if low[current] == index[current]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == current:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))

    for node in nodes:
        if node not in index:
            visit(node)
    return sorted(groups)


def import_cycles(package, modules=None, edges=None):
    """The cycles inside ``package`` (its subpackages counted in): each a list of the
    imports that join one group of modules that import each other.

    Example::

        >>> import_cycles("depyf.bytecode")
        []
    """
    if modules is None:
        modules, edges = find_modules(), _source_graph() if edges is None else edges
    edges = import_graph(modules) if edges is None else edges
    inside = [e for e in edges if in_package(e.source, package) and in_package(e.target, package)]
    nodes = sorted(n for n in modules if in_package(n, package))
    groups = strongly_connected(nodes, sorted({(e.source, e.target) for e in inside}))
    cycles = []
    for group in groups:
        members = set(group)
        cycles.append(sorted((e for e in inside if e.source in members and e.target in members),
                             key=lambda e: (e.source, e.line, e.target)))
    return cycles


class _PrivateReader(ast.NodeVisitor):
    """``m._x`` and ``getattr(m, "_x")`` for ``m`` a project module, and
    ``C._x`` for ``C`` a name imported from it (``m.C._x`` too): a
    class's private method belongs to its module as much as a function does."""

    def __init__(self, path, aliases, modules, defined_in=None):
        self.path = path
        self.aliases = aliases
        self.modules = modules
        self.defined_in = defined_in or {}
        self.found = []

    def owner_of(self, node):
        """The project module whose privates ``node._x`` reads: ``node`` is
        the module, or a public name taken from it; None otherwise."""
        module = self.module_of(node)
        if module is not None:
            return module
        if isinstance(node, ast.Name):
            return self.defined_in.get(node.id)
        if isinstance(node, ast.Attribute) and not is_private(node.attr):
            outer = self.module_of(node.value)
            if outer in self.modules:
                return outer
        return None

    def module_of(self, node):
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            outer = self.module_of(node.value)
            if outer and "%s.%s" % (outer, node.attr) in self.modules:
                return "%s.%s" % (outer, node.attr)
        return None

    def visit_Attribute(self, node):
        module = self.owner_of(node.value)
        if module in self.modules and is_private(node.attr):
            self.found.append(PrivateUse(self.path, node.lineno, module, node.attr))
        self.generic_visit(node)

    def visit_Call(self, node):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name in _ATTRIBUTE_CALLS and len(node.args) >= 2:
            module = self.owner_of(node.args[0])
            attr = node.args[1]
            if (module in self.modules and isinstance(attr, ast.Constant)
                    and isinstance(attr.value, str) and is_private(attr.value)):
                self.found.append(PrivateUse(self.path, node.lineno, module, attr.value))
        # monkeypatch.setattr("depyf.m._x", ...) names the module in the string
        if name in _ATTRIBUTE_CALLS and node.args and isinstance(node.args[0], ast.Constant):
            text = node.args[0].value
            if isinstance(text, str) and "." in text:
                module, _, attr = text.rpartition(".")
                if module in self.modules and is_private(attr):
                    self.found.append(PrivateUse(self.path, node.lineno, module, attr))
        self.generic_visit(node)


def private_uses(path, modules, name=None):
    """Private names the file at ``path`` takes from other project modules.

    ``name`` is the file's own module name when it is one of ``modules`` (its
    own privates are its own); a test or a tool has none.

    Example::

        >>> private_uses(find_modules()["depyf.bytecode"].path, find_modules(), "depyf.bytecode")
        []
    """
    own = modules.get(name)
    package = own.package if own else ""
    tree = parse(path)
    reader = _ImportReader(name or "", package, modules)
    reader.visit(tree)
    found = [PrivateUse(path, line, module, imported)
             for line, module, imported in reader.from_names
             if module != name and is_private(imported)]
    attributes = _PrivateReader(path, reader.aliases, modules, reader.defined_in)
    attributes.visit(tree)
    found += [use for use in attributes.found if use.module != name]
    return sorted(set(found), key=lambda u: (u.line, u.module, u.name))


def private_imports(modules=None, outside=()):
    """Every private name crossing modules in the source, then in the files
    under each folder of ``outside``.

    Example::

        >>> private_imports(outside=[os.path.join(REPO, "tools")])
        []
    """
    modules = modules or find_modules()
    found = []
    for module in modules.values():
        found += private_uses(module.path, modules, module.name)
    for folder in outside:
        for path in python_files(folder):
            try:
                found += private_uses(path, modules)
            except SyntaxError:
                # an input written for another Python (tests/cases), not code of ours
                continue
    return found


def python_files(folder):
    for parent, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for file in sorted(files):
            if file.endswith(".py"):
                yield os.path.join(parent, file)


def long_functions(folder=os.path.join(REPO, LONG_FOLDER), max_lines=MAX_LINES):
    """The functions under ``folder`` longer than ``max_lines``, longest first.

    Example::

        >>> all(f.length > 80 for f in long_functions())
        True
    """
    found = []
    for path in python_files(folder):
        def visit(node, prefix):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    qualname = prefix + child.name
                    if not isinstance(child, ast.ClassDef):
                        length = child.end_lineno - child.lineno + 1
                        if length > max_lines:
                            found.append(LongFunction(path, child.lineno, qualname, length))
                    visit(child, qualname + ".")
                else:
                    visit(child, prefix)
        visit(parse(path), "")
    return sorted(found, key=lambda f: (-f.length, f.path, f.line))


def where(path):
    return os.path.relpath(path, REPO)


def format_cycle(cycle):
    members = sorted({e.source for e in cycle} | {e.target for e in cycle})
    lines = ["  " + " <-> ".join(members)]
    for e in cycle:
        scope = " (in %s)" % e.scope if e.scope else ""
        lines.append("    %s -> %s  line %d%s" % (e.source, e.target, e.line, scope))
    return lines


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package", action="append",
                        help="a package to check for cycles (repeatable; default: %s)"
                        % ", ".join(CYCLE_PACKAGES))
    parser.add_argument("--outside", action="append",
                        help="a folder whose files may use public names only (repeatable; "
                        "default: %s)" % ", ".join(OUTSIDE))
    parser.add_argument("--long", default=os.path.join(REPO, LONG_FOLDER),
                        help="the folder whose long functions are listed (default: %s)" % LONG_FOLDER)
    parser.add_argument("--max-lines", type=int, default=MAX_LINES)
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    modules = find_modules()
    edges = import_graph(modules)
    problems = 0
    for package in args.package or CYCLE_PACKAGES:
        cycles = import_cycles(package, modules, edges)
        problems += len(cycles)
        print("import cycles in %s: %d" % (package, len(cycles)))
        for cycle in cycles:
            print("\n".join(format_cycle(cycle)))
    outside = args.outside or [os.path.join(REPO, folder) for folder in OUTSIDE]
    private = private_imports(modules, outside)
    problems += len(private)
    print("private names imported across modules: %d" % len(private))
    for use in private:
        print("  %s:%d  %s from %s" % (where(use.path), use.line, use.name, use.module))
    long = long_functions(args.long, args.max_lines)
    print("functions over %d lines in %s: %d" % (args.max_lines, where(args.long), len(long)))
    for f in long:
        print("  %4d  %s:%d  %s" % (f.length, where(f.path), f.line, f.qualname))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
