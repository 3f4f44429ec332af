"""``spe estimate`` on a multiclass classifier's scores: one column per class (DESIGN.md, "Multiclass")."""

from __future__ import annotations

import warnings

from ..exceptions import SpeInputError
from ..output import json_bytes
from .common import (few_items_note, figure_bytes, finish, labeled_only_baseline, labeled_only_stream,
                     labeled_only_wanted, plan_outputs, rounded_down, threshold_choice_lines)

__all__ = ["add_class_options", "add_class_threshold_option", "class_columns", "class_thresholds", "run_classes",
           "run_class_suggest", "run_class_compare", "class_plan", "run_class_threshold",
           "run_class_monitor",
           "UNSUPPORTED"]

#: Options of ``spe estimate`` that multiclass scores do not take: (attribute, flag, what to use instead).
UNSUPPORTED = (("threshold", "--threshold", "--class-threshold CLASS=T"),
               ("requirement", "--requirement", "spe threshold --class CLASS --min-precision P --min-recall R"))


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


def add_class_threshold_option(p):
    """``--class-threshold CLASS=T`` (spe estimate on class columns; repeatable)."""
    p.add_argument("--class-threshold", metavar="CLASS=T", action="append",
                   help="multiclass scores: also the precision, recall and F1 of the one-vs-rest decision 'the "
                        "probability of CLASS is at least T' (T in (0, 1]; repeatable, one per class)")


def class_thresholds(args):
    """``--class-threshold`` as {class: threshold}, or None; SpeInputError for a malformed one."""
    out = {}
    for text in getattr(args, "class_threshold", None) or []:
        name, sep, value = text.rpartition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise SpeInputError(f"expected CLASS=T, got {text!r}", argument="--class-threshold")
    return out or None


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
    """Estimate from K class columns; writes ``--json``, ``--items`` and ``--plot`` and prints the summary. Returns
    the exit status."""
    _refuse_unsupported(args)
    if args.report is not None and not args.report.lower().endswith((".html", ".htm")):
        raise SpeInputError("multiclass scores write one page: name it OUT.html", argument="--report")
    plan = plan_outputs(args, ("--json", args.json, True), ("--items", args.items, True),
                        ("--plot", args.plot, False), ("--report", args.report, False))
    matrix, names, files = _class_matrix(args, args.scores, columns)
    labels = _class_labels(args, files, names)
    truth = _class_truth(args, files, names)  # checked before the fit
    reference = _reference(args.reference, columns, names) if args.reference is not None else None
    ev = _estimate(args, matrix, names, labels, reference)
    result = ev.to_dict()
    if len(names) == 2:
        result.update(_binary_fields(args, matrix, labels, names, reference, result["diagnostics"]))
    summary = ev.summary(warnings=False)
    alone = _labeled_only(args, ev) if len(names) > 2 else None  # two columns: in the binary contract's fields
    if alone is not None:
        result["labeled_only"] = {name: interval.to_dict() for name, interval in alone.items()}
        summary += (f"\nlabeled items alone ({ev.n_labeled}; Jeffreys and bootstrap {100 * ev.level:g}% intervals): "
                    f"accuracy {alone['accuracy']}, macro F1 {alone['macro_f1']}")
    true = None
    if truth is not None:
        from ..output import jsonable

        true = ev.true_values(truth)
        result["truth"] = jsonable(true)
        summary += "\n" + _truth_lines(ev, true)
    out = [(plan["--json"], json_bytes(result))] if "--json" in plan else []
    if "--items" in plan:
        out.append((plan["--items"], _items_bytes(ev, args.items)))
    if "--plot" in plan:
        out.append((plan["--plot"], _figure(ev, args.plot)))
    if "--report" in plan:
        out.append((plan["--report"], _report_page(ev, summary, true, args.scores)))
    finish(plan, summary, out, warnings=ev.warnings + _contradictions(truth, labels, names), command="spe estimate")
    return 0


