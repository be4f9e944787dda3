"""A static HTML report of a ``prepare_debug`` dump: ``depyf report DIR``.

The report reads only the dump (its ``__meta_for_<fn>.json`` files and the
files they name) and the user's own source files, never torch, so it can be
written on another machine. Pages are self-contained: inline CSS, no script
from a CDN, relative links, so they work from ``file://`` offline.

* ``index.html``: every compiled function (per rank under torchrun) with its
  cache entries, recompiles, graph breaks, guards and compile time.
* ``report/<fn>.html``: the user's function beside the decompiled transformed
  code of each cache entry, its guards (the ones a recompile reason blames
  highlighted), graph breaks with the user's line, links to graphs and kernels.
* ``report/files/<name>.html``: each dumped file, highlighted.

Highlighting uses Pygments (the ``report`` extra) when installed, plain
escaped text otherwise.

Example::

    >>> from depyf.dynamo.report import write_report
    >>> write_report("./dump")          # doctest: +SKIP
    './dump/index.html'
"""
from __future__ import annotations

import ast
import glob
import html
import json
import os
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

META_GLOB = "__meta_for_*.json"
_RANK_DIR = re.compile(r"^rank_(\d+)$")
_BREAK_AT = re.compile(r"Graph break in user code at (?P<file>.+?):(?P<line>\d+)")
_GUARD_NAME = re.compile(r"(?:tensor |)'([A-Za-z_][\w.\[\]']*)'|(L\[[^\]]+\](?:\.\w+)*|G\[[^\]]+\](?:\.\w+)*)")

CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #1d1d1f; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; } h3 { font-size: 1em; }
table.index { border-collapse: collapse; } table.index td, table.index th {
  border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: left; }
