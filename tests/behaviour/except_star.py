# min-version: 3.11
"""except* clauses in a loop, on groups and on plain exceptions."""


def risky(x):
    if x == 1:
        raise ExceptionGroup('g', [KeyError(1), ValueError(2)])
    if x == 2:
        raise KeyError(2)
    return x


def star(xs):
    out = []
    for x in xs:
        try:
            risky(x)
        except* KeyError as eg:
            out.append(('k', len(eg.exceptions)))
        except* ValueError:
            out.append('v')
        out.append(x)
    return out


CHECKS = [("star", ([0, 1, 2],)), ("star", ([2, 2],))]
