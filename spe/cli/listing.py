"""``spe list``: what spe can be asked for — its families, score models, metrics and commands — from the registries."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path

from .common import finish, json_bytes, plan_outputs
from .options import Once
from .registry import COMMANDS, Command, register

LIST_HELP = """\
What spe can be asked for, one line each, read from the registries that a
new family, score model, metric or command joins:

  families       the class-conditional families of the SPE mixture
                 (--families NEG,POS; `spe families` ranks them for your scores)
  score-models   the models of p(y=1 | score) (--score-model; 'average' weighs them all)
  class-score-models
                 the models of p(y | scores) for class columns (--score-model)
  metrics        the metrics spe estimates: of the whole ranking (in the summary
                 and the JSON) and at a threshold (--threshold, `spe threshold`)
  commands       the spe commands
  calibration    the calibration methods of `spe calibrate --method`
  prevalence     the prevalence methods of `spe prevalence --method`

examples:
  spe list
  spe list metrics --json -
"""

#: What ``spe list`` lists.
KINDS = ("families", "score-models", "class-score-models", "metrics", "commands", "calibration", "prevalence")


def add_arguments(p):
    """The options of ``spe list``."""
    p.add_argument("kind", nargs="?", choices=KINDS, metavar="{" + ",".join(KINDS) + "}",
                   help="list only this (default: everything)")
    p.add_argument("--json", metavar="OUT.json", action=Once,
                   help="write the lists as JSON ('-': to standard output)")


def _families():
    from ..families import REGISTRY

    return [{"name": name, "support": family.support, "parameters": [p.name for p in family.params],
             "about": _first_line(sys.modules[type(family).__module__].__doc__)}
            for name, family in sorted(REGISTRY.items())]


def _score_models():
    from ..models.registry import REGISTRY

    return [{"name": name, "about": model.about} for name, model in REGISTRY.items()]


def _class_score_models():
    from ..multiclass.models import CLASS_MODELS

    return [{"name": name, "about": model.about} for name, model in CLASS_MODELS.items()]


def _metrics():
    from ..metrics import REGISTRY

    return [{"name": name, "label": m.label, "at_threshold": m.at_threshold, "about": m.about}
            for name, m in REGISTRY.items()]


def _commands():
    return [{"name": name, "about": command.help} for name, command in COMMANDS.items()]


def _calibration():
    from ..calibration import REGISTRY

    return [{"name": name, "about": _first_line(cls.__doc__)} for name, cls in REGISTRY.items()]


def _prevalence():
    from ..prevalence import REGISTRY

    return [{"name": name, "about": m.about} for name, m in REGISTRY.items()]


def _first_line(text):
    return (text or "").strip().splitlines()[0].rstrip(".") if text else ""


def lists(kinds=KINDS):
    """{kind: [entries]} for the kinds asked for; each entry has at least ``name`` and ``about``."""
    makers = {"families": _families, "score-models": _score_models, "class-score-models": _class_score_models,
              "metrics": _metrics, "commands": _commands, "calibration": _calibration, "prevalence": _prevalence}
    return {kind: makers[kind]() for kind in kinds}


#: The module of each registry ``spe list`` reads; importing them takes scipy and scikit-learn (about 2 s).
REGISTRY_MODULES = {"families": "spe.families", "score-models": "spe.models.registry",
                    "class-score-models": "spe.multiclass.models", "metrics": "spe.metrics",
                    "calibration": "spe.calibration", "prevalence": "spe.prevalence"}


def package_fingerprint(root=None):
    """A digest of the source files of the package under ``root`` (default: spe's own): each ``.py`` file's
    path, size and modification time. The registries are built from these files, so the lists they give
    change only when the digest does."""
    root = Path(root or Path(__file__).resolve().parent.parent)
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        st = path.stat()
        digest.update(f"{path.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _cache_path():
    """Where the lists of this installed version of spe are kept: ``$SPE_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/spe`` (default ``~/.cache/spe``), named by :func:`package_fingerprint`."""
    base = os.environ.get("SPE_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "spe"
    return Path(base) / f"list-{package_fingerprint()}.json"


def cached_lists(kinds=KINDS):
    """:func:`lists`, each registry that is not imported yet read from the cache an earlier process wrote.

    Importing the registries is most of the time of ``spe list``; their content depends only on spe's source
    files, so their lists are kept in a file named by those files' digest (:func:`package_fingerprint`). A
    registry already imported is read live (an entry may have been registered at run time), as are the commands
    (imported with the CLI). A cache that cannot be read or written is ignored."""
    live = [k for k in kinds if k not in REGISTRY_MODULES or REGISTRY_MODULES[k] in sys.modules]
    listed = lists(tuple(live))
    rest = [k for k in kinds if k not in live]
    if not rest:
        return {kind: listed[kind] for kind in kinds}
    try:
        path = _cache_path()
    except (OSError, RuntimeError):  # no home directory to keep it in
        path = None
    try:
        cached = json.loads(path.read_text(encoding="utf-8")) if path is not None else None
    except (OSError, ValueError):
        cached = None
    if not isinstance(cached, dict) or not set(rest) <= set(cached):
        cached = lists(tuple(REGISTRY_MODULES))
        if path is not None:
            _write_cache(path, cached)
    return {kind: listed[kind] if kind in live else cached[kind] for kind in kinds}


def _write_cache(path, listed):
    """Write the lists to ``path`` whole (a temporary file renamed), removing this cache's older files; an
    error (no home, a read-only disk) leaves no file and is ignored."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(listed), encoding="utf-8")
        os.replace(tmp, path)
        for old in path.parent.glob("list-*.json"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def _text(listed):
    """The printed lists: a heading per kind (the metrics in two: of the whole ranking, at a threshold)."""
    groups = []
    for kind, entries in listed.items():
        if kind == "metrics":
            groups.append(("metrics of the whole ranking", [e for e in entries if not e["at_threshold"]]))
            groups.append(("metrics at a threshold", [e for e in entries if e["at_threshold"]]))
        else:
            groups.append((kind, entries))
    lines = []
    for heading, entries in groups:
        width = max(len(e["name"]) for e in entries)
        lines.append(f"{heading}:")
        lines += [f"  {e['name']:<{width}s}  {e['about']}" for e in entries]
    return "\n".join(lines)


def run(args):
    """Run ``spe list``; returns the exit status."""
    plan = plan_outputs(args, ("--json", args.json, True))
    listed = cached_lists((args.kind,) if args.kind else KINDS)
    files = []
    if args.json is not None:
        files.append((plan["--json"], json_bytes(listed)))
    finish(plan, _text(listed), files)
    return 0


register(Command(name="list", help="what spe can be asked for: families, score models, metrics, commands",
                 description=LIST_HELP, add_arguments=add_arguments, run=run))
