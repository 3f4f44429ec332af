"""``spe estimate``: performance curves, prevalence and metrics with credible bands from scores and a few labels."""

from __future__ import annotations

from pathlib import Path

from ..engines import ENGINES
from ..exceptions import SpeInputError
from .common import (evaluate_file, figure_bytes, finish, fmt, interval_text, is_parquet_name, item_probabilities,
                     items_csv, items_parquet, json_bytes,
                     labeled_only_baseline, metrics_lines, notes, plan_outputs, read_inputs, say)
from .classes import add_class_options, add_class_threshold_option
from .options import Once, add_model_options, finite, requirement
from .registry import Command, register

ESTIMATE_HELP = """\
Estimate a classifier's performance on a data set from all its scores and a
few labels (semisupervised performance evaluation, Welinder et al. 2013).

SCORES.csv has a header row and a column 'score' (see --score-column) with
the classifier's score for every item (higher = more positive; decision
values or probabilities), and optionally a column 'id'.

LABELS.csv has columns 'id,label': 'id' matches the scores' 'id' column, or,
when the scores have no 'id' column, is the 0-based data row of the score;
'label' is 0 or 1. Typically 10-100 items labeled at random.

Prints prevalence, average precision and ROC AUC with credible intervals and
precision at a few recall levels with bands; --json writes everything,
including the whole PR and ROC curves with bands.

--report OUT.html writes one web page to open or send: every figure
embedded (score histogram with the fitted class-conditional densities,
precision and recall against the threshold, PR and ROC curves with bands;
with --requirement the probability that each threshold meets it; with
--truth the true curves and a reliability diagram), the intervals, every
diagnostic explained and the warnings. --report DIR writes the same
figures as PNG files next to the JSON, the item probabilities and a
README.md that lists them.

Every option and output path is checked before the work starts; outputs are
written all or none. Exit status: 0 an answer (degenerate data get one, with
a warning saying what the numbers then mean), 2 bad input or options (one
line naming the file, row and column, or the option; nothing written), 130
interrupted, 1 anything else. The summary and the JSON give the seed used.

Large pools: SCORES may be a Parquet file, a directory of Parquet shards or
a glob ('shards/*.parquet'). --engine dask reads them shard by shard with
Dask (a CSV file in blocks of whole rows) and never holds all scores in
memory (on this machine, or on a cluster with --scheduler tcp://HOST:8786);
--items then names a new directory of Parquet shards. Without --engine,
pools above 10 million items are counted into 2^18 score cells (each item's
score within diagnostics.pool.max_error of its cell's value), by Dask when
Dask is installed; --report and --truth keep every item's own score in
memory.

Multiclass classifiers: a SCORES file with one column per class (no
'score' column; or --class-columns / --class-prefix) gives accuracy, top-k
accuracy, macro and weighted F1, each class's prevalence, precision, recall,
F1, AP and PR curve, the confusion matrix and the calibration error, with
intervals; LABELS.csv then names classes.

examples:
  spe estimate examples/digits_scores.csv --labels examples/digits_labels.csv \\
      --json out.json --plot pr.png --seed 0
  spe estimate examples/digits_scores.csv --labels examples/digits_labels.csv \\
      --report digits.html --requirement 0.9,0.5 --truth examples/digits_truth.csv
"""


