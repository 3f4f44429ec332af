"""``spe estimate`` on a multiclass classifier's scores: one column per class (DESIGN.md, "Multiclass")."""

from __future__ import annotations

import warnings

from ..exceptions import SpeInputError
from ..output import json_bytes
from .common import finish, plan_outputs

__all__ = ["add_class_options", "class_columns", "run_classes", "run_class_suggest", "UNSUPPORTED"]

#: Options of ``spe estimate`` that multiclass scores do not take yet: (attribute, flag).
UNSUPPORTED = (("report", "--report"), ("items", "--items"), ("threshold", "--threshold"),
               ("requirement", "--requirement"), ("truth", "--truth"))


def add_class_options(p):
    """``--class-columns`` and ``--class-prefix`` (spe estimate, spe suggest)."""
    from .options import Once

    p.add_argument("--class-columns", metavar="A,B,...", action=Once,
                   help="multiclass scores: the columns holding each class's score (probabilities, logits or "
                        "decision values), named by class; labels are class names or 0-based class positions. "
                        "Without it, a file with no 'score' column and two or more columns besides 'id' is "
                        "multiclass over those columns")
    p.add_argument("--class-prefix", metavar="PREFIX", action=Once,
                   help="multiclass scores: the columns starting with PREFIX (e.g. prob_), named without it")


def class_columns(args, path=None):
    """The class columns the scores file holds, or None for a binary scores file: ``--class-columns``, the
    columns starting with ``--class-prefix``, or — with neither, no ``score`` column and no ``--score-column`` —
    every column but ``id`` when there are two or more.

    Raises
    ------
    SpeInputError
        Both options given, a named column absent, a prefix that matches fewer than two columns.
    """
    from ..io import read_header

    if args.class_columns and args.class_prefix:
        raise SpeInputError("give --class-columns or --class-prefix, not both")
    path = args.scores if path is None else path
    header = read_header(path)
    if args.class_columns:
        names = [c.strip() for c in args.class_columns.split(",") if c.strip()]
        absent = [c for c in names if header is not None and c not in header]
        if absent:
            raise SpeInputError(f"--class-columns: no column {absent[0]!r} in {path} (it has {header})")
        return names
    if header is None:
        return None
    if args.class_prefix:
        names = [c for c in header if c.startswith(args.class_prefix)]
        if len(names) < 2:
            raise SpeInputError(f"--class-prefix {args.class_prefix!r}: {len(names)} column(s) of {path} "
                                f"start with it (it has {header}); a multiclass file needs two or more")
        return names
    others = [c for c in header if c != "id"]
    if getattr(args, "score_column", "score") != "score" or "score" in header or len(others) < 2:
        return None
    return others


def run_classes(args, columns):
    """Estimate from K class columns; writes ``--json`` and ``--plot`` and prints the summary. Returns the exit
    status."""
    _refuse_unsupported(args)
    plan = plan_outputs(args, ("--json", args.json, True), ("--plot", args.plot, False))
    matrix, names, labels, _ = _class_inputs(args, args.scores, columns)
    reference = _reference(args.reference, columns, names) if args.reference is not None else None
    ev = _estimate(args, matrix, names, labels, reference)
    result = ev.to_dict()
    if len(names) == 2:
        result.update(_binary_fields(args, matrix, labels, names, reference, result["diagnostics"]))
    out = [(plan["--json"], json_bytes(result))] if "--json" in plan else []
    if "--plot" in plan:
        out.append((plan["--plot"], _figure(ev, args.plot)))
    finish(plan, ev.summary(warnings=False), out, warnings=ev.warnings, command="spe estimate")
    return 0


