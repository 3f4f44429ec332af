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
                              "uninformative", "reference", "reference-covariate"]
    for name, model in REGISTRY.items():
        assert model.name == name and model.about and callable(model.fit) and callable(model.averaged)


#: The layers, lowest first: a module imports (at its top) only from its own layer or below (ARCHITECTURE.md).
LAYERS = [
    {"exceptions", "inputs", "io", "output", "display", "quantiles", "parallel", "registries", "progress",
     "parquet", "csv_blocks", "pool", "dask_engine", "engines", "chunks", "chunk_pools", "shared_reference"},
    {"families", "inference"},
    {"models"},
    {"metrics"},
    {"performance"},
    {"evaluation", "idata"},
    {"baselines", "plot", "api", "benchmark", "report"},
    {"comparison", "monitoring", "saved", "calibration", "prevalence", "multiclass"},
    {"active"},
    {"cli", "__main__", "__init__"},
]


def _layer(top):
    return next(k for k, names in enumerate(LAYERS) if top in names)


def _imported_tops(path):
    """The top-level ``spe`` subpackages or modules a module imports at its top level (not inside functions)."""
    package = path.relative_to(PACKAGE).with_suffix("").parts[:-1]
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.ImportFrom) and node.level > 0:
            target = list(package[:len(package) - (node.level - 1)]) + (node.module.split(".") if node.module else [])
            yield node.lineno, target[0] if target else node.names[0].name


def test_each_layer_imports_only_from_below():
    upward = []
    for path in _modules():
        top = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        for line, target in _imported_tops(path):
            if target in {"__init__"} or target == top:
                continue
            if _layer(target) > _layer(top):
                upward.append(f"{path.relative_to(PACKAGE)}:{line} imports spe.{target}")
    assert not upward, upward


def test_metrics_and_commands_are_registered_once_each_with_a_description():
    from spe.cli.registry import COMMANDS
    from spe.metrics import REGISTRY as METRICS

    assert list(METRICS)[:4] == ["prevalence", "average_precision", "roc_auc", "equal_error_rate"]
    assert all(m.name == name and m.label and m.about and callable(m.compute) for name, m in METRICS.items())
    assert list(COMMANDS)[:3] == ["estimate", "threshold", "families"]
    assert all(c.name == name and c.help and c.description and callable(c.run) for name, c in COMMANDS.items())
