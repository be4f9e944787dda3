"""The decompiler on constructs it structures today: strict round trip on every
installed version, behaviour of live functions, and no source lookup.

Constructs not yet structured (try/except, with, match, async, ...) are tracked
by tools/roundtrip.py; they must still give valid Python (test_verify checks
that every case file recompiles).
"""
import os
import textwrap

import pytest

import depyf
from depyf.verify.interpreters import find_interpreter
from depyf.verify.corpus import min_version
from depyf.verify.roundtrip import verify, verify_file

VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13"]

SNIPPETS = {
    "straight_line": """
        def f(a, b=2, *args, c, d=4, **kw):
            x = a + b * c - d
            y = z = x ** 2
            a.b = x
            a[x] += 1
            x -= y
            del a.b, kw[x]
            return (x, y, z, -x, not y, ~z, a[1:2], a[::2], args, kw)
    """,
    "calls": """
        def f(g, a, *args, **kw):
            g(a, 1, key=2)
            g(*args, **kw)
            g(a, *args, k=1, **kw)
            return a.method(1, x=2).other()
    """,
    "conditionals": """
        def f(a, b, c):
            if a and b or c:
                x = 1
            elif not a:
                x = 2
            else:
                x = 3
            if a is None or b is not None:
                return x
            y = a if b else c
            return y
    """,
    "loops": """
        def f(items, n):
            total = 0
            for i in items:
                if i < 0:
                    continue
                if i > n:
                    break
                total += i
            else:
                total = -1
            while total < n:
                total += 1
            for a, (b, c) in items:
                total += a
            return total
    """,
    "comprehensions": """
        def f(xs, ys):
            a = [x * 2 for x in xs if x]
            b = {x for x in xs}
            c = {x: y for x, y in zip(xs, ys)}
            d = [(x, y) for x in xs for y in ys if x != y]
            return a, b, c, d
    """,
    "closures_and_lambdas": """
        def outer(a):
            count = 0
            def inner(b):
                nonlocal count
                count += b
                return count + a
            key = lambda item, k=1: item[k]
            return inner, key
    """,
    "classes": """
        import abc
        class Base(metaclass=abc.ABCMeta):
            '''Docs.'''
            size = 1

            def method(self, x):
                return self.size + x

        class Child(Base):
            def method(self, x):
                return super().method(x) * 2
    """,
    "imports": """
        import os
        import os.path
        import xml.dom.minidom as minidom
        from collections import OrderedDict, defaultdict as dd
        from . import sibling
        from ..pkg import thing as other
        from os.path import *
        import collections.abc as cabc
        import a.b.c as d
        from ... import x
    """,
    "generators_and_await": """
        def gen(x):
            y = yield x
            yield
            z = yield from y
            return (yield z)

        async def coro(a, b):
            value = await a
            await b.close()
            return await a + await b(value)

        async def agen(x):
            yield x
            await x
            async def inner():
                yield await x
            return
    """,
    "condition_prefixes": """
        def f(chunks, i, a, b, c):
            while i < len(chunks) - 1:
                if chunks[i + 1] == " " and a(chunks[i]):
                    i += 2
                else:
                    i += 1
            if a:
                if b or c:
                    return 1
                return 2
            while a is not None:
                a = b(a)
            return 3
    """,
    "decorators_and_private_names": """
        def deco(*args):
            return lambda f: f

        @deco
        @deco(1, key=2)
        class C:
            @deco
            @deco(3)
            def __private(self):
                return self.__value

            class __Inner:
                pass

            def use(self):
                return self.__private() + self.__Inner()
    """,
    "annotations": """
        x: int = 0
        y: "str"
        class C:
            name: str
            count: int = 0
            __p: list = []
            def g(self, a: int, *, b: "x" = 1) -> str:
                v: int = 1
                return v
    """,
    "future_annotations": """
        from __future__ import annotations
        x: int = 0
        y: list[int]
        def g(a: int, *, b: C = 1) -> str:
            return a
    """,
    "lambda_bodies": """
        none = lambda: None
        pick = lambda x, y=1: "yes" if x else "no" if y else None
        gen = lambda: (yield)
        def f(g=lambda: None):
            return g
    """,
    "chained_comparisons": """
        def f(a, b, c, d, xs):
            x = a < b < c
            if not a < b < c:
                x = 1
            if a < b < c or d:
                x = 2
            if d and a < b <= c:
                x = 3
            while a < b < c:
                a += 1
            y = a < f(b) < c and d
            z = [v for v in xs if a < v < c]
            w = 0 <= a < b != c
            return a < b < c < d
    """,
    "value_boolops": """
        def g(a, b, c, d):
            x = (a or b) and c or d
            return a and b or c and d, x, not a, not (a and b), a if b else c
    """,
    "walrus_and_chained_assignment": """
        def walrus(data, x, z):
            if (n := len(data)) > 10:
                return n
            a = b = c = data
            x.y = z[0] = data
            p, q = r = data
            r = p, q = data
            (w := 3)
            print(v := 4, u := (t := 5))
            chunks = []
            while (chunk := data.read()):
                chunks.append(chunk)
            return [y for x in data if (y := x * 2) > 3]
    """,
    "asserts": """
        def f(x, y):
            assert x
            assert x > 0, "positive"
            assert x and y, f"{x}"
            return x

        def g(x):
            assert False, "no"
            assert not x
            for i in x:
                assert i, i
            while x:
                assert x.pop()
            return x
        assert x < 3
    """,
    "tuple_assignments": """
        def f(x, y, z, s):
            a, b = x, y
            a, b, c = x, y, z
            s.a, s.b = s.b, s.a
            s[0], s[1] = y, x
            (a, b), c = x, y
            d, e = f = x, y
            p = q = r = x
            a, b = b, a
            return a, b, c
    """,
    "loop_tails": """
        def f(self, y, a, b, kwargs, dest):
            for action in self._actions:
                if action.dest in kwargs:
                    action.default = kwargs[action.dest]
            for action in self._actions:
                if action.dest == dest and action.default is not None:
                    return action.default
            for x in y:
                if a:
                    if b:
                        foo()
                else:
                    bar()
            for x in y:
                if not a:
                    continue
                foo()
            while a:
                if b:
                    continue
                foo()
            while a:
                if b:
                    foo()
            return self._defaults.get(dest, None)
    """,
    "if_else_returns": """
        def f(result, tuple_size):
            if isinstance(result, tuple):
                return result
            else:
                return (result, ) * tuple_size
        def g(a, b):
            if a:
                return 1
            elif b:
                x = 2
                return x
            else:
                return 3
        def h(a):
            if a:
                return 1
            return 2
    """,
    "negated_comparisons": """
        def f(usage, actions, a, b):
            if usage is not None:
                usage = 1
            elif usage is None and not actions:
                usage = 2
            elif a not in b or not a:
                usage = 3
            while not (a in b and b is not None):
                a = 1
            return usage if a is not b and a in b else not a in b
    """,
    "conditional_returns": """
        import sys
        def _cmp(x, y):
            return 0 if x == y else 1 if x > y else -1
        def currentframe():
            return sys._getframe(1) if hasattr(sys, "_getframe") else None
        def f1(x):
            return x or 5
        def f2(x, a, b):
            return a, (b if x else None)
        def f4(x, a):
            if x:
                return None
            return a if x else 0
        def f5(x):
            for i in x:
                return i if i else 0
            return None if x else 1
        def f6(x):
            for i in x:
                if i:
                    return 0
            return None
    """,
    "copied_expression_tails": """
        def ternaries(a, b, c):
            return (a if b else None), (1 if a else 2 if b else 3)
        def g(a, b, c):
            return c + (a if b else c.d if a else 3)
        def for_else_return(items, target):
            for index, item in enumerate(items):
                if item == target:
                    return index
            else:
                return -1
        def nested_loops(rows):
            for row in rows:
                for cell in row:
                    if cell:
                        break
                else:
                    continue
                print(row)
    """,
    "starred_call_displays": """
        class StarredBases(*(object,), **{}):
            pass
        class B(*bases, x, **kw):
            pass
        class C(**kw):
            pass
        f(*(a,))
        f(*(1, 2))
        f(a, *b, c, **{})
        f(**{'a': 1})
        f(a=1, **kw)
        print(*[1, 2], *{3}, *(4, x))
    """,
    "await_in_comprehensions": """
        async def f(coros):
            return [await c for c in coros], {await c: 1 for c in coros}, (await c for c in coros)
    """,
    "explicit_and_dead_returns": """
        def nested_ifs(a, b):
            if a:
                if b:
                    return "ab"
                else:
                    return "a"
            elif b:
                return "b"
            return ""
        def condition_with_call(items):
            if len(items) > 3 and items[0]:
                return items[0]
            return None
        def loop_end(items):
            for x in items:
                print(x)
    """,
    "jumps_to_block_ends": """
        def _glob0(dirname, basename, dironly):
            if not basename:
                if os.path.isdir(dirname):
                    return [basename]
            else:
                if os.path.lexists(os.path.join(dirname, basename)):
                    return [basename]
            return []
        def add_text(self, text):
            if text is not SUPPRESS and text is not None:
                self._add_item(self._format_text, [text])
        def f(a, b, c):
            if a:
                if b:
                    c()
            else:
                c(1)
    """,
    "threaded_breaks": """
        def dedent(text, indents, margin):
            for indent in indents:
                if margin is None:
                    margin = indent
                elif indent.startswith(margin):
                    pass
                elif margin.startswith(indent):
                    margin = indent
                else:
                    for i, (x, y) in enumerate(zip(margin, indent)):
                        if x != y:
                            margin = margin[:i]
                            break
            return margin
    """,
    "continue_inside_if_chains": """
        def generic_visit(self, node):
            for field, old_value in iter_fields(node):
                if isinstance(old_value, list):
                    new_values = []
                    for value in old_value:
                        if isinstance(value, AST):
                            value = self.visit(value)
                            if value is None:
                                continue
                            elif not isinstance(value, AST):
                                new_values.extend(value)
                                continue
                        new_values.append(value)
                    old_value[:] = new_values
                elif isinstance(old_value, AST):
                    new_node = self.visit(old_value)
                    if new_node is None:
                        delattr(node, field)
                    else:
                        setattr(node, field, new_node)
            return node
    """,
    "parallel_assignment": """
        def fib(n):
            a, b = 0, 1
            for _ in range(n):
                a, b = b, a + b
            x, y, z = a, b, n
            return x, y, z
    """,
    "try_except": """
        def f(a):
            try:
                x = a()
            except ValueError as e:
                x = e
            except (KeyError, TypeError):
                x = 2
            else:
                x = 3
            return x
    """,
    "except_returns_constant": """
        def lexists(path, stat):
            if stat is None:
                return False
            try:
                stat(path)
            except (OSError, ValueError):
                return False
            else:
                return True
    """,
    "try_finally_with": """
        def g(a, c):
            try:
                a()
            finally:
                a.close()
            with a as b, c:
                b()
            return 1
    """,
    "else_after_returning_branch": """
        def suffix(self):
            name = self.name
            i = name.rfind('.')
            if 0 < i < len(name) - 1:
                return name[i:]
            else:
                return ''
        def _splitparams(url):
            if '/'  in url:
                i = url.find(';', url.rfind('/'))
                if i < 0:
                    return url, ''
            else:
                i = url.find(';')
            return url[:i], url[i+1:]
    """,
    "assorted_expressions": """
        def fs(name, width, value, x):
            a = f"{name!r:>{width}} = {value:.3f} {name}"
            b = f"{x!s}{x!a}{x:{width}.{width}}"
            c = f"{f'{x}'}" + f"{{literal}}" + f"{x=}"
            return a, b, c
        def sl(a, b):
            x = a[1:2], a[::2], a[b:], a[:b], a[1:2:3], a[:]
            a[1:2] = b
            a[::2] = b
            del a[1:2], a[0], a.x
            a[1:] += b
            return x
        def defaults(a, b=1, /, c=2, *, d, e=3, **kw):
            return lambda x=1, *, y=2: (x, y)
        class S(Base):
            def m(self):
                return super().m(), super(S, self).m(), super().x, super(S, self).x
            def n(self):
                __class__
                return 1
        class T:
            def __init__(self):
                self.a = 1
                self.b = 2
        def glob():
            global G1, G2
            G1 = 1
            del G2
        def outer():
            x = 1
            def inner():
                nonlocal x
                x += 1
            return inner
        def notv(a, b):
            return not a, not (a == b), not a.b()
    """,
    "stdlib_shapes": """
        def getouterframes(frame, context=1):
            framelist = []
            while frame:
                traceback_info = getframeinfo(frame, context)
                framelist.append(FrameInfo(*frameinfo, positions=traceback_info.positions))
                frame = frame.f_back
            return framelist
        def _days_in_month(year, month):
            "year, month -> number of days in that month in that year."
            assert 1 <= month <= 12, month
            if month == 2 and _is_leap(year):
                return 29
            return _DAYS_IN_MONTH[month]
        def print_exc(limit=None, file=None, chain=True):
            print_exception(*sys.exc_info(), limit=limit, file=file, chain=chain)
        def _new(cls, *args, **kwargs):
            for key in kwargs:
                if key not in cls._fields:
                    continue
                pos = 1
    """,
    "breaks_with_copied_exits": """
        def _splitlines_no_ff(source, maxlines=None):
            lines = []
            for lineno, match in enumerate(_line_pattern.finditer(source), 1):
                if maxlines is not None and lineno > maxlines:
                    break
                lines.append(match[0])
            return lines
        def f(items, x):
            for i in items:
                if i:
                    break
                print(i)
        def g(items, x):
            for i in items:
                if i:
                    break
            else:
                return 1
            return x + 1
    """,
    "while_if_chains": r"""
        def translate(pat):
    
            STAR = object()
            res = []
            add = res.append
            i, n = 0, len(pat)
            while i < n:
                c = pat[i]
                i = i+1
                if c == '*':
                    # compress consecutive `*` into one
                    if (not res) or res[-1] is not STAR:
                        add(STAR)
                elif c == '?':
                    add('.')
                elif c == '[':
                    j = i
                    if j < n and pat[j] == '!':
                        j = j+1
                    if j < n and pat[j] == ']':
                        j = j+1
                    while j < n and pat[j] != ']':
                        j = j+1
                    if j >= n:
                        add('\\[')
                    else:
                        stuff = pat[i:j]
                        if '-' not in stuff:
                            stuff = stuff.replace('\\', r'\\')
                        else:
                            chunks = []
                            k = i+2 if pat[i] == '!' else i+1
                            while True:
                                k = pat.find('-', k, j)
                                if k < 0:
                                    break
                                chunks.append(pat[i:k])
                                i = k+1
                                k = k+3
                            chunk = pat[i:j]
                            if chunk:
                                chunks.append(chunk)
                            else:
                                chunks[-1] += '-'
                            # Remove empty ranges -- invalid in RE.
                            for k in range(len(chunks)-1, 0, -1):
                                if chunks[k-1][-1] > chunks[k][0]:
                                    chunks[k-1] = chunks[k-1][:-1] + chunks[k][1:]
                                    del chunks[k]
                            # Escape backslashes and hyphens for set difference (--).
                            # Hyphens that create ranges shouldn't be escaped.
                            stuff = '-'.join(s.replace('\\', r'\\').replace('-', r'\-')
                                             for s in chunks)
                        # Escape set operations (&&, ~~ and ||).
                        stuff = re.sub(r'([&~|])', r'\\\1', stuff)
                        i = j+1
                        if not stuff:
                            # Empty range: never match.
                            add('(?!)')
                        elif stuff == '!':
                            # Negated empty range: match any character.
                            add('.')
                        else:
                            if stuff[0] == '!':
                                stuff = '^' + stuff[1:]
                            elif stuff[0] in ('^', '['):
                                stuff = '\\' + stuff
                            add(f'[{stuff}]')
                else:
                    add(re.escape(c))
            assert i == n
    """,
    "repeated_unpack_targets": """
        def f(netloc):
            _, _, hostinfo = netloc.rpartition("@")
            return hostinfo
        def g(x):
            _, a, _ = x
            b, (c, _), _ = x
            for _, _, d in x:
                pass
            return a, d
    """,
    "return_from_loop_in_except": """
        def f(cls, value):
            try:
                return cls.m[value]
            except TypeError:
                for member in cls.x:
                    if member == value:
                        return member
            return 5
    """,
    "code_after_try_reached_from_handlers": """
        def f(x):
            try:
                return x()
            except E:
                pass
            return 5
        def g(x):
            try:
                return x()
            except E as e:
                x = e
            except F:
                return 3
            x.y()
    """,
    "with_body_returns": """
        def f(lock, g):
            with lock:
                return g()
        def h(lock, g):
            with lock as x:
                x.y()
                return g(x)
    """,
    "except_as_returns": """
        def exists(self):
            try:
                self.stat()
            except OSError as e:
                if not _ignore_error(e):
                    raise
                return False
            return True
        def g(xs):
            for x in xs:
                try:
                    x()
                except ValueError as e:
                    return e.args
                except TypeError as e:
                    break
    """,
    "finally_body_with_if": """
        def close(self):
            try:
                self.x()
            finally:
                if not self._extfileobj:
                    self.fileobj.close()
        def close2(self):
            try:
                return self.x()
            finally:
                if not self._extfileobj:
                    self.fileobj.close()
    """,
    "return_in_try_in_loop": """
        def getitem(self, key):
            for mapping in self.maps:
                try:
                    return mapping[key]
                except KeyError:
                    pass
            return self.__missing__(key)
        def next_value(start, last_values):
            for last_value in reversed(last_values):
                try:
                    return last_value + 1
                except TypeError:
                    pass
            else:
                return start
        def h(xs):
            for x in xs:
                try:
                    x()
                except KeyError:
                    continue
                except ValueError:
                    x.y()
                    continue
                x.done()
    """,
    "with_inside_try_finally": """
        def close(self):
            try:
                if self.mode in ('w', 'x', 'a') and self._didModify:
                    with self._lock:
                        if self._seekable:
                            self.fp.seek(self.start_dir)
                        self._write_end_record()
            finally:
                fp = self.fp
                self.fp = None
                self._fpclose(fp)
        def close2(self):
            try:
                if self.mode:
                    self._write_end_record()
            finally:
                self._fpclose(fp)
    """,
    "break_in_try_body": """
        def g(last_values):
            for last_value in reversed(last_values):
                try:
                    high_bit = _high_bit(last_value)
                    break
                except Exception:
                    raise TypeError('Invalid Flag value: %r' % last_value) from None
            return 2 ** (high_bit+1)
    """,
    "return_in_try_in_except_clause": """
        def _exact_ratio(x):
            try:
                if type(x) is float or type(x) is Decimal:
                    return x.as_integer_ratio()
                try:
                    return (x.numerator, x.denominator)
                except AttributeError:
                    try:
                        return x.as_integer_ratio()
                    except AttributeError:
                        pass
            except (OverflowError, ValueError):
                assert not _isfinite(x)
                return (x, None)
            msg = "can't convert type '{}' to numerator/denominator"
            raise TypeError(msg.format(type(x).__name__))
    """,
    "with_return_inside_if": """
        def f(lock, cache, key):
            with lock:
                result = cache.get(key)
                if result is not None:
                    return result
                cache[key] = 1
            return None
    """,
    "finally_with_if": """
        def close(self):
            if self.closed:
                return
            self.closed = True
            try:
                if self.mode == "w":
                    self.buf += 1
            finally:
                if not self._extfileobj:
                    self.fileobj.close()
    """,
    "try_inside_except_clause": """
        def get(value, parse, other, error, ids):
            ids.append(value)
            try:
                token, value = parse(value)
            except error:
                try:
                    token, value = other(value)
                    ids.append(token)
                except error:
                    raise error("expected {}".format(value))
            ids.append(token)
            return ids, value
    """,
    "except_clause_branches": """
        def f(match, table):
            s = match.group(0)
            try:
                return table[s]
            except KeyError:
                n = ord(s)
                if n < 65536:
                    return '{0:04x}'.format(n)
                else:
                    n -= 65536
                    return '{0:04x}{1:04x}'.format(n, s)
        def g(a, b, c):
            try:
                a()
            except ValueError:
                if b:
                    c(1)
                else:
                    c(2)
            return 3
        def h(xs, c):
            for x in xs:
                try:
                    c(x)
                except KeyError:
                    if x:
                        continue
                    c(0)
                except ValueError as e:
                    if e:
                        break
                    elif x:
                        return e
                    c(1)
            return 0
    """,
    "try_in_a_branch_with_raising_clauses": """
        def reduce(function, it, initial):
            if initial is None:
                try:
                    value = next(it)
                except StopIteration:
                    raise TypeError("empty") from None
            else:
                value = initial
            for element in it:
                value = function(value, element)
            return value
    """,
    "for_else_in_a_loop_with_threaded_breaks": """
        def merge(sequences):
            result = []
            while True:
                sequences = [s for s in sequences if s]
                if not sequences:
                    return result
                for s1 in sequences:
                    candidate = s1[0]
                    for s2 in sequences:
                        if candidate in s2[1:]:
                            candidate = None
                            break
                    else:
                        break
                if candidate is None:
                    raise RuntimeError("Inconsistent hierarchy")
                result.append(candidate)
        def g(xs, ys, f):
            for x in xs:
                for y in ys:
                    if f(y):
                        break
                else:
                    f(x)
                    continue
            return 1
    """,
    "loop_ending_an_except_clause": """
        def f(names, mro, getter, processed):
            for key in names:
                try:
                    value = getter(key)
                except AttributeError:
                    for base in mro:
                        if key in base:
                            value = base[key]
                            break
                    else:
                        continue
                processed.add(value)
            return 1
        def g(names, mro, f):
            for key in names:
                try:
                    f(key)
                except KeyError as e:
                    for base in mro:
                        if key in base:
                            break
                f(0)
            return 1
    """,
    "try_body_if_returning_past_the_handler": """
        def check(fp, f):
            try:
                if f(fp):
                    return True
            except OSError:
                pass
            return False
        def check2(fp, f):
            while fp:
                try:
                    if f(fp):
                        return True
                    if fp < 3:
                        break
                except OSError:
                    pass
                fp -= 1
            return False
    """,
    "except_return_none_before_a_copied_return": """
        def wake(self):
            if not self._waiters:
                return
            try:
                fut = next(iter(self._waiters))
            except StopIteration:
                return
            if not fut.done():
                fut.set_result(True)
    """,
    "with_body_if_returning": """
        def add(self, fn):
            with self._condition:
                if self._state not in [1, 2]:
                    self._done_callbacks.append(fn)
                    return
            try:
                fn(self)
            except Exception:
                fn(None)
        def add2(self, fn):
            with self._condition as c:
                if c:
                    return 1
                elif fn:
                    fn()
            return 2
    """,
    "try_finally_body_if_with_copied_exits": """
        def add(self, hdlr, acquire, release):
            acquire()
            try:
                if not (hdlr in self.handlers):
                    self.handlers.append(hdlr)
            finally:
                release()
    """,
    "nested_ifs_with_copied_returns": """
        def make(self_wr, callback):
            def _cb(arg):
                self = self_wr()
                if self._alive:
                    self._alive = False
                    if callback is not None:
                        callback(self)
            return _cb
        def g(a, b, c):
            if a:
                c(1)
                if b:
                    c(2)
                    if c:
                        c(3)
    """,
    "loop_and_try_starting_together": """
        def commit(self, pop, d, remove):
            while True:
                try:
                    key = pop()
                except IndexError:
                    return
                remove(d, key)
        def commit2(pop, d):
            try:
                while True:
                    d(pop())
            except IndexError:
                return 1
    """,
    "continue_after_an_if_ending_a_branch": """
        def replace(obj, changes, fields, CV, IV, MISSING):
            for f in fields:
                if f._field_type is CV:
                    continue
                if not f.init:
                    if f.name in changes:
                        raise ValueError('x')
                    continue
                if f.name not in changes:
                    if f._field_type is IV and f.default is MISSING:
                        raise ValueError('y')
                    changes[f.name] = getattr(obj, f.name)
            return 1
    """,
    "module_docstring_and_a_name_declared_global": """
        'A module whose docstring precedes a name some function declares global.'
        counter = 0
        def bump():
            global counter
            counter += 1
        class C:
            'Its class body stores the name the same way.'
            global counter
            counter = 2
    """,
    "try_except_finally_then_code": """
        def g(f):
            try:
                value = f()
            except ValueError:
                value = 0
            finally:
                print("done")
            return value
        def h(f):
            try:
                value = f()
            except ValueError:
                value = 0
            else:
                value *= 2
            finally:
                print("done")
            return value
    """,
    "for_body_ending_in_try_finally": """
        def f(items):
            for item in items:
                try:
                    if item:
                        break
                finally:
                    print(item)
        def g(items):
            for item in items:
                try:
                    if item:
                        continue
                    print(item)
                finally:
                    print("next")
        def h(items):
            try:
                return len(items)
            finally:
                for item in items:
                    print(item)
    """,
    "except_clause_ending_in_if_return_else_raise": """
        def f(g):
            try:
                g()
            except OSError as err:
                if err.errno == 2:
                    return None
                raise
    """,
    "try_except_ending_a_finally_body": """
        def f(f, g):
            try:
                f()
            finally:
                try:
                    g()
                except Exception:
                    pass
    """,
    "return_constant_from_try_finally": """
        async def wait(self, fut):
            try:
                await fut
                return True
            finally:
                self._waiters.remove(fut)
        def f(g, h):
            try:
                g()
                return 1
            finally:
                h()
    """,
    "else_continue_ending_a_for_body": """
        def f(items):
            for item in items:
                if item:
                    print(item)
                else:
                    continue
        def g(items):
            for item in items:
                if item:
                    yield item
                else:
                    continue
    """,
    "try_else_after_handlers_that_all_leave": """
        def a(items):
            for item in items:
                try:
                    print(item)
                except ValueError:
                    continue
                except KeyError:
                    break
                else:
                    print("ok")
        def b(items, f, x, y):
            for item in items:
                try:
                    f(item)
                except ValueError:
                    continue
                else:
                    x()
                y()
        def c(items, f, x):
            while items:
                try:
                    f()
                except ValueError:
                    break
                else:
                    x()
        def d(items, f):
            for item in items:
                try:
                    f(item)
                except ValueError:
                    continue
                else:
                    return item
            return None
    """,
    "try_ending_a_while_body_with_returning_clause": """
        def send_protocol(gen):
            value = gen.send(None)
            while True:
                try:
                    value = gen.send(value)
                except StopIteration as stop:
                    return stop.value
    """,
    "continue_ending_a_with_body": """
        def f(managers):
            for manager in managers:
                with manager:
                    continue
        def g(managers):
            for manager in managers:
                with manager:
                    pass
    """,
    "return_from_try_except_inside_finally": """
        def f(g, h):
            try:
                return g()
            except ValueError:
                return None
            finally:
                h()
    """,
    "await_in_finally_after_a_clause_return": """
        async def f(coro, sleep, E):
            try:
                return await coro
            except E:
                return None
            finally:
                await sleep(0)
    """,
    "async_with_exits": """
        async def f(manager):
            async with manager as value:
                print(value)
        async def g(manager):
            async with manager as value:
                return value
        async def h(managers):
            for manager in managers:
                async with manager:
                    continue
        async def i(a, b):
            async with a as x, b as y:
                await x
    """,
    "returned_and_or_with_a_copied_return": """
        def ishex(c):
            assert isinstance(c, bytes)
            return b'0' <= c <= b'9' or b'a' <= c <= b'f' or b'A' <= c <= b'F'
        def f(a, b):
            return a or None
        def h(a, b, c):
            if a:
                return b or c
            return a < b < c
    """,
    "chained_comparison_ending_in_is_none": """
        def f(g, node, clock_seq):
            if g is not None and node is clock_seq is None:
                return 1
            return 2
        def f2(node, clock_seq):
            if node is clock_seq is None:
                return 1
    """,
    "while_exit_threaded_to_an_outer_loop": """
        def wrap(diffs, split):
            for fromdata, flag in diffs:
                fromlist, tolist = [], []
                while fromlist or tolist:
                    if fromlist:
                        fromdata = fromlist.pop(0)
                    else:
                        fromdata = ('', ' ')
                    yield fromdata, flag

        def wrap3(diffs, f):
            while diffs:
                a = f()
                while a or diffs:
                    if a > 3:
                        break
                    a -= 1
    """,
    "fstrings": """
        def f(name, width, value):
            return f"{name!r:>{width}} = {value:.3f} {name}"
    """,
    "code_after_try_reached_only_from_its_handler": """
        def f(g):
            try:
                return g()
            except ValueError:
                pass
            print(1)
    """,
    "try_except_else_finally_starting_together": """
        def f(g):
            try:
                value = g()
            except ValueError:
                value = 0
            else:
                value *= 2
            finally:
                print("done")
            return value
    """,
    "statements_like_the_finally_body": """
        def f(g, h):
            try:
                g()
            except KeyError:
                h()
            finally:
                h()
        def f2(h):
            try:
                h()
            finally:
                h()
    """,
    "continue_or_rest_in_generators": """
        async def f(xs, g):
            for x in xs:
                if x:
                    continue
                await g(x)
        async def f2(xs, g):
            for x in xs:
                if not x:
                    await g(x)
        def f3(xs):
            for x in xs:
                if x < 3:
                    continue
                yield x
        def f4(xs):
            for x in xs:
                if x >= 3:
                    yield x
    """,
    "return_in_try_with_branching_finally": """
        def f(a, g):
            try:
                return g()
            finally:
                if a:
                    print(1)
        def f2(a, g):
            try:
                g()
            finally:
                if a:
                    print(1)
                else:
                    print(2)
    """,
    "async_comprehensions_mid_function": """
        async def f(ait, ys):
            result = [x async for x in ait]
            total = sum([await y async for y in ait if y])
            nested = [[y async for y in x] async for x in ait]
            return result, total, nested
    """,
    # 3.13 copies an except clause's way out into each branch that reaches it
    "except_clause_branch_leaves_clause": """
        def f(value, c, d):
            try:
                token = g(value)
            except E:
                if c:
                    token = h(value)
                else:
                    raise
            p(token)

        def g(value, c):
            while value:
                try:
                    token = g(value)
                except E as e:
                    if c:
                        token = h(e)
                    else:
                        token = 2
                except F:
                    if c:
                        token = 1
                    elif d:
                        return 5
                    else:
                        raise
                value = p(token)
    """,
    # 3.13 copies the enclosing clause's way out onto the inner try's normal path
    "try_ending_except_clause": """
        def f(value, c):
            try:
                a()
            except E:
                try:
                    b()
                except E:
                    if c:
                        raise
                    token = 1
            p(token)

        def g(value):
            for x in value:
                try:
                    a()
                except E:
                    try:
                        b()
                    except F as e:
                        token = e
                    except G:
                        return 2
                p(token)

        def h(names, g, b, u):
            for name in names:
                try:
                    g[name] = a[name]
                except KeyError:
                    try:
                        b[name] = c[name]
                    except KeyError:
                        u.add(name)

        def k(value, c):
            try:
                token = a(value)
            except (E, F):
                w()
                try:
                    b()
                except E:
                    token = 1
                else:
                    if c:
                        token = 2
                    else:
                        raise
            p(token)
    """,
    # the with statement's handler code lies after the finally body's end (and
    # after the loop's closing jump), and its way out jumps back too
    "with_in_finally_body": """
        def f(fs, pending, waiter):
            try:
                while pending:
                    waiter.wait()
                    with waiter.lock:
                        finished = waiter.finished
                    finished.reverse()
            finally:
                for f in fs:
                    with f._condition:
                        f._waiters.remove(waiter)

        def g(waiter):
            try:
                waiter.wait()
            finally:
                with waiter.lock:
                    waiter.remove()
    """,
    "return_from_with_in_finally": """
        def f(self, timeout):
            try:
                with self._condition:
                    return self.get()
            finally:
                self = None
    """,
    # only a swallowed exception reaches the code after the with statement
    "code_after_with_that_raises": """
        def f(self, timeout):
            try:
                with self._condition:
                    if self._state:
                        raise CancelledError()
                    elif self._state == 3:
                        return self.get()
                    raise TimeoutError()
            finally:
                self = None

        def g(self, timeout):
            with self._condition:
                if self._state:
                    return self.get()
                raise TimeoutError()
            self = None

        def h(self):
            with self._condition:
                raise TimeoutError()
            return 5

        def k(self, xs):
            for x in xs:
                with x:
                    raise TimeoutError()
            return 5
    """,
    # two jumps to two copies of the closing `return None`: the condition ends
    # at the with statement
    "with_after_condition_with_copied_returns": """
        def f(self, type_params):
            if type_params is not None and len(type_params) > 0:
                with self.delimit("[", "]"):
                    self.interleave(self.traverse, type_params)

        def g(wr):
            handlers, lock = _handlerList, _lock
            if lock and handlers:
                with lock:
                    try:
                        handlers.remove(wr)
                    except ValueError:
                        pass
    """,
    # the jump past `return` goes to the loop body's end, where the try's own
    # way out (the jump back) stands
    "return_in_try_ending_loop_body": """
        def whichmodule(obj, name):
            for module_name, module in sys.modules.copy().items():
                if module is None:
                    continue
                try:
                    if g(module, name) is obj:
                        return module_name
                except AttributeError:
                    pass
            return '__main__'
    """,
    # the inner ifs' jumps to copies of the closing `return None` look like more
    # of the outer condition, and were merged with its own
    "nested_ifs_with_copied_returns": """
        def callHandlers(self, record, found):
            if found == 0:
                if lastResort:
                    if record.levelno >= lastResort.level:
                        lastResort.handle(record)
                elif raiseExceptions and not self.manager.emittedNoHandlerWarning:
                    sys.stderr.write("x")
                    self.manager.emittedNoHandlerWarning = True
    """,
    "return_through_two_finally_bodies": """
        def _result_or_cancel(fut, timeout=None):
            try:
                try:
                    return fut.result(timeout)
                finally:
                    fut.cancel()
            finally:
                del fut
    """,
    # a jump from the outer if still pending, the with statement's exit call
    # after the inner if looked like more of its condition
    "nested_ifs_returning_from_with": """
        def r(self):
            with self._condition:
                if self._state:
                    if self._exception:
                        return 1
                    else:
                        return 2
                return 3
    """,
    # the inner try's body raises: the statement ends at its own handler
    "raising_try_in_except_clause": """
        def _addUnexpectedSuccess(self, result):
            try:
                a = result.a
            except AttributeError:
                w()
                try:
                    raise U from None
                except U:
                    result.f(self)
            else:
                a(self)
    """,
    # the body never ends: no __exit__ call after it
    "endless_loop_in_with": """
        def handle_request(self, timeout):
            with S() as selector:
                selector.register(self)
                while True:
                    if selector.select(timeout):
                        return self.x()
                    else:
                        if timeout is not None:
                            timeout = deadline - time()
                            if timeout < 0:
                                return self.handle_timeout()
    """,
    # the clause's first op is the inner try's: its name's unbinding covers both
    "try_ending_named_except_clause": """
        def f(value):
            try:
                a()
            except E as e:
                try:
                    b(e)
                except E:
                    token = 1
            p(token)
    """,
    # the loop's only jump back is a continue in an except clause (into the try
    # body), and every other way out of the try leaves the loop
    "loop_continued_from_except_clause_only": """
        def nxt(self):
            while True:
                try:
                    tarinfo = f(self)
                except E as e:
                    if self.ignore_zeros:
                        g(e)
                        continue
                except F:
                    if self.ignore_zeros:
                        continue
                break
            return tarinfo
    """,
    # the first try's handler lies after the elif and else branches: the jump
    # before it belongs to them
    "try_ending_if_branch_handler_after_other_branches": """
        def f(exc_value, tb, obj, wrong_name):
            if isinstance(exc_value, AttributeError):
                try:
                    d = dir(obj)
                    hide = wrong_name[:1] != '_'
                    if hide and tb is not None:
                        while tb.tb_next is not None:
                            tb = tb.tb_next
                        if tb.x is obj:
                            hide = False
                    if hide:
                        d = [x for x in d if x[:1] != '_']
                except Exception:
                    return None
            elif isinstance(exc_value, ImportError):
                try:
                    d = dir(g(exc_value.name))
                except Exception:
                    return None
            else:
                d = list(tb.f_locals)
            try:
                import _suggestions
            except ImportError:
                pass
            else:
                return _suggestions.generate(d, wrong_name)
            if len(d) > MAX:
                return None
            return d
    """,
    # ... and the except clause holding that continue lies past the if's branch
    "loop_continued_from_except_clause_in_if_branch": """
        def init(self, file, mode):
            if isinstance(file, str):
                filemode = modeDict[mode]
                while True:
                    try:
                        self.fp = io.open(file, filemode)
                    except OSError:
                        if filemode in modeDict:
                            filemode = modeDict[filemode]
                            continue
                        raise
                    break
            else:
                self.fp = file
            self._lock = 1
    """,
    "return_through_finally_then_with": """
        def wait(self):
            with self._cond:
                try:
                    index = self._count
                    return index
                finally:
                    self._exit()

        async def await_(self):
            async with self._cond:
                try:
                    return self._count
                finally:
                    self._exit()
    """,
    # 3.13 leaves the loop's `if value is not None:` jump pair out of the
    # finally handler's exception table
    "none_test_in_loop_in_finally_body": """
        def run(self, test, cv, out, clear_globs):
            try:
                return self.run_(test, out)
            finally:
                sys.stdout = out
                for key, value in cv.items():
                    if value is not None:
                        os.environ[key] = value
                if clear_globs:
                    test.globs.clear()
    """,
    # the break goes to the finally body's end; on the normal way out, to a copy
    # of the code after the statement
    "break_in_loop_in_finally_body": """
        def acquire(self, fut):
            try:
                x()
            finally:
                while self._value > 0:
                    if not self._wake_up_next():
                        break
            return True
    """,
    # the inner clause's way out (round the loop) is not the outer clause's
    "loop_of_tries_in_except_clause": """
        def g(start, last_values):
            try:
                last = last_values[-1]
                if last == 3:
                    return last + 1
                else:
                    raise TypeError
            except TypeError:
                w()
                for v in reversed(last_values):
                    try:
                        return v + 1
                    except TypeError:
                        pass
                return start
    """,
    # The code after a with statement whose body always leaves runs when
    # __exit__ swallows the exception: it must never be dropped (3.11+ lays it
    # out after the handler code, 3.8 after the body, loops put their exit between).
    "code_after_with_that_raises_in_loop": """
        def f(xs, x):
            for i in xs:
                with x:
                    raise ValueError(i)
                x.y()

        def g(xs, x):
            for i in xs:
                with x:
                    return i
                x.y()
    """,
    "code_after_with_that_raises_in_while": """
        def f(xs, x):
            while xs:
                with x:
                    raise ValueError(xs)
                x.y()

        def g(xs, x):
            while xs.p:
                with x:
                    return xs
                x.y()
            return 2
    """,
    "code_after_with_that_raises_in_try": """
        def f(xs, x):
            try:
                with x:
                    raise ValueError(xs)
                x.y()
            except KeyError:
                x.z()

        def g(xs, x):
            try:
                for i in xs:
                    with x:
                        raise ValueError(i)
                    x.y()
            finally:
                x.z()
    """,
    "code_after_with_that_raises_in_branch": """
        def f(c, x):
            if c:
                with x:
                    raise ValueError(c)
                x.y()
            else:
                x.w()
            x.z()

        def g(xs, x):
            for i in xs:
                if i:
                    with x:
                        return i
                    x.y()
                x.z()
    """,
    "code_after_with_that_returns": """
        def f(x):
            with x:
                return 1
            x.y()

        def namelist(self):
            with contextlib.suppress(AttributeError):
                return self.__names
            self.__names = super().namelist()
            return self.__names
    """,
    # a bottom-tested while loop ending a try body: its top test's way out is
    # the loop's, not a branch's end taking the closing return into the body
    "while_loop_in_try": """
        def f(self, n):
            try:
                while n > 0:
                    n = self.step(n)
            except KeyError:
                pass
            return n

        def h(it):
            try:
                while it.more():
                    it.go()
            except ValueError:
                return 1
    """,
    # the try body's way out leaves the loop, the except clause's goes round
    "else_break_in_loop": """
        def all_tasks(loop=None):
            i = 0
            while True:
                try:
                    tasks = list(_all_tasks)
                except RuntimeError:
                    i += 1
                    if i >= 1000:
                        raise
                else:
                    break
            return tasks
    """,
    # continue and break of except clauses leave through the finally body's
    # copy (issue 19: they were read as the clause falling off its end)
    "continue_and_break_through_finally": """
        def f(items, log):
            for i in items:
                try:
                    log.append(i)
                except KeyError:
                    log.append('k')
                    continue
                except ValueError:
                    log.append('v')
                    break
                finally:
                    log.append('fin')
                log.append(i)
            else:
                log.append('else')
            return log
    """,
    # a while loop's continue goes to its top test, which only handler code
    # jumps to; its break runs the finally copy, then (3.10+) a copy of the code
    # after the loop, which a return in the clause would load before the copy
    "while_continue_and_break_through_finally": """
        def f(it, log):
            n = 0
            while n < 10:
                n += 1
                try:
                    x = next(it)
                except KeyError as e:
                    log.append(e)
                    continue
                except StopIteration:
                    break
                finally:
                    x = log.pop()
                log.append(x)
            return x
    """,
    # up to 3.9 the else of a try ending an if branch sits after the handlers
    # and jumps past the other branch (issue 19: read into the else)
    "try_else_ending_an_if_branch": """
        def f(checking, available, log):
            if checking:
                try:
                    if not available:
                        raise KeyError()
                except KeyError:
                    pass
                else:
                    log.append('import')
            else:
                log.append('lazy')
    """,
    # a module's (or class body's) last statement: its ways out are copies of the
    # compiler's closing return, which no module may hold (issue 19: the lazy
    # `__init__.py` of transformers held `return None` on 3.11; a loop's break
    # was dropped with its copy on 3.10+)
    "lazy_import_module": """
        from typing import TYPE_CHECKING
        class C:
            n = 0
            while n < 5:
                n += 1
                if n == 3:
                    break
                print(n)
        class D:
            for x in range(5):
                if x == 2:
                    break
            else:
                x = -1
        if TYPE_CHECKING:
            try:
                if not is_torch_available():
                    raise OptionalDependencyNotAvailable()
            except OptionalDependencyNotAvailable:
                pass
            else:
                from .modeling import A, B
        else:
            import sys
            sys.modules[__name__] = _LazyModule(__name__, globals()["__file__"], _import_structure)
    """,
    # 3.13 cancels the two nots of `not not b`, leaving its conversion to bool
    # (issue 19: read as `b`)
    "not_not_values": """
        def f(a, b):
            x = not not a
            if not not b:
                x = not not (a < b), not not not a, a and not not b
            return not a, not not b, x
    """,
    "continue_and_break_through_nested_finally": """
        def f(items, log):
            for i in items:
                try:
                    try:
                        log.append(i)
                    except KeyError:
                        continue
                    finally:
                        log.append('in')
                except ValueError:
                    break
                finally:
                    log.append('out')
                log.append(i)
            return log
    """,
}


