"""The quick paths of guard-text handling agree with the parse-and-unparse ones.

Guard rendering runs inside torch.compile, so common guard shapes skip ``ast``:
``finish`` must give exactly what simplifying and negating through ``ast`` give,
and ``strip_comment`` what the tokenizer gives.
"""
import ast

import pytest

pytest.importorskip("torch")

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
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_finish_matches_ast(expr):
    slow = simplify(expr)
    assert finish(expr) == (slow, negate(slow))


@pytest.mark.parametrize("part", [
    "___check_type_id(L['x'], 9412)",
    "___check_type_id(L['x'], 9412)  # x = f(y)  # in user.py:3",
    "L['x'] == '#'",
    "L['x'] == '#'  # x.y",
    "2 <= L['x'].size()[0]  (HINT: a hint)",
    "hasattr(L['a'], '_dynamo_dynamic_indices') == False",
])
def test_strip_comment_quick_path(part):
    quick = strip_comment(part)
    assert quick == guard_text._strip_comment_tokens(part)
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
])
def test_to_python_quick_path(text):
    """The same expression as the rewrite gives (the quick path keeps torch's spelling)."""
    slow = ast.dump(ast.parse(guard_text._to_python(text, ()), mode="eval"))
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


@pytest.mark.parametrize("text", ["0", "-12", "[]", "[2, 3]", "[-1, 0, 7]", "'x'", "'a b'", "''",
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
