"""Hand-built op lists for the structuring families' tests.

The structurer (``depyf.decompiler.structure``) reads normalised IR, the ops
``depyf.bytecode.normalize`` makes of any CPython's bytecode. The family tests
write that IR by hand, so that each test says exactly which shape it feeds the
family, whatever the host compiles. :func:`assemble` reads one op a line::

    top:  FOR_ITER -> done          # a label, the op, its jump target
          STORE_FAST i              # an argument: a literal, or else a name
    3     LOAD_FAST i               # a leading number starts a new source line
          CALL (1, (), 2) !h/1      # `!label/depth[/lasti]`: the op's handler
    done: LOAD_CONST None
    cont: JUMP -> top               # see walker(): `statements` may name it

:func:`structure` runs the walker on such a list and returns the statements
as source text.

>>> print(structure('''
... 1     LOAD_FAST a
...       POP_JUMP_IF_FALSE -> out
... 2     LOAD_CONST 1
...       RETURN_VALUE
... out:  LOAD_CONST None
...       RETURN_VALUE
... ''', varnames=("a",), argcount=1))
if a:
    return 1
return None

(the function's closing ``return None`` is dropped after the walk, by
``depyf.decompiler.functions``)
"""
import ast
import sys
import textwrap
from typing import Dict, List, Tuple

from depyf.bytecode.code import CodeRecord
from depyf.bytecode.ir import Function, Handler, Op
from depyf.decompiler.expressions import Context
from depyf.decompiler.structure.walker import Walker

HOST = sys.version_info[:2]


def _arg(text: str):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def assemble(text: str) -> List[Op]:
    """The ops ``text`` writes (see the module docstring), targets and handlers resolved."""
    return _assemble(text)[0]


def _assemble(text: str) -> Tuple[List[Op], Dict[str, int]]:
    """(the ops ``text`` writes, each label's index)."""
    ops: List[Op] = []
    labels: Dict[str, int] = {}
    pending: List[Tuple[Op, str, str]] = []
    line = None
    for raw in text.splitlines():
        raw = raw.split("#", 1)[0].strip()
        if not raw:
            continue
        head, _, rest = raw.partition(" ")
        if head.endswith(":"):
            labels[head[:-1]] = len(ops)
            raw = rest.strip()
            head, _, rest = raw.partition(" ")
        if head.isdigit():
            line = int(head)
            raw = rest.strip()
            head, _, rest = raw.partition(" ")
        handler = ""
        if "!" in rest:
            rest, _, handler = rest.partition("!")
        target = ""
        if "->" in rest:
            rest, _, target = rest.partition("->")
        rest = rest.strip()
        op = Op(head, _arg(rest) if rest else None, line=line, offset=2 * len(ops))
        ops.append(op)
        pending.append((op, target.strip(), handler.strip()))
    for op, target, handler in pending:
        if target:
            op.target = ops[labels[target]]
        if handler:
            name, *numbers = handler.split("/")
            depth = int(numbers[0]) if numbers else 0
            lasti = bool(int(numbers[1])) if len(numbers) > 1 else False
            op.handler = Handler(ops[labels[name]], depth, lasti)
    for k, op in enumerate(ops):
        op.index = k
    return ops, labels


def _no_nested(record, how):
    raise AssertionError("the hand-built code holds no nested code object")


def source(text: str) -> str:
    """Expected statements written as an indented block in a test, as
    :func:`structure` returns them."""
    return textwrap.dedent(text).strip()


def walker(text: str, statements=(), **fields) -> Walker:
    """A walker over the ops ``text`` writes; ``statements`` labels the jumps
    that are a ``continue`` statement's own (``Function.jump_statements``,
    which the normalising passes fill); ``fields`` are the code record's
    (``varnames``, ``names``, ``argcount``...)."""
    fields.setdefault("version", HOST)
    fields.setdefault("name", "f")
    fields.setdefault("qualname", fields["name"])
    fields.setdefault("firstlineno", 1)
    record = CodeRecord(**fields)
    ops, labels = _assemble(text)
    func = Function(record, ops)
    func.jump_statements.update(id(ops[labels[name]]) for name in statements)
    return Walker(func, Context(record, _no_nested))


def structure(text: str, statements=(), **fields) -> str:
    """The statements the walker makes of the ops ``text`` writes, as source."""
    return "\n".join(ast.unparse(stmt) for stmt in walker(text, statements, **fields).body())
