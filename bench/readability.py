"""How readable the transformed code in a dump is: faithful form against readable form.

Every test program of tests/dynamo_programs.py and the demo (``depyf demo``'s
toy example and small model) is run under ``depyf.prepare_debug`` twice, in
a fresh process each: with ``faithful=True`` (every instruction shown, what
the dump showed before the readable passes) and as the dump is now. Then,
for every ``__transformed_code_<k>_for_<fn>`` function of the dumps, it
counts:

* statements: every statement of the function's body, nested blocks
  included (a nested ``def`` counts as one, a docstring not at all);
* invented names: names the function binds (stores, walrus targets, nested
  ``def``s) that are neither its parameters nor names of the original
  function (the ``__original_<fn>`` of ``full_code_for_<fn>.py``) nor
  Dynamo's own ``graph_out_N``, whatever they are called;
* statements that do nothing: an expression statement that evaluates only
  names, constants and displays of them; ``pass`` beside other statements; a
  store of such a value to an invented name nobody reads; an ``if`` whose
  test is a false constant;
* ``del`` of invented names;
* list shuffles: a slice or item assignment or deletion on a list the
  function built itself (a display, or a slice or item of such a list, held
  by an invented name), ``.extend``/``.append`` on one.

It prints the counts per program, before and after side by side, the totals
with the goals of the readable form (zero statements that do nothing, zero
``del`` of invented names, zero list shuffles, invented names at most 15%
and statements at most 60% of the faithful count, the README toy's main
function in at most 6 statements), and a line per goal.

Run from the project root with torch installed::

    PYTHONPATH=src python bench/readability.py [--programs toy_example,graph_breaks] [--show]

``--show`` prints each function in both forms too.
"""
from __future__ import annotations

import argparse
import ast
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
from typing import Dict, List, Optional, Set

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TESTS = os.path.join(ROOT, "tests")
SRC = os.path.join(ROOT, "src")
# The programs whose dumps are read: tests/dynamo_programs.py's (those that
# compile code of their own; the special ones repeat the toy example) and the demo.
PROGRAMS = ["toy_example", "toy_example_aot", "mlp_train", "graph_breaks", "recompiles", "constants",
            "side_effects", "module_state", "closures", "module_hooks", "attention", "grad_mode_break",
            "wrapped_forward", "inductor_small", "demo"]
GRAPH_OUT = re.compile(r"^graph_out_\d+$")
TRANSFORMED = re.compile(r"^__transformed_code_\d+_for_(\w+)$")

CHILD = r'''
import sys, torch
sys.path.insert(0, sys.argv[1])
import depyf, dynamo_programs as programs
root, faithful = sys.argv[2], sys.argv[3] == "faithful"
for name in sys.argv[4:]:
    torch._dynamo.reset()
    if name == "demo":
        from depyf.demo import compile_and_dump
        compile_and_dump(root + "/demo", faithful=faithful)
        continue
    program, backend = programs.PROGRAMS[name]
    torch.manual_seed(0)
    with depyf.prepare_debug(root + "/" + name, faithful=faithful):
        program(backend)
'''