def _labeled_only(args, ev):
    """``--compare-labeled-only``: the labeled items' own accuracy and macro F1 with intervals
    (:func:`spe.multiclass.baseline.labeled_only_classes`), or None when one score's would be None
    (:func:`~spe.cli.common.labeled_only_wanted`)."""
    from ..multiclass.baseline import labeled_only_classes

    if not labeled_only_wanted(args, ev):
        return None
    return labeled_only_classes(ev.labeled_class, ev.scores.predicted[ev.labeled_index], len(ev.classes),
                                ev.level, rng=labeled_only_stream(ev))


def _report_page(ev, summary, true, scores_path):
    """``--report OUT.html`` on class columns: :func:`spe.report.multiclass_report` with the figure, UTF-8."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    from ..plot import multiclass_figure
    from ..report import multiclass_report

    figures = {"classes": (multiclass_figure(ev), "The confusion matrix (each cell's expected rate and half its "
                                                  "interval's width), each class's PR curve with its band, and the "
                                                  "reliability diagram on this pool")}
    return multiclass_report(ev, figures, summary, title=f"spe estimate: {Path(str(scores_path)).name}",
                             truth=true).encode()


def _class_truth(args, files, names):
    """``--truth``: every item's class index (N,), or None without it."""
    from ..io import read_truth
    from ..multiclass.scores import class_encoder

    return None if args.truth is None else read_truth(args.truth, files[0], encode=class_encoder(names))


def _truth_lines(ev, true):
    """The summary's comparison with ``--truth``: each headline metric's true value and whether its interval holds
    it, and how many classes' AP bands hold theirs."""
    def said(name, interval, value):
        inside = "inside" if interval.lo <= value <= interval.hi else "OUTSIDE"
        return f"{name} {value:.3f} ({inside} the interval)"

    per_class = ev.per_class()
    held = sum(per_class[c]["average_precision"].lo <= v["average_precision"] <= per_class[c]["average_precision"].hi
               for c, v in true["per_class"].items())
    return ("true values (--truth): " + ", ".join([said("accuracy", ev.accuracy(), true["accuracy"]),
                                                    said("macro F1", ev.macro_f1(), true["macro_f1"])])
            + f"; the AP interval holds the true AP for {held} of {len(ev.classes)} classes")


def _contradictions(truth, labels, names):
    """A warning when ``--truth`` gives a labeled item another class than ``--labels`` does: [] or [str]."""
    import numpy as np

    if truth is None or labels is None or len(labels[0]) == 0:
        return []
    given = np.asarray([names.index(str(v)) for v in labels[1]])
    differ = np.flatnonzero(truth[labels[0]] != given)
    if not differ.size:
        return []
    return [f"--truth contradicts --labels at {differ.size} of the {len(given)} labeled items: the estimate uses "
            "--labels, the true values --truth; one of the two files is wrong"]


def run_class_threshold(args, columns):
    """``spe threshold --class NAME`` on K class columns: the threshold on NAME's probability most likely to meet
    the requirement (:func:`spe.multiclass.threshold.best_class_threshold`); writes ``--json`` and ``--plot`` and
    prints the summary. Returns the exit status."""
    _refuse_unsupported(args)
    if args.compare_labeled_only:
        raise SpeInputError("for one score only", argument="--compare-labeled-only")
    plan = plan_outputs(args, ("--json", args.json, True), ("--plot", args.plot, False))
    matrix, classes, labels, _ = _class_inputs(args, args.scores, columns)
    name = _threshold_class(args.target_class, classes)
    reference = _reference(args.reference, columns, classes) if args.reference is not None else None
    ev = _estimate(args, matrix, classes, labels, reference)
    choice = ev.best_threshold(name, args.min_precision, args.min_recall, performance=args.performance)
    result = {"n_items": ev.n_items, "n_labeled": ev.n_labeled, "level": ev.level, "class": name,
              **choice.to_dict(), "seed": ev.diagnostics["seed"], "warnings": list(ev.warnings)}
    files = [(plan["--json"], json_bytes(result))] if "--json" in plan else []
    if "--plot" in plan:
        files.append((plan["--plot"], _threshold_figure(ev, name, choice, args)))
    finish(plan, "\n".join(_class_threshold_lines(args, ev, name, choice)), files, warnings=ev.warnings,
           command="spe threshold")
    return 0


