"""The ``depyf`` command line.

Example::

    $ depyf dis __pycache__/mod.cpython-38.pyc
    $ depyf decompile __pycache__/mod.cpython-38.pyc
    $ depyf decompile build/ -o decompiled -j 2 --verify
    $ depyf decompile mod.cpython-39.pyc --no-validate > mod.py
    $ depyf run --dump-dir dump train.py --epochs 1
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import List, Optional

log = logging.getLogger("depyf")


def _cmd_dis(args) -> int:
    from .bytecode import BytecodeError, read_pyc
    from .bytecode.listing import format_code
    status = 0
    for path in args.files:
        try:
            pyc = read_pyc(path)
            text = format_code(pyc.code, recursive=not args.no_recursive)
        except (OSError, BytecodeError) as e:
            log.error("%s", e)
            status = 1
            continue
        if len(args.files) > 1:
            print("# %s" % path)
        print("# Python %d.%d bytecode (magic %d)" % (pyc.version + (pyc.magic,)))
        print(text)
    return status


def _cmd_decompile(args) -> int:
    from .pyc_files import decompile_file, decompile_paths
    layout = "compact" if args.compact else "lines"
    paths = args.paths
    single = len(paths) == 1 and not os.path.isdir(paths[0])
    if single and (args.output is None or not os.path.isdir(args.output)):
        # One file: to stdout, or to the named file.
        result = decompile_file(paths[0], args.output, layout, args.verify,
                                validate=not args.no_validate)
        if result.error:
            log.error("%s", result.error)
            return 1
        if result.source is not None:
            sys.stdout.write(result.source)
        _report_file(result)
        return 1 if result.stubs else 0
    out = args.output
    if out is None:
        if len(paths) != 1:
            log.error("several inputs need -o OUT, a folder for the sources")
            return 2
        out = os.path.normpath(paths[0]).rstrip(os.sep) + "_decompiled"
    with _Progress(enabled=not args.quiet) as progress:
        summary = decompile_paths(paths, out, jobs=args.jobs, layout=layout,
                                  verify=args.verify, progress=progress.update,
                                  validate=not args.no_validate)
    for result in summary.results:
        _report_file(result)
    log.info("sources written under %s", out)
    log.info("%s", summary.format())
    return 0 if summary.ok else 1


def _report_file(result) -> None:
    if result.error:
        log.error("%s", result.error)
        return
    for name, reason in result.stubs:
        log.error("%s: %s could not be decompiled: %s", result.path, name, reason)
    for name, reason in result.fallbacks:
        log.debug("%s: %s written as a dispatch loop (%s)", result.path, name, reason)
    if result.counts is not None:
        # stderr, so that one file's source alone goes to stdout
        from .decompiler.verdicts import format_counts
        log.info("%s: %d code objects: %s", result.path, result.code_objects,
                 format_counts(result.counts))
        if result.unverified:
            log.warning("%s: unverified: %s", result.path, result.unverified)
    if result.verify_error:
        log.warning("%s: not verified: %s", result.path, result.verify_error)
    elif result.verified is not None:
        same, total = result.verified
        log.log(logging.INFO if same == total else logging.WARNING,
                "%s: verified %d/%d code objects identical", result.path, same, total)
        for path, diff in result.verify_diffs:
            log.debug("  %s: %s", path, diff)


class _Progress:
    """A progress bar on a terminal's stderr (tqdm, from the ``cli`` extra, when
    installed); nothing when stderr is not a terminal or tqdm is absent."""

    def __init__(self, enabled: bool = True):
        self._bar = None
        if enabled and sys.stderr.isatty():
            try:
                from tqdm import tqdm
            except ImportError:
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(unit="file", file=sys.stderr, leave=False)

    def __enter__(self):
        return self

    def update(self, result) -> None:
        if self._bar is not None:
            self._bar.update(1)

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.close()


def _cmd_run(args) -> int:
    """Run a script or module as ``python`` would, with torch.compile dumped."""
    import runpy
    from . import autorun
    if args.module is None and not args.target:
        log.error("run: name a script (depyf run train.py) or a module (depyf run -m pkg.train)")
        return 2
    base = args.dump_dir or os.environ.get(autorun.ENV) or "depyf_dump"
    # Children (torch.multiprocessing spawn, subprocesses) dump too, each into its own files.
    os.environ[autorun.ENV] = os.path.abspath(base)
    dump_dir = autorun.activate(base, report=not args.no_report)
    if args.module is not None:
        sys.argv = [args.module] + args.target
    else:
        sys.argv = list(args.target)
        sys.path.insert(0, os.path.dirname(os.path.abspath(args.target[0])))
    status = 0
    try:
        if args.module is not None:
            runpy.run_module(args.module, run_name="__main__", alter_sys=True)
        else:
            runpy.run_path(args.target[0], run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code, file=sys.stderr)
    except BaseException:
        import traceback
        traceback.print_exc()
        status = 1
    report = autorun.finish()
    if dump_dir and os.path.isdir(dump_dir):
        log.info("dump: %s", dump_dir)
    else:
        log.info("nothing was compiled by torch.compile; no dump written")
    if report:
        log.info("report: %s", report)
    return status


def _cmd_report(args) -> int:
    from .dynamo.report import write_report
    if not os.path.isdir(args.dump_dir):
        log.error("report: %s is not a folder (a dump of depyf.prepare_debug or depyf run)", args.dump_dir)
        return 2
    index = write_report(args.dump_dir, args.output)
    log.info("report: %s", index)
    return 0


def _cmd_demo(args) -> int:
    from .demo import run
    return run(args.dump_dir, backend=args.backend)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="depyf", description=__doc__.splitlines()[0])
    parser.add_argument("-q", "--quiet", action="store_true", help="only errors on stderr")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug messages on stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    from .bytecode.versions import SUPPORTED
    versions = "%d.%d-%d.%d" % (SUPPORTED[0] + SUPPORTED[-1])
    dis = sub.add_parser("dis", help="disassemble .pyc files of Python %s" % versions)
    dis.add_argument("files", nargs="+", help=".pyc files")
    dis.add_argument("--no-recursive", action="store_true", help="skip nested code objects")
    dis.set_defaults(run=_cmd_dis)
    dec = sub.add_parser("decompile", help="decompile .pyc files (or folders of them) of Python %s" % versions,
                         description="One file goes to stdout (or -o FILE); folders and several "
                                     "files go to a folder (-o OUT, default <DIR>_decompiled).")
    dec.add_argument("paths", nargs="+", metavar="FILE.pyc|DIR")
    dec.add_argument("-o", "--output", metavar="OUT", help="output file or folder")
    dec.add_argument("-j", "--jobs", type=int, default=1, help="files decompiled in parallel")
    dec.add_argument("--verify", action="store_true",
                     help="recompile each output with the file's own Python version (found "
                          "under pyenv) and compare every code object with the original")
    dec.add_argument("--no-validate", action="store_true",
                     help="skip validation: by default every code object of the output is "
                          "compiled again with the file's own Python (this one, or pyenv's) and "
                          "compared with the original, and what is neither identical nor "
                          "equivalent is written by the fallback instead")
    dec.add_argument("--compact", action="store_true",
                     help="compact layout for reading (default: each statement on its original line)")
    dec.set_defaults(run=_cmd_decompile)
    run = sub.add_parser("run", help="run a Python script with torch.compile dumped (no code change)",
                         description="Runs SCRIPT (or -m MODULE) like python does, inside "
                                     "depyf.prepare_debug, and writes the HTML report at the end.")
    run.add_argument("--dump-dir", metavar="DIR",
                     help="where the dump goes (default $DEPYF_DUMP_DIR, else ./depyf_dump)")
    run.add_argument("--no-report", action="store_true", help="skip the HTML report")
    run.add_argument("-m", dest="module", metavar="MODULE", help="run a library module as a script")
    run.add_argument("target", nargs=argparse.REMAINDER, metavar="script.py [args...]")
    run.set_defaults(run=_cmd_run)
    rep = sub.add_parser("report", help="write the HTML report of a dump folder")
    rep.add_argument("dump_dir", metavar="DIR", help="a dump of depyf.prepare_debug or depyf run")
    rep.add_argument("-o", "--output", metavar="OUT", help="folder for the report (default: DIR)")
    rep.set_defaults(run=_cmd_report)
    demo = sub.add_parser("demo", help="compile a toy example and a small model under prepare_debug "
                                       "and show the dump and its report")
    demo.add_argument("--dump-dir", default="depyf_demo_dump", metavar="DIR",
                      help="where the dump goes (default ./depyf_demo_dump)")
    demo.add_argument("--backend", default=None, help="torch.compile backend (default inductor)")
    demo.set_defaults(run=_cmd_demo)
    return parser


def _setup_logging(level: int) -> None:
    """Messages go to the current stderr, whatever handlers the host program set up."""
    for handler in [h for h in log.handlers if getattr(h, "_depyf_cli", False)]:
        log.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("depyf: %(message)s"))
    handler._depyf_cli = True
    log.addHandler(handler)
    log.setLevel(level)
    log.propagate = False


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    _setup_logging(logging.ERROR if args.quiet else logging.DEBUG if args.verbose else logging.INFO)
    try:
        return args.run(args)
    except BrokenPipeError:
        return 0
