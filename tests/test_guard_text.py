"""The quick paths of guard-text handling agree with the parse-and-unparse ones.

Guard rendering runs inside torch.compile, so common guard shapes skip ``ast``:
``finish`` must give exactly what simplifying and negating through ``ast`` give,
and ``strip_comment`` what the tokenizer gives.
"""
import ast

import pytest

torch = pytest.importorskip("torch")

from depyf.dynamo import guard_text  # noqa: E402
from depyf.dynamo.guard_text import finish, negate, simplify, strip_comment  # noqa: E402

pytestmark = pytest.mark.torch

EXPRESSIONS = [
    # calls, attributes, subscripts (primaries)
    "torch.is_grad_enabled()",
    "check_tensor(L['x'], torch.Tensor, torch.float32, device_index=None, requires_grad=False, "
    "size=[2, 3], stride=[3, 1], dispatch_keys=dispatch_key_set('CPU', 'ADInplaceOrView'))",
    "no_aliasing(L['a'], L['b'])",
    "L['model']._modules['1'].training",
    "hasattr(L['a'], '_dynamo_dynamic_indices')",
    "check_equals(dict_key_at(L['d'], 0), 'a)b')",
    "f(')', \"(\")",
    # negations
    "not torch.is_grad_enabled()",
    "not dict_contains_key('forward', L['model'].__dict__)",
    "not a or b",
    "not (a and b)",
    "not a == 1",
    # single comparisons
    "id(G['torch']) == 140185114770976",
    "id(type(L['x'])) == 9412",
    "len(L['model']._modules) == 3",
    "len(x) == -1",
    "type(L['x']) is torch.Tensor",
    "type(L['m']._modules) is dict",
    "type_dict(type(L['fn']).__mro__[1])['_compiled_call_impl'] is None",
    "L['m'].inplace is False",
    "L['m'].inplace is not True",
    "'a' in L['d']",
    "'a' not in L['d']",
    "x == 'text'",
    "torch_function_mode_types() == []",
    "saved_tensors_hooks_ids() == None",
    "hasattr(L['a'], '_dynamo_dynamic_indices') == False",
    "hasattr(L['a'], 'b') == True",
    "torch.utils._device.CURRENT_DEVICE == None",
    "isinstance(L['x'], torch.Tensor) == True",
    "callable(L['f']) == None",
    "L['x'].y == None",
    "L['x'].y == True",
    "f(L['x']) == False",
    "hasattr(L['a'], 'b').x == False",
    # more than one operator, or operators inside brackets
    "2 <= L['x'].size()[0]",
    "L['x'].size()[0] == L['y'].size()[0]",
    "a is b is c",
    "a == 1 and b == 2",
    "f(x == None)",
    "[id(t) for t in torch_function_mode_types()] == [1, 2]",
    "x if y else z",
    "lambda: x",
    "-x",
    "x + 1 == 2",
    "(x) is None",
    "x[1:2] == 3",
    # shapes torch's shape and module guards take, and the edges of the quick comparisons
    "L['n'] != 0",
    "0 <= L['n']",
    "L['x'].size()[0] >= 2",
    "L['___stack0'] > 0.0",
    "L['___stack0'] == 4.776198863983154",
    "list(dict.keys(L['fn']._modules))[0] == '0'",
    "(L['x'].size()[0] % L['n']) == 0",
    "isinstance(L['kwargs'], dict) and dict.__len__(L['kwargs']) == 0",
    "autocast_state_matches({}, True)",
    "G['torch'].bool == torch.bool",
    "0 == x",
    "1 == None",
    "x != None",
    "x is not None",
    "a not in b",
    "x in []",
    "x == []",
    "x < 'a'",
    "x == 'a \"b\" c'",
    "x == 'é'",
    "f('é') == 1",
    "f('it''s') == 1",
    "f('==')",
    "x == '=='",
    "x == 1.50",
    "x == 10000000000000000.0",
    "x == 1e5",
    "f(a)(b) == None",
    "hasattr(a)(b) == True",
    "f(x, k=1) == 2",
    "f(x,  y) == 2",
    "f('a  b') == 2",
    "x  == 2",
    "not x.y[1](z)",
    "not(x)",
    "None",
    "0",
    "'s'",
    "[]",
    "1.50",
    "not None",
    "not 0",
    "not []",
    "hasattr[0] == True",
    "isinstance(x, y).z == None",
    "callable(x)[0] == False",
    "f(x) == (1, 2)",
    "f(x) == (y)",
    "x == 'a' and y",
    "f('a(b') == 1",
    "f('a[') is None",
    "L['x'] == L['y'] == 1",
    "not x is None",
    # conjunctions
    "isinstance(L['kwargs'], dict) and dict.__len__(L['kwargs']) == 0",
    "not a and b == None and hasattr(x, 'y') == False",
    "a is not None and L['x'] == 'a and b'",
    "f('a and b') == 1 and x",
    "f(a and b) and c",
    "a and b or c",
    "a or b and c",
    "a and (b or c)",
    "a == b and c == 1 and d",
    "a and b and c == 1 and not d and e",
    "a and f(x) is None and b == True",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_finish_matches_ast(expr):
    slow = simplify(expr)
    assert finish(expr) == (slow, negate(slow))


@pytest.mark.parametrize("expr", ["f(x')", "f(b'x') == 1", "f('a' 'b')", "f(\"x\")", "f('\\n')", "x == -1",
                                  "~x", "f(x)  == 1", "x[1:2]", "f({'a': 1})", "(x) == 1", "x == 'é'"])
def test_finish_quickly_declines(expr):
    """Texts the quick path leaves to ast (some not Python, where ast raises)."""
    assert guard_text.finish_quickly(expr) is None


def test_quick_finish_matches_ast_on_random_texts():
    """Where the quick path answers, it gives what simplifying and negating through ast give
    (on Python: guard checks are, and the quick path does not check it)."""
    import random
    import warnings

    rng = random.Random(12)
    operands = ["a", "f(x)", "hasattr(L['a'], 'b')", "isinstance(x, dict)", "L['x'].y", "None", "True", "1", "'s'",
                "x[0]", "callable(f)", "saved_tensors_hooks_ids()"]
    operators = [" == ", " != ", " is ", " is not ", " in ", " < "]

    def conjunct():
        text = rng.choice(operands)
        if rng.random() < 0.5:
            text += rng.choice(operators) + rng.choice(operands)
        return "not " + text if rng.random() < 0.25 else text

    conjunctions = [" and ".join(conjunct() for _ in range(rng.randint(2, 5))) for _ in range(3000)]
    answered = 0
    for text in list(_fuzz_texts(40000, seed=11)) + conjunctions:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")     # (`1if` and the like)
                ast.parse(text, mode="eval")
        except SyntaxError:
            continue
        quick = guard_text.finish_quickly(text)
        if quick is None:
            continue
        answered += 1
        slow = simplify(text)
        assert quick == (slow, negate(slow)), text
    assert answered > 500, answered


@pytest.mark.parametrize("part", [
    "___check_type_id(L['x'], 9412)",
    "___check_type_id(L['x'], 9412)  # x = f(y)  # in user.py:3",
    "L['x'] == '#'",
    "L['x'] == '#'  # x.y",
    "2 <= L['x'].size()[0]  (HINT: a hint)",
    "hasattr(L['a'], '_dynamo_dynamic_indices') == False",
    "L['a\\'b'] == '#'  # c",
    "L[\"x\\\\\"] == '#'  # c",
    "L['x'] == 1  (HINT: h)  # c",
])
def test_strip_comment_quick_path(part):
    quick = strip_comment(part)
    assert quick == guard_text.strip_comment_tokens(part)
    assert "#" not in quick or "'#'" in quick


@pytest.mark.parametrize("text", [
    "hasattr(L['a'], '_dynamo_dynamic_indices') == False",
    "torch.is_grad_enabled()",
    "saved_tensors_hooks_ids() == None",
    "len(L['x']) == 1e5",
    "isinstance(L['x'], torch.Tensor) and not callable(L['y'])",
    "___check_type_id(L['x'], 9412)",
    "___dict_contains('a', L['d'])",
    "utils_device.CURRENT_DEVICE == None",
    "check_tensor(L['x'], device_index=1)",
    "[t for t in L['x']]",
    "f'{L}' == 'a'",
    "L['x'].size()[0] == 2",
    "not ___dict_contains('forward', L['model'].__dict__)",
    "not ___dict_contains(27, G['m']._global_forward_hooks)",
    "L['n'] != 0",
    "(L['x'].size()[0] % L['n']) == 0",
    "check_tensor(L['x'], k=___check_obj_id, j=inf)",
    "check_tensor(k=1, k=2)",
    "hasattr(L[\"it's\"], 'a') == False",
    "L[''] == L['']",
    "L['a'] is L['b'] and not inf",
])
def test_to_python_quick_path(text):
    """The same expression as the rewrite gives (the quick path keeps torch's spelling)."""
    slow = ast.dump(ast.parse(guard_text.to_python_by_ast(text, ()), mode="eval"))
    assert ast.dump(ast.parse(guard_text.to_python(text), mode="eval")) == slow
    assert ast.dump(ast.parse(guard_text.to_python(text, [("L['x']", "L['x']")]), mode="eval")) == slow


def test_to_python_unknown_names_still_refused():
    with pytest.raises(guard_text.CannotTranslate):
        guard_text.to_python("frobnicate(L['x'])")
    with pytest.raises(guard_text.CannotTranslate):
        guard_text.to_python("L['x'] ==")


def test_renames_on_the_text():
    assert guard_text.to_python("not ___dict_contains('a', L['d'])") == "not dict_contains_key('a', L['d'])"
    assert guard_text.to_python("___check_obj_id(L['x'], 5) and inf > 1") == "has_id(L['x'], 5) and math.inf > 1"
    # not inside strings, not attributes
    assert guard_text.to_python("L['___check_obj_id'].device") == "L['___check_obj_id'].device"


@pytest.mark.parametrize("text", ["0", "-12", "[]", "[2, 3]", "[None, 3]", "[None]", "[3, None, -1]", "[None,3]",
                                  "[-1, 0, 7]", "'x'", "'a b'", "''",
                                  "'a\\\\'b'", "\"x\"", "(1, 2)", "[1,2]", "1.5", "None", "007"])
def test_read_literal_matches_literal_eval(text):
    import ast as _ast
    try:
        expected = _ast.literal_eval(text)
    except (ValueError, SyntaxError):
        with pytest.raises(guard_text.CannotTranslate):
            guard_text.read_literal(text)
        return
    got = guard_text.read_literal(text)
    assert got == expected and type(got) is type(expected)


# Random texts over tokens that make valid and invalid expressions alike.
_FUZZ_TOKENS = ["a", "L", "f", "inf", "___check_obj_id", "not", "and", "or", "is", "in", "None", "True", "lambda",
                "if", "0", "12", "1.5", "1e3", "00", "'s'", "''", '"d"', "'", "(", ")", "[", "]", "{", "}", ",",
                ".", "=", "==", "!=", "<", "-", "~", "**", ":", " ", "match", "k"]


def _fuzz_texts(count, seed):
    import random
    rng = random.Random(seed)
    for _ in range(count):
        parts = [rng.choice(_FUZZ_TOKENS) for _ in range(rng.randint(1, 9))]
        yield rng.choice([" ", ""]).join(parts).strip()


def test_expression_names_only_accepts_python():
    """What the token reader accepts parses, with exactly the names ast reads as variables."""
    accepted = 0
    for text in _fuzz_texts(30000, seed=4):
        names = guard_text.expression_names(text)
        if names is None:
            continue
        accepted += 1
        tree = ast.parse(text, mode="eval")        # raises if the reader was wrong
        want = sorted((n.col_offset, n.id) for n in ast.walk(tree) if isinstance(n, ast.Name))
        assert sorted((m.start("name"), m.group("name")) for m in names) == want, text
    assert accepted > 1000


@pytest.mark.parametrize("text,ok", [
    ("hasattr(L['a'], '_dynamo_dynamic_indices') == False", True),
    ("f(a, k=1, j=not b)", True),
    ("f(a=1, b)", False),                 # positional after keyword
    ("f(a=1, a=2)", False),               # repeated keyword: left to the parser
    ("x[]", False),
    ("x[a,]", True),
    ("f(a,)", True),
    ("(,)", False),
    ("a is not not b", False),
    ("a == not b", False),
    ("-not a", False),
    ("a not b", False),
    ("a is not b", True),
    ("x.None", False),
    ("[a=1]", False),
    ("f'x'", False),
    ("'''x'''", False),
    ("1if x else 2", False),
    ("a, b", False),
    ("L['x'] ==", False),
])
def test_expression_names_cases(text, ok):
    assert (guard_text.expression_names(text) is not None) == ok


def test_rename_by_shape_matches_rename_of_text():
    """Emptying the strings and putting them back gives what reading the text itself gives."""
    texts = list(_fuzz_texts(3000, seed=7)) + [
        "not ___dict_contains('forward', L['model'].__dict__)",
        "f('a', \"b\") == ___check_obj_id('c', 'd')",
        "f('', 'x') and inf",
        "f('a''b')",
        "f('a\\'b')",
    ]
    for text in texts:
        guard_text.clear_caches()
        assert guard_text.rename_quickly(text) == guard_text.rename_shape(text.strip()), text


@pytest.mark.parametrize("text", [
    "L['x'] == 2",
    "L['___stack0'] == 4.776198863983154",
    "G['torch'].bool == torch.bool",
    "list(dict.keys(L['fn']._modules))[0] == '0'",
    "L['x'] == -1",
    "L['x'] == 'a b'",
    "L['x'] == (1, 2)",
    " L['x'] == None ",
])
def test_equals_value_text_matches_ast(text):
    tree = ast.parse(text.strip(), mode="eval").body
    assert guard_text.equals_value_text(text) == ast.get_source_segment(text.strip(), tree.comparators[0])


def test_memo_is_bounded_and_cleared():
    memo = guard_text.Memo(limit=2)
    memo.put("a", 1)
    memo.put("b", 2)
    memo.put("c", 3)
    assert memo == {"c": 3}
    guard_text.clear_caches()
    assert memo == {}


@pytest.mark.parametrize("text", ["0", "-3", "4.776198863983154", "-1.5", "'a b'", "'a\"b'", "''", "None", "True",
                                  "1e5", "torch.float32", "inf", "'a\\\\n'", "[1, 2]"])
def test_eval_constant_reads_as_eval(text):
    value = guard_text.eval_constant(text)
    expected = eval(guard_text.to_python(text), {"torch": torch, "math": __import__("math")})
    assert value == expected and type(value) is type(expected)


class _Rebound:
    pass


def test_type_ref_is_not_remembered_where_a_module_may_rebind_the_name():
    cls = _Rebound
    ref = guard_text.type_ref(cls)
    assert ref == f"find_class({__name__!r}, '_Rebound')"
    module = __import__("sys").modules[__name__]
    try:
        module._Rebound = type("_Rebound", (), {})
        assert guard_text.type_ref(cls) is None      # the name now reads another class
    finally:
        module._Rebound = cls
    assert guard_text.type_ref(dict) == guard_text.type_ref(dict) == "dict"
    assert guard_text.type_ref(torch.Tensor) == "torch.Tensor"
