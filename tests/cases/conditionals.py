"""Conditionals: if/elif/else, nesting, conditional expressions, boolean logic."""


def if_only(x):
    if x:
        print("x")


def if_else(x):
    if x:
        return 1
    else:
        return 2


def if_elif_else(x):
    if x < 0:
        sign = -1
    elif x == 0:
        sign = 0
    elif x < 10:
        sign = 1
    else:
        sign = 2
    return sign


def elif_without_else(x):
    if x == 1:
        print("one")
    elif x == 2:
        print("two")
    return x


def nested_ifs(a, b):
    if a:
        if b:
            return "ab"
        else:
            return "a"
    elif b:
        return "b"
    return ""


def nested_if_fallthrough(a, b, c):
    result = 0
    if a:
        if b:
            result = 1
        if c:
            result += 2
    return result


def conditional_expression(x):
    return "pos" if x > 0 else "neg" if x < 0 else "zero"


def conditional_expression_in_call(f, x):
    return f(x if x else None)


def and_chain(a, b, c):
    return a and b and c


def or_chain(a, b, c):
    return a or b or c


def mixed_bool(a, b, c, d):
    return a and b or c and d


def bool_with_parens(a, b, c):
    return a and (b or c)


def not_operator(a, b):
    return not a, not (a and b), not a or b


def if_with_and(a, b):
    if a and b:
        return 1
    return 0


def if_with_or(a, b):
    if a or b:
        return 1
    return 0


def if_with_not(a):
    if not a:
        return 1
    return 0


def if_complex_condition(a, b, c):
    if (a and not b) or (c and a):
        return True
    return False


def chained_comparison(a, b, c):
    return a < b < c


def chained_comparison_in_if(a, b, c, d):
    if a <= b == c != d:
        return 1
    return 0


def identity_and_membership(a, b):
    return a is b, a is not b, a in b, a not in b


def walrus(data):
    if (n := len(data)) > 10:
        return n
    return 0


def walrus_in_while(stream):
    chunks = []
    while (chunk := stream.read()):
        chunks.append(chunk)
    return chunks


def walrus_in_comprehension(xs):
    return [y for x in xs if (y := x * 2) > 3]


def if_pass_else(x):
    if x:
        pass
    else:
        x = 1
    return x


def if_constant_true():
    if True:
        return 1


def assert_statements(x):
    assert x
    assert x > 0, "positive"
    return x


def compare_with_none(x):
    if x is None:
        return 0
    if x is not None and x == 0:
        return 1
    return 2


def condition_with_call(items):
    if len(items) > 3 and items[0]:
        return items[0]
    return None


def return_bool_expression(a, b):
    return bool(a) and not b


def if_in_else_chain(a, b):
    if a:
        x = 1
    else:
        if b:
            x = 2
        else:
            x = 3
    return x


def if_and_walrus(a, f):
    if a and (b := f(a)):
        return b
    else:
        return a


def return_after_if_return_boolop(diff):
    if diff.days < 0:
        return -1
    return diff and 1 or 0


def if_and_with_or_inside(a, b, post):
    if a[:post or None] and b[:post and None]:
        return 1
    return 2


def if_return_else_import_then_return(self):
    if not self._kwargs:
        return self.__class__, (self._name,) + self._args
    else:
        from functools import partial
        return partial(self.__class__, self._name, **self._kwargs), self._args


def elif_body_ending_if_raise(self, *args, **kwargs):
    if isinstance(args[0], str):
        group = make(self, *args, **kwargs)
    elif len(args) == 1 and not kwargs:
        group = args[0]
        if group.parser is not self:
            raise ValueError("invalid group (wrong parser)")
    else:
        raise TypeError("invalid arguments")
    self.groups.append(group)
    return group


def if_return_else_ending_if_raise(self, n):
    network = int(self.network_address)
    broadcast = int(self.broadcast_address)
    if n >= 0:
        if network + n > broadcast:
            raise IndexError('address out of range')
        return self._address_class(network + n)
    else:
        n += 1
        if broadcast + n < network:
            raise IndexError('address out of range')
        return self._address_class(broadcast + n)


def if_return_else_with_inner_if_else(self, action):
    if not action.option_strings:
        return self.metavar(action)
    else:
        parts = []
        if action.nargs == 0:
            parts.extend(action.option_strings)
        else:
            for option_string in action.option_strings:
                parts.append(option_string)
        return ', '.join(parts)