def _threshold_class(given, classes):
    """The class ``--class`` names (by name, or by 0-based position as labels may), checked before any fit."""
    from ..inputs import LabelValueError
    from ..multiclass.scores import class_encoder

    if given is None:
        raise SpeInputError("multiclass scores: name the class whose threshold to choose with --class NAME (one of "
                            f"{_first_names(classes)})", argument="--class")
    try:
        return classes[int(class_encoder(classes)([given])[0])]
    except LabelValueError:
        raise SpeInputError(f"{given!r} is not one of the classes ({_first_names(classes)}) nor a position "
                            f"0..{len(classes) - 1}", argument="--class") from None


def _first_names(classes, most=20):
    return ", ".join(map(str, classes[:most])) + (" …" if len(classes) > most else "")


def _class_threshold_lines(args, ev, name, choice):
    """The summary ``spe threshold --class NAME`` prints."""
    r = choice.rests_on()
    k, j = r["labeled_above"], r["positives_above"]
    shown = rounded_down(choice.threshold)
    return [f"spe: {ev.n_items} items, {len(ev.classes)} classes, {ev.n_labeled} labeled; scores read as "
            f"{ev.score_type}",
            f"requirement for {name}: precision >= {args.min_precision:g} and recall >= {args.min_recall:g} "
            f"({args.performance} performance; an item is flagged as {name} when its probability of {name} is "
            ">= the threshold)",
            *threshold_choice_lines(choice, f"the probability of {name}", rounded_down),
            f"rests on: {k} labeled item{'' if k == 1 else 's'} at or above it ({j} of them {name}) and the score "
            "models' recalibrated probabilities"
            + ("; with none, only the score models speak for the items above it" if k == 0 else ""),
            *few_items_note(choice, args.min_recall),
            f"at {shown} (posterior mean [{100 * ev.level:g}% credible interval]):",
            *[f"  {metric:<10} {interval}" for metric, interval in choice.metrics.items()],
            f"seed: {ev.diagnostics['seed']} (--seed {ev.diagnostics['seed']} repeats this run)"]