def add_arguments(est):
    """The options of ``spe estimate``: the shared ones and its outputs."""
    add_model_options(est)
    est.add_argument("--json", metavar="OUT.json", action=Once,
                     help="write the full result as JSON ('-': to standard output, and the summary to standard error)")
    est.add_argument("--plot", metavar="OUT.png", action=Once, help="write the PR curve with its band as an image")
    est.add_argument("--items", metavar="OUT.csv", action=Once,
                     help="write per-item probabilities p(y=1 | scores, labels) (id, score, probability; labeled "
                          "items keep their label; '-': to standard output; a name ending in .parquet: a Parquet "
                          "file). Multiclass scores: id, predicted, label and prob_CLASS, each class's posterior "
                          "probability")
    est.add_argument("--threshold", type=finite, action="append", metavar="T",
                     help="also give precision, recall, F1, accuracy, false positive rate and the confusion counts "
                          "at threshold T (score units; items scored >= T are predicted positive); repeatable")
    est.add_argument("--report", metavar="OUT.html|DIR", action=Once,
                     help="OUT.html: one self-contained web page (figures embedded, the intervals, the "
                          "diagnostics explained, the warnings) to open in any browser or send; DIR: every figure "
                          "(PNG) with the JSON, the item probabilities, the summary and a README.md listing them, "
                          "in directory DIR (created if missing)")
    est.add_argument("--requirement", metavar="P,R", type=requirement,
                     help="a precision/recall requirement, e.g. 0.9,0.5: drawn as a box on the PR figure, and "
                          "--report adds p(requirement met) against the threshold (paper Fig. 4)")
    est.add_argument("--engine", choices=ENGINES, default="auto", action=Once,
                     help="who does the passes over all scores: memory (every score its own item), binned (in "
                          "memory, counted into 2^18 score cells), dask (binned, computed by Dask shard by shard, or "
                          "a CSV block by block, never holding all scores); auto (default): binned above 10 million "
                          "items (by Dask when installed), else memory, and memory whenever --report or --truth is "
                          "given")
    est.add_argument("--scheduler", metavar="ADDRESS", action=Once,
                     help="with --engine dask: the dask.distributed scheduler to run on (e.g. tcp://10.0.0.5:8786; "
                          "its workers need spe installed and the input's paths readable); default: this machine")
    add_class_options(est)
    add_class_threshold_option(est)
    est.add_argument("--truth", metavar="TRUTH.csv", action=Once,
                     help="every item's true label (columns as LABELS.csv), when checking the method on a fully "
                          "labeled set: the figures add the true curves and --report the reliability diagram")


def run(args):
    """Run ``spe estimate``; returns the exit status."""
    from ..io import read_scores, read_truth
    from .classes import class_columns, run_classes

    columns = class_columns(args)
    if columns is not None:
        return run_classes(args, columns)
    if args.class_threshold:
        raise SpeInputError("--class-threshold is for multiclass scores (one column per class); for one score use "
                            "--threshold", argument="--class-threshold")
    engine = _engine(args)
    if engine == "dask":
        return _run_dask(args)
    if engine == "binned":
        _refuse_per_item_options(args, engine, ("--report", "--truth"))
    page = args.report is not None and _is_page(args.report)
    plan = plan_outputs(args, ("--json", args.json, True), ("--items", args.items, True),
                        ("--plot", args.plot, False), ("--report", args.report if page else None, False),
                        directories=[("--report", None if page else args.report, REPORT_NAMES)])
    if args.report is not None and not page:
        _check_report_directory(args.report)
    scores = read_scores(args.scores, score_column=args.score_column)
    truth = read_truth(args.truth, scores, pos_label=args.pos_label) if args.truth is not None else None  # checked before the fit
    scores, labels = read_inputs(args, scores)
    ev = evaluate_file(args, scores, labels, engine=engine if engine != "auto" else None)
    base = labeled_only_baseline(args, ev)
    perf = args.performance
    result, at = _estimate_result(args, ev, base)
    true = None
    if truth is not None:
        from ..baselines import true_performance
        from ..output import jsonable

        true = true_performance(ev.scores, truth)
        result["truth"] = jsonable(true)
    result_bytes = json_bytes(result)
    items_bytes = None
    if args.items is not None or (args.report is not None and not page):
        items_bytes = items_csv(scores.ids, {"score": scores.scores}, item_probabilities(ev, scores.scores, labels))
    files = {"--json": result_bytes, "--items": items_bytes}
    if args.items is not None and is_parquet_name(args.items):
        files["--items"] = items_parquet(scores.ids, {"score": scores.scores},
                                         item_probabilities(ev, scores.scores, labels))
    files = [(plan[flag], data) for flag, data in files.items() if flag in plan]
    if args.plot is not None or args.report is not None:
        import matplotlib

        matplotlib.use("Agg")
    if args.plot is not None:
        files.append((plan["--plot"], _pr_figure(args, ev, base, truth)))
    summary = _estimate_summary(args, ev, base, at, perf, true)
    directories = []
    with_warnings = summary + "".join(f"warning: {w}\n" for w in ev.warnings)
    if page:
        # the page shows the warnings at its top; its copy of the summary is the one printed
        files.append((plan["--report"], _report_page(ev, scores, base, truth, args.requirement, perf, summary)))
    elif args.report is not None:
        directories.append((plan["--report"], _report_files(ev, scores, base, truth, args.requirement, perf,
                                                              result_bytes, items_bytes, with_warnings)))
    finish(plan, summary, files, directories, warnings=ev.warnings + _contradictions(truth, labels, scores),
           command="spe estimate")
    return 0


