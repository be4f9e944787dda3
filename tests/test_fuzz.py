"""Mutated .pyc files give a result or a BytecodeError, never anything else.

Real standard-library files of every installed version are mutated at random
(bit flips, byte overwrites, truncation, insertion, duplicated runs, huge
integers) with a fixed seed; each mutant is read, every code object decoded
and every argument formatted.
"""
import os
import random
import sys
import time

import pytest

from depyf.bytecode import BytecodeError, decode, parse_pyc
from depyf.bytecode.listing import format_code

MUTANTS = int(os.environ.get("DEPYF_FUZZ_MUTANTS", "10000"))
TIME_LIMIT = float(os.environ.get("DEPYF_FUZZ_SECONDS", "240"))


def corpus():
    """Small real .pyc files, a few per installed version."""
    from depyf.verify.interpreters import installed_versions
    from depyf.verify.reader_check import stdlib_pyc_files
    files = []
    for version in installed_versions():
        sized = [p for p in stdlib_pyc_files(version) if 200 < os.path.getsize(p) < 2500]
        random.Random(str(version)).shuffle(sized)
        files.extend(sized[:6])
    return [open(p, "rb").read() for p in files]


def mutate(data: bytes, rng: random.Random) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(7)
        pos = rng.randrange(len(buf)) if buf else 0
        if kind == 0 and buf:
            buf[pos] ^= 1 << rng.randrange(8)
        elif kind == 1 and buf:
            buf[pos] = rng.randrange(256)
        elif kind == 2:
            del buf[rng.randrange(len(buf) + 1):]
        elif kind == 3:
            buf[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
        elif kind == 4 and len(buf) > 8:
            start = rng.randrange(len(buf) - 4)
            buf[pos:pos] = buf[start:start + rng.randint(1, 64)]
        elif kind == 5:
            buf[pos:pos + 4] = rng.choice([b"\xff\xff\xff\x7f", b"\x00\x00\x00\x80",
                                           b"\xff\xff\xff\xff", b"\x00\x00\x01\x00"])
        else:
            # Keep the header valid so the mutation reaches the marshal data; a
            # type code of every marshal version (3.14's slices, 3.15's frozendicts too).
            if len(buf) > 17:
                i = rng.randrange(16, len(buf))
                buf[i] = rng.choice(b"0NFTS.iIlfgxysturc()[{<>aAzZ?:}") | rng.choice((0, 0x80))
    return bytes(buf)


def exercise(data: bytes):
    pyc = parse_pyc(data, "mutant.pyc")
    for rec in pyc.code.walk():
        for ins in decode(rec):
            ins.argrepr
    format_code(pyc.code)


def test_fuzz_only_bytecode_errors():
    files = corpus()
    if not files:
        pytest.skip("no standard-library .pyc files found")
    rng = random.Random(20261130)
    deadline = time.monotonic() + TIME_LIMIT
    done = ok = 0
    while done < MUTANTS and time.monotonic() < deadline:
        data = mutate(rng.choice(files), rng)
        try:
            exercise(data)
            ok += 1
        except BytecodeError as e:
            assert "mutant.pyc" in str(e), str(e)
        except Exception as e:  # noqa: BLE001 - the point of the test
            path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "depyf-fuzz-failure.pyc")
            with open(path, "wb") as f:
                f.write(data)
            raise AssertionError("mutant %d raised %s: %s (saved to %s)"
                                 % (done, type(e).__name__, e, path)) from e
        done += 1
    print("fuzz: %d mutants, %d parsed cleanly, %d rejected with BytecodeError"
          % (done, ok, done - ok), file=sys.stderr)
    assert done >= min(MUTANTS, 10000), "only %d mutants in %.0f s" % (done, TIME_LIMIT)
