"""Returns, breaks and continues through with and finally (the value a return
loads before the finally runs), suppressing managers in loops, walrus and
chained comparisons with side effects in conditions, a generator's try in a
loop with an else, globals and del, continue in a finally body, a coroutine."""


class CM:
    def __init__(self, tag, swallow=False):
        self.tag, self.swallow = tag, swallow

    def __enter__(self):
        TRACE.append(('in', self.tag))
        return self

    def __exit__(self, t, v, tb):
        TRACE.append(('out', self.tag, t and t.__name__))
        return self.swallow


def return_then_finally_rebinds(a):
    x = 'x1'
    try:
        if a:
            return x
        x = 'x2'
    finally:
        x = 'fin'
    return x


def return_in_with_in_for(xs):
    for x in xs:
        with CM(x):
            if x > 1:
                return x
            TRACE.append(x)
    return None


def return_from_nested_with_try(xs):
    for x in xs:
        try:
            with CM('a', swallow=True):
                if x == 1:
                    raise KeyError(x)
                if x == 2:
                    return 'two'
        finally:
            TRACE.append(('f', x))
        TRACE.append(('t', x))
    return 'end'


def walrus_conditions(xs):
    out = []
    i = 0
    while (i := i + 1) < 5 and (y := xs[i % len(xs)]) is not None:
        if (z := y * 2) > 4 or not z:
            out.append(z)
            continue
        out.append(-y)
    return out, i


def chained_side_effects(a, b, c):
    def v(x):
        TRACE.append(x)
        return x
    if v(a) < v(b) < v(c):
        r = 'lt'
    elif v(a) == v(b) != v(c):
        r = 'eq'
    else:
        r = 'other'
    return r, v(a) <= v(b) <= v(c)


def generator_in_loop_try(xs):
    for x in xs:
        try:
            if x == 0:
                continue
            yield x
            if x == 3:
                break
        finally:
            TRACE.append(('f', x))
    else:
        yield 'else'
    yield 'after'


def globals_and_del(x):
    global G2
    G2 = x
    y = x
    del y
    try:
        return y
    except UnboundLocalError:
        return ('unbound', G2)


def nonlocal_counter(n):
    total = 0
    def add(k):
        nonlocal total
        for i in range(k):
            if i % 2:
                continue
            total += i
        return total
    return [add(i) for i in range(n)], total


def else_with_continue_in_finally(xs):
    out = []
    for x in xs:
        try:
            if x < 0:
                continue
            out.append(x)
        finally:
            out.append('f')
    else:
        out.append('else')
    return out


def exception_in_else_and_finally(x):
    try:
        TRACE.append('body')
    except ValueError:
        TRACE.append('never')
    else:
        if x:
            raise KeyError('else')
    finally:
        TRACE.append('fin')
    return 'ok'


def suppress_in_loop(xs):
    out = []
    for x in xs:
        with CM(x, swallow=True):
            if x == 1:
                raise ValueError(x)
            if x == 2:
                break
            out.append(x)
        out.append(('after', x))
    return out


def continue_in_finally(xs):
    out = []
    for x in xs:
        try:
            if x == 2:
                raise KeyError(x)
            out.append(x)
        finally:
            if x > 1:
                continue
        out.append('after')
    return out


def run_coro(n):
    class Step:
        def __await__(self):
            got = yield 'step'
            return got

    async def coro(k):
        total = 0
        for i in range(k):
            try:
                total += await Step()
                if total > 3:
                    break
            finally:
                TRACE.append(i)
        return total
    c = coro(n)
    sent = None
    try:
        while True:
            c.send(sent)
            sent = (sent or 0) + 1
    except StopIteration as e:
        return e.value


CHECKS = [("return_then_finally_rebinds", (a,)) for a in (0, 1)]
CHECKS += [(n, (xs,)) for n in ("return_in_with_in_for", "return_from_nested_with_try", "generator_in_loop_try",
                                "else_with_continue_in_finally", "suppress_in_loop")
           for xs in ([0, 1, 2, 3], [3, 0], [], [-1, 1], [0, 0])]
CHECKS += [("walrus_conditions", (xs,)) for xs in ([1, 2, 3], [0, None], [5])]
CHECKS += [("chained_side_effects", args) for args in [(1, 2, 3), (1, 1, 2), (2, 2, 2), (3, 2, 1)]]
CHECKS += [("globals_and_del", (1,)), ("nonlocal_counter", (5,))]
CHECKS += [("exception_in_else_and_finally", (a,)) for a in (0, 1)]
CHECKS += [("continue_in_finally", ([0, 1, 2, 3],)), ("run_coro", (0,)), ("run_coro", (5,))]
