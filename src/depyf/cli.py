"""The ``depyf`` command line.

Example::

    $ depyf dis __pycache__/mod.cpython-38.pyc
"""
from __future__ import annotations

import argparse
import logging
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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="depyf", description=__doc__.splitlines()[0])
    parser.add_argument("-q", "--quiet", action="store_true", help="only errors on stderr")
    parser.add_argument("-v", "--verbose", action="store_true", help="debug messages on stderr")
    sub = parser.add_subparsers(dest="command", required=True)
    dis = sub.add_parser("dis", help="disassemble .pyc files of Python 3.8-3.13")
    dis.add_argument("files", nargs="+", help=".pyc files")
    dis.add_argument("--no-recursive", action="store_true", help="skip nested code objects")
    dis.set_defaults(run=_cmd_dis)
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