def _threshold_figure(ev, name, choice, args):
    """``spe threshold --class NAME --plot``: p(requirement met) against the threshold, and NAME's PR curve with its
    band and the requirement as a box, as image bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plot import plot_class_pr_curves, plot_class_threshold_probability

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
    plot_class_threshold_probability(ev, name, axes[0], choice=choice)
    plot_class_pr_curves(ev, axes[1], classes=[name], requirement=(args.min_precision, args.min_recall))
    return figure_bytes(fig, args.plot)


def run_class_suggest(args, columns):
    """``spe suggest`` on K class columns: the k items whose labels would shrink the target's uncertainty most
    (:func:`spe.multiclass.suggest.suggest_labels`); writes ``--out`` (id, expected_gain). Returns the exit status."""
    if args.strategy != "information":
        raise SpeInputError("--strategy is not available for multiclass scores yet: the items of largest expected "
                            "gain are suggested", argument="--strategy")
    plan = plan_outputs(args, ("--out", args.out if args.out is not None else "-", True))
    several = len(args.scores) > 1
    target = _class_target(args.target or ("compare" if several else "accuracy"), several, threshold=True)
    if several:
        names, frames, labels, classes, ids, paths = _several_class_files(args, columns, target, "spe suggest")
        source = _compare(frames, labels, classes, _shared_options(args), paths)
        suggestion = source.suggest(args.k, target, classifier=args.classifier, rng=source.diagnostics["seed"])
    else:
        matrix, classes, labels, ids = _class_inputs(args, args.scores[0], columns)
        _check_class_target(target, classes)
        reference = _reference(args.reference, columns, classes) if getattr(args, "reference", None) else None
        source = _estimate(args, matrix, classes, labels, reference)
        suggestion = source.suggest(args.k, target, rng=source.diagnostics["seed"])
    frame = suggestion.to_frame()
    if ids is not None:
        frame["id"] = ids[suggestion.items]
    table = frame.to_string(index=False, float_format=lambda v: f"{v:.4g}")
    text = (f"{len(frame)} items to label next for {suggestion.target} (its posterior sd now "
            f"{suggestion.variance ** 0.5:.4f}; expected_gain: the variance each label is expected to remove)\n"
            f"{table}\nseed: {source.diagnostics['seed']} (--seed repeats this run)")
    if suggestion.variance <= 0:
        text += ("\nnote: the target is the same under every posterior draw, so no label is expected to change it; "
                 "the items above are the first candidates, not chosen")
    data = frame.to_csv(index=False, float_format="%.6g").encode()
    finish(plan, text, [(plan["--out"], data)], warnings=source.warnings, command="spe suggest")
    return 0


def class_plan(args, columns):
    """``spe plan`` on K class columns: (the :class:`~spe.active.plan.LabelPlan` of
    :func:`spe.multiclass.plan.plan_class_labels`, the estimate it was made from)."""
    from ..multiclass.plan import CLASS_PLAN_STRATEGIES, plan_class_labels

    if args.strategy not in CLASS_PLAN_STRATEGIES:
        raise SpeInputError(f"multiclass plans choose items by {' or '.join(CLASS_PLAN_STRATEGIES)}",
                            argument="--strategy")
    if len(args.scores) > 1:
        return _class_comparison_plan(args, columns)
    if args.probability is not None:
        raise SpeInputError("one multiclass classifier's targets take --width (--probability is for deciding "
                            "which of several classifiers is the more accurate)", argument="--probability")
    target = _class_target(args.target or "accuracy")
    matrix, classes, labels, _ = _class_inputs(args, args.scores[0], columns)
    _check_class_target(target, classes)
    reference = _reference(args.reference, columns, classes) if getattr(args, "reference", None) else None
    ev = _estimate(args, matrix, classes, labels, reference)
    plan = plan_class_labels(ev, width=args.width, target=target, strategy=args.strategy,
                             max_labels=args.max_labels, futures=args.futures, rng=ev.diagnostics["seed"])
    return plan, ev


def _class_target(target, several=False, threshold=False):
    """``--target`` checked as a multiclass target (``compare`` too with several classifiers; a class's
    ``threshold:CLASS:P,R`` too for ``spe suggest``)."""
    from ..multiclass.plan import THRESHOLD_TARGET_REFUSAL
    from ..multiclass.suggest import threshold_target

    if not threshold and target.startswith("threshold:"):
        raise SpeInputError(THRESHOLD_TARGET_REFUSAL, argument="--target")
    if threshold and target.startswith("threshold:"):
        try:
            threshold_target(target)
        except ValueError as e:
            raise SpeInputError(str(e), argument="--target") from None
        return target
    if not (target in ("accuracy", "macro_f1") or target.startswith("ap:") or (several and target == "compare")):
        raise SpeInputError(f"{target!r} is not a multiclass target: accuracy, macro_f1, ap:CLASS"
                            + (", threshold:CLASS:P,R" if threshold else "") + (", or compare" if several else ""),
                            argument="--target")
    return target


def _several_class_files(args, columns, target, command):
    """Several classifiers' class files for ``spe suggest`` or ``spe plan`` (as :func:`_read_class_files`), refused
    before any fit: a reference set, two classes (one score column each is the binary path), a target naming an
    unknown class, an unknown ``--classifier``."""
    if getattr(args, "reference", None) is not None:
        raise SpeInputError("a reference set is for one classifier; give one SCORES.csv", argument="--reference")
    names, frames, labels, classes, ids, paths = _read_class_files(args, columns)
    if len(classes) > 2:
        _average_only(args, "a comparison of multiclass classifiers")
    if len(classes) == 2:
        raise SpeInputError(f"two classes: give each classifier's second-class score as one 'score' column "
                            f"({command}'s targets for one score apply then)", argument="SCORES.csv")
    _check_class_target(target, classes)
    if args.classifier is not None and args.classifier not in names:
        raise SpeInputError(f"{args.classifier!r} is none of the classifiers {', '.join(names)}",
                            argument="--classifier")
    return names, frames, labels, classes, ids, paths


def _class_comparison_plan(args, columns):
    """``spe plan`` on several classifiers' class columns: the plan of their joint estimate."""
    from ..multiclass.plan import plan_comparison_labels

    target = _class_target(args.target or "compare", several=True)
    if target != "compare" and args.probability is not None:
        raise SpeInputError(f"--target {target} takes --width (--probability is for compare)",
                            argument="--probability")
    names, frames, labels, classes, _, paths = _several_class_files(args, columns, target, "spe plan")
    cmp = _compare(frames, labels, classes, _shared_options(args), paths)
    plan = plan_comparison_labels(cmp, width=args.width, probability=args.probability, target=target,
                                  classifier=args.classifier, strategy=args.strategy, max_labels=args.max_labels,
                                  futures=args.futures, rng=cmp.diagnostics["seed"])
    return plan, cmp


