"""try/except/finally and with statements inside loops, left by continue,
break and return from every part, nested functions, exception chaining
(issue 19: a continue in a clause nested in an except clause lost through the
finally copy, 3.8 and 3.13; the code after a ``while True`` left only by an
except clause's break was dropped, 3.8, 3.9 and 3.11; a ``while True`` whose
body never loops lost its break through a finally, and 3.10+ read a break
through a finally into a copy of the code after the loop as a return, whose
value loaded before the finally ran)."""


class CM:
    def __init__(self, tag, swallow=False):
        self.tag, self.swallow = tag, swallow

    def __enter__(self):
        TRACE.append(('enter', self.tag))
        return self.tag

    def __exit__(self, t, v, tb):
        TRACE.append(('exit', self.tag, t.__name__ if t else None))
        return self.swallow


def risky(x):
    TRACE.append(('risky', x))
    if x == 1:
        raise KeyError(x)
    if x == 2:
        raise ValueError(x)
    if x == 3:
        raise TypeError(x)
    return x


def with_in_loop_continue_break(xs):
    for x in xs:
        with CM(x, swallow=(x == 2)):
            if x == 0:
                continue
            if x == 4:
                break
            risky(x)
        TRACE.append(('after', x))
    return 'end'


def nested_with_swallowing_return_break(xs):
    for x in xs:
        with CM('a'):
            with CM('b', swallow=True):
                risky(x)
                if x == 0:
                    return 'zero'
            TRACE.append('between')
            if x == 4:
                break
    else:
        return 'else'
    return 'broke'


def with_in_try_in_while(xs):
    i = 0
    while i < len(xs):
        x = xs[i]
        i += 1
        try:
            with CM(x):
                if x == 0:
                    continue
                risky(x)
        except KeyError:
            TRACE.append('k')
            continue
        except ValueError:
            break
        finally:
            TRACE.append('f')
        TRACE.append(('after', x))
    return i


def break_in_finally_body(xs):
    out = []
    for x in xs:
        try:
            try:
                risky(x)
            finally:
                TRACE.append('inner')
                if x == 2:
                    break
        except KeyError:
            out.append('k')
            continue
        out.append(x)
    return out


def clause_continue_or_raise_from(xs):
    for x in xs:
        try:
            risky(x)
        except (KeyError, ValueError) as e:
            TRACE.append(type(e).__name__)
            if x == 1:
                continue
            raise RuntimeError('wrapped') from e
        else:
            TRACE.append('else')
            if x == 0:
                break
        TRACE.append('tail')
    return 'done'


def nested_function_with_finally(xs):
    def inner(y):
        try:
            return risky(y)
        finally:
            TRACE.append('inner-fin')
    total = 0
    for x in xs:
        try:
            total += inner(x)
        except KeyError:
            total -= 1
        except Exception:
            return total * 100
    return total


def continue_from_nested_clause_through_finally(xs):
    for x in xs:
        try:
            risky(x)
        except KeyError:
            try:
                risky(x + 1)
            except ValueError:
                TRACE.append('nested-v')
                continue
            finally:
                TRACE.append('nested-f')
        TRACE.append(('t', x))
    return 'e'


def nested_loops_in_try_finally(xs):
    result = []
    for x in xs:
        for y in xs:
            try:
                if y == x:
                    continue
                if y > x + 1:
                    break
                result.append((x, y))
            finally:
                result.append('f')
        else:
            result.append('inner-else')
    return result


def return_overridden_by_finally(x):
    try:
        return risky(x)
    except KeyError:
        return 'k'
    finally:
        TRACE.append('fin')
        if x == 2:
            return 'override'


def while_true_left_by_clause_break(xs):
    n = 0
    while True:
        try:
            x = xs[n]
            n += 1
            risky(x)
        except IndexError:
            break
        except KeyError:
            continue
        finally:
            TRACE.append(n)
        if x == 0:
            return 'zero'
    return n


def while_true_that_never_loops(a):
    # (every way through the body leaves: no jump back, no loop in the bytecode)
    while True:
        try:
            x = 1
            if a:
                break
        finally:
            x = 2
        return -1
    return x


def while_true_left_by_breaks_through_finally(stop, limit):
    state = [0]
    if limit is not None:
        while True:
            try:
                state[0] += 1
                if state[0] in stop:
                    break
                if state[0] > limit:
                    break
            finally:
                # (rebinds what the code after the loop returns)
                state = [state[0] * 10]
            TRACE.append(state[0])
    else:
        state = None
    return state


ON_LISTS = (
    'with_in_loop_continue_break',
    'nested_with_swallowing_return_break',
    'with_in_try_in_while',
    'break_in_finally_body',
    'clause_continue_or_raise_from',
    'nested_function_with_finally',
    'continue_from_nested_clause_through_finally',
    'nested_loops_in_try_finally',
    'while_true_left_by_clause_break',
)
CHECKS = []
for name in ON_LISTS:
    for xs in ([0, 1, 2, 3], [1, 0, 4, 2], [2, 2], [], [4], [1, 1, 0], [0, 5, 0], [3]):
        CHECKS.append((name, (list(xs),)))
CHECKS += [('return_overridden_by_finally', (x,)) for x in range(4)]
CHECKS += [('while_true_that_never_loops', (a,)) for a in (0, 1)]
CHECKS += [('while_true_left_by_breaks_through_finally', (stop, limit))
           for stop in ((), (2,)) for limit in (None, 0, 3)]
