"""Programs shrunk from the generated corpus and the third-party corpus
(tests/test_generated_regressions.py) whose decompilation compiled but ran
differently: each a function of the same shape, run on inputs that take
every branch."""


class CM:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append('enter')
        return self

    def __exit__(self, *a):
        self.log.append(('exit', a[0].__name__ if a[0] else None))


def if_try_except_else_in_loop(items, b, log):
    # The else of an if whose body is a try/except ending the loop body.
    for n in items:
        if b:
            try:
                log.append(('try', n))
                if n:
                    raise KeyError(n)
            except Exception:
                log.append(('except', n))
        else:
            log.append(('else', n))
    return log


def nested_if_continue_outer_else(items, b, c, log):
    # The outer else of an if whose body is an if/else ending in continue.
    for i in items:
        if b:
            if c:
                log.append(('c', i))
            else:
                continue
        else:
            log.append(('else', i))
        log.append(('after', i))
    return log


def for_break_falls_into_exit(items, log):
    # A break whose jump to the loop's exit, right after it, is dropped.
    c = None
    with CM(log):
        for c in items:
            break
    log.append(c)
    for c in items:
        break
    log.append(c)
    return log


def display_of_call_with_lambda(k):
    # A call with a lambda argument inside a list display (crashed the renderer).
    inner = [abs(k)]
    inner += [apply(lambda s: s + k, 1), (apply(lambda s: s * k, 2),)]
    return inner


def apply(f, x):
    return f(x)


def at_one(f):
    return f(1)


# (a one-argument call looks like a decorator's, which holds its function)
AT_MODULE = [at_one(lambda s: s + 1)]
AT_MODULE += [at_one(lambda s: s * 2), (at_one(lambda s: -s),)]


CHECKS = [("if_try_except_else_in_loop", (items, b, [])) for items in ([], [0, 1]) for b in (0, 1)]
CHECKS += [("nested_if_continue_outer_else", ([0, 1], b, c, [])) for b in (0, 1) for c in (0, 1)]
CHECKS += [("for_break_falls_into_exit", (items, [])) for items in ([], [1, 2])]
CHECKS += [("display_of_call_with_lambda", (k,)) for k in (-1, 3)]