#: constructs whose bytecode is reproduced only from this version on
#: (an else after except clauses that all return: up to 3.9 only a dead closing
#: `return None` tells it from code after the try, and that hint is not used here yet)
STRUCTURED_FROM = {"except_returns_constant": "3.10", "finally_with_if": "3.9",
                   "try_inside_except_clause": "3.10",
                   # up to 3.10 a return in an except clause shuffles the three
                   # exception values (ROT_FOUR), which the clause's stack lacks
                   "except_clause_branches": "3.11",
                   # 3.10 copies the finally body and the return after it into the
                   # except clause's way out too; the two copies are not matched yet
                   "try_except_else_finally_starting_together": "3.11",
                   # 3.8 structures no finally with a return inside yet
                   "return_in_try_with_branching_finally": "3.9",
                   # up to 3.9 the with statement in a try/finally whose body
                   # always leaves goes to the fallback (f); g, h and k are reproduced
                   "code_after_with_that_raises": "3.10",
                   # up to 3.10 the closing `return None` after a with statement is
                   # read into its body (a `return constant` there looks the same)
                   "with_after_condition_with_copied_returns": "3.11",
                   # up to 3.9 the else branch is read into the loop's else too
                   "loop_continued_from_except_clause_in_if_branch": "3.10",
                   # up to 3.9 the finally body's end after the loop is not found
                   "break_in_loop_in_finally_body": "3.10"}


