"""``normalize.stack_copies``: up to 3.10's stack shuffles become 3.11's COPY
and SWAP, with the same effect on the stack, so that the structurer and the
expression builder read one spelling (hand-built ops, and 3.8-3.10 code)."""
import random
import subprocess

import pytest

from depyf.bytecode.edits import rewrite_each
from depyf.bytecode.ir import Function, Handler, Op
from depyf.bytecode.normalize import OP_PASSES, PASSES, normalize, stack_copies
from depyf.bytecode.pyc import read_pyc
from depyf.verify.interpreters import find_interpreter


def shuffled(ops, stack):
    """``stack`` after running the shuffle ops, read by their own rules."""
    stack = list(stack)
    for op in ops:
        name, n = op.name, op.arg
        if name == "DUP_TOP":
            stack.append(stack[-1])
        elif name == "DUP_TOP_TWO":
            stack += stack[-2:]
        elif name in ("ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"):
            n = {"ROT_TWO": 2, "ROT_THREE": 3, "ROT_FOUR": 4}.get(name, n)
            stack.insert(len(stack) - n, stack.pop())
        elif name == "COPY":
            stack.append(stack[-n])
        elif name == "SWAP":
            stack[-1], stack[-n] = stack[-n], stack[-1]
        else:
            raise AssertionError(name)
    return stack


def rewritten(ops):
    func = Function(None, ops + [Op("RETURN_VALUE")])
    rewrite_each(func, None, [(OP_PASSES["stack_copies"], stack_copies)])
    return func.ops[:-1]


@pytest.mark.parametrize("name,arg", [("DUP_TOP", None), ("DUP_TOP_TWO", None), ("ROT_THREE", None),
                                      ("ROT_FOUR", None), ("ROT_N", 5), ("ROT_N", 2)])
def test_each_shuffle_has_the_same_effect_in_copy_and_swap(name, arg):
    new = rewritten([Op(name, arg)])
    assert {op.name for op in new} <= {"COPY", "SWAP"}
    stack = list("abcdef")
    assert shuffled(new, stack) == shuffled([Op(name, arg)], stack)


def test_random_runs_of_shuffles_keep_their_effect():
    rng = random.Random(7)
    kinds = [("DUP_TOP", None), ("DUP_TOP_TWO", None), ("ROT_TWO", None), ("ROT_THREE", None),
             ("ROT_FOUR", None), ("ROT_N", 3), ("COPY", 2), ("SWAP", 3)]
    for _ in range(200):
        ops = [Op(*rng.choice(kinds)) for _ in range(rng.randint(1, 6))]
        stack = list("abcdefgh")
        expected = shuffled(ops, stack)
        assert shuffled(rewritten([Op(op.name, op.arg) for op in ops]), stack) == expected


def test_a_jump_to_a_rotation_lands_on_its_first_swap_and_handlers_stay():
    h = Handler(Op("PUSH_EXC_INFO"), 1, False)
    rot = Op("ROT_THREE", handler=h)
    jump = Op("JUMP", target=rot)
    func = Function(None, [jump, Op("LOAD_CONST", 1), rot, Op("RETURN_VALUE")])
    rewrite_each(func, None, [(OP_PASSES["stack_copies"], stack_copies)])
    assert [op.name for op in func.ops] == ["JUMP", "LOAD_CONST", "SWAP", "SWAP", "RETURN_VALUE"]
    assert jump.target is func.ops[2]
    assert all(op.handler is h for op in func.ops[2:4])


def test_it_runs_last_where_the_old_spellings_exist():
    # (the passes rebuilding 3.8's finally blocks and the block stack read them)
    for version in ((3, 8), (3, 9), (3, 10)):
        assert PASSES[version][-1] == "stack_copies"
    assert all("stack_copies" not in PASSES[v] for v in PASSES if v >= (3, 11))


@pytest.mark.parametrize("version", ["3.8", "3.9", "3.10"])
def test_no_old_shuffle_survives_normalising(version, tmp_path):
    python = find_interpreter(version)
    if python is None:
        pytest.skip("no Python %s interpreter" % version)
    source = tmp_path / "m.py"
    source.write_text("def f(a, i, y, z):\n"
                      "    a[i] += 1\n"
                      "    x = y = z\n"
                      "    a.b, a.c = a.c, a.b\n"
                      "    a, b, c = c, b, a\n"
                      "    with y as q:\n"
                      "        pass\n"
                      "    try:\n"
                      "        pass\n"
                      "    except E as e:\n"
                      "        pass\n"
                      "    return a < i < y\n")
    pyc = tmp_path / "m.pyc"
    subprocess.run([python, "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2])",
                    str(source), str(pyc)], check=True)
    for record in read_pyc(str(pyc)).code.walk():
        names = {op.name for op in normalize(record).ops}
        assert not names & {"DUP_TOP", "DUP_TOP_TWO", "ROT_TWO", "ROT_THREE", "ROT_FOUR", "ROT_N"}