def _check_class_target(target, classes):
    """An ``ap:CLASS`` or ``threshold:CLASS:P,R`` target's class must be one of ``classes``."""
    from ..multiclass.suggest import threshold_target

    name = target[3:] if target.startswith("ap:") else (threshold_target(target)[0]
                                                          if target.startswith("threshold:") else None)
    if name is not None and name not in classes:
        raise SpeInputError(f"no class {name!r} (the classes are {', '.join(classes)})", argument="--target")


def _shared_options(args):
    """draws, level, seed and workers: the options a multiclass comparison reads."""
    return {"draws": args.draws, "level": args.level, "rng": args.seed, "workers": args.workers}


def run_class_compare(args, columns):
    """``spe compare`` on files of K class columns each (:func:`spe.multiclass.comparison.compare_classes`);
    writes ``--json`` and ``--plot`` and prints the summary. Returns the exit status."""
    from .common import model_options

    plan = plan_outputs(args, ("--json", args.json, True), ("--items", args.items, True), ("--plot", args.plot, False))
    names, frames, labels, classes, ids, paths = _read_class_files(args, columns)
    if len(classes) > 2:
        _average_only(args, "a comparison of multiclass classifiers")
    if args.items is not None and {"id", "label"} & set(names):
        raise SpeInputError("--items writes the columns 'id' and 'label' beside one column per classifier: name the "
                            "classifiers otherwise (--names)", argument="--names")
    cmp = _compare(frames, labels, classes, model_options(args), paths)
    out = [(plan["--json"], json_bytes(cmp.to_dict()))] if "--json" in plan else []
    if "--items" in plan:
        out.append((plan["--items"], _items_bytes(cmp, args.items, ids)))
    if "--plot" in plan:
        out.append((plan["--plot"], _compare_figure(cmp, args.plot)))
    finish(plan, cmp.summary(warnings=False), out, warnings=cmp.warnings, command="spe compare")
    return 0


def _read_class_files(args, columns):
    """Several classifiers' files of class columns: (names, name → DataFrame indexed by the file's ids, the labels
    of the first file's items as (positions, class names) or None, the class names, the first file's ids,
    name → path)."""
    import pandas as pd

    from .common import file_names, names_list

    names = names_list(args.names, "--names") if args.names is not None else file_names(args.scores)
    if len(names) != len(args.scores):
        raise SpeInputError(f"{len(names)} names for {len(args.scores)} classifiers", argument="--names")
    frames, labels, first_ids = {}, None, None
    for name, path in zip(names, args.scores):
        if frames and len(args.scores) > 1 and path == "-":
            raise SpeInputError("standard input ('-') can hold one classifier's scores only", argument="SCORES.csv")
        matrix, classes, files = _class_matrix(args, path, columns)
        frames[name] = pd.DataFrame(matrix, columns=classes, index=files[0].ids)
        if labels is None:
            labels, first_ids = _class_labels(args, files, classes), files[0].ids
    return names, frames, labels, classes, first_ids, dict(zip(names, args.scores))


