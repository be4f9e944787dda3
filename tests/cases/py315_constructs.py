# min-version: 3.15
"""What Python 3.15 added or compiles its own way: explicit lazy imports
(PEP 810), unpacking in comprehensions (PEP 798), and the iterator pairs of
its loops (every for loop, comprehension and await below)."""
lazy import json
lazy from os import path as ospath
import sys


def flatten(rows):
    return [*row for row in rows]


def merged(dicts):
    return {**d for d in dicts}


def chained(groups):
    return {*g for g in groups}


def nested(xs):
    out = []
    for x in xs:
        for y in x:
            if y:
                return y
            out.append([z * 2 for z in y])
    return out


def lines(text):
    return (line.strip() for line in text.splitlines() if line)


async def consume(source):
    total = 0
    async for item in source:
        total += await item
    return total


def delegate(gen):
    result = yield from gen
    return result