def nested_if_ending_if_body_before_else(cls, tz, result, probe):
    if tz is None:
        trans = result - probe
        if trans.days < 0:
            probe2 = cls(trans)
            if probe2 == result:
                result._fold = 1
    else:
        result = tz.fromutc(result)
    return result


def if_none_raise_assertion_error(output_size, output_ratio):
    if output_size is None:
        if output_ratio is None:
            raise AssertionError("output_ratio is unexpectedly None")
        output_size = output_ratio
    return output_size


def nested_ifs_threaded_past_else_body(gens, bases, f, symbol):
    result = False
    if len(gens) > 1:
        if bases:
            u = bases.pop()
            if isinstance(u, (int, float)):
                ftry = f.replace(u)
                if not ftry.has(symbol):
                    result = [ftry]
    elif len(gens) == 1:
        result = gens[0]
    return result


def if_ends_in_checks_that_raise(self, gid, source):
    # 3.10+ copies the closing `return None` onto both jumps there: no else
    if self.groups is not None:
        if not self.check(gid):
            raise source.error("open group")
        if gid >= self.groups:
            raise source.error("same group")


def if_pass_then_statement(module, value):
    # the pass's NOP is dropped: the jump lands on the next statement
    if module:
        pass
    value.owner = module


def if_not_pass_in_loop(items, sink):
    for item in items:
        if not item:
            pass
        sink(item)


def if_and_pass_then_return(a, b):
    if a and b:
        pass
    return a


def if_pass_ending_branch_before_else(x, module, value):
    # 3.12 threads the pass's jump past the jump over the else, whose small
    # closing block it copies in its place
    if x:
        if module:
            pass
    else:
        value.owner = x
    value.module = module


def nested_if_pass_ending_branch(x, name, value):
    # the innermost test jumps straight to where the outer if joins
    if x:
        if name:
            module = x.get(name)
            if module:
                pass
    else:
        value.owner = x
    value.module = name
    return value


def if_pass_then_code(c, d):
    if c:
        pass
    d.append(c)
    return d


def elif_pass_then_code(c, d, e):
    if c:
        e = 1
    elif d:
        pass
    return e


def not_and_chain_with_is_not(load, self, ref, P):
    if not (load is not None and load[0] == P and not self.und(ref)):
        self.write(ref)
        return
    self.write(load)


def returns_in_an_inner_else_then_outer_else(text, match, reserved, flags):
    # `if value is None:` ends in a return (the inner else's), and the inner
    # if's other way on jumps past the whole outer branch, to where the
    # outer if joins: no jump lands inside the block, but the graph still
    # sees both branches run on (no else was found on 3.10-3.13 before).
    i = 0
    items = []
    seen = False
    while i < len(text):
        key, value = match(text, i)
        i += 1
        if key in reserved:
            if not seen:
                return
            if value is None:
                if key in flags:
                    items.append(key)
                else:
                    return
            else:
                items.append(value)
        elif value is not None:
            items.append(value)
            seen = True
        else:
            return
    return items


def kind_of_equation(top_power, powers):
    # An explicit closing `return None` after an if/elif whose branches end in
    # ifs: 3.10+ copy it onto the first inner if's false jump, on its line.
    if top_power == 2:
        if powers in [[2, 2], [2, 2, 2]]:
            return "2F1"
    elif top_power == 1:
        if powers in [[1, 2], [2, 2]]:
            return "2F1"
    return None


def infer_equality(args, known, make, Node):
    # Two raises alike on two lines end two branches of an if/elif: they are
    # two statements, not copies of one block (a copy keeps the lines), so
    # the elif's test and the if in its body stay apart.
    if known(args[0]) and known(args[1]):
        if args[0] == args[1]:
            return make(args)
    elif known(args[0]) and not known(args[1]):
        if isinstance(args[0], Node):
            return make(args[:1])
        else:
            raise NotImplementedError("Method not yet implemented")
    else:
        raise NotImplementedError("Method not yet implemented")


# A conditional expression inside an operand of a test's and/or chain: its
# jumps are the operand's own, with values waiting under its test.
def conditional_expression_inside_an_or_operand(image):
    if image.ndim < 3 or image.shape[0 if image.ndim == 3 else 1] == 1:
        return True
    return False


def conditional_expression_inside_an_and_operand(a, b, c):
    while a and f(b, c if a else b, 2):
        a = g(a)
    return a