#: constructs whose bytecode is not reproduced from this version on yet (the
#: code object goes to the fallback; test_no_silently_wrong_structure checks that)
STRUCTURED_BEFORE = {
    # 3.12 lays the code after the with statement out after its handler code:
    # a branch or a bottom-tested loop body that goes on there is not followed yet
    "code_after_with_that_raises_in_branch": "3.12",
    "code_after_with_that_raises_in_while": "3.12"}


def need(version):
    if find_interpreter(version) is None:
        pytest.skip("Python %s is not installed under pyenv" % version)


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", sorted(SNIPPETS))
def test_strict_round_trip(name, version):
    need(version)
    since = STRUCTURED_FROM.get(name)
    if since and tuple(map(int, version.split("."))) < tuple(map(int, since.split("."))):
        pytest.xfail("%s: not reproduced before %s yet" % (name, since))
    until = STRUCTURED_BEFORE.get(name)
    if until and tuple(map(int, version.split("."))) >= tuple(map(int, until.split("."))):
        pytest.xfail("%s: not reproduced from %s on yet" % (name, until))
    source = textwrap.dedent(SNIPPETS[name])
    result = verify(source, version, filename="<%s>" % name)
    assert result.compiles and not result.crash, result.format()
    failures = [o for o in result.objects if not o.deep]
    assert not failures, "\n".join("%s: %s" % (o.path, o.diff) for o in failures)