def _contradictions(truth, labels, scores):
    """A warning when ``--truth`` gives some labeled item another label than ``--labels`` does (the truth's
    figures are then not the labels' truth): [] or [str]."""
    import numpy as np

    if truth is None or labels is None or len(labels[0]) == 0:
        return []
    index, value = (np.asarray(v) for v in labels)
    differ = np.flatnonzero(truth[index] != value)
    if not differ.size:
        return []
    k = int(index[differ[0]])
    item = scores.ids[k] if scores.ids is not None else k
    return [f"--truth contradicts --labels at {differ.size} of the {index.size} labeled items (first: item {item!r}, "
            f"label {int(value[differ[0]])}, truth {int(truth[k])}): the estimate uses --labels, the truth figures "
            "--truth; one of the two files is wrong"]


def _engine(args):
    """The engine of this run. As given; ``auto`` is the in-memory path (exact, or binned above
    :data:`spe.engines.POOL_ABOVE` items) when ``--report`` or ``--truth`` need every item's
    own score or ``--items`` names a CSV, and Dask for Parquet shards or a CSV file above that many rows (a
    CSV's estimated from its size) when Dask is installed."""
    from ..dask_engine import require_dask
    from ..engines import POOL_ABOVE

    if args.scheduler is not None and args.engine != "dask":
        raise SpeInputError("--scheduler is for --engine dask", argument="scheduler")
    needs_items = any(v is not None for v in (args.report, args.truth))
    if args.engine == "auto" and needs_items:
        return "memory"
    if args.engine == "dask":
        require_dask()
        if args.scores == "-":
            from ..csv_blocks import STANDARD_INPUT

            raise SpeInputError(STANDARD_INPUT, argument="engine")
        return "dask"
    if args.engine != "auto" or args.scores == "-" or _items_csv(args.items) or _rows(args.scores) <= POOL_ABOVE:
        return args.engine
    try:
        require_dask()  # imported only for a pool that large (0.1 s)
    except SpeInputError:
        return "auto"
    return "dask"


def _rows(scores):
    """The items of a Parquet input (from its footers), or about those of a CSV file (from its size)."""
    from ..csv_blocks import estimated_rows
    from ..parquet import is_parquet, parquet_files, shard_rows

    if is_parquet(scores):
        return sum(shard_rows(f) for f in parquet_files(scores))
    return estimated_rows(scores)


def _refuse_per_item_options(args, engine, flags):
    """The options among ``flags`` that need every item's own score, refused for a pooled ``engine``."""
    for flag in flags:
        if getattr(args, flag.lstrip("-")) is not None:
            raise SpeInputError(f"{flag} needs every item's own score: not with --engine {engine} (use --engine "
                                "memory)", argument="engine")


def _items_csv(items):
    return items is not None and (items == "-" or items.lower().endswith(".csv"))


