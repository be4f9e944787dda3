"""The dump directory: layout, stable names, locking and atomic writes.

Layout of ``prepare_debug(dir)`` (``<fn>`` is a function's stable name: its
qualname with ``.<locals>.`` as ``__`` and other non-identifier characters as
``_``; a Dynamo resume function's name ends in ``_offset_<n>``, the bytecode
offset where it resumes; ``<k>`` counts the compiles of one function, 0 first;
``<graph>`` is ``__compiled_fn_<n>``, the n-th graph the session met: torch's own
number depends on what else the process compiled)::

    full_code_for_<fn>.py              guards.PRELUDE, then per entry its guards as
                                       def __guard_<k>_for_<fn>(L, G), its transformed
                                       code and resume functions; __original_<fn>, and
                                       <fn>() dispatching between them (as each
                                       compile finishes)
    __transformed_code_<k>_for_<fn>.py def __transformed_code_<k>_for_<fn> (at the compile)
    __meta_for_<fn>.json               names, files, compile ids, graph-break and
                                       recompile reasons, for reports (likewise)
    <graph>.dynamo_graph.py            Dynamo's FX graph
    <graph>.aot_joint_graph.py / .aot_forward_graph.py / .aot_backward_graph.py
    <graph>.aot_inference_graph.py     (no autograd)
    <graph>.inductor_output_code.py, <graph>.inductor_post_grad_graph.py
                                       (inference; with autograd inductor_forward_*
                                       and inductor_backward_*)
    unattributed_compile_log.txt       graph breaks of frames Dynamo skipped whole
    __graph_of_compile_<f>_<c>.<kind>.py  graphs no code claimed (older torch, or
                                       clean_wild_fx_code=False)
    .depyf_names.jsonl                 the name registry (locked while read and extended)
    rank_<r>/                          everything above, per rank, when RANK is set

Names in a dump never carry random ids. A function is named after its
``co_qualname``; a second, different function with the same qualname gets
``_1``, ``_2``... The choice is kept in ``.depyf_names.jsonl`` inside the
directory (one ``[kind, key, name]`` line per name, only ever appended to),
read and extended under an exclusive lock, so that

* running the same script again into the same directory gives the same names
  (breakpoints set in a dumped file survive reruns), and
* two processes writing into one directory never pick one name for two
  different things (no file is lost to the other process).

A file is created in place when nobody has it yet, and otherwise written to
a temporary name and renamed into place, so a reader (or a second writer)
never sees half of a file it could already open; an unchanged file is not
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

REGISTRY = ".depyf_names.jsonl"

try:
    import fcntl
except ImportError:         # Windows: one writer per directory is assumed
    fcntl = None

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
        self._taken: Dict[str, set] = {}
        # how much of the registry this object has read (the log only grows)
        self._registry_end = 0
        self._registry_id = None
        self._torn_tail = False
        self._serial = 0
        # the text this object last wrote to each file: rewriting the same text
        # (a full-code file when nothing changed) costs nothing
        self._written: Dict[str, str] = {}
        # the registry, kept open by the process that opened it (see locked)
        self._fd = None
        self._fd_pid = None
        self._lock = threading.Lock()

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    @contextlib.contextmanager
    def locked(self) -> Iterator[int]:
        """The registry, open for reading and appending, held exclusively across
        processes (``flock`` on the registry itself: a lock file of its own
        cost one more file created per dump); not locked where ``flock`` is
        missing.

        The registry stays open between locks (opening a file cost a dump more
        than a tenth of a millisecond a compile): it is opened again in a
        forked child, whose copy would share this process's lock, and when
        the file was removed or replaced meanwhile."""
        if self._fd_pid not in (None, os.getpid()):
            # a forked child: the thread lock may have been held at the fork
            self._lock = threading.Lock()
        with self._lock:
            fd = self._registry_fd()
            if fcntl is not None:
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                if os.fstat(fd).st_nlink == 0:      # removed (or replaced) since
                    self.close()
                    fd = self._registry_fd()
                    if fcntl is not None:
                        fcntl.flock(fd, fcntl.LOCK_EX)
                yield fd
            finally:
                if fcntl is not None:
                    fcntl.flock(fd, fcntl.LOCK_UN)

    def _registry_fd(self) -> int:
        if self._fd is None or self._fd_pid != os.getpid():
            self._fd = os.open(self.file(REGISTRY), os.O_RDWR | os.O_APPEND | os.O_CREAT | _BINARY, 0o666)
            self._fd_pid = os.getpid()
        return self._fd

    def close(self) -> None:
        """Close the registry (it is opened again when a name is wanted)."""
        fd, self._fd = self._fd, None
        if fd is not None and self._fd_pid == os.getpid():
            os.close(fd)

    def allocate(self, kind: str, key: str, preferred: str) -> str:
        """The stable name of ``key`` among the ``kind`` names of this directory:
        ``preferred`` unless another key holds it, else ``preferred_1``, ...
        """
        return self.allocate_many([(kind, key, preferred)])[0]

    def allocate_many(self, wanted: List[Tuple[str, str, str]]) -> List[str]:
        """:meth:`allocate` for several (kind, key, preferred) at once: one lock,
        and only what other writers added since is read."""
        missing = [w for w in wanted if (w[0], w[1]) not in self._known]
        if missing:
            with self.locked() as registry:
                self._catch_up(registry)
                lines = []
                for kind, key, preferred in missing:
                    if (kind, key) in self._known:     # another writer named it meanwhile
                        continue
                    taken = self._taken.setdefault(kind, set())
                    name, n = preferred, 0
                    while name in taken:
                        n += 1
                        name = "%s_%d" % (preferred, n)
                    self._learn(kind, key, name)
                    lines.append(json.dumps([kind, key, name]) + "\n")
                if lines:
                    self._append(registry, "".join(lines).encode("utf-8"))
        return [self._known[(kind, key)] for kind, key, _ in wanted]

    def _learn(self, kind: str, key: str, name: str) -> None:
        self._known[(kind, key)] = name
        self._taken.setdefault(kind, set()).add(name)

    def _catch_up(self, fd: int) -> None:
        """Learn the names other writers appended to the registry (open at
        ``fd``, locked) since this object last looked. The log is only
        appended to, so a look needs only its new bytes, and none when its
        size is what this object left it at."""
        st = os.fstat(fd)
        size, file_id = st.st_size, (st.st_dev, st.st_ino)
        if size < self._registry_end or file_id != self._registry_id:
            # removed, cut short or replaced: read it from the start
            self._registry_end, self._registry_id = 0, file_id
        if size == self._registry_end:
            return
        data = _read_from(fd, self._registry_end, size)
        # A line cut short by a crash is left out, and the next append starts
        # after a newline of its own (``_append``).
        complete = data[:data.rfind(b"\n") + 1]
        self._registry_end += len(complete)
        self._torn_tail = len(complete) < len(data)
        for line in complete.splitlines():
            try:
                kind, key, name = json.loads(line)
            except (ValueError, TypeError):
                continue
            if isinstance(kind, str) and isinstance(key, str) and isinstance(name, str):
                self._learn(kind, key, name)

    def _append(self, fd: int, data: bytes) -> None:
        if self._torn_tail:
            data = b"\n" + data
        _write_all(fd, data)
        st = os.fstat(fd)
        self._registry_end, self._registry_id = st.st_size, (st.st_dev, st.st_ino)
        self._torn_tail = False

    def write(self, name: str, text: str) -> str:
        """Write ``text`` to ``name`` unless it is there already; the path.

        A file nobody has yet is created in place (a reader cannot hold a file
        that does not exist, and creating it exclusively means no other writer
        does); any other is replaced atomically. Bytes as they are: the same
        file on every platform."""
        path = self.file(name)
        last = self._written.get(name)
        if last == text:
            return path
        data = text.encode("utf-8")
        if last is None:
            if self._create(path, data):
                self._written[name] = text
                return path
            try:
                with open(path, "rb") as f:
                    if f.read() == data:
                        self._written[name] = text
                        return path
            except OSError:
                pass
        self._write_atomic(name, data)
        self._written[name] = text
        return path

    @staticmethod
    def _create(path: str, data: bytes) -> bool:
        """Create ``path`` holding ``data``; False when it exists (or cannot be
        created exclusively here), for the careful path to deal with. The
        common case, a fresh dump directory, costs one open instead of a read
        attempt, a temporary file and a rename (~0.05 ms a file)."""
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _BINARY, 0o666)
        except OSError:
            return False
        try:
            _write_all(fd, data)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                os.unlink(path)
            raise
        os.close(fd)
        return True

    def _write_atomic(self, name: str, data: bytes) -> None:
        self._serial += 1
        tmp = self.file(".tmp-%d-%d-%d" % (os.getpid(), threading.get_ident(), self._serial))
        try:
            with open(tmp, "wb") as f:
                f.write(data)
            os.replace(tmp, self.file(name))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


#: no newline translation where the platform has it (Windows): files are bytes as given
_BINARY = getattr(os, "O_BINARY", 0)


def _read_from(fd: int, start: int, end: int) -> bytes:
    """The bytes of ``fd`` from ``start`` up to ``end`` (or its end, if sooner).
    (Moving the offset is harmless on an ``O_APPEND`` descriptor: writes go to
    the end whatever it is.)"""
    os.lseek(fd, start, os.SEEK_SET)
    parts = []
    while start < end:
        part = os.read(fd, end - start)
        if not part:
            break
        parts.append(part)
        start += len(part)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    """``os.write`` until all of ``data`` is written (it may write less)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def as_python(text: str, header: str = "", generated: bool = False) -> str:
    r"""``text`` (a payload torch printed) as a file that compiles: unchanged when
    it is valid Python, else every line commented out, so that every ``.py`` in
    a dump can be imported or stepped through.

    ``generated`` text is what torch printed of code it generates and runs
    itself (a graph module's ``print_readable``, Inductor's output module):
    only the class header ``print_readable`` writes for a module made from a
    lambda is mended, without compiling the text to find out. (Compiling the
    graphs of a compile took a tenth of depyf's time in it: 1.6 ms for an
    attention block's joint graph.)

    >>> as_python("class <lambda>(torch.nn.Module):\n    pass", generated=True)
    'class GraphModule(torch.nn.Module):\n    pass\n'
    """
    head = "".join("# %s\n" % line if line else "#\n" for line in header.splitlines())
    body = text if text.endswith("\n") else text + "\n"
    if generated:
        return head + _ODD_CLASS.sub("class GraphModule(", body)
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
