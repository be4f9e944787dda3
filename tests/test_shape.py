"""The shape of the source, as tools/shape.py reads it: no import cycle inside a
package, no private name taken from another module; and that the checker
finds each of these where they are."""
import importlib.util
import os
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_tool():
    spec = importlib.util.spec_from_file_location("depyf_tools_shape", os.path.join(ROOT, "tools", "shape.py"))
    module = importlib.util.module_from_spec(spec)
    # (dataclasses look their module up while the class is made)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


shape = _load_tool()


@pytest.mark.parametrize("package", shape.CYCLE_PACKAGES)
def test_no_import_cycle_inside_a_package(package):
    cycles = shape.import_cycles(package)
    assert cycles == [], "\n".join(line for cycle in cycles for line in shape.format_cycle(cycle))


def test_no_private_name_crosses_modules():
    """Neither the source nor the tests, tools, benchmarks and examples take a
    ``_name`` from another module of depyf."""
    found = shape.private_imports(outside=[os.path.join(ROOT, folder) for folder in shape.OUTSIDE])
    assert found == [], "\n".join("%s:%d %s from %s" % (os.path.relpath(u.path, ROOT), u.line, u.name, u.module)
                                  for u in found)


def test_structure_functions_are_short():
    assert shape.long_functions() == []


def test_no_private_walker_method_is_called_from_another_module():
    """The constructs ask the walker (``w``, or a reader's ``self.w``) through its
    public methods only: its private ones are its own business."""
    import re
    folder = os.path.join(ROOT, "src", "depyf", "decompiler", "structure")
    found = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py") or name == "walker.py":
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if re.search(r"\b(?:self\.)?w\._[a-z]", line):
                    found.append("%s:%d %s" % (name, number, line.strip()))
    assert found == [], "\n".join(found)


def _package(tmp_path, files):
    """A made-up ``depyf`` package under ``tmp_path``: its modules as the tool finds them."""
    for name, text in files.items():
        path = tmp_path.joinpath("depyf", *name.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return shape.find_modules(str(tmp_path))


def test_a_cycle_closed_by_a_function_level_import_is_found(tmp_path):
    modules = _package(tmp_path, {
        "__init__.py": "",
        "pkg/__init__.py": "",
        "pkg/a.py": "from .b import g\n",
        "pkg/b.py": "def g():\n    from . import a\n    return a\n",
        "pkg/c.py": "from depyf.pkg.a import g\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/d.py": "from ..c import g\n",
        "other.py": "from depyf.pkg import c\n",
    })
    cycles = shape.import_cycles("depyf.pkg", modules)
    assert [[(e.source, e.target, e.scope) for e in cycle] for cycle in cycles] == [
        [("depyf.pkg.a", "depyf.pkg.b", ""), ("depyf.pkg.b", "depyf.pkg.a", "g")]]


def test_a_cycle_through_a_subpackage_counts_for_the_package(tmp_path):
    modules = _package(tmp_path, {
        "__init__.py": "",
        "pkg/__init__.py": "",
        "pkg/a.py": "from .sub.d import x\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/d.py": "import depyf.pkg.a\nx = 1\n",
    })
    assert len(shape.import_cycles("depyf.pkg", modules)) == 1
    assert shape.import_cycles("depyf.pkg.sub", modules) == []


def test_private_names_from_other_modules_are_found(tmp_path):
    modules = _package(tmp_path, {
        "__init__.py": "",
        "m.py": "_hidden = 1\n__version__ = '1'\n",
        "user.py": textwrap.dedent("""\
            from .m import _hidden, __version__
            from . import m
            import depyf.m
            def f(monkeypatch):
                monkeypatch.setattr(m, "_hidden", 2)
                monkeypatch.setattr("depyf.m._hidden", 3)
                return (m._hidden,
                        depyf.m._hidden, _own)
            _own = 0
        """),
    })
    found = shape.private_uses(modules["depyf.user"].path, modules, "depyf.user")
    assert [(u.line, u.module, u.name) for u in found] == [
        (1, "depyf.m", "_hidden"), (5, "depyf.m", "_hidden"), (6, "depyf.m", "_hidden"),
        (7, "depyf.m", "_hidden"), (8, "depyf.m", "_hidden")]
    # a module's own private names are its own
    assert shape.private_uses(modules["depyf.m"].path, modules, "depyf.m") == []



def test_a_private_method_of_a_class_from_another_module_is_found(tmp_path):
    # (the class's private methods are its module's: a test wrapping one
    # breaks the day the method moves; the ``_fields`` of ast nodes is API)
    modules = _package(tmp_path, {
        "__init__.py": "",
        "m.py": "class Walker:\n    def _step(self):\n        pass\n",
        "user.py": textwrap.dedent("""\
            from .m import Walker
            from . import m
            def f(monkeypatch):
                monkeypatch.setattr(Walker, "_step", None)
                return Walker._step, m.Walker._step, Walker._fields, Walker.step
        """),
    })
    found = shape.private_uses(modules["depyf.user"].path, modules, "depyf.user")
    assert [(u.line, u.module, u.name) for u in found] == [
        (4, "depyf.m", "_step"), (5, "depyf.m", "_step")]       # (a line's uses: one row)

def test_long_functions_are_counted_from_def_to_last_line(tmp_path):
    body = "\n".join("    x%d = %d" % (k, k) for k in range(5))
    tmp_path.joinpath("f.py").write_text(
        "class C:\n    def long(self):\n%s\n\n    def short(self):\n        pass\n"
        % textwrap.indent(body, "    "))
    found = shape.long_functions(str(tmp_path), max_lines=5)
    assert [(f.qualname, f.length) for f in found] == [("C.long", 6)]