def _run_dask(args):
    """``spe estimate`` with the Dask engine: the pool from the Parquet shards or the CSV file's blocks by Dask,
    the same estimate and outputs (``--items`` a new directory of Parquet shards, written last and whole or not
    at all; ``--report`` and ``--truth`` need every item's own score and are refused)."""
    import contextlib

    from ..dask_engine import LabelKeys, ScoreSource, StagedDirectory, label_keys_from_file, write_items
    from ..parquet import is_parquet

    _refuse_per_item_options(args, "dask", ("--report", "--truth"))
    plan = plan_outputs(args, ("--json", args.json, True), ("--plot", args.plot, False))
    if args.items == "-":
        raise SpeInputError("with --engine dask, --items names a new directory of Parquet shards, not standard "
                            "output", argument="items")
    staged = StagedDirectory(args.items) if args.items is not None else None
    source = (ScoreSource.from_parquet(args.scores, args.score_column) if is_parquet(args.scores)
              else ScoreSource.from_csv(args.scores, args.score_column))
    labels = (label_keys_from_file(args.labels, source.has_ids, pos_label=args.pos_label) if args.labels is not None
              else LabelKeys.of(None, source.has_ids))
    ev = evaluate_file(args, source, labels, engine="dask", scheduler=args.scheduler)
    base = labeled_only_baseline(args, ev)
    result, at = _estimate_result(args, ev, base)
    files = [(plan["--json"], json_bytes(result))] if "--json" in plan else []
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        files.append((plan["--plot"], _pr_figure(args, ev, base, None)))
    summary = _estimate_summary(args, ev, base, at, args.performance, None)
    with staged or contextlib.nullcontext():
        if staged is not None:
            write_items(ev, source, labels, staged.tmp, scheduler=args.scheduler, workers=args.workers)
        finish(plan, summary, files, [], warnings=ev.warnings, command="spe estimate")
        if staged is not None:
            staged.commit()
            say(plan, f"wrote {args.items} ({len(source.chunks)} Parquet shards)")
    return 0


def _estimate_result(args, ev, base):
    """The JSON of ``spe estimate``: ``Evaluation.to_dict()``, the metrics at each ``--threshold`` and the
    labeled-only baseline; and [(threshold, metrics, baseline metrics)] for the summary."""
    result = ev.to_dict(performance=args.performance)
    at = []
    for t in args.threshold or []:
        m = ev.metrics_at(t, performance=args.performance)
        b = base.metrics_at(t) if base is not None else None
        at.append((t, m, b))
        entry = {"threshold": t, "metrics": {k: _num_dict(v) for k, v in m.items()}}
        if b is not None:
            entry["labeled_only"] = {k: _num_dict(v) for k, v in b.items()}
        result.setdefault("at_threshold", []).append(entry)
    if base is not None:
        result["labeled_only"] = base.to_dict()
    return result, at


def _pr_figure(args, ev, base, truth):
    from ..baselines import pr_curve_from_labels
    from ..plot import plot_pr_curve

    ax = plot_pr_curve(ev, labeled_only=None if base is None else base.pr_curve().median,
                       truth=None if truth is None else pr_curve_from_labels(ev.scores, truth),
                       requirement=args.requirement)
    return figure_bytes(ax.figure, args.plot)


def _estimate_summary(args, ev, base, at, perf, true):
    """The text the command prints; ``true``: :func:`spe.baselines.true_performance` under ``--truth``, else None."""
    level = ev.level
    lines = [ev.summary(performance=perf, warnings=False)]
    if true is not None:
        lines.append(_truth_line(true))
    for t, m, b in at:
        lines.append(f"at threshold {t:g} ({perf} performance, posterior mean [{100 * level:g}% credible interval]):")
        lines.append("\n".join(metrics_lines(m, b, indent="  ")))
    if base is not None:
        lines.append("\n".join(_comparison_lines(ev, base, level, perf)))
    lines += notes(args, ev)
    return "\n".join(lines) + "\n"


def _truth_line(t):
    """``--truth``: the true values of the summary's metrics (:func:`spe.baselines.true_performance`), to compare."""
    from ..metrics import REGISTRY

    return "truth (every label known): " + ", ".join(f"{REGISTRY[name].label} {fmt(v)}" for name, v in t.items())


def _num_dict(interval):
    from ..output import jsonable

    return jsonable(interval.to_dict())