def run_class_suggest(args, columns):
    """``spe suggest`` on K class columns: the k items whose labels would shrink the target's uncertainty most
    (:func:`spe.multiclass.suggest.suggest_labels`); writes ``--out`` (id, expected_gain). Returns the exit status."""
    if args.strategy != "information":
        raise SpeInputError("--strategy is not available for multiclass scores yet: the items of largest expected "
                            "gain are suggested", argument="--strategy")
    plan = plan_outputs(args, ("--out", args.out if args.out is not None else "-", True))
    target = args.target or "accuracy"
    if not (target in ("accuracy", "macro_f1") or target.startswith("ap:")):
        raise SpeInputError(f"{target!r} is not a multiclass target: accuracy, macro_f1 or ap:CLASS",
                            argument="--target")
    matrix, names, labels, ids = _class_inputs(args, args.scores[0], columns)
    if target.startswith("ap:") and target[3:] not in names:
        raise SpeInputError(f"no class {target[3:]!r} (the classes are {', '.join(names)})", argument="--target")
    reference = _reference(args.reference, columns, names) if getattr(args, "reference", None) else None
    ev = _estimate(args, matrix, names, labels, reference)
    suggestion = ev.suggest(args.k, target, rng=ev.diagnostics["seed"])
    frame = suggestion.to_frame()
    if ids is not None:
        frame["id"] = ids[suggestion.items]
    table = frame.to_string(index=False, float_format=lambda v: f"{v:.4g}")
    text = (f"{len(frame)} items to label next for {target} (its posterior sd now {suggestion.variance ** 0.5:.4f}; "
            f"expected_gain: the variance each label is expected to remove)\n{table}\n"
            f"seed: {ev.diagnostics['seed']} (--seed repeats this run)")
    data = frame.to_csv(index=False, float_format="%.6g").encode()
    finish(plan, text, [(plan["--out"], data)], warnings=ev.warnings, command="spe suggest")
    return 0


def _class_inputs(args, path, columns):
    """(scores (N, K), class names, labels as (positions, class names) or None, the items' ids or None)."""
    import numpy as np

    from ..io import read_labels, read_score_columns
    from ..multiclass.scores import class_encoder

    files = read_score_columns(path, columns)
    prefix = args.class_prefix or ""
    names = [c[len(prefix):] for c in columns]
    labels = None
    if args.labels is not None:
        index, value = read_labels(args.labels, files[0], encode=class_encoder(names))
        labels = (index, np.asarray(names, dtype=object)[value])
    return np.column_stack([f.scores for f in files]), names, labels, files[0].ids


def _estimate(args, matrix, names, labels, reference):
    from ..multiclass import evaluate_multiclass

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_multiclass(matrix, labels, classes=names, draws=args.draws, level=args.level, rng=args.seed,
                                   reference=reference)


def _reference(path, columns, names):
    """REF.csv with the pool's class columns and ``label`` (every row labeled) → (scores (R, K), class names (R,)),
    a bad value named by file, row and column (:func:`spe.io.read_labeled_columns`)."""
    import numpy as np

    from ..io import read_labeled_columns
    from ..multiclass.scores import class_encoder

    scores, codes = read_labeled_columns(path, columns, class_encoder(names))
    return scores, np.asarray(names, dtype=object)[codes]


def _figure(ev, path):
    import matplotlib

    matplotlib.use("Agg")
    from ..plot import multiclass_figure
    from .common import figure_bytes

    return figure_bytes(multiclass_figure(ev), path)


def _binary_fields(args, matrix, labels, names, reference, multiclass_diagnostics):
    """Two classes: the binary contract's fields, of the second class's column read as one score (the same
    estimate as ``spe estimate`` of that column); its ``prevalence`` (the second class's) replaces the per-class
    one, which ``per_class`` and ``confusion_matrix`` still give, and its ``diagnostics`` hold the multiclass
    ones under ``multiclass``."""
    from ..multiclass import evaluate_classes
    from .common import model_options

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        binary = evaluate_classes(matrix, labels, classes=names, reference=reference, **model_options(args))
    fields = {k: v for k, v in binary.to_dict().items() if k not in ("n_items", "n_labeled", "level", "warnings")}
    fields["diagnostics"] = {**fields["diagnostics"], "multiclass": multiclass_diagnostics}
    return fields


def _refuse_unsupported(args):
    for attribute, flag in UNSUPPORTED:
        if getattr(args, attribute, None):
            raise SpeInputError(f"{flag} is not available for multiclass scores yet; drop it (the JSON holds "
                                "every estimate)")
    if getattr(args, "engine", "auto") == "dask":
        raise SpeInputError("--engine dask is not available for multiclass scores yet")
