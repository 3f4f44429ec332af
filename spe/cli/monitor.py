"""``spe monitor``: every chunk (in time or file order) and slice of a pool estimated beside a labeled reference
set, with the probability that performance dropped (DESIGN.md "Chunks and slices")."""

from __future__ import annotations

from pathlib import Path

from .classes import class_columns, run_class_monitor
from .common import figure_bytes, finish, json_bytes, model_options, plan_outputs, reference_of
from .options import Once, add_model_options, finite, positive
from .registry import Command, register

MONITOR_HELP = """\
Estimate a classifier's performance in every chunk of a pool (consecutive
rows, a column's values, or calendar periods of a timestamp) and in every
slice (the values of one or more columns), each with its credible
interval, beside the labeled reference set's own value (--reference: the
classifier's validation data, an earlier period; every item labeled), and
say where it dropped.

For each chunk and slice: prevalence, ROC AUC, average precision, and
precision, recall and F1 at the operating threshold (--threshold; default
0.5 for probabilities, else 0). A drop is alerted where the posterior
probability that the metric is more than --alert-drop below the
reference's value (or below --alert-below) is at least 0.9. For slices,
every pairwise gap with its interval and P(|gap| > --alert-drop).

Each chunk and slice is estimated as `spe estimate --reference REF.csv`
estimates a pool: its own prevalence, the reference's calibration map,
which the chunk's labels (--labels, any chunks) may pull away. Without
labels a drop shows where the items moved to scores the classifier is less
sure of; a change of p(y | score) itself needs labels in the chunk. Labels
in several chunks are pooled: what the other chunks' labels say of a drift
or a new map is each chunk's prior (--no-pooling: each chunk on its own).

SCORES (CSV or Parquet): 'score' (or --score-column), optional 'id' and
'prediction' (the classifier's own 0/1 decisions: they set the default
threshold), and the columns the options name. LABELS.csv as for
`spe estimate`. Parquet shards (a directory or a glob) too large for
memory: --engine dask counts every chunk and slice shard by shard, on
this machine or on a cluster (--scheduler); each chunk is then estimated
from its scores counted into 2^18 cells, as `spe estimate --engine dask`.

Multiclass scores (one column per class, as for `spe estimate`:
--class-columns, --class-prefix, or every column but 'id' and the named
ones when there is no 'score' column): accuracy, macro F1, macro AP and
the top-label calibration error per chunk and slice, alerts on the first
three; the reference file holds the class columns and 'label' (a class
name). The chunks are not pooled.

examples:
  spe monitor scores.csv --reference ref.csv --chunk-size 10000 --json monitor.json
  spe monitor scores.csv --reference ref.csv --chunk-period W --timestamp-column time --by sex,region
  spe monitor 'lake/*.parquet' --reference ref.csv --chunk-column day --engine dask --json monitor.json
"""


def add_arguments(p):
    """The options of ``spe monitor``: the chunks, the slices, the alerts, the outputs and the model options."""
    from .classes import add_class_options

    add_model_options(p, baseline=False)
    add_class_options(p)
    chunks = p.add_mutually_exclusive_group()
    chunks.add_argument("--chunk-size", type=positive, metavar="N", help="chunks of N consecutive rows")
    chunks.add_argument("--chunk-number", type=positive, metavar="K", help="K chunks of consecutive rows")
    chunks.add_argument("--chunk-column", metavar="COL", help="one chunk per value of COL (a week, a batch)")
    chunks.add_argument("--chunk-period", choices=("D", "W", "M", "Q", "Y"),
                        help="one chunk per day, week, month, quarter or year of --timestamp-column")
    p.add_argument("--timestamp-column", metavar="COL", help="the items' times, for --chunk-period")
    p.add_argument("--by", metavar="COL[,COL...]", help="slices: one per combination of values of these columns")
    p.add_argument("--threshold", type=finite, metavar="T",
                   help="operating threshold of precision, recall and F1, score units (default: the one a "
                        "'prediction' column (0/1) implies, else 0.5 for probabilities, else 0)")
    alerts = p.add_mutually_exclusive_group()
    alerts.add_argument("--alert-drop", type=finite, default=0.02, metavar="D",
                        help="alert where P(metric < reference value - D) >= 0.9 (default 0.02)")
    alerts.add_argument("--alert-below", type=finite, metavar="V", help="alert where P(metric < V) >= 0.9 instead")
    p.add_argument("--no-pooling", dest="pooling", action="store_false",
                   help="estimate each chunk (and slice) from its own labels and the reference alone, not with the "
                        "priors the other chunks' labels give it")
    p.add_argument("--engine", choices=("auto", "memory", "dask"), default="auto", action=Once,
                   help="memory: every score read into this process; dask: Parquet input counted chunk by chunk by "
                        "Dask tasks, shard by shard, never holding all scores; auto (default): dask for Parquet input "
                        "above 10 million items when Dask is installed, else memory")
    p.add_argument("--scheduler", metavar="ADDRESS", action=Once,
                   help="with --engine dask: the dask.distributed scheduler to run on (e.g. tcp://10.0.0.5:8786; its "
                        "workers need spe installed and the shards' paths readable); default: this machine")
    p.add_argument("--plot", metavar="OUT.png", action=Once,
                   help="write a figure: average precision and ROC AUC per chunk (or per slice) with their bands, "
                        "the reference's value, the alert line and the alerts")
    p.add_argument("--report", metavar="OUT.html", action=Once,
                   help="write one self-contained HTML page: the alerts, every chunk's and slice's estimates with "
                        "their intervals, the gaps, the figure and the summary")
    p.add_argument("--json", metavar="OUT.json", action=Once,
                   help="write every chunk's and slice's estimates, the reference's values, the alerts and the "
                        "gaps as JSON ('-': to standard output)")