#: snippets whose wrong structuring once dropped code silently
DROPPED_CODE = sorted(n for n in SNIPPETS if n.startswith("code_after_with_that"))


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name", DROPPED_CODE)
def test_no_silently_wrong_structure(name, version):
    """Where a construct is not reproduced yet, the code object must go to the
    fallback (correct code) rather than come out structured and different."""
    need(version)
    from depyf.decompiler.api import decompile_report
    from depyf.verify.roundtrip import TargetSession
    source = textwrap.dedent(SNIPPETS[name])
    with TargetSession(version) as target:
        report = decompile_report(target.compile_module(source, "<%s>" % name))
    fallen = {qualname.split(".")[-1] for qualname, _ in report.fallbacks}
    result = verify(source, version, filename="<%s>" % name)
    assert result.compiles and not result.crash, result.format()
    # (a fallback body differs from the original by design; its parents are equal)
    wrong = [o for o in result.objects
             if not o.equal and o.path.split("/")[-1].split("#")[0] not in fallen]
    assert not wrong, "\n".join("%s: %s" % (o.path, o.diff) for o in wrong)


#: construct case files reproduced exactly on every version their syntax allows
#: (tools/roundtrip.py --cases measures the others)
EXACT_CASE_FILES = {name: "3.8" for name in sorted(os.listdir(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases"))) if name.endswith(".py")}


#: (3.14 and 3.15 compile and compare through their own interpreters: the
#: case files only, the snippets above stay on the versions the hosts have)
CASE_VERSIONS = VERSIONS + ["3.14", "3.15"]


@pytest.mark.parametrize("version", CASE_VERSIONS)
@pytest.mark.parametrize("name", sorted(EXACT_CASE_FILES))
def test_case_file_round_trip(name, version):
    need(version)
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cases", name)
    target = tuple(map(int, version.split(".")))
    if min_version(path) > target:
        pytest.skip("%s needs Python %d.%d" % ((name,) + min_version(path)))
    if target < tuple(map(int, EXACT_CASE_FILES[name].split("."))):
        pytest.xfail("%s: not reproduced before %s yet" % (name, EXACT_CASE_FILES[name]))
    result = verify_file(path, version)
    assert result.compiles and not result.crash, result.format()
    failures = [o for o in result.objects if not o.deep]
    assert not failures, "\n".join("%s: %s" % (o.path, o.diff) for o in failures)


def make_counter(start):
    count = start

    def step(by=1):
        nonlocal count
        count += by
        return count
    return step


def classify(values, limit):
    out = []
    for v in values:
        if v is None:
            continue
        if v > limit:
            break
        out.append("big" if v * 2 > limit else "small")
    else:
        out.append("done")
    return out, {v: [w for w in range(v) if w % 2] for v in values if v}


def lexists(path, stat):
    try:
        stat(path)
    except (OSError, ValueError):
        return False
    else:
        return True


def _raise_oserror(path):
    raise OSError(path)


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@pytest.mark.parametrize("func, args", [
    (lexists, ("x", _raise_oserror)),
    (lexists, ("x", len)),
    (fib, (10,)),
    (classify, ([1, None, 3, 4], 6)),
    (classify, ([1, 2, 9, 4], 6)),
    (make_counter, (5,)),
])
def test_live_function_behaves_the_same(func, args):
    source = depyf.decompile(func)
    namespace = {}
    exec(compile(source, "<decompiled>", "exec"), namespace)
    clone = namespace[func.__name__]
    if func is make_counter:
        a, b = func(*args), clone(*args)
        assert [a(), a(3)] == [b(), b(3)]
    else:
        assert clone(*args) == func(*args)


def test_no_source_lookup(tmp_path):
    """Decompiling code whose source file is gone still works."""
    path = tmp_path / "gone.py"
    path.write_text("def twice(x):\n    return x * 2\n")
    namespace = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    path.unlink()
    source = depyf.decompile(namespace["twice"])
    assert "return x * 2" in source


# A conditional expression as a condition. 3.10 and 3.12+ copy the guarded code
# into both arms of the expression (3.11 a while loop's repeated test), which is
# not recognised yet.
IFEXP_CONDITIONS = """
def f(a, b, c, d):
    if (a if b else c):
        return 1
    if d and (a if b else c):
        return 1
    if (a if b else c) or d:
        return 3
    return 2 if (b if c else a) else 3
"""


@pytest.mark.parametrize("version", ["3.8", "3.9", "3.11"])
def test_conditional_expression_conditions(version):
    need(version)
    result = verify(IFEXP_CONDITIONS, version, filename="<ifexp_conditions>")
    assert result.compiles and not result.crash, result.format()
    failures = [o for o in result.objects if not o.deep]
    assert not failures, "\n".join("%s: %s" % (o.path, o.diff) for o in failures)


PEP695 = """
type Number = int | float
type Pair[T] = tuple[T, T]
def first[T](items: list[T], x=1, *, y=2) -> T:
    return items[0]
def bounded[T: (int, str), U: int](value: T) -> T:
    return value
def variadic[*Ts, **P](*args: *Ts) -> tuple[*Ts]:
    return args
@deco
class Mapping[K, V](dict[K, V], metaclass=M):
    def get(self) -> K:
        return super().get()
class Box[T]:
    type Alias = list[T]
    def map[U](self, f: Callable[[T], U]) -> "Box[U]":
        return Box(f(self.value))
"""


@pytest.mark.parametrize("version", ["3.12", "3.13"])
def test_type_parameters(version):
    need(version)
    result = verify(PEP695, version, filename="<pep695>")
    assert result.compiles and not result.crash, result.format()
    failures = [o for o in result.objects if not o.deep]
    assert not failures, "\n".join("%s: %s" % (o.path, o.diff) for o in failures)


def test_trailing_wildcard_case_stays_in_the_match():
    """Cases that all return make the code after the match run only when nothing
    matched: it reads as the match's own ``case _:`` (the same bytecode)."""
    source = textwrap.dedent("""
        def f(x):
            match x:
                case 1:
                    return 1
                case [a, b]:
                    return a
                case _:
                    print(3)
    """)
    namespace = {}
    exec(compile(source, "<wildcard>", "exec"), namespace)
    text = depyf.decompile(namespace["f"])
    assert "case _:" in text and text.index("case _:") < text.index("print(3)")
    assert "\n    print(3)" not in text


@pytest.mark.parametrize("loaded, target", [
    ("x", "x"), ("x", "y"), ("a.b", "a.b"), ("a.b", "a.c"), ("a.b.c", "x.b.c"),
    ("a.b.c", "a.b.c"), ("f().b", "f().b"), ("a[i]", "a[i]"), ("a[i].b", "a[j].b")])
def test_augmented_target_comparison_agrees_with_dumps(loaded, target):
    """The direct comparison of name and attribute targets says what comparing
    the dumps (the target's with every context a load) says."""
    import ast
    from depyf.decompiler.expressions import same_target
    value = ast.parse(loaded, mode="eval").body
    # (parsed as an expression, the target has every context a load)
    as_load = ast.parse(target, mode="eval").body
    store = ast.parse(target, mode="eval").body
    store.ctx = ast.Store()
    expected = ast.dump(value, annotate_fields=False) == ast.dump(as_load, annotate_fields=False)
    assert same_target(value, store) == expected


def test_lost_statements_go_to_the_fallback():
    """The guard: a structured body that lost a named op raises (the code object
    then goes to the fallback); the full body passes."""
    from depyf.bytecode.normalize import normalize
    from depyf.decompiler.dropped import check_names_kept
    from depyf.decompiler.failure import DecompileFailure

    def f(x):
        x.y()
        return x.z

    full = depyf.decompile(f)
    func = normalize(f.__code__)
    reached = set(range(len(func.ops)))
    import ast
    body = next(n for n in ast.walk(ast.parse(textwrap.dedent(full)))
                if isinstance(n, ast.FunctionDef) and n.name == "f").body
    check_names_kept(func.code, func.ops, reached, body)
    with pytest.raises(DecompileFailure, match="y"):
        check_names_kept(func.code, func.ops, reached, body[1:])


#: Shapes found in third-party code that some versions do not structure yet:
#: (name, source, the versions where it is still open, why). Validation sends
#: them to the fallback there, so the output is right but not the source; on
#: every other version each must round-trip exactly (strict: a version fixed
#: by the way must leave the list).
OPEN_SHAPES = [
    ("while_test_is_a_conditional_expression", """\
        def alternate(a, b, c):
            while (a if c else b):
                c = not c
    """, "3.10 3.11 3.12 3.13",
     "its two values jump out of the loop, 3.10+ to two copies of the code after it"),
    ("while_test_holds_a_comprehension", """\
        def shrink(f, xs):
            while f([x for x in xs]):
                xs = xs[1:]
    """, "3.12 3.13", "3.12+ inline the comprehension: its loop sits in the test"),
    ("finally_with_a_lock_taken_if", """\
        def release(state, pid, tid, g):
            try:
                g()
            finally:
                if state.getpid() == pid:
                    with state.gate:
                        del state.transitions[tid]
    """, "3.10 3.11 3.12 3.13",
     "the finally body's two copies end each of the with's ways out in their own way on "
     "(3.10+: a return copied onto each on the normal path, a re-raise on the other): the "
     "copies are probably not matched (not yet traced)"),
    ("else_returns_in_a_named_clause_that_falls_off", """\
        def retry_or_give_up(first, second, Failed, Unsupported):
            try:
                value = first()
            except Failed as exc:
                try:
                    value = second(exc)
                except Unsupported:
                    value = None
                else:
                    return 5
            return value
    """, "3.13 3.14 3.15",
     "3.13+ copy the code after the outer try (`return value`) onto the inner clause's "
     "way out, after the outer clause's own POP_EXCEPT and unbinding: read as the inner "
     "clause's own return, not as falling off both clauses"),
    ("clause_falls_off_before_an_else_that_returns", """\
        def message_id(self, post, warn, write):
            try:
                req = post()
            except Exception as e:
                if req.status_code == 429:
                    warn("rate")
                else:
                    write(str(e))
            else:
                self._message_id = req
                return self._message_id
    """, "3.10",
     "(found in tqdm) 3.10 copies the closing return onto both ways out of the clause's "
     "if/else, each after its own POP_BLOCK: read as the clause's own return, so the else "
     "is read as code after the statement"),
    ("comprehension_filter_over_two_lines", """\
        def matching_entries(entries, path, is_dir):
            return [
                entry
                for entry in entries
                if entry == path
                or (is_dir(entry) and entry == path.rstrip("/"))
            ]
    """, "3.10 3.11",
     "(found in fsspec) on two lines the filter's middle jump goes to the comprehension's "
     "jump back, not threaded to its head as on one line: the loop body is not read as a "
     "filter. 3.13+ (fixed) gave the jumps the element's line"),
    ("retry_loop_with_a_lock_in_a_try", """\
        def draw(self, data):
            retries = 0
            while True:
                try:
                    with self.capped(self.max_leaves):
                        result = data.draw(self.strategy)
                        if self.min_leaves and result < self.min_leaves:
                            retries += 1
                            if retries < 5:
                                continue
                            data.mark_invalid()
                        return result
                except LimitReached:
                    data.events = ""
    """, "3.14 3.15",
     "(found in hypothesis) the if's region took in the handler of the try around the "
     "with around it, so the graph put its join past the block (3.10-3.13, fixed); "
     "3.14+ not yet read"),
    ("try_in_a_named_except_clause_then_raise", """\
        def cleanup(c, g, h):
            if c:
                try:
                    g()
                except BaseException as e:
                    try:
                        h()
                    except BaseException as e2:
                        k(e2)
                    raise
    """, "3.10", "(3.10) not yet read right; the cause is not found yet"),
]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("name,source,open_on,why", OPEN_SHAPES, ids=[s[0] for s in OPEN_SHAPES])
def test_open_shapes(name, source, open_on, why, version):
    need(version)
    result = verify(textwrap.dedent(source), version)
    assert result.compiles and not result.crash, result.format()
    failures = [o for o in result.objects if not o.deep]
    if version in open_on.split():
        assert failures, "%s now round-trips on %s: take it off the list" % (name, version)
        pytest.xfail("open on %s: %s" % (version, why))
    assert not failures, "\n".join("%s: %s" % (o.path, o.diff) for o in failures)
