"""Run by tests/test_effect_trace.py (in a process of its own: it compiles
with Dynamo): each test program's transformed code, decompiled faithfully,
against Dynamo's own by depyf.verify.effect_trace, and mutants of the text
that must be refused. Prints one JSON line of counts.

    python tests/effect_trace_dynamo.py
"""
import ast
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import torch  # noqa: E402

import dynamo_programs as programs  # noqa: E402
from depyf.decompiler.api import decompile_report  # noqa: E402
from depyf.verify import effect_trace  # noqa: E402


def transformed_codes():
    """(name, Dynamo's code) of every compile of the test programs."""
    made = []
    handle = torch._dynamo.convert_frame.register_bytecode_hook(
        lambda code, new: made.append((code.co_name, new)))
    try:
        for name in programs.plain_programs():
            program, backend = programs.PROGRAMS[name]
            torch._dynamo.reset()
            torch.manual_seed(0)
            program(backend)
    finally:
        handle.remove()
    return made


def compiled_function(text, name):
    """The code object named ``name`` in ``text`` compiled (at any depth)."""
    todo = [compile(text, "<mutant>", "exec")]
    while todo:
        code = todo.pop()
        for const in code.co_consts:
            if hasattr(const, "co_code"):
                if const.co_name == name:
                    return const
                todo.append(const)
    return None


def has_call(stmt):
    return any(isinstance(node, ast.Call) for node in ast.walk(stmt))


def mutants(text, name):
    """Texts with two neighbouring statements of one body swapped, or one
    dropped, each of them holding a call."""
    tree = ast.parse(text)
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    bodies = [n.body for n in ast.walk(fn) if isinstance(getattr(n, "body", None), list)]
    bodies += [n.orelse for n in ast.walk(fn) if isinstance(getattr(n, "orelse", None), list)]
    for body in bodies:
        for k in range(len(body)):
            if not has_call(body[k]):
                continue
            kept = body[k]
            del body[k]
            yield "dropped", ast.unparse(tree)
            body.insert(k, kept)
            if k + 1 < len(body) and has_call(body[k + 1]) \
                    and ast.dump(body[k]) != ast.dump(body[k + 1]):
                body[k], body[k + 1] = body[k + 1], body[k]
                yield "swapped", ast.unparse(tree)
                body[k], body[k + 1] = body[k + 1], body[k]


def main():
    warnings.simplefilter("ignore")
    counts = {"functions": 0, "equivalent": 0, "mutants": 0, "refused": 0, "accepted": []}
    for name, code in transformed_codes():
        counts["functions"] += 1
        text = decompile_report(code, name="f", validate=False).source
        candidate = compiled_function(text, "f")
        if candidate is None or not effect_trace.equivalent(code, candidate):
            continue
        counts["equivalent"] += 1
        for how, mutant in mutants(text, "f"):
            try:
                changed = compiled_function(mutant, "f")
            except SyntaxError:
                continue
            if changed is None:
                continue
            counts["mutants"] += 1
            if effect_trace.equivalent(code, changed):
                counts["accepted"].append("%s (%s)" % (name, how))
            else:
                counts["refused"] += 1
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
