"""The torch-free parts of the dump: names, locking, atomic writes, file text."""
import os
import re
import threading
import time

import pytest

from depyf.dynamo import fullcode
from depyf.dynamo.dump import DumpDir, as_python, identifier


def test_names_are_stable_and_unique(tmp_path):
    d = DumpDir(str(tmp_path))
    assert d.allocate("function", "a.py:f", "f") == "f"
    assert d.allocate("function", "b.py:f", "f") == "f_1"
    assert d.allocate("function", "a.py:f", "f") == "f"
    assert d.allocate("graph", "f:0:0", "f") == "f"         # kinds are separate
    # A second process (a fresh DumpDir) sees the names the first one chose.
    other = DumpDir(str(tmp_path))
    assert other.allocate("function", "b.py:f", "f") == "f_1"
    assert other.allocate("function", "c.py:f", "f") == "f_2"


def test_names_another_writer_added_meanwhile_are_seen(tmp_path):
    mine, theirs = DumpDir(str(tmp_path)), DumpDir(str(tmp_path))
    assert mine.allocate("function", "a.py:f", "f") == "f"
    assert theirs.allocate("function", "b.py:f", "f") == "f_1"
    # mine looks again under the lock: b's name is taken, and known
    assert mine.allocate("function", "c.py:f", "f") == "f_2"
    assert mine.allocate("function", "b.py:f", "f") == "f_1"


def test_a_registry_line_cut_short_by_a_crash_loses_no_later_name(tmp_path):
    DumpDir(str(tmp_path)).allocate("function", "a.py:f", "f")
    with open(tmp_path / ".depyf_names.jsonl", "ab") as f:
        f.write(b'["function", "b.py:f", "f_')          # the writer died here
    d = DumpDir(str(tmp_path))
    assert d.allocate("function", "c.py:f", "f") == "f_1"
    assert DumpDir(str(tmp_path)).allocate("function", "c.py:f", "f") == "f_1"
    assert DumpDir(str(tmp_path)).allocate("function", "a.py:f", "f") == "f"


def test_a_removed_registry_starts_afresh(tmp_path):
    d = DumpDir(str(tmp_path))
    d.allocate("function", "a.py:f", "f")
    os.remove(tmp_path / ".depyf_names.jsonl")
    assert d.allocate("function", "b.py:f", "f") == "f_1"     # this process still knows f
    assert DumpDir(str(tmp_path)).allocate("function", "b.py:f", "f") == "f_1"


def test_a_replaced_registry_is_read_again(tmp_path):
    d = DumpDir(str(tmp_path))
    d.allocate("function", "a.py:f", "f")
    other = tmp_path / "other.jsonl"
    other.write_text('["function", "z.py:f", "f_1"]\n')
    os.replace(other, tmp_path / ".depyf_names.jsonl")     # the kept registry is gone
    assert d.allocate("function", "b.py:f", "f") == "f_2"
    assert DumpDir(str(tmp_path)).allocate("function", "b.py:f", "f") == "f_2"


def test_the_registry_is_closed_and_opened_again(tmp_path):
    d = DumpDir(str(tmp_path))
    d.allocate("function", "a.py:f", "f")
    d.close()
    d.close()                                   # twice is harmless
    assert d.allocate("function", "b.py:f", "f") == "f_1"
    assert DumpDir(str(tmp_path)).allocate("function", "b.py:f", "f") == "f_1"


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_waits_for_the_parents_lock(tmp_path):
    # The child's copy of the kept descriptor would share the parent's flock
    # (and not wait for it): it opens the registry again.
    d = DumpDir(str(tmp_path))
    d.allocate("function", "a.py:f", "f")
    read, write = os.pipe()
    with d.locked():
        pid = os.fork()
        if pid == 0:
            try:
                name = d.allocate("function", "c.py:f", "f")
                os.write(write, ("%s %f" % (name, time.time())).encode())
            finally:
                os._exit(0)
        time.sleep(0.3)
        released = time.time()
    os.close(write)
    with os.fdopen(read) as f:
        name, when = f.read().split()
    os.waitpid(pid, 0)
    assert name == "f_1" and float(when) >= released
    assert d.allocate("function", "c.py:f", "f") == "f_1"