def _compare(frames, labels, classes, options, paths):
    """Two classes: the binary spe compare of each classifier's second-class score, every model option applying;
    more: the multiclass comparison (draws, level, seed and workers apply). A classifier's bad scores are named by
    its file (``paths``: name → path)."""
    from ..multiclass.comparison import compare_classes

    if len(classes) > 2:
        options = {k: options[k] for k in ("draws", "level", "rng", "workers")}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return compare_classes(frames, labels, classes=classes, **options)
    except SpeInputError as e:
        named = next((p for n, p in paths.items() if e.argument == f"scores[{n!r}]"), None)
        if named is None:
            raise
        raise SpeInputError(e.message, path=named) from None


def run_class_monitor(args, columns, named, by, plan):
    """``spe monitor`` on K class columns (:func:`spe.multiclass.monitoring.monitor_multiclass`); writes ``--json``
    and ``--plot`` and prints the summary. Returns the exit status."""
    import numpy as np
    import pandas as pd

    from ..io import read_scores_and_columns
    from ..multiclass.monitoring import monitor_multiclass

    for flag, given in (("--threshold", args.threshold), ("--scheduler", args.scheduler),
                        ("--engine dask", args.engine == "dask")):
        if given:
            raise SpeInputError(f"{flag} is not available for multiclass scores yet; drop it", argument=flag)
    _average_only(args, "the multiclass monitor")
    files, values = read_scores_and_columns(args.scores, named, score_columns=columns)
    matrix, classes = np.column_stack([f.scores for f in files]), _class_names(args, columns)
    frame = pd.DataFrame(matrix, columns=classes)
    if files[0].ids is not None:
        frame.insert(0, "id", files[0].ids)
    for c in named:
        frame[c] = values[c]
    reference = _reference(args.reference, columns, classes) if args.reference is not None else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = monitor_multiclass(frame, reference, _class_labels(args, files, classes), classes=classes,
                               chunk_size=args.chunk_size, chunk_number=args.chunk_number,
                               chunk_column=args.chunk_column, chunk_period=args.chunk_period,
                               timestamp_column=args.timestamp_column, by=by or None, alert_drop=args.alert_drop,
                               alert_below=args.alert_below, level=args.level, draws=args.draws, rng=args.seed)
    files_out = [(plan["--json"], json_bytes(m.to_dict()))] if args.json is not None else []
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        from ..plot import monitoring_figure
        from .common import figure_bytes

        files_out.append((plan["--plot"], figure_bytes(monitoring_figure(m), args.plot)))
    summary = m.summary() + f"\nseed: {m.diagnostics['seed']} (--seed {m.diagnostics['seed']} repeats this run)"
    if args.report is not None:
        from .monitor import report_bytes

        files_out.append((plan["--report"], report_bytes(m, summary, args.scores)))
    finish(plan, summary, files_out, warnings=m.warnings, command="spe monitor")
    return 0


def _compare_figure(cmp, path):
    import matplotlib

    matplotlib.use("Agg")
    from ..plot import class_comparison_figure, comparison_figure
    from .common import figure_bytes

    figure = class_comparison_figure(cmp) if hasattr(cmp, "class_comparisons") else comparison_figure(cmp)
    return figure_bytes(figure, path)


def _class_matrix(args, path, columns):
    """(scores (N, K), class names, the files read (one per column; ``[0].ids`` the items' ids or None))."""
    import numpy as np

    from ..io import read_score_columns

    from ..multiclass.scores import stray_row

    files = read_score_columns(path, columns)
    matrix = np.column_stack([f.scores for f in files])
    stray = stray_row(matrix)
    if stray is not None:  # named here by file, row and column (the matrix's own check knows neither)
        row, column, what = stray
        raise SpeInputError(what, path=files[0].path, row=files[0].row_of(row),
                            column=None if column is None else columns[column])
    return matrix, _class_names(args, columns), files