def dump(root: str, form: str, names: List[str]) -> None:
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONWARNINGS="ignore")
    proc = subprocess.run([sys.executable, "-c", CHILD, TESTS, root, form] + names, env=env,
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode:
        sys.exit("the %s run failed:\n%s" % (form, proc.stderr[-3000:]))


# -- reading a dump ----------------------------------------------------------------------------

def functions(tree: ast.AST) -> Dict[str, ast.FunctionDef]:
    return {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def own_statements(body: List[ast.stmt]):
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from own_statements(getattr(stmt, field, None) or [])
        for handler in getattr(stmt, "handlers", None) or []:
            yield from own_statements(handler.body)


def own_nodes(stmt: ast.stmt):
    """The nodes of ``stmt`` itself: not of nested statements or scopes."""
    todo = [stmt]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, (ast.stmt, ast.Lambda)):
                todo.append(child)


def parameters(fn: ast.FunctionDef) -> Set[str]:
    a = fn.args
    return {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x is not None}


def bound_names(fn: ast.FunctionDef) -> Set[str]:
    names: Set[str] = set()
    for stmt in own_statements(fn.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
            continue
        if isinstance(stmt, ast.AnnAssign) and stmt.value is None:
            continue        # a declaration binds nothing
        for node in own_nodes(stmt):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.NamedExpr):
                names.add(node.target.id)
            elif isinstance(node, ast.Nonlocal):
                names.update(node.names)
    return names


def loaded_names(fn: ast.FunctionDef) -> Set[str]:
    return {n.id for stmt in own_statements(fn.body) for n in own_nodes(stmt)
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


_INERT = (ast.Constant, ast.Name, ast.List, ast.Tuple, ast.Starred, ast.Load, ast.Store)


def inert(node: ast.expr) -> bool:
    return all(isinstance(n, _INERT) for n in ast.walk(node))


def list_holder(node: ast.expr) -> Optional[str]:
    while isinstance(node, ast.Subscript):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def measure(fn: ast.FunctionDef, original: Set[str]) -> Dict[str, int]:
    params = parameters(fn)
    invented = {n for n in bound_names(fn) if n not in params and n not in original and not GRAPH_OUT.match(n)}
    loaded = loaded_names(fn)
    stack_lists = _stack_lists(fn, invented)
    counts = dict(statements=0, invented=len(invented), nothing=0, dels=0, shuffles=0)
    for block in _blocks(fn.body):
        for stmt in block:
            if stmt is fn.body[0] and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                    and isinstance(stmt.value.value, str):
                continue        # the docstring (Dynamo keeps the original's)
            counts["statements"] += 1
            for key in _what_it_is(stmt, invented, stack_lists, loaded, alone=len(block) == 1):
                counts[key] += 1
    counts["names"] = sorted(invented)
    return counts


def _stack_lists(fn: ast.FunctionDef, invented: Set[str]) -> Set[str]:
    """Invented names bound to a list the function built: a display, or a
    slice or item of another such list."""
    lists: Set[str] = set()
    changed = True
    while changed:
        changed = False
        for stmt in own_statements(fn.body):
            if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                    and isinstance(stmt.targets[0], ast.Name)):
                continue
            name, value = stmt.targets[0].id, stmt.value
            if name in lists or name not in invented:
                continue
            if isinstance(value, ast.List) or (isinstance(value, (ast.Subscript, ast.Name))
                                               and list_holder(value) in lists):
                lists.add(name)
                changed = True
    return lists


def _what_it_is(stmt: ast.stmt, invented: Set[str], stack_lists: Set[str], loaded: Set[str], alone: bool):
    """The counts ``stmt`` adds to, besides "statements"."""
    if isinstance(stmt, ast.Pass) and not alone:
        yield "nothing"
    elif isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Constant) and not stmt.test.value:
        yield "nothing"
    elif isinstance(stmt, ast.Expr):
        if inert(stmt.value):
            yield "nothing"
        func = stmt.value.func if isinstance(stmt.value, ast.Call) else None
        if isinstance(func, ast.Attribute) and func.attr in ("extend", "append") and \
                list_holder(func.value) in stack_lists:
            yield "shuffles"
    elif isinstance(stmt, ast.Assign):
        if all(isinstance(t, ast.Name) and t.id in invented and t.id not in loaded for t in stmt.targets) \
                and inert(stmt.value):
            yield "nothing"
        for target in stmt.targets:
            if isinstance(target, ast.Subscript) and list_holder(target) in stack_lists:
                yield "shuffles"
    elif isinstance(stmt, ast.Delete):
        for target in stmt.targets:
            if isinstance(target, ast.Name) and target.id in invented:
                yield "dels"
            elif isinstance(target, ast.Subscript) and list_holder(target) in stack_lists:
                yield "shuffles"


def _blocks(body):
    """``body`` and every block nested in it (not in nested scopes)."""
    yield body
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            inner = getattr(stmt, field, None)
            if inner:
                yield from _blocks(inner)
        for handler in getattr(stmt, "handlers", None) or []:
            yield from _blocks(handler.body)