def _comparison_lines(ev, base, level, performance):
    """``--compare-labeled-only``: every metric of the ranking and a few PR points, SPE beside the labeled items."""
    import numpy as np

    from ..metrics import REGISTRY, ranking_metric_names

    pct = f"{100 * level:g}%"
    lines = [f"labeled items only ({base.n_labeled} items; estimate [{pct} interval]) next to SPE:"]
    for name in ranking_metric_names():
        spe_i = ev.metric(name, level=level, performance=performance)
        lines.append(f"  {REGISTRY[name].label:<18s} SPE {interval_text(spe_i):<28s} labeled only "
                     f"{interval_text(base.metric(name, level=level))}")
    pr, bpr = ev.pr_curve(level, performance), base.pr_curve(level)
    for r in (0.25, 0.5, 0.75):
        g = int(np.argmin(np.abs(pr.x - r)))
        lines.append(f"  precision at recall {pr.x[g]:.2f}: SPE {fmt(pr.median[g])} [{fmt(pr.lo[g])}, "
                     f"{fmt(pr.hi[g])}]   labeled only {fmt(bpr.median[g])} [{fmt(bpr.lo[g])}, {fmt(bpr.hi[g])}]")
    return lines


def _is_page(path):
    """``--report`` names one HTML page (``.html``/``.htm``) rather than a directory of files."""
    return Path(path).suffix.lower() in (".html", ".htm")


def _report_page(ev, scores, base, truth, requirement, perf, summary):
    """``--report OUT.html``: the self-contained page of :func:`spe.report.html_report`, UTF-8."""
    from ..plot import report_figures
    from ..report import html_report

    figures = report_figures(ev, labeled_only=base, truth=truth, requirement=requirement, performance=perf)
    return html_report(ev, figures, summary, title=f"spe estimate: {Path(scores.path).name}").encode()


def _report_files(ev, scores, base, truth, requirement, perf, json_bytes, items_bytes, summary):
    """The files of ``--report``: the figures as PNG, estimate.json, items.csv, summary.txt and README.md."""
    from ..plot import report_figures

    files = {}
    index = [f"# spe estimate: {Path(scores.path).name}", "",
             "```", summary.rstrip(), "```", ""]
    for name, (fig, caption) in report_figures(ev, labeled_only=base, truth=truth, requirement=requirement,
                                               performance=perf).items():
        files[f"{name}.png"] = figure_bytes(fig, f"{name}.png")
        index += [f"## {name}", "", caption, "", f"![{name}]({name}.png)", ""]
    files["estimate.json"] = json_bytes
    files["items.csv"] = items_bytes
    files["summary.txt"] = summary.encode()
    index += ["Also here: `estimate.json` (everything, as `spe estimate --json`), `items.csv` (per-item "
              "probabilities, as `--items`), `summary.txt` (the printed summary).", ""]
    files["README.md"] = "\n".join(index).encode()
    return files


#: The files ``--report`` may write into its directory.
REPORT_NAMES = ("README.md", "estimate.json", "items.csv", "summary.txt", "scores.png", "threshold_curves.png",
                "pr_curve.png", "roc_curve.png", "threshold_probability.png", "reliability.png")


def _check_report_directory(path):
    """``--report`` into an existing directory only when its files would not overwrite anything but an earlier
    report (a README.md of the user's is not replaced)."""
    from ..exceptions import SpeInputError

    d = Path(path)
    if not d.is_dir():
        return
    clash = [name for name in REPORT_NAMES if (d / name).exists()]
    odd = [name for name in clash if not (d / name).is_file()]
    if odd:
        raise SpeInputError(f"{path} holds {', '.join(odd)}, which is not a file, where the report writes one",
                            argument="--report")
    readme = d / "README.md"
    earlier = readme.is_file() and readme.read_bytes()[:16].startswith(b"# spe estimate")
    if clash and not earlier:
        raise SpeInputError(f"{path} already holds {', '.join(clash)}, which the report would overwrite: choose a "
                            "new or empty directory, or one an earlier --report wrote", argument="--report")


register(Command(name="estimate",
                 help="estimate PR/ROC curves, average precision and prevalence from scores and a few labels",
                 description=ESTIMATE_HELP, add_arguments=add_arguments, run=run,
                 number_options=("--threshold", "--requirement")))