table.index th { background: #f2f2f4; } td.num { text-align: right; }
.side { display: flex; gap: 1em; align-items: flex-start; }
.side > div { flex: 1; min-width: 0; }
pre, .highlight pre { background: #f7f7f9; padding: 0.6em; overflow-x: auto; font-size: 0.85em;
  border: 1px solid #e3e3e8; margin: 0.3em 0; }
ol.guards { font-family: monospace; font-size: 0.85em; }
ol.guards li.failed { background: #ffe1e1; font-weight: bold; }
.reason { white-space: pre-wrap; font-family: monospace; font-size: 0.85em; background: #fff7e0;
  border: 1px solid #f0d890; padding: 0.5em; }
.muted { color: #777; } nav a { margin-right: 1em; }
"""


@dataclass
class FunctionInfo:
    """One compiled function of one dump folder, from its meta file."""
    dump: str
    meta: dict
    page: str = ""
    rank: Optional[str] = None

    @property
    def name(self) -> str:
        return self.meta.get("function") or self.meta.get("qualname") or "?"

    @property
    def entries(self) -> List[dict]:
        return list(self.meta.get("entries") or [])

    @property
    def guard_count(self) -> int:
        return sum(int(e.get("guard_count") or 0) for e in self.entries)

    @property
    def compile_seconds(self) -> Optional[float]:
        times = [e.get("compile_seconds") for e in self.entries if e.get("compile_seconds") is not None]
        return sum(times) if times else self.meta.get("compile_seconds")


@dataclass
class Dump:
    """A dump folder: its functions, and its ranks' folders under torchrun."""
    path: str
    functions: List[FunctionInfo] = field(default_factory=list)
    ranks: List[Tuple[str, "Dump"]] = field(default_factory=list)


def load_dump(path: str) -> Dump:
    """Read the meta files of ``path`` (and of its ``rank_<r>`` folders)."""
    dump = Dump(os.path.abspath(path))
    for meta_path in sorted(glob.glob(os.path.join(dump.path, META_GLOB))):
        try:
            with open(meta_path, encoding="utf-8") as f:
                meta = json.load(f)
        except (OSError, ValueError):
            continue        # a meta file another process is still writing
        dump.functions.append(FunctionInfo(dump.path, meta))
    for name in sorted(os.listdir(dump.path), key=_rank_order):
        match = _RANK_DIR.match(name)
        if match and os.path.isdir(os.path.join(dump.path, name)):
            dump.ranks.append((match.group(1), load_dump(os.path.join(dump.path, name))))
    return dump


def _rank_order(name: str):
    match = _RANK_DIR.match(name)
    return (0, int(match.group(1))) if match else (1, name)


def write_report(path: str, out: Optional[str] = None) -> str:
    """Write the report of the dump at ``path`` into ``out`` (default: the dump
    folder itself); returns the index page's path."""
    dump = load_dump(path)
    out = os.path.abspath(out or dump.path)
    pages = os.path.join(out, "report")
    os.makedirs(os.path.join(pages, "files"), exist_ok=True)
    writer = _Writer(out, pages)
    sections = []
    for rank, info in [(None, dump)] + [(r, d) for r, d in dump.ranks]:
        for fn in info.functions:
            fn.rank = rank
            fn.page = writer.function_page(fn)
        if info.functions or rank is not None:
            sections.append((rank, info))
    index = os.path.join(out, "index.html")
    _write(index, _page("depyf report", writer.index_body(dump, sections), css_path="report/style.css"))
    _write(os.path.join(pages, "style.css"), CSS + writer.highlight_css())
    return index


class _Writer:
    def __init__(self, out: str, pages: str):
        self.out = out
        self.pages = pages
        self._files: Dict[str, str] = {}
        try:
            import pygments  # noqa: F401
            self.pygments = True
        except ImportError:
            self.pygments = False

    # -- code --------------------------------------------------------------

    def code(self, text: str, first_line: int = 1) -> str:
        if not self.pygments:
            return "<pre>%s</pre>" % html.escape(text)
        from pygments import highlight
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import PythonLexer
        return highlight(text, PythonLexer(), HtmlFormatter(linenos="inline", linenostart=first_line))

    def highlight_css(self) -> str:
        if not self.pygments:
            return ""
        from pygments.formatters import HtmlFormatter
        return HtmlFormatter().get_style_defs(".highlight")

    def file_page(self, dump: str, name: str, rank: Optional[str]) -> Optional[str]:
        """A highlighted page for a dumped file; its path relative to ``pages``."""
        source = os.path.join(dump, name)
        key = os.path.abspath(source)
        if key in self._files:
            return self._files[key]
        text = _read(source)
        if text is None:
            return None
        page = "files/%s%s.html" % ("rank_%s_" % rank if rank is not None else "", _slug(name))
        body = "<nav><a href='../../index.html'>index</a></nav><h1>%s</h1><p class='muted'>%s</p>%s" % (
            html.escape(name), html.escape(source), self.code(text))
        _write(os.path.join(self.pages, page), _page(name, body, css_path="../style.css"))
        self._files[key] = page
        return page

    # -- pages -------------------------------------------------------------

    def function_page(self, fn: FunctionInfo) -> str:
        meta = fn.meta
        prefix = "rank_%s_" % fn.rank if fn.rank is not None else ""
        page = "%s%s.html" % (prefix, _slug(fn.name))
        parts = ["<nav><a href='../index.html'>index</a></nav>",
                 "<h1>%s</h1>" % html.escape(fn.name),
                 "<p class='muted'>%s, line %s%s</p>" % (
                     html.escape(str(meta.get("filename"))), meta.get("firstlineno"),
                     " &middot; rank %s" % fn.rank if fn.rank is not None else "")]
        full = meta.get("full_code")
        if full:
            link = self.file_page(fn.dump, full, fn.rank)
            if link:
                parts.append("<p>Everything in one runnable file: <a href='%s'>%s</a></p>"
                             % (link, html.escape(full)))
        recompiles = list(meta.get("recompiles") or [])
        breaks = list(meta.get("graph_breaks") or [])
        parts.append(self._breaks(breaks))
        parts.append(self._recompiles(recompiles))
        user = _user_source(meta.get("filename"), meta.get("firstlineno"))
        failed = blamed_names(recompiles)
        for entry in fn.entries:
            parts.append(self._entry(fn, entry, user, failed))
        _write(os.path.join(self.pages, page), _page(fn.name, "\n".join(parts), css_path="style.css"))
        return page

    def _entry(self, fn: FunctionInfo, entry: dict, user, failed) -> str:
        index = entry.get("index")
        out = ["<h2 id='entry-%s'>Cache entry %s <span class='muted'>(compile %s)</span></h2>"
               % (index, index, html.escape(str(entry.get("compile_id"))))]
        if entry.get("problem"):
            out.append("<p class='reason'>%s</p>" % html.escape(str(entry["problem"])))
        transformed = entry.get("transformed_code")
        code = _read(os.path.join(fn.dump, transformed)) if transformed else None
        left = ("<h3>Your code</h3>" + self.code(user[0], user[1])) if user else \
            "<h3>Your code</h3><p class='muted'>source file not available</p>"
        right = "<h3>Transformed code (decompiled)</h3>" + (
            self.code(code) if code is not None else "<p class='muted'>not dumped</p>")
        if transformed and code is not None:
            link = self.file_page(fn.dump, transformed, fn.rank)
            right += "<p><a href='%s'>%s</a></p>" % (link, html.escape(transformed))
        out.append("<div class='side'><div>%s</div><div>%s</div></div>" % (left, right))
        guards = list(entry.get("guard_lines") or [])
        # The guards of the entry a recompile reason names are the ones that failed.
        blame = failed.get(str(entry.get("compile_id")), ())
        items = []
        for line in guards:
            hit = any(name in line for name in blame)
            items.append("<li%s>%s</li>" % (" class='failed'" if hit else "", html.escape(line)))
        guard_file = entry.get("guard")
        link = self.file_page(fn.dump, guard_file, fn.rank) if guard_file else None
        out.append("<h3>Guards (%d)%s</h3><ol class='guards'>%s</ol>" % (
            len(guards), " &middot; <a href='%s'>as a Python function</a>" % link if link else "",
            "".join(items)))
        files = list(entry.get("graph_files") or [])
        if files:
            links = []
            for name in files:
                page = self.file_page(fn.dump, name, fn.rank)
                links.append("<li><a href='%s'>%s</a></li>" % (page, html.escape(name)) if page
                             else "<li class='muted'>%s (missing)</li>" % html.escape(name))
            out.append("<h3>Graphs and kernels</h3><ul class='graphs'>%s</ul>" % "".join(links))
        return "\n".join(out)

    def _breaks(self, breaks: Sequence[str]) -> str:
        if not breaks:
            return "<h2>Graph breaks</h2><p class='muted'>none</p>"
        items = []
        for text in breaks:
            where = _BREAK_AT.search(text)
            line = ""
            if where:
                src = _line_of(where.group("file"), int(where.group("line")))
                line = "<p><b>%s:%s</b>%s</p>" % (
                    html.escape(where.group("file")), where.group("line"),
                    " <code>%s</code>" % html.escape(src.strip()) if src else "")
            items.append("<li>%s<div class='reason'>%s</div></li>" % (line, html.escape(user_frames(text))))
        return "<h2>Graph breaks (%d)</h2><ol class='breaks'>%s</ol>" % (len(breaks), "".join(items))

    def _recompiles(self, recompiles: Sequence[str]) -> str:
        if not recompiles:
            return "<h2>Recompiles</h2><p class='muted'>none</p>"
        items = "".join("<li><div class='reason'>%s</div></li>" % html.escape(str(r)) for r in recompiles)
        return "<h2>Recompiles (%d)</h2><ol class='recompiles'>%s</ol>" % (len(recompiles), items)

    def index_body(self, dump: Dump, sections) -> str:
        parts = ["<h1>depyf report</h1>", "<p class='muted'>%s</p>" % html.escape(dump.path)]
        if not sections:
            parts.append("<p>No compiled function in this dump.</p>")
        for rank, info in sections:
            if rank is not None:
                parts.append("<h2 id='rank-%s'>Rank %s</h2>" % (rank, rank))
            rows = []
            for fn in info.functions:
                secs = fn.compile_seconds
                rows.append("<tr><td><a href='report/%s'>%s</a></td><td>%s:%s</td>"
                            "<td class='num'>%d</td><td class='num'>%d</td><td class='num'>%d</td>"
                            "<td class='num'>%d</td><td class='num'>%s</td></tr>" % (
                                fn.page, html.escape(fn.name),
                                html.escape(os.path.basename(str(fn.meta.get("filename")))),
                                fn.meta.get("firstlineno"), len(fn.entries),
                                len(fn.meta.get("recompiles") or []),
                                len(fn.meta.get("graph_breaks") or []), fn.guard_count,
                                "%.2f s" % secs if secs is not None else "&ndash;"))
            if not rows:
                parts.append("<p class='muted'>no compiled function</p>")
                continue
            parts.append("<table class='index'><tr><th>function</th><th>defined at</th>"
                         "<th>cache entries</th><th>recompiles</th><th>graph breaks</th>"
                         "<th>guards</th><th>compile time</th></tr>%s</table>" % "".join(rows))
        return "\n".join(parts)


_FRAME = re.compile(r'^\s*File "(?P<file>[^"]+)", line \d+')
_DEPYF_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_frames(text: str) -> str:
    """A traceback in torch's text without the frames of ``depyf run`` itself
    (runpy and depyf's own files), which only push the user's frames down.

    >>> user_frames('  File "<frozen runpy>", line 198, in _run_module_as_main\\n'
    ...             '    main()\\n  File "user.py", line 3, in <module>\\n    f()').splitlines()
    ['  File "user.py", line 3, in <module>', '    f()']
    """
    out: List[str] = []
    dropping = False
    for line in text.splitlines():
        frame = _FRAME.match(line)
        if frame:
            name = frame.group("file")
            dropping = name.startswith("<frozen") or os.path.abspath(name).startswith(_DEPYF_DIR + os.sep)
        elif not line.startswith("    "):
            dropping = False
        if not dropping:
            out.append(line)
    return "\n".join(out)


def blamed_names(recompiles: Sequence[str]) -> Dict[str, List[str]]:
    """compile id -> the names a recompile reason blames (``- 0/0: tensor 'a'
    size mismatch`` blames ``L['a']`` of compile 0/0).

    >>> blamed_names(["- 0/0: tensor 'a' size mismatch at index 0"])
    {'0/0': ["L['a']"]}
    """
    blamed: Dict[str, List[str]] = {}
    for text in recompiles:
        for line in str(text).splitlines():
            match = re.match(r"\s*-\s*(\d+/\d+):\s*(.*)", line)
            if not match:
                continue
            names = blamed.setdefault(match.group(1), [])
            for quoted, path in _GUARD_NAME.findall(match.group(2)):
                if quoted:
                    names.append("L['%s']" % quoted if "[" not in quoted else quoted)
                if path:
                    names.append(path)
            if not names:
                names.append(match.group(2).strip())
    return blamed


def _user_source(filename: Optional[str], firstlineno) -> Optional[Tuple[str, int]]:
    """The user's function (decorators to last line) from its file, or None."""
    text = _read(filename) if filename else None
    if text is None or not isinstance(firstlineno, int):
        return None
    lines = text.splitlines()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        tree = None
    if tree is not None:
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                if start <= firstlineno <= node.end_lineno and (node.lineno == firstlineno or start == firstlineno):
                    return "\n".join(lines[start - 1:node.end_lineno]) + "\n", start
    # A resume function starts mid-function: show from its line on a little.
    return "\n".join(lines[firstlineno - 1:firstlineno + 19]) + "\n", firstlineno


def _line_of(filename: str, lineno: int) -> Optional[str]:
    text = _read(filename)
    if text is None:
        return None
    lines = text.splitlines()
    return lines[lineno - 1] if 0 < lineno <= len(lines) else None


def _read(path: Optional[str]) -> Optional[str]:
    if not path or not os.path.isfile(path):
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def _slug(name: str) -> str:
    return re.sub(r"[^\w.-]", "_", name)


def _page(title: str, body: str, css_path: str) -> str:
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            "<title>%s</title><link rel='stylesheet' href='%s'></head>\n<body>\n%s\n</body></html>\n"
            % (html.escape(title), css_path, body))


def _write(path: str, text: str) -> None:
    tmp = path + ".tmp%d" % os.getpid()
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)