def read_dump(path: str) -> Dict[str, tuple]:
    """{transformed function name: (def node, counts)} of one program's dump."""
    originals: Dict[str, Set[str]] = {}
    for full in glob.glob(os.path.join(path, "full_code_for_*.py")):
        fn_name = os.path.basename(full)[len("full_code_for_"):-3]
        with open(full, encoding="utf-8") as f:
            defs = functions(ast.parse(f.read()))
        original = defs.get("__original_" + fn_name)
        if original is not None:
            originals[fn_name] = parameters(original) | bound_names(original)
    found = {}
    for file in sorted(glob.glob(os.path.join(path, "__transformed_code_*.py"))):
        with open(file, encoding="utf-8") as f:
            defs = functions(ast.parse(f.read()))
        for name, fn in defs.items():
            m = TRANSFORMED.match(name)
            if m:
                found[name] = (fn, measure(fn, originals.get(m.group(1), set())))
    return found


COLUMNS = [("statements", "statements"), ("invented", "invented names"), ("nothing", "do nothing"),
           ("dels", "del invented"), ("shuffles", "list shuffles")]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--programs", default=",".join(PROGRAMS))
    parser.add_argument("--show", action="store_true", help="print each function in both forms")
    args = parser.parse_args(argv)
    names = [n for n in args.programs.split(",") if n]
    with tempfile.TemporaryDirectory(prefix="depyf-readability-") as root:
        forms = {}
        for form in ("faithful", "readable"):
            dump(os.path.join(root, form), form, names)
            forms[form] = {name: read_dump(os.path.join(root, form, name)) for name in names}
        return report(names, forms, args.show)


def report(names, forms, show: bool) -> int:
    width = 16
    head = "%-22s %4s " % ("program", "fns") + " ".join("%*s" % (width, title) for _, title in COLUMNS)
    print(head)
    print("-" * len(head))
    totals = {form: dict.fromkeys([k for k, _ in COLUMNS], 0) for form in forms}
    toy_statements = None
    for name in names:
        before, after = forms["faithful"][name], forms["readable"][name]
        sums = {}
        for form, fns in (("faithful", before), ("readable", after)):
            sums[form] = {k: sum(c[k] for _, c in fns.values()) for k, _ in COLUMNS}
            if show and form == "readable":
                for fn_name, (_, c) in sorted(fns.items()):
                    print("  invented in %s: %s" % (fn_name, ", ".join(c["names"]) or "-"))
            for k in sums[form]:
                totals[form][k] += sums[form][k]
        cells = ["%*s" % (width, "%d -> %d" % (sums["faithful"][k], sums["readable"][k])) for k, _ in COLUMNS]
        print("%-22s %4d " % (name, len(after)) + " ".join(cells))
        if name == "demo" and "__transformed_code_0_for_toy_example" in after:
            toy_statements = after["__transformed_code_0_for_toy_example"][1]["statements"]
        if show:
            for fn_name in sorted(after):
                for form, fns in (("faithful", before), ("readable", after)):
                    if fn_name in fns:
                        print("\n# %s, %s\n%s" % (fn_name, form, ast.unparse(fns[fn_name][0])))
            print()
    print("-" * len(head))
    f, r = totals["faithful"], totals["readable"]
    print("%-22s %4s " % ("total", "") + " ".join(
        "%*s" % (width, "%d -> %d" % (f[k], r[k])) for k, _ in COLUMNS))
    ratio = lambda k: r[k] / f[k] if f[k] else 0.0     # noqa: E731
    goals = [
        ("statements that do nothing: 0", r["nothing"] == 0, "%d" % r["nothing"]),
        ("del of invented names: 0", r["dels"] == 0, "%d" % r["dels"]),
        ("list shuffles: 0", r["shuffles"] == 0, "%d" % r["shuffles"]),
        ("invented names <= 15% of faithful", ratio("invented") <= 0.15, "%.1f%%" % (100 * ratio("invented"))),
        ("statements <= 60% of faithful", ratio("statements") <= 0.60, "%.1f%%" % (100 * ratio("statements"))),
    ]
    if "demo" in names:
        # (a demo that dumped nothing fails this goal: it shows the README toy)
        goals.append(("README toy's main function <= 6 statements",
                      toy_statements is not None and toy_statements <= 6,
                      "no dump of it" if toy_statements is None else "%d" % toy_statements))
    print()
    for goal, ok, value in goals:
        print("%-46s %-8s %s" % (goal, value, "ok" if ok else "MISSED"))
    print(json.dumps({"faithful": f, "readable": r}))
    return 0 if all(ok for _, ok, _ in goals) else 1


if __name__ == "__main__":
    sys.exit(main())
