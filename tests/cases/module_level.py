"""Module-level code: docstring, __all__, globals, a main guard."""
import sys

__all__ = ["VALUE", "helper", "Config"]
__version__ = "1.0"

VALUE = 42
NAMES = ["a", "b", "c"]
TABLE = {name: index for index, name in enumerate(NAMES)}
TOTAL = sum(TABLE.values())
FLAG = VALUE > 10 and TOTAL < 100
del TOTAL

if sys.version_info >= (3, 9):
    FEATURE = True
else:
    FEATURE = False

try:
    import json
except ImportError:
    json = None

for _name in NAMES:
    globals()[_name.upper()] = _name
del _name

while False:
    pass

with open(__file__) as _source:
    FIRST_LINE = _source.readline()


def helper(x):
    return x + VALUE


class Config:
    debug = FLAG


counter = 0
counter += 1
annotated: int = 3
only_annotated: str
a, b = 1, 2
x = y = VALUE
print(helper(1), Config.debug)
assert VALUE, "VALUE is set"


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    print(argv)
    return 0


if __name__ == "__main__":
    sys.exit(main())