def _class_names(args, columns):
    """The classes' names: the class columns' names without ``--class-prefix``."""
    prefix = args.class_prefix or ""
    return [c[len(prefix):] for c in columns]


def _class_labels(args, files, names):
    """LABELS.csv of the items of ``files`` as (positions, class names), or None without ``--labels``."""
    import numpy as np

    from ..io import read_labels
    from ..multiclass.scores import class_encoder

    if args.labels is None:
        return None
    index, value = read_labels(args.labels, files[0], encode=class_encoder(names))
    return index, np.asarray(names, dtype=object)[value]


def _class_inputs(args, path, columns):
    """(scores (N, K), class names, labels as (positions, class names) or None, the items' ids or None)."""
    matrix, names, files = _class_matrix(args, path, columns)
    return matrix, names, _class_labels(args, files, names), files[0].ids


def _estimate(args, matrix, names, labels, reference):
    from ..multiclass import evaluate_multiclass

    score_model = _class_score_model(args, len(names))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate_multiclass(matrix, labels, classes=names, draws=args.draws, level=args.level, rng=args.seed,
                                   reference=reference, class_thresholds=class_thresholds(args),
                                   score_model=score_model)


def _class_score_model(args, n_classes):
    """``--score-model`` for one classifier's K class columns: ``average`` or a multiclass model (K ≥ 3); with two
    classes the models of one score apply to the binary answer (checked by ``model_options``), and the multiclass
    fields average. Raises SpeInputError for a model of one score on three classes or more."""
    from ..multiclass.models import CLASS_MODELS

    name = args.score_model
    if name == "average" or n_classes == 2:
        return "average"
    if name not in CLASS_MODELS:
        raise SpeInputError(f"{name!r} is a model of one score; class columns take average or one of "
                            f"{', '.join(CLASS_MODELS)}", argument="--score-model")
    return name


def _average_only(args, what):
    """Several classifiers' class columns and the monitor fit every model and average them: ``--score-model``
    other than ``average`` is refused (SpeInputError) rather than ignored."""
    if getattr(args, "score_model", "average") != "average":
        raise SpeInputError(f"{what} averages every score model by its evidence; --score-model "
                            f"{args.score_model} is not available there yet (drop it)", argument="--score-model")


def _reference(path, columns, names):
    """REF.csv with the pool's class columns and ``label`` (every row labeled) → (scores (R, K), class names (R,)),
    a bad value named by file, row and column (:func:`spe.io.read_labeled_columns`)."""
    import numpy as np

    from ..io import read_labeled_columns
    from ..multiclass.scores import class_encoder

    scores, codes = read_labeled_columns(path, columns, class_encoder(names))
    return scores, np.asarray(names, dtype=object)[codes]


def _items_bytes(ev, path, ids=None):
    """``--items``: every item's id, predicted class, label and posterior class probabilities, as CSV (6
    significant digits) or, for a name ending in .parquet, a Parquet file. Two classes compared (a binary
    comparison of the second class's scores): its items, ``id`` first (the first file's ids, or positions)."""
    import io

    from .common import is_parquet_name

    if hasattr(ev, "class_comparisons") or not hasattr(ev, "names"):
        frame = ev.items_frame()
    else:
        frame = ev.items_frame(ids).rename_axis("id").reset_index()
    if is_parquet_name(path):
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        return buffer.getvalue()
    return frame.to_csv(index=False, float_format="%.6g").encode()


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
    base = labeled_only_baseline(args, binary)
    if base is not None:
        fields["labeled_only"] = base.to_dict()
    return fields


def _refuse_unsupported(args):
    for attribute, flag, instead in UNSUPPORTED:
        if getattr(args, attribute, None):
            raise SpeInputError(f"for one score only; with multiclass scores use {instead}", argument=flag)
    if getattr(args, "engine", "auto") == "dask":
        raise SpeInputError("--engine dask is not available for multiclass scores yet")
