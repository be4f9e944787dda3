"""Loops that end an if branch or an except clause: ``while True`` left only by
breaks (from except clauses too), loops with else clauses (issue 19: a
``while True`` ending an if branch, its try's handler laid out after the code,
lost its break on 3.13; a loop's else clause ending an if branch took in the
other branch, 3.8 and 3.9)."""


class CM:
    def __enter__(self):
        TRACE.append('in')

    def __exit__(self, *e):
        TRACE.append('out')


def branch_while_true(a, x):
    if a:
        while True:
            x += 1
            if x > 3:
                break
    else:
        x = None
    return x


def branch_while_true_with(a, x):
    if a:
        while True:
            with CM():
                x += 1
                if x > 3:
                    break
    else:
        x = None
    return x


def branch_while_true_two_breaks(a, x):
    if a:
        while True:
            x += 1
            if x == 2:
                break
            if x > 3:
                break
            TRACE.append(x)
    elif a is None:
        x = 'none'
    else:
        x = None
    return x


def branch_while_true_return(a, x):
    if a:
        while True:
            x += 1
            if x > 3:
                return x
    else:
        x = None
    return ('after', x)


def while_true_try_except_in_branch(a, xs):
    it = iter(xs)
    if a:
        while True:
            try:
                x = next(it)
            except StopIteration:
                break
            TRACE.append(x)
    else:
        TRACE.append('no')
    return len(TRACE)


def for_else_in_branch(a, xs):
    if a:
        for x in xs:
            if x:
                break
        else:
            x = 'else'
    else:
        x = None
    return x


def while_else_in_branch(a, n):
    x = 'start'
    if a:
        while n > 0:
            n -= 1
            if n == 2:
                x = 'two'
                break
        else:
            x = 'else'
    elif n:
        x = 'elif'
    else:
        x = None
    return x, n


def for_else_in_loop_branch(rows):
    out = []
    for r in rows:
        if r:
            for x in r:
                if x < 0:
                    break
            else:
                out.append('all')
        else:
            out.append('empty')
    return out


def nested_else(a, xs):
    if a:
        for x in xs:
            for y in xs:
                if x == y + 1:
                    break
            else:
                continue
            break
        else:
            x = 'none'
    else:
        x = 'not a'
    return x


def loop_else_ending_an_except_clause(names, table):
    processed = []
    for key in names:
        try:
            value = table[key]
        except KeyError:
            for base in ({"a": 1}, {"b": 2}):
                if key in base:
                    value = base[key]
                    break
            else:
                continue
        processed.append(value)
    return processed


CHECKS = [(n, (a, x)) for n in ("branch_while_true", "branch_while_true_with",
                                 "branch_while_true_two_breaks", "branch_while_true_return")
          for a in (0, 1, None) for x in (0, 1, 5)]
CHECKS += [("while_true_try_except_in_branch", (a, xs)) for a in (0, 1) for xs in ([], [0, 1], [0])]
CHECKS += [("for_else_in_branch", (a, xs)) for a in (0, 1) for xs in ([], [0], [0, 1])]
CHECKS += [("while_else_in_branch", (a, n)) for a in (0, 1) for n in (0, 1, 4)]
CHECKS += [("for_else_in_loop_branch", ([[], [1, 2], [1, -1]],))]
CHECKS += [("nested_else", (a, xs)) for a in (0, 1) for xs in ([], [1, 2], [1, 3])]
CHECKS += [("loop_else_ending_an_except_clause", (names, {"c": 3})) for names in (["a", "c"], ["x", "b"], [])]
