"""``spe list``: what spe can be asked for — its families, score models, metrics and commands — from the registries."""

from __future__ import annotations

import sys

from .common import finish, json_bytes, plan_outputs
from .options import Once
from .registry import COMMANDS, Command, register

LIST_HELP = """\
What spe can be asked for, one line each, read from the registries that a
new family, score model, metric or command joins:

  families       the class-conditional families of the SPE mixture
                 (--families NEG,POS; `spe families` ranks them for your scores)
  score-models   the models of p(y=1 | score) (--score-model; 'average' weighs them all)
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
KINDS = ("families", "score-models", "metrics", "commands", "calibration", "prevalence")


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
    makers = {"families": _families, "score-models": _score_models, "metrics": _metrics, "commands": _commands,
              "calibration": _calibration, "prevalence": _prevalence}
    return {kind: makers[kind]() for kind in kinds}


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
    listed = lists((args.kind,) if args.kind else KINDS)
    files = []
    if args.json is not None:
        files.append((plan["--json"], json_bytes(listed)))
    finish(plan, _text(listed), files)
    return 0


register(Command(name="list", help="what spe can be asked for: families, score models, metrics, commands",
                 description=LIST_HELP, add_arguments=add_arguments, run=run))
