"""A tour of what depyf reads: one small module compiled by every installed
CPython 3.8-3.13, each .pyc read back by depyf on this interpreter.

Run from the project root:  .venv/bin/python examples/bytecode_tour.py
"""
import os
import subprocess
import sys
import tempfile

from depyf.bytecode import decode, read_pyc
from depyf.bytecode.listing import format_code
from depyf.verify.interpreters import find_interpreter

SAMPLE = '''\
import math

def area(shape, *sizes, scale=1.0):
    """Area of a simple shape."""
    match shape:
        case "circle":
            return math.pi * sizes[0] ** 2 * scale
        case "rect" | "square":
            w, h = (sizes * 2)[:2]
            return w * h * scale
    raise ValueError(f"unknown shape {shape!r}")
'''
SAMPLE_OLD = SAMPLE.replace('''    match shape:
        case "circle":
            return math.pi * sizes[0] ** 2 * scale
        case "rect" | "square":
            w, h = (sizes * 2)[:2]
            return w * h * scale
''', '''    if shape == "circle":
        return math.pi * sizes[0] ** 2 * scale
    elif shape in ("rect", "square"):
        w, h = (sizes * 2)[:2]
        return w * h * scale
''')


def compile_with(python, version, workdir):
    src = os.path.join(workdir, "shapes%s.py" % version.replace(".", ""))
    with open(src, "w") as f:
        has_match = tuple(map(int, version.split("."))) >= (3, 10)
        f.write(SAMPLE if has_match else SAMPLE_OLD)
    out = src + "c"
    subprocess.run([python, "-c", "import py_compile, sys; py_compile.compile(sys.argv[1], sys.argv[2], doraise=True)",
                    src, out], check=True)
    return out


def main():
    print("depyf demo on Python %d.%d: reading bytecode written by other interpreters\n"
          % sys.version_info[:2])
    with tempfile.TemporaryDirectory() as workdir:
        last = None
        for version in ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13"):
            python = find_interpreter(version)
            if python is None:
                print("  %-5s not installed, skipped" % version)
                continue
            pyc = read_pyc(compile_with(python, version, workdir))
            area = next(c for c in pyc.code.consts if getattr(c, "name", None) == "area")
            n = len(decode(area).instructions)
            print("  %-5s magic %d: area() has %3d instructions, lines %s"
                  % (version, pyc.magic, n,
                     sorted({i.line for i in decode(area) if i.line is not None})))
            last = area
        if last is not None:
            print("\nDisassembly of area() from the newest file:\n")
            print(format_code(last, recursive=False))


if __name__ == "__main__":
    main()
