"""The code's shape (ARCHITECTURE.md): short functions, no module reaching into another's private names, plug-ins."""

import ast
from pathlib import Path

import spe
from spe.models.registry import REGISTRY

PACKAGE = Path(spe.__file__).resolve().parent
MAX_CODE_LINES = 80


def _modules():
    return sorted(PACKAGE.rglob("*.py"))


def _code_lines(node, source_lines):
    """Lines of a function that hold code: neither blank, nor comments only, nor its docstring."""
    body = node.body
    skip = set()
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        skip = set(range(body[0].lineno, body[0].end_lineno + 1))
    lines = range(node.lineno, node.end_lineno + 1)
    return sum(1 for k in lines if k not in skip and source_lines[k - 1].strip()
               and not source_lines[k - 1].strip().startswith("#"))


def test_no_function_is_longer_than_80_lines_of_code():
    long = []
    for path in _modules():
        source = path.read_text()
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = _code_lines(node, source.splitlines())
                if n > MAX_CODE_LINES:
                    long.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {node.name} ({n} lines)")
    assert not long, long


def test_no_module_imports_another_modules_private_names():
    private = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").startswith("spe")):
                private += [f"{path.relative_to(PACKAGE)}:{node.lineno} {node.module}.{a.name}"
                            for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    assert not private, private


def test_every_score_model_is_registered_in_the_order_of_its_random_stream():
    """The order of the registry is the order of the average and of the models' random streams: a model added
    anywhere but last would change every seed's numbers."""
    assert list(REGISTRY) == ["mixture", "hybrid", "calibrated", "platt", "piecewise", "contaminated",
                              "uninformative", "reference"]
    for name, model in REGISTRY.items():
        assert model.name == name and model.about and callable(model.fit) and callable(model.averaged)