def test_concurrent_allocation_gives_distinct_names(tmp_path):
    names = []

    def claim(i):
        names.append(DumpDir(str(tmp_path)).allocate("function", "k%d" % i, "fn"))
    threads = [threading.Thread(target=claim, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(names)) == 8


def test_write_is_atomic_and_skips_unchanged(tmp_path):
    d = DumpDir(str(tmp_path))
    path = d.write("x.py", "a = 1\n")
    mtime = os.stat(path).st_mtime_ns
    d.write("x.py", "a = 1\n")
    assert os.stat(path).st_mtime_ns == mtime
    d.write("x.py", "a = 2\n")
    assert open(path).read() == "a = 2\n"
    assert [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")] == []


def test_write_over_an_earlier_run_keeps_identical_files(tmp_path):
    first = DumpDir(str(tmp_path))
    same, changed = first.write("same.py", "a = 1\n"), first.write("changed.py", "b = 1\n")
    os.utime(same, ns=(1, 1))
    again = DumpDir(str(tmp_path))             # a second run into the same directory
    again.write("same.py", "a = 1\n")
    again.write("changed.py", "b = 2\n")
    assert os.stat(same).st_mtime_ns == 1       # untouched: an open editor keeps its buffer
    assert open(changed, encoding="utf-8").read() == "b = 2\n"
    assert open(again.write("new.py", "\u00e9 = 1\n"), "rb").read() == "\u00e9 = 1\n".encode("utf-8")
    assert [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")] == []


def test_identifier():
    assert identifier("Net.forward") == "Net_forward"
    assert identifier("<lambda>") == "lambda_"        # `def lambda(` would not compile
    assert identifier("match") == "match"            # a soft keyword is a fine name
    assert identifier("0/1") == "_0_1"


def test_as_python_comments_out_what_does_not_compile():
    assert as_python("x = 1", "title") == "# title\nx = 1\n"
    text = as_python("def f(: pass")
    compile(text, "t", "exec")
    assert text == "# def f(: pass\n"


def test_as_python_takes_generated_text_as_it_is_but_for_a_lambda_class_name():
    # torch compiles and runs what it printed: only print_readable's class
    # header for a module made from a lambda is no Python
    text = as_python("class <lambda>(torch.nn.Module):\n    def forward(self, x):\n        return x\n",
                     "title", generated=True)
    assert text == "# title\nclass GraphModule(torch.nn.Module):\n    def forward(self, x):\n        return x\n"
    compile(text, "t", "exec")
    assert as_python("x = 1", generated=True) == as_python("x = 1") == "x = 1\n"


def test_signature_and_dispatch_compile():
    def f(a, b=1, /, c=2, *args, d, e=3, **kw):
        pass
    params, call = fullcode.signature(f.__code__)
    assert params == "a, b, /, c, *args, d, e, **kw"
    assert call == "a, b, c, *args, d=d, e=e, **kw"
    text = fullcode.dispatch("f", f.__code__, [("g1", "t1"), ("g0", "t0")], "__original_f")
    compile(text, "t", "exec")
    assert text.index("g1(L, G)") < text.index("g0(L, G)")


def test_rename_whole_identifiers_only():
    text = "x = __compiled_fn_1_ab(y) + __compiled_fn_1_abc"
    assert fullcode.rename(text, {"__compiled_fn_1_ab": "__compiled_fn_1"}) == \
        "x = __compiled_fn_1(y) + __compiled_fn_1_abc"


def test_rename_agrees_with_a_word_boundary_regex():
    # rename finds names with str.find (a pattern compiled per call cost ~0.25 ms);
    # it must replace exactly what \b(old)\b would: at the ends, next to unicode
    # letters and digits, repeated, adjacent, and one name inside another.
    names = {"a": "b", "ab": "X", "f_1": "g", "\u00e9t\u00e9": "ete"}
    texts = ["a", "ab a", "(a)+a.a", "aab a_ ab_a 1a a1", "f_1(f_1)f_1", "\u00e9a a\u00e9 \u00e9t\u00e9 x\u00e9t\u00e9",
             "a\na\ta", "", "ab ab", "a.ab.a"]
    pattern = re.compile(r"\b(%s)\b" % "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))
    for text in texts:
        assert fullcode.rename(text, names) == pattern.sub(lambda m: names[m.group(1)], text), text


def test_import_globals():
    assert fullcode.import_globals(["__import_torch_dot__dynamo_dot_utils", "x"]) == [
        "__import_torch_dot__dynamo_dot_utils = importlib.import_module('torch._dynamo.utils')"]


def test_modules_dynamo_installs_by_id_get_the_name_of_their_import():
    # Dynamo's name for a module the frame's globals lack under its own name
    # holds the module's id: another at every run, and no file defines it.
    import collections
    import xml.dom
    names = ["___module_collections_%d_c1" % id(collections), "___module_dom_%d_c12" % id(xml.dom),
             "___module_gone_%d_c1" % id(object()),               # no module has that id
             "___module_os_%d_c1" % id(collections),              # not the module the name says
             "__import_torch", "x"]
    assert fullcode.module_aliases(names) == {
        names[0]: "__import_collections", names[1]: "__import_xml_dot_dom"}
    assert fullcode.import_globals(fullcode.module_aliases(names).values()) == [
        "__import_collections = importlib.import_module('collections')",
        "__import_xml_dot_dom = importlib.import_module('xml.dom')"]


def test_closures_are_enclosed():
    def outer():
        n = 0

        def inner():
            nonlocal n
            n += 1
            return n
        return inner
    code = outer().__code__
    text, problem = fullcode.safe_decompile(code, "__transformed_code_0_for_inner")
    assert problem is None
    namespace = {}
    exec(compile(text, "t", "exec"), namespace)
    made = namespace["__transformed_code_0_for_inner"]
    assert made.__code__.co_freevars == ("n",)


def test_text_that_does_not_compile_is_kept_as_comments(monkeypatch):
    monkeypatch.setattr(fullcode, "decompiled_as", lambda code, name, readable=None, lines=None:
                        ("def %s():\n    x = {<module>}\n" % name, False))
    text, problem = fullcode.safe_decompile((lambda: 0).__code__, "g")
    assert "does not compile" in problem
    compile(text, "t", "exec")
    assert "#     x = {<module>}" in text


def test_each_rank_writes_its_own_directory(monkeypatch, tmp_path):
    from depyf.dynamo.hooks import rank_dir
    monkeypatch.delenv("RANK", raising=False)
    assert rank_dir(str(tmp_path)) == str(tmp_path)
    monkeypatch.setenv("RANK", "3")
    assert rank_dir(str(tmp_path)) == os.path.join(str(tmp_path), "rank_3")


def test_cell_variables_stay_cells():
    # Dynamo's code makes closures without a visible def: the text alone would
    # leave `a` and `c` plain locals.
    text = fullcode.keep_cells('def f(a):\n    """doc"""\n    c = a + 1\n    return c\n', "f", ("a", "c"))
    namespace = {}
    exec(compile(text, "t", "exec"), namespace)
    f = namespace["f"]
    assert f.__code__.co_cellvars == ("a", "c")
    assert f.__doc__ == "doc" and f(1) == 2


@pytest.mark.parametrize("body", ["c = a + 1", "r = a + 1; c = r", "bRc = c = a + 1", 'rb"x"; c = a + 1'])
def test_cell_variables_stay_cells_without_a_docstring(body):
    text = fullcode.keep_cells("def f(a):\n    %s\n    return c\n" % body, "f", ("a", "c"))
    namespace = {}
    exec(compile(text, "t", "exec"), namespace)
    f = namespace["f"]
    assert f.__code__.co_cellvars == ("a", "c")
    assert f.__doc__ is None and f(1) == 2


def test_meta_json_is_json_with_a_line_per_entry():
    import json
    from depyf.dynamo.hooks import readable_json
    data = {"function": "f", "graph_breaks": ["x\ny"], "recompiles": [],
            "entries": [{"index": 0, "graphs": {"a": "b"}}, {"index": 1, "problem": None}]}
    text = readable_json(data)
    assert json.loads(text) == data
    assert text.count("\n") == len(data) + len(data["entries"]) + 3


def test_a_compile_differing_only_in_numbered_names_reuses_the_text():
    # Dynamo numbers its graphs, resume functions and builtins dicts anew at every compile: a
    # second compile of one frame with the same code decompiles to the first's
    # text with those names (and the function's own) changed.
    source = ("def f(x):\n"
              "    y = __compiled_fn_3_0a1b2c3d_0a1b_0a1b_0a1b_0a1b2c3d4e5f(x)\n"
              "    __builtins_dict___2['print'](y)\n"
              "    return __resume_at_20_4(y[0], 1.0, g)\n")
    first = compile(source, "<f>", "exec").co_consts[0]
    renamed = {"__compiled_fn_3_0a1b2c3d_0a1b_0a1b_0a1b_0a1b2c3d4e5f": "__compiled_fn_9",
               "__resume_at_20_4": "__resume_at_20_11", "__builtins_dict___2": "__builtins_dict___8"}
    second = first.replace(co_names=tuple(renamed.get(n, n) for n in first.co_names))
    assert fullcode.shape_key(first) == fullcode.shape_key(second)
    text, problem = fullcode.safe_decompile(first, "t0")
    assert problem is None
    assert fullcode.renamed_text(text, first.co_names, "t0", second, "t1") == fullcode.safe_decompile(second, "t1")[0]
    # anything else differing keeps them apart: a name, a constant of another type
    other = first.replace(co_names=tuple("h" if n == "g" else n for n in first.co_names))
    assert fullcode.shape_key(other) != fullcode.shape_key(first)
    one = first.replace(co_consts=tuple(1 if c == 1.0 and type(c) is float else c for c in first.co_consts))
    assert fullcode.shape_key(one) != fullcode.shape_key(first)
    # an object no source can hold gives no key (no reuse)
    assert fullcode.shape_key(first.replace(co_consts=first.co_consts + (object(),))) is None


def test_a_constant_no_literal_writes_counts_by_its_definition():
    # Dynamo puts objects in co_consts (a torch.device in every real model's
    # code): a recompile with an equal one reuses the text; another value, or
    # the definition's own text as a plain constant in its place, does not
    import fractions
    # (a string stands in for the object: small ints are no constants on 3.14)
    code = compile("def f(x):\n    return __compiled_fn_3(x, 'odd')\n", "<f>", "exec").co_consts[0]

    def holding(value, name="__compiled_fn_3"):
        return code.replace(co_consts=tuple(value if c == "odd" else c for c in code.co_consts),
                            co_names=tuple(name if n.startswith("__compiled_fn") else n for n in code.co_names))

    third = fractions.Fraction(1, 3)
    assert fullcode.shape_key(holding(third)) is not None
    assert fullcode.shape_key(holding(third)) == fullcode.shape_key(holding(fractions.Fraction(2, 6), "__compiled_fn_8"))
    assert fullcode.shape_key(holding(fractions.Fraction(1, 4))) != fullcode.shape_key(holding(third))
    from depyf.decompiler.constants import definition
    assert fullcode.shape_key(holding(definition(third))) != fullcode.shape_key(holding(third))
    text, problem = fullcode.safe_decompile(holding(third), "t0")
    assert problem is None and "Fraction(1, 3)" in text
