"""Functions defined in this process decompile to a ``def`` that recompiles to
the same code object (closures and methods included) and shows what only the
function object knows: defaults, keyword defaults, annotations."""
import types

import pytest

import depyf
from depyf.verify.compare_code import canonical_instructions, header


def deep_canon(code):
    """The strict rule's view of ``code`` and of every code object in it."""
    nested = [deep_canon(c) for c in code.co_consts if isinstance(c, types.CodeType)]
    return header(code), canonical_instructions(code), nested


def find_code(code, qualname):
    """The code object named by ``qualname`` (``K.m``, ``f.<locals>.g``) in a module's code."""
    name = qualname.rsplit(".", 1)[-1]
    stack = [code]
    while stack:
        c = stack.pop()
        if c.co_name == name and getattr(c, "co_qualname", qualname) == qualname:
            return c
        stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
    raise AssertionError("%s not in the decompiled module" % qualname)


def assert_same_code(func):
    source = depyf.decompile(func)
    module = compile(source, "<decompiled>", "exec")
    original = getattr(func, "__func__", func).__code__
    # Only a function with free variables comes inside its rebuilt scopes, and
    # so under its qualified name; the others are top-level defs.
    wanted = getattr(original, "co_qualname", original.co_name) if original.co_freevars \
        else original.co_name
    rebuilt = find_code(module, wanted)
    expected = deep_canon(original)
    if not original.co_freevars:
        # Up to 3.10 a nested function's qualname is a constant of the code making
        # it: a method's comprehension, decompiled to a top-level def, is
        # "twice.<locals>.<listcomp>", not "Child.twice.<locals>.<listcomp>".
        qualname = getattr(getattr(func, "__func__", func), "__qualname__", original.co_name)
        expected = _renamed(expected, qualname + ".<locals>.", original.co_name + ".<locals>.")
    assert deep_canon(rebuilt) == expected, source
    return source


def _renamed(canon, old, new):
    if isinstance(canon, str):
        return canon.replace(old, new)
    if isinstance(canon, (list, tuple)):
        return type(canon)(_renamed(item, old, new) for item in canon)
    if isinstance(canon, dict):
        return {k: _renamed(v, old, new) for k, v in canon.items()}
    return canon


# -- the functions under test ------------------------------------------------

def make_counter(start):
    count = start

    def step(by=1):
        nonlocal count
        count += by
        return count
    return step


def make_adder(n):
    return lambda x: x + n


class Base:
    def greet(self, name):
        return "hello " + name


class Child(Base):
    def greet(self, name, *, loud=False):
        text = super().greet(name)
        return text.upper() if loud else text

    @staticmethod
    def twice(x: int, y: "list[int]" = (1, 2)) -> int:
        return [x * 2 for _ in y]

    @classmethod
    def make(cls):
        return cls()

    @property
    def kind(self):
        return __class__.__name__


def outer():
    class Local:
        def method(self):
            return super().__repr__()
    return Local


def generator(xs):
    for x in xs:
        if x:
            yield x
        else:
            yield from range(3)


async def fetch(session, urls):
    async with session:
        async for item in session.stream(urls):
            await item


@pytest.mark.parametrize("func", [
    make_counter, make_counter(5), make_adder(2), Base.greet, Child.greet, Child().greet,
    Child.twice, Child.make, Child.kind.fget, outer, outer().method, generator, fetch,
], ids=lambda f: getattr(f, "__qualname__", repr(f)))
def test_recompiles_to_the_same_code(func):
    assert_same_code(func)


def test_closure_shows_its_scope_and_defaults():
    source = assert_same_code(make_counter(5))
    assert "def make_counter():" in source
    assert "count = 5" in source            # the cell's value, being a plain literal
    assert "def step(by=1):" in source


def test_method_keeps_its_class_and_keyword_defaults():
    source = assert_same_code(Child.greet)
    assert "class Child:" in source
    assert "def greet(self, name, *, loud=False):" in source


def test_annotations_and_defaults_from_the_function_object():
    source = depyf.decompile(Child.twice)
    assert "def twice(x: int, y: list[int] = (1, 2)) -> int:" in source


def test_unrepresentable_default_is_named_not_evaluated():
    sentinel = object()

    def f(x=sentinel, y=len):
        return x, y
    source = depyf.decompile(f)
    assert "x=_default_object" in source and "y=len" in source


def test_a_class_is_refused_with_a_clear_message():
    with pytest.raises(TypeError, match="decompile its methods"):
        depyf.decompile(Child)
