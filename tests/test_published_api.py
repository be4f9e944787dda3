"""The names the published depyf offers for decompiling work here the same way:
``depyf.decompile`` of every kind of callable it takes, ``depyf.Decompiler``
with its keyword arguments, and the helpers in ``depyf.utils``."""
import dis
import functools
import os
import subprocess
import sys
import textwrap

import pytest

import depyf
from depyf.utils import (collect_all_code_objects, decompile_ensure, get_code_owner,
                         get_function_signature, safe_create_directory)

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def run_decompiled(source, name):
    """The function ``name`` that running ``source`` defines."""
    scope = {}
    exec(compile(source, "<decompiled>", "exec"), scope)
    return scope[name]


def add(a, b=10):
    return a + b


class Adder:
    def __call__(self, a, b):
        return a + b

    def method(self, a):
        return a * 2

    @classmethod
    def build(cls, a):
        return a - 1

    @staticmethod
    def static(a):
        return a * 3


def traced(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return ("traced", fn(*args, **kwargs))
    return wrapper


@traced
def traced_add(a, b):
    return a + b


# -- what depyf.decompile takes ------------------------------------------------

@pytest.mark.parametrize("wrapped, owner", [
    (functools.partial(add, 1), add),
    (functools.partial(functools.partial(add, 1), b=2), add),
    (functools.lru_cache(None)(add), add),
    (functools.lru_cache(maxsize=8)(add), add),
    (traced_add, traced_add.__wrapped__),
    (Adder(), Adder.__call__),
    (Adder().__call__, Adder.__call__),
    (Adder().method, Adder.method),
    (Adder.build, Adder.__dict__["build"].__func__),
    (Adder.__dict__["static"], Adder.static),
], ids=["partial", "partial of partial", "lru_cache", "lru_cache(maxsize)", "functools.wraps",
        "callable instance", "bound __call__", "bound method", "classmethod", "raw staticmethod"])
def test_a_wrapper_decompiles_to_the_function_it_runs(wrapped, owner):
    assert get_code_owner(wrapped) is owner
    source = depyf.decompile(wrapped)
    assert source == depyf.decompile(owner)
    assert "def %s(" % owner.__name__ in source


def test_the_published_code_owner_examples_run():
    # partial(f, 1), lru_cache(None)(f) and A() are what the published suite prints.
    f = run_decompiled(depyf.decompile(functools.partial(add, 1)), "add")
    assert f(1, 2) == 3 and f(5) == 15          # the live function's default came along
    f = run_decompiled(depyf.decompile(functools.lru_cache(None)(add)), "add")
    assert f(2, 3) == 5
    call = run_decompiled(depyf.decompile(Adder()), "__call__")
    assert call(None, 4, 5) == 9


def test_a_code_object_and_a_function_give_the_same_body():
    assert depyf.decompile(add.__code__).startswith(depyf.decompile(add).split("(")[0])
    assert run_decompiled(depyf.decompile(add.__code__), "add")(1, 2) == 3


@pytest.mark.parametrize("thing, named", [
    (len, "builtin_function_or_method 'len'"),
    (Adder, "the class 'Adder'"),
    (3, "type 'int'"),
    (object(), "type 'object'"),
    (functools.partial(len), "which runs builtin_function_or_method 'len'"),
    (property(lambda self: 1), "property"),
])
def test_what_has_no_bytecode_is_a_type_error_naming_it_and_what_is_accepted(thing, named):
    with pytest.raises(TypeError) as info:
        depyf.decompile(thing)
    message = str(info.value)
    assert named in message
    assert "functools.partial" in message and "code object" in message and ".pyc" in message


def test_an_object_inventing_every_attribute_is_refused_not_followed_for_ever():
    class Anything:
        def __getattr__(self, name):
            return Anything()
    with pytest.raises(TypeError, match="did not end"):
        depyf.decompile(Anything())


# -- enclosing scopes only where free variables need them ----------------------

def test_a_nested_function_without_free_variables_is_a_top_level_def():
    def outer():
        def f(a, b):
            if a > 0 and b > 0:
                return a + b
            return 2
        return f
    inner = outer()
    source = depyf.decompile(inner)
    assert source.lstrip().startswith("def f(a, b):"), source
    f = run_decompiled(source, "f")
    assert [f(a, b) for a in (-1, 2) for b in (-1, 3)] == [2, 2, 2, 5]


def test_a_method_without_free_variables_is_a_top_level_def():
    source = depyf.decompile(Adder.method)
    assert "class" not in source
    assert run_decompiled(source, "method")(None, 4) == 8


def test_a_closure_still_comes_inside_the_scope_that_binds_its_variable():
    def make(start):
        count = start

        def step(by=1):
            nonlocal count
            count += by
            return count
        return step
    source = depyf.decompile(make(5))
    assert "def make():" in source and "nonlocal count" in source
    rebuilt = [c for c in collect_all_code_objects(compile(source, "<d>", "exec"))
               if c.co_name == "step"]
    assert rebuilt[0].co_freevars == ("count",)


def test_a_method_using_super_still_comes_inside_a_class():
    class Base:
        def who(self):
            return "base"

    class Child(Base):
        def who(self):
            return "child of " + super().who()
    source = depyf.decompile(Child.who)
    assert "class Child" in source
    rebuilt = [c for c in collect_all_code_objects(compile(source, "<d>", "exec"))
               if c.co_name == "who"]
    assert rebuilt[0].co_freevars == ("__class__",)


# -- depyf.Decompiler ----------------------------------------------------------

def test_decompiler_gives_what_decompile_gives():
    assert depyf.Decompiler(add).decompile() == depyf.decompile(add)
    assert depyf.Decompiler(add.__code__).decompile() == depyf.decompile(add.__code__)
    assert depyf.Decompiler(functools.partial(add, 1)).code is add.__code__
    assert depyf.decompiler.Decompiler is depyf.Decompiler
    assert depyf.decompiler.DecompilationError is depyf.DecompilationError


def test_overwite_fn_name_renames_a_function_and_a_lambda():
    # The published suite's rename check: exec the source, call the new name.
    g = run_decompiled(depyf.Decompiler(add).decompile(overwite_fn_name="g"), "g")
    assert g(1, 2) == add(1, 2)
    lam = run_decompiled(depyf.Decompiler(lambda a, b: a * b).decompile(overwite_fn_name="lam"),
                         "lam")
    assert lam(3, 4) == 12


@pytest.mark.parametrize("name", ["", "two words", "class", 3])
def test_a_name_no_def_can_have_is_refused(name):
    with pytest.raises(ValueError, match="overwite_fn_name"):
        depyf.Decompiler(add).decompile(overwite_fn_name=name)


def nested_blocks(a, b):
    total = 0
    for i in range(a):
        if i % 2:
            while b > i:
                b -= 1
                total += b
    return total


@pytest.mark.parametrize("width", [1, 2, 3, 8])
def test_indentation_sets_the_spaces_per_block_level(width):
    def indents(text):
        return [len(line) - len(line.lstrip(" ")) for line in text.splitlines()]
    default = depyf.Decompiler(nested_blocks).decompile()
    source = depyf.Decompiler(nested_blocks).decompile(indentation=width)
    assert max(indents(default)) >= 12          # three levels deep at least
    assert indents(source) == [n // 4 * width for n in indents(default)], source
    f = run_decompiled(source, "nested_blocks")
    assert [f(a, b) for a in range(6) for b in range(6)] == \
        [nested_blocks(a, b) for a in range(6) for b in range(6)]


def test_indentation_leaves_the_inside_of_a_string_over_several_lines_alone():
    from depyf.decompiler.compat import reindent
    source = 'def f():\n    x = """a\n    b"""\n    return x\n'
    assert reindent(source, 2) == 'def f():\n  x = """a\n    b"""\n  return x\n'


def documented(a):
    """First line.

        indented more
    back
    """
    return a


@pytest.mark.parametrize("width", [2, 8])
def test_indentation_keeps_a_docstring_over_several_lines(width):
    source = depyf.Decompiler(documented).decompile(indentation=width)
    assert run_decompiled(source, "documented").__doc__ == documented.__doc__


def test_temp_prefix_is_accepted_and_changes_nothing():
    plain = depyf.Decompiler(nested_blocks).decompile()
    assert depyf.Decompiler(nested_blocks).decompile(temp_prefix="__tmp_") == plain
    with pytest.raises(TypeError, match="temp_prefix"):
        depyf.Decompiler(nested_blocks).decompile(temp_prefix=1)


@pytest.mark.parametrize("width", [0, -2, 2.5, True])
def test_an_indentation_that_is_not_a_positive_count_is_refused(width):
    with pytest.raises(ValueError, match="indentation"):
        depyf.Decompiler(add).decompile(indentation=width)


def test_decompiler_of_what_has_no_bytecode_is_a_type_error():
    with pytest.raises(TypeError, match="depyf.Decompiler: builtin_function_or_method 'len'"):
        depyf.Decompiler(len)


# -- depyf.utils ---------------------------------------------------------------

def finally_overrides(a, b):
    try:
        return a + b
    finally:
        return a - b


def corrupt(code):
    """``code`` with a constant index no constant table has: valid bytes, bad bytecode."""
    return code.replace(co_code=bytes([dis.opmap["LOAD_CONST"], 200]) + code.co_code[-2:])


def test_decompile_ensure_gives_the_source_when_it_can():
    # The published suite's example: a return in a finally clause.
    source = decompile_ensure(finally_overrides.__code__)
    assert run_decompiled(source, "finally_overrides")(5, 2) == 3
    g = run_decompiled(decompile_ensure(finally_overrides.__code__, overwite_fn_name="g"), "g")
    assert g(5, 2) == 3


def test_decompile_ensure_gives_a_stub_with_the_signature_when_it_cannot():
    with pytest.raises(depyf.DecompilationError):
        depyf.decompile(corrupt(add.__code__))
    stub = decompile_ensure(corrupt(add.__code__))
    assert stub == "def add(a, b):\n    'Failed to decompile.'\n"
    assert decompile_ensure(corrupt(add.__code__), "h").startswith("def h(a, b):\n")
    assert run_decompiled(stub, "add")(1, 2) is None


def test_decompile_ensure_still_refuses_what_holds_no_code():
    with pytest.raises(TypeError):
        decompile_ensure(len)


def test_function_signature_writes_every_kind_of_parameter():
    def every(a, /, b, *args, c, d=1, **kw):
        pass
    assert get_function_signature(every.__code__) == "def every(a, /, b, *args, c, d, **kw):\n"
    assert get_function_signature((lambda *, x: x).__code__) == "def _lambda(*, x):\n"
    assert get_function_signature((i for i in ()).gi_code) == "def _genexpr(comp_arg_0):\n"
    assert get_function_signature(add.__code__, "renamed") == "def renamed(a, b):\n"
    for header in (get_function_signature(every.__code__),
                   get_function_signature((i for i in ()).gi_code)):
        compile(header + "    pass\n", "<header>", "exec")


def test_collect_all_code_objects_lists_parents_before_children_in_constant_order():
    module = compile(textwrap.dedent("""
        def f():
            def g():
                return lambda: 1
            def h():
                pass
        k = lambda: 2
    """), "<s>", "exec")
    names = [c.co_name for c in collect_all_code_objects(module)]
    assert names == ["<module>", "f", "g", "<lambda>", "h", "<lambda>"]
    assert collect_all_code_objects(add.__code__) == [add.__code__]
    with pytest.raises(TypeError, match="code object"):
        collect_all_code_objects(add)


def test_safe_create_directory_creates_parents_and_tolerates_an_existing_one(tmp_path):
    target = tmp_path / "a" / "b" / "c"
    safe_create_directory(str(target))
    assert target.is_dir()
    safe_create_directory(target)               # again, and as a path object
    (tmp_path / "file").write_text("x")
    with pytest.raises(FileExistsError):
        safe_create_directory(tmp_path / "file")


def test_importing_depyf_and_its_utils_never_imports_torch():
    code = ("import sys, depyf, depyf.utils, depyf.decompiler\n"
            "depyf.Decompiler(lambda: 1).decompile()\n"
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=SRC), check=True)
    assert out.stdout.strip() == "False"
