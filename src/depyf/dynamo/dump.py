"""The dump directory: layout, stable names, locking and atomic writes.

Layout of ``prepare_debug(dir)`` (``<fn>`` is a function's stable name: its
qualname with ``.<locals>.`` as ``__`` and other non-identifier characters as
``_``; a Dynamo resume function's name ends in ``_offset_<n>``, the bytecode
offset where it resumes; ``<k>`` counts the compiles of one function, 0 first;
``<graph>`` is ``__compiled_fn_<n>``, torch's name without its random part)::

    full_code_for_<fn>.py              guards, transformed code and resume functions
                                       of every entry, __original_<fn>, and <fn>()
                                       dispatching between them (at exit)
    __transformed_code_<k>_for_<fn>.py def __transformed_code_<k>_for_<fn> (at the compile)
    __guard_<k>_for_<fn>.py            guards.PRELUDE + def __guard_<k>_for_<fn>(L, G) (at exit)
    __meta_for_<fn>.json               names, files, compile ids, graph-break and
                                       recompile reasons, for reports (at exit)
    <graph>.dynamo_graph.py            Dynamo's FX graph
    <graph>.aot_joint_graph.py / .aot_forward_graph.py / .aot_backward_graph.py
    <graph>.aot_inference_graph.py     (no autograd)
    <graph>.inductor_output_code.py, <graph>.inductor_post_grad_graph.py
                                       (inference; with autograd inductor_forward_*
                                       and inductor_backward_*)
    unattributed_compile_log.txt       graph breaks of frames Dynamo skipped whole
    __graph_of_compile_<f>_<c>.<kind>.py  graphs no code claimed (older torch, or
                                       clean_wild_fx_code=False)
    .depyf_names.json, .depyf.lock     the name registry and its lock
    rank_<r>/                          everything above, per rank, when RANK is set

Names in a dump never carry random ids. A function is named after its
``co_qualname``; a second, different function with the same qualname gets
``_1``, ``_2``... The choice is kept in ``.depyf_names.json`` inside the
directory, read and updated under an exclusive lock, so that

* running the same script again into the same directory gives the same names
  (breakpoints set in a dumped file survive reruns), and
* two processes writing into one directory never pick one name for two
  different things (no file is lost to the other process).

Every file is written to a temporary name and renamed into place, so a reader
(or a second writer) never sees half a file; an unchanged file is not
rewritten at all.

Example::

    d = DumpDir("./dump")
    d.allocate("function", "toy.py:toy_example", "toy_example")    # 'toy_example'
    d.allocate("function", "other.py:toy_example", "toy_example")  # 'toy_example_1'
    d.write("full_code_for_toy_example.py", source)
"""
from __future__ import annotations

import contextlib
import json
import keyword
import os
import re
import threading
from typing import Dict, Iterator, List, Tuple

REGISTRY = ".depyf_names.json"
LOCK = ".depyf.lock"

_NOT_IDENT = re.compile(r"\W")


def identifier(text: str) -> str:
    """``text`` as a Python identifier fit for a file name.

    >>> identifier("Net.forward.<locals>.inner")
    'Net_forward__locals__inner'
    >>> identifier("<lambda>")       # a keyword: `def lambda(` would not compile
    'lambda_'
    """
    name = _NOT_IDENT.sub("_", text).strip("_") or "fn"
    name = ("_" + name) if name[0].isdigit() else name
    return name + "_" if keyword.iskeyword(name) else name


class DumpDir:
    """One dump directory, shared safely between processes."""

    def __init__(self, path: str):
        self.path = os.path.abspath(path)
        os.makedirs(self.path, exist_ok=True)
        # Names this process already holds: no lock needed to look them up again.
        self._known: Dict[tuple, str] = {}
        self._serial = 0

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Exclusive across processes (``flock``); a no-op where it is missing."""
        try:
            import fcntl
        except ImportError:         # Windows: one writer per directory is assumed
            yield
            return
        with open(self.file(LOCK), "a+") as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f.fileno(), fcntl.LOCK_UN)

    def allocate(self, kind: str, key: str, preferred: str) -> str:
        """The stable name of ``key`` among the ``kind`` names of this directory:
        ``preferred`` unless another key holds it, else ``preferred_1``, ...
        """
        return self.allocate_many([(kind, key, preferred)])[0]

    def allocate_many(self, wanted: List[Tuple[str, str, str]]) -> List[str]:
        """:meth:`allocate` for several (kind, key, preferred) at once: one lock,
        one read and at most one write of the registry."""
        missing = [w for w in wanted if (w[0], w[1]) not in self._known]
        if missing:
            with self.locked():
                registry = self._read_registry()
                changed = False
                for kind, key, preferred in missing:
                    names = registry.setdefault(kind, {})
                    name = names.get(key)
                    if name is None:
                        taken = set(names.values())
                        name, n = preferred, 0
                        while name in taken:
                            n += 1
                            name = "%s_%d" % (preferred, n)
                        names[key] = name
                        changed = True
                    self._known[(kind, key)] = name
                if changed:
                    # one line: json's C encoder takes no indent, and this is written per new function
                    self._write_atomic(REGISTRY, json.dumps(registry, sort_keys=True) + "\n")
        return [self._known[(kind, key)] for kind, key, _ in wanted]

    def _read_registry(self) -> dict:
        try:
            with open(self.file(REGISTRY), encoding="utf-8") as f:
                data = json.load(f)
            return data if isinstance(data, dict) else {}
        except (OSError, ValueError):
            return {}

    def write(self, name: str, text: str) -> str:
        """Write ``text`` to ``name`` atomically unless it is already there; the path."""
        path = self.file(name)
        try:
            with open(path, encoding="utf-8") as f:
                if f.read() == text:
                    return path
        except (OSError, UnicodeDecodeError):
            pass
        self._write_atomic(name, text)
        return path

    def _write_atomic(self, name: str, text: str) -> None:
        self._serial += 1
        tmp = self.file(".tmp-%d-%d-%d" % (os.getpid(), threading.get_ident(), self._serial))
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
            os.replace(tmp, self.file(name))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def as_python(text: str, header: str = "") -> str:
    """``text`` (a payload torch printed) as a file that compiles: unchanged when
    it is valid Python, else every line commented out, so that every ``.py`` in
    a dump can be imported or stepped through.
    """
    head = "".join("# %s\n" % line if line else "#\n" for line in header.splitlines())
    body = text if text.endswith("\n") else text + "\n"
    if not _compiles(body):
        # torch prints a graph module made from a lambda as ``class <lambda>(...)``
        named = _ODD_CLASS.sub("class GraphModule(", body)
        body = named if _compiles(named) else "".join("# " + line + "\n" for line in body.splitlines())
    return head + body


_ODD_CLASS = re.compile(r"^class <\w+>\(", re.M)


def _compiles(text: str) -> bool:
    try:
        compile(text, "<depyf dump>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError):
        return False
