"""Generators (try/except/finally around yields in loops, yield from,
send/throw/close), closures and nonlocal, comprehensions, exception chaining
and re-raising, except-name scoping, walrus, star arguments."""


def risky(x):
    TRACE.append(('risky', x))
    if x == 1:
        raise KeyError(x)
    if x == 2:
        raise ValueError(x)
    return x


def gen_try(xs):
    try:
        for x in xs:
            try:
                yield risky(x)
            except KeyError:
                yield 'k'
                continue
            finally:
                TRACE.append('f')
            if x == 3:
                return 'three'
    finally:
        TRACE.append('outer')
    return 'end'


def gen_while(n):
    i = 0
    while True:
        i += 1
        if i > n:
            break
        try:
            got = yield i
        except ValueError:
            return 'thrown'
        if got:
            TRACE.append(got)
    yield 'after'


def gen_from(xs):
    r = yield from gen_try(xs)
    TRACE.append(('r', r))
    return r


def drive(name, script):
    g = globals()[name](*script[0])
    out = []
    for step in script[1:]:
        try:
            if step == 'next':
                out.append(next(g))
            elif step == 'throw':
                out.append(g.throw(ValueError('t')))
            elif step == 'close':
                out.append(g.close())
            else:
                out.append(g.send(step))
        except StopIteration as e:
            out.append(('stop', e.value))
        except Exception as e:
            out.append(('exc', type(e).__name__))
    return out


def closures(n):
    fs = []
    for i in range(n):
        def f(x, i=i):
            return x + i
        fs.append(f)
    count = 0
    def bump():
        nonlocal count
        count += 1
        return count
    g = lambda: [bump() for _ in range(2)]
    return [f(10) for f in fs], g(), count, [lambda: i for i in range(2)][0]()


def comps(xs):
    a = [x for x in xs if x if x % 2]
    b = {x: [y for y in range(x) if not y % 2] for x in xs}
    c = sum(x * y for x in xs for y in xs if x != y)
    d = [(yield_ := x) for x in xs]
    return a, b, c, d


def chaining(x):
    try:
        try:
            risky(x)
        except KeyError as e:
            raise RuntimeError('from') from e
        except ValueError:
            raise RuntimeError('during')
    except RuntimeError as e:
        return (str(e), type(e.__cause__).__name__, type(e.__context__).__name__, e.__suppress_context__)
    return 'ok'


def reraise(x):
    try:
        risky(x)
    except KeyError:
        TRACE.append('k')
        raise
    except ValueError as e:
        TRACE.append('v')
        raise e
    finally:
        TRACE.append('f')


def except_name_scope(x):
    e = 'before'
    try:
        risky(x)
    except KeyError as e:
        TRACE.append(repr(e))
    try:
        return e
    except NameError:
        return 'unbound'


def nested_def_in_loop(xs):
    out = []
    for x in xs:
        if x:
            def f():
                return x * 2
        else:
            continue
        out.append(f())
    return out


def assert_and_walrus(xs):
    out = []
    while (n := len(xs)) > 2:
        xs = xs[1:]
        out.append(n)
    assert n < 5, 'too long'
    return out, n


def ternary_chain(a, b, c):
    return 'x' if a else 'y' if b else 'z' if c else 'w'


def aug_targets(d, k):
    d[k] += 1
    d[k] *= 2
    x = d
    x[k] -= 3
    return d


def star_args(*a, **k):
    def inner(p, /, q, *r, s, t=5, **u):
        return p, q, r, s, t, sorted(u.items())
    return inner(*a, s=1, **k)


CHECKS = [("drive", ("gen_try", [([0, 1, 3, 4],), "next", "next", "next", "next", "next", "next", "next"])),
          ("drive", ("gen_try", [([2],), "next", "next"])),
          ("drive", ("gen_try", [([0, 0],), "next", "close", "next"])),
          ("drive", ("gen_while", [(3,), "next", "a", None, "b", "next", "next"])),
          ("drive", ("gen_while", [(3,), "next", "throw", "next"])),
          ("drive", ("gen_from", [([1, 0, 3],), "next", "next", "next", "next", "next", "next"])),
          ("drive", ("gen_from", [([0, 0],), "next", "throw", "next"])),
          ("closures", (3,)), ("comps", ([1, 2, 3, 0],)), ("comps", ([],)),
          ("nested_def_in_loop", ([1, 0, 2],)),
          ("assert_and_walrus", ([1, 2, 3, 4],)), ("assert_and_walrus", ([1, 2, 3, 4, 5, 6, 7],)),
          ("aug_targets", ({"a": 1}, "a")), ("aug_targets", ({}, "a")),
          ("star_args", (1, 2, 3), {"t": 7, "z": 9}), ("star_args", (1,), {"s": 2})]
CHECKS += [(n, (x,)) for n in ("chaining", "reraise", "except_name_scope") for x in (0, 1, 2)]
CHECKS += [("ternary_chain", (a, b, c)) for a in (0, 1) for b in (0, 1) for c in (0, 1)]
CHECKS += [("gen_try", ([0, 1, 3],)), ("gen_while", (2,))]