def run(args):
    """Run ``spe monitor``; returns the exit status."""
    import warnings

    from ..monitoring import monitor

    plan = plan_outputs(args, ("--json", args.json, True), ("--plot", args.plot, False),
                        ("--report", args.report, False))
    by = [c.strip() for c in args.by.split(",")] if args.by else []
    named = [c for c in (args.chunk_column, args.timestamp_column) if c] + by
    columns = class_columns(args, args.scores)
    if columns is not None and len([c for c in columns if c not in named]) >= 2:
        return run_class_monitor(args, [c for c in columns if c not in named], named, by, plan)
    if _engine(args) == "dask":
        scores, labels = _shards(args, named)
    else:
        scores, labels = _in_memory(args, named)
    reference = reference_of(args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = monitor(scores, reference=reference, labels=labels, chunk_size=args.chunk_size,
                    chunk_number=args.chunk_number, chunk_column=args.chunk_column, chunk_period=args.chunk_period,
                    timestamp_column=args.timestamp_column, by=by or None, threshold=args.threshold,
                    alert_drop=args.alert_drop, alert_below=args.alert_below, pooling=args.pooling,
                    scheduler=args.scheduler, **model_options(args))
    files = [(plan["--json"], json_bytes(m.to_dict()))] if args.json is not None else []
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        from ..plot import monitoring_figure

        files.append((plan["--plot"], figure_bytes(monitoring_figure(m), args.plot)))
    summary = m.summary() + f"\nseed: {m.diagnostics['seed']} (--seed {m.diagnostics['seed']} repeats this run)"
    if args.report is not None:
        files.append((plan["--report"], report_bytes(m, summary, args.scores)))
    finish(plan, summary, files, warnings=m.warnings, command="spe monitor")
    return 0


def _engine(args):
    """``memory`` or ``dask`` (``auto``: Dask for Parquet input above :data:`spe.engines.POOL_ABOVE` items when it
    is installed)."""
    from ..dask_engine import require_dask
    from ..exceptions import SpeInputError
    from ..parquet import is_parquet, parquet_files, shard_rows

    if args.scheduler is not None and args.engine != "dask":
        raise SpeInputError("--scheduler is for --engine dask", argument="scheduler")
    parquet = is_parquet(args.scores)
    if args.engine == "dask":
        require_dask()
        if not parquet:
            raise SpeInputError("--engine dask reads Parquet (a file, a directory of shards or a glob); a CSV file "
                                "is read into memory (--engine memory)", argument="engine")
        return "dask"
    if args.engine == "memory" or not parquet:
        return "memory"
    from ..engines import POOL_ABOVE

    if sum(shard_rows(f) for f in parquet_files(args.scores)) <= POOL_ABOVE:
        return "memory"
    try:
        require_dask()
    except SpeInputError:
        return "memory"
    return "dask"


def _in_memory(args, named):
    """The scores as a DataFrame (``score`` and the ``named`` columns, ``prediction`` when given) and the labels
    ((positions, values)), read into memory."""
    import pandas as pd

    from ..io import read_labels, read_scores_and_columns

    scores, columns = read_scores_and_columns(args.scores, named, score_column=args.score_column,
                                              optional=["prediction"])
    labels = read_labels(args.labels, scores, pos_label=args.pos_label) if args.labels is not None else None
    return pd.DataFrame({"score": scores.scores, **columns}), labels


def _shards(args, named):
    """The Parquet shards' :class:`~spe.chunk_pools.Parts` (read by the Dask tasks) and the labels as
    :class:`~spe.dask_engine.LabelKeys` (by id when the shards have ids, else by 0-based row)."""
    from ..chunk_pools import parts_of
    from ..dask_engine import LabelKeys, label_keys_from_file

    parts = parts_of(args.scores, named, score_column=args.score_column)
    labels = (label_keys_from_file(args.labels, parts.has_ids, pos_label=args.pos_label) if args.labels is not None
              else LabelKeys.of(None, parts.has_ids))
    return parts, labels


#: The headline metrics' names in the report's figure caption.
_CAPTION_NAMES = {"average_precision": "Average precision", "roc_auc": "ROC AUC", "accuracy": "Accuracy",
                  "macro_f1": "macro F1"}


def report_bytes(m, summary, scores_path):
    """``--report OUT.html``: :func:`spe.report.monitoring_report` with the figure, UTF-8 (binary or multiclass
    :class:`spe.monitoring.Monitoring`: the caption names its headline metrics)."""
    import matplotlib

    matplotlib.use("Agg")
    from ..plot import monitoring_figure
    from ..report import monitoring_report

    shown = " and ".join(_CAPTION_NAMES.get(name, name) for name in m.headline)
    figures = {"monitoring": (monitoring_figure(m), f"{shown[0].upper()}{shown[1:]} per chunk (or slice) with "
                                                    "their credible bands, the reference's value and the alert line"
                                                    "; with slices alone, their gaps")}
    return monitoring_report(m, figures, summary, title=f"spe monitor: {Path(str(scores_path)).name}").encode()


register(Command(name="monitor", help="performance in every chunk and slice of a pool beside a reference, and drops",
                 description=MONITOR_HELP, add_arguments=add_arguments, run=run,
                 number_options=("--threshold", "--alert-drop", "--alert-below")))
