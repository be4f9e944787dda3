# min-version: 3.10
"""match statements: sequence, mapping, class and or patterns with guards, in
loops left by continue and break, with an else."""


def matcher(s):
    match s:
        case [x, *rest] if x:
            return ('seq', x, rest)
        case {'k': v, **rest}:
            return ('map', v, rest)
        case int(n) | float(n) if n > 3:
            return ('big', n)
        case str() as t:
            return ('str', t)
        case _:
            return None


def match_in_loop(items):
    out = []
    for s in items:
        match s:
            case 0:
                continue
            case 1:
                break
            case [a, b]:
                out.append(a + b)
            case _:
                out.append(s)
    else:
        out.append('else')
    return out


CHECKS = [("match_in_loop", ([2, 0, [1, 2], 1, 5],)), ("match_in_loop", ([0, 7],))]
CHECKS += [("matcher", (s,)) for s in ([1, 2, 3], [0, 1], {"k": 1, "j": 2}, 7, 2.5, 9.0, "s", None)]
