"""What the ``spe`` commands share when they run: the fit from the shared options, the outputs checked before the
work and written all or none, the printed text."""

from __future__ import annotations

import io
import math
import os
import sys
import warnings
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from ..output import json_bytes  # noqa: F401  (the commands' --json, here with the other shared pieces)

__all__ = ["plan_outputs", "finish", "say", "quiet", "read_inputs", "fit", "read_classifiers", "classifier_inputs",
           "fit_classifiers", "joint_fit", "choose_target", "labeled_only_baseline", "figure_bytes",
           "check_figure_format", "json_bytes", "items_csv", "model_options", "interval_text", "fmt",
           "metrics_lines", "notes", "file_names", "names_list", "threshold_choice_lines", "few_items_note",
           "rounded_down", "labeled_only_wanted", "labeled_only_stream"]


def reference_of(args):
    """The ``--reference`` file read (:func:`spe.io.read_reference`, with ``--score-column`` and
    ``--pos-label``): (scores (R,), labels (R,)), or None without the option."""
    from ..io import read_reference

    if args.reference is None:
        return None
    return read_reference(args.reference, args.score_column, pos_label=args.pos_label)


def plan_outputs(args, *specs, directories=()):
    """Check the outputs given on the command line before any work (:func:`spe.output.check_outputs`):
    ``specs`` are (flag, path or None, may go to stdout), ``directories`` (flag, path or None, the names written
    into it); ``--plot``'s format is checked when the command has it. Returns {flag: Output}."""
    from ..output import Output, check_outputs

    outputs = [Output(flag, path, stdout=stdout) for flag, path, stdout in specs if path is not None]
    outputs += [Output(flag, path, directory=True, names=names) for flag, path, names in directories
                if path is not None]
    if getattr(args, "plot", None) is not None:
        check_figure_format(args.plot)
    inputs = {}
    for what, name in (("scores", "scores"), ("labels", "labels"), ("truth", "truth"), ("reference", "reference")):
        given = getattr(args, name, None)
        for path in given if isinstance(given, list) else [given]:
            inputs[f"the {what} file" + (f" {path}" if isinstance(given, list) and len(given) > 1 else "")] = path
    check_outputs(outputs, inputs)
    return {o.flag: o for o in outputs}


def _figure_format(path):
    """The image format of a figure file: its suffix, PNG without one."""
    return Path(path).suffix.lstrip(".").lower() or "png"


def check_figure_format(path):
    """``--plot``'s suffix names a format matplotlib writes without more software (not PGF, which needs
    LaTeX)."""
    from matplotlib.backend_bases import FigureCanvasBase

    from ..exceptions import SpeInputError

    known = sorted(set(FigureCanvasBase.get_supported_filetypes()) - {"pgf"})
    if _figure_format(path) not in known:
        raise SpeInputError(f"{path}: the suffix names no image format matplotlib writes; use one of "
                            f"{', '.join('.' + k for k in known)} (none: PNG)", argument="--plot")


#: ``spe -q``: the human-readable text is not printed (only warnings and errors are); set by :func:`quiet`.
_QUIET = ContextVar("spe_cli_quiet", default=False)


@contextmanager
def quiet(on):
    """Within the block, :func:`say` prints nothing when ``on`` (``-q``); the outputs asked for are still written
    and the warnings still printed."""
    token = _QUIET.set(bool(on))
    try:
        yield
    finally:
        _QUIET.reset(token)


def say(plan, text):
    """Print the human-readable text: on standard output, unless an output goes there; nothing under ``-q``."""
    if not _QUIET.get():
        print(text, file=sys.stderr if any(o.to_stdout for o in plan.values()) else sys.stdout)


def finish(plan, text, files, directories=(), warnings=(), command="spe"):
    """Write every output (all or none), then print the text and what was written, and the ``warnings`` on
    standard error (``<command>: warning: ...``, as errors are worded)."""
    from ..output import write_outputs
    from .main import raise_if_interrupted

    raise_if_interrupted()
    written = write_outputs(files, directories)
    say(plan, text.rstrip("\n"))
    for line in written:
        say(plan, line)
    for w in warnings:
        print(f"{command}: warning: {w}", file=sys.stderr)


def figure_bytes(fig, path):
    """Render a matplotlib figure in memory in the format of ``path``'s suffix (PNG by default), and close it."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format=_figure_format(path), dpi=150)
    plt.close(fig)
    return buf.getvalue()


def items_csv(ids, scores, probability):
    """``--items``: a CSV of id (as read, or the 0-based row), each score column exactly as read, and
    p(y = 1 | scores, labels) to 6 significant digits (labeled items keep their label).

    ``ids``: (N,) or None; ``scores``: column name → (N,) scores; ``probability``: (N,)."""
    import numpy as np
    import pandas as pd

    columns = {"id": ids if ids is not None else range(len(probability))}
    # formatted here, which is also faster than to_csv's float_format
    columns.update({name: list(map(repr, np.asarray(s).tolist())) for name, s in scores.items()})
    columns["probability"] = list(map("{:.6g}".format, np.asarray(probability).tolist()))
    buf = io.StringIO()
    pd.DataFrame(columns).to_csv(buf, index=False)
    return buf.getvalue().encode()


def is_parquet_name(path):
    """Whether an output path names a Parquet file (it ends in .parquet or .pq)."""
    return path != "-" and path.lower().endswith((".parquet", ".pq"))


def items_parquet(ids, scores, probability):
    """``--items OUT.parquet``: the columns of :func:`items_csv` (id, each score column, p(y = 1 | scores,
    labels)) as one Parquet file's bytes, numbers at full precision."""
    import numpy as np
    import pandas as pd

    columns = {"id": ids if ids is not None else np.arange(len(probability))}
    columns.update({name: np.asarray(s, dtype=float) for name, s in scores.items()})
    columns["probability"] = np.asarray(probability, dtype=float)
    buf = io.BytesIO()
    pd.DataFrame(columns).to_parquet(buf, index=False)
    return buf.getvalue()


def read_inputs(args, scores=None):
    """The scores file (read unless given) and the labels, (indices, values) or None, from the shared input
    options (:func:`spe.io.read_scores`, :func:`spe.io.read_labels`; they raise ``SpeInputError`` naming the
    file, row and column)."""
    from ..io import read_labels, read_scores

    if scores is None:
        scores = read_scores(args.scores, score_column=args.score_column)
    return scores, read_labels(args.labels, scores, pos_label=args.pos_label) if args.labels is not None else None


def model_options(args):
    """The keyword arguments of :func:`spe.evaluate` and :func:`spe.compare` given by the shared model options
    (:func:`spe.cli.options.add_model_options`; not ``--reference``, which is a file to read). Raises
    SpeInputError (``--score-model``) for a model of class columns: one score, or two class columns read as one,
    takes the models of one score."""
    from ..exceptions import SpeInputError
    from ..models.registry import REGISTRY

    if args.score_model != "average" and args.score_model not in REGISTRY:
        raise SpeInputError(f"{args.score_model!r} is a model of class columns (three classes or more); one score, "
                            f"or two class columns read as one, takes average or one of {', '.join(REGISTRY)}",
                            argument="--score-model")
    return dict(families=args.families, draws=args.draws, level=args.level, inference=args.inference, rng=args.seed,
                score_space=args.score_space, score_model=args.score_model, score_type=args.score_type,
                temper=not args.no_tempering, monotone=not args.no_monotone,
                progressbar=False if args.quiet else None, score_bins=args.score_bins,
                likelihood_bins=args.likelihood_bins, workers=args.workers)


def fit(args, scores=None, engine=None):
    """Read the inputs (the scores unless given) and run :func:`spe.evaluate` with the shared options (and
    ``engine``, when given): (scores file, Evaluation)."""
    scores, labels = read_inputs(args, scores)
    return scores, evaluate_file(args, scores, labels, engine)


def item_probabilities(ev, scores, labels):
    """p̂(y = 1) of every item of the scores (N,) an Evaluation was fitted to, labeled items keeping their
    label (``labels``: (index (n,), value (n,)) or None): :meth:`~spe.evaluation.Evaluation.item_probabilities`,
    or for a pooled evaluation (the binned engine) :meth:`~spe.evaluation.Evaluation.probability_at` of each
    item's own score."""
    if ev.counts is None:
        return ev.item_probabilities()
    out = ev.probability_at(scores)
    if labels is not None:
        out[labels[0]] = labels[1]
    return out


def evaluate_file(args, scores, labels, engine=None, **engine_options):
    """:func:`spe.evaluate` of a scores file and its labels with the shared options and ``--reference``.

    ``scores``: a :class:`spe.io.ScoresFile`, or the Dask engine's :class:`spe.dask_engine.ScoreSource` (with
    ``engine="dask"``; ``engine_options``: its ``scheduler``)."""
    from ..api import evaluate
    from ..io import ScoresFile

    reference = reference_of(args)
    values = scores.scores if isinstance(scores, ScoresFile) else scores
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(values, labels, reference=reference, label_selection=label_selection(args),
                        **model_options(args), **({} if engine is None else {"engine": engine}), **engine_options)


def joint_fit(args, names, matrix, labels):
    """:func:`spe.compare` of the classifiers' scores (N, K) and the labels with the shared options (its
    warnings are in the result, not printed)."""
    from ..comparison import compare

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare(dict(zip(names, matrix.T)), labels, **model_options(args))


def names_list(text, what):
    from ..exceptions import SpeInputError

    names = [n.strip() for n in text.split(",")]
    if not all(names):
        raise SpeInputError(f"an empty name in {text!r}", argument=what)
    twice = next((n for i, n in enumerate(names) if n in names[:i]), None)
    if twice is not None:
        raise SpeInputError(f"{twice!r} is named twice in {text!r}: each classifier once", argument=what)
    return names


def file_names(paths):
    """Each scores file's classifier name: its file name without extension, or its path as given where two
    files share a name (``a/model.csv``, ``b/model.csv``); the same file twice is refused."""
    from ..exceptions import SpeInputError

    seen = {}
    for p in paths:
        key = "-" if p == "-" else os.path.realpath(p)
        if key in seen:
            raise SpeInputError(f"{p!r} and {seen[key]!r} are the same file: give each classifier's scores once",
                                argument="SCORES.csv")
        seen[key] = p
    stems = [Path(p).stem if p != "-" else "stdin" for p in paths]
    return [p if stems.count(s) > 1 else s for p, s in zip(paths, stems)]


def classifier_inputs(args):
    """The classifiers' names, scores files and the labels (of the first file's items; (indices, values) or
    None) from :func:`spe.cli.options.add_classifier_inputs`' options: one file per classifier, or one file's
    --score-columns (exit 2 on a mismatch)."""
    from ..exceptions import SpeInputError
    from ..io import read_labels, read_score_columns, read_scores

    if args.score_columns is not None:
        if len(args.scores) != 1:
            raise SpeInputError("--score-columns reads the classifiers from one file; give one SCORES.csv",
                                argument="--score-columns")
        names = names_list(args.score_columns, "--score-columns")
        files = read_score_columns(args.scores[0], names)
    else:
        if "-" in args.scores and len(args.scores) > 1:
            raise SpeInputError("standard input ('-') can hold one classifier's scores only; use --score-columns",
                                argument="SCORES.csv")
        names = file_names(args.scores)
        files = [read_scores(p, score_column=args.score_column) for p in args.scores]
    if args.names is not None:
        names = names_list(args.names, "--names")
        if len(names) != len(files):
            raise SpeInputError(f"{len(names)} names for {len(files)} classifiers", argument="--names")
    return names, files, read_labels(args.labels, files[0], pos_label=args.pos_label) if args.labels is not None else None


def read_classifiers(args):
    """The classifiers' names, scores (N, K), the items' ids (the first file's, or None) and the labels from the
    command line (exit 2 on a mismatch)."""
    from ..io import align_scores

    names, files, labels = classifier_inputs(args)
    return names, align_scores(files), files[0].ids, labels


def fit_classifiers(args, names, files, labels):
    """``spe suggest`` and ``spe plan`` on one classifier or several (from :func:`classifier_inputs`): (the
    items' ids or None, the :class:`~spe.evaluation.Evaluation` of one — as :func:`fit`, ``--reference``
    included — or the :class:`~spe.comparison.Comparison` of several, as ``spe compare``)."""
    from ..exceptions import SpeInputError
    from ..io import align_scores

    if len(files) == 1:  # every item's own score: the items to label are named, not a pool's values
        return files[0].ids, evaluate_file(args, files[0], labels, engine="memory")
    if args.reference is not None:
        raise SpeInputError("a reference set is for one classifier; give one SCORES.csv", argument="--reference")
    return files[0].ids, joint_fit(args, names, align_scores(files), labels)


def choose_target(args, names, default):
    """``--target`` of spe suggest and spe plan, checked against the classifiers before the fit: as given, else
    ``compare`` for several classifiers and ``default`` for one; ``--classifier`` must name one of several."""
    from ..active import parse_target
    from ..exceptions import SpeInputError

    target = args.target or ("compare" if len(names) > 1 else default)
    if parse_target(target)[0].comparison and len(names) < 2:
        raise SpeInputError(f"target {target!r} compares classifiers: give two or more SCORES.csv, or "
                            "--score-columns A,B", argument="--target")
    if args.classifier is not None and args.classifier not in names:
        raise SpeInputError(f"{args.classifier!r} is none of the classifiers {', '.join(names)}"
                            + (" (one classifier: leave --classifier out)" if len(names) == 1 else ""),
                            argument="--classifier")
    return target


def label_selection(args):
    """``--adaptive-labels``: how the labeled items were chosen (commands without the option: at random)."""
    return "adaptive" if getattr(args, "adaptive_labels", False) else "random"


def labeled_only_baseline(args, ev):
    """The labeled-only baseline for ``--compare-labeled-only`` (None without labels)."""
    from ..baselines import labeled_only

    if not labeled_only_wanted(args, ev):
        return None
    return labeled_only(ev.scores, ev.labeled_index, ev.labeled_value, level=ev.level, n_items=ev.n_items,
                        rng=labeled_only_stream(ev))


def labeled_only_wanted(args, ev):
    """Whether ``--compare-labeled-only`` gets a baseline: asked for, with labels, and not ``--adaptive-labels``
    (items chosen by ``spe suggest`` are no sample of the pool; the notes say so)."""
    return bool(args.compare_labeled_only) and ev.n_labeled > 0 and not args.adaptive_labels


def labeled_only_stream(ev):
    """The baseline's own random stream, from the run's seed: the same seed repeats it too."""
    import numpy as np

    return np.random.SeedSequence([ev.diagnostics["seed"], 1])


def fmt(v, width=0):
    return f"{v:{width}.3f}" if math.isfinite(v) else f"{'n/a':>{width}}"


def interval_text(i):
    return f"{fmt(i.mean)} [{fmt(i.lo)}, {fmt(i.hi)}]"


def metrics_lines(metrics, baseline=None, indent="    "):
    """Lines of metrics at a threshold ({name: Interval}), in the registry's order and labels (counts with one
    decimal), with the labeled-only baseline's beside them when given."""
    from ..metrics import REGISTRY

    lines = []
    for name, metric in REGISTRY.items():
        if name not in metrics:
            continue
        i = metrics[name]
        text = f"{i.mean:.1f} [{i.lo:.1f}, {i.hi:.1f}]" if metric.count else interval_text(i)
        line = f"{indent}{metric.label:<20s} {text}"
        if baseline is not None and name in baseline:
            line = f"{line:<60s} labeled only: {interval_text(baseline[name])}"
        lines.append(line)
    return lines


def notes(args, ev):
    """Notes on options that had nothing to act on."""
    out = []
    if args.compare_labeled_only and ev.n_labeled == 0:
        out.append("note: --compare-labeled-only: there are no labeled items to compare with")
    elif args.compare_labeled_only and args.adaptive_labels:
        out.append("note: --compare-labeled-only: not comparable with --adaptive-labels (the labeled items were "
                   "chosen, not drawn at random, so what they alone say is biased); not given")
    if getattr(args, "requirement", None) is not None and args.plot is None and args.report is None:
        out.append("note: --requirement is drawn in the figures (--plot, --report); `spe threshold` chooses a "
                   "threshold for it")
    return out


def score_type_read(scores, score_type):
    """How ``spe.evaluate`` reads these scores (N,) under ``--score-type``: "probability", "log-odds" or
    "decision" (:func:`spe.models.mixture.resolve_score_reading`), for the commands that print it beside their
    own answer."""
    from ..models.mixture import resolve_score_reading

    return resolve_score_reading(scores, score_type)[0]


def threshold_choice_lines(choice, units, shown=lambda t: f"{t:.6g}"):
    """The lines of ``spe threshold``'s summary that state its choice (a :class:`spe.evaluation.ThresholdChoice`):
    the best threshold and the probability it meets the requirement, and the thresholds that meet it with
    probability ≥ 0.5 — or that none is likely to. ``units`` names the threshold's units ("score units", "the
    probability of CLASS"); ``shown`` writes a threshold."""
    import numpy as np

    curve = choice.curve
    ok = curve.threshold[curve.probability >= 0.5]
    if not choice.likely:
        return [f"no threshold is likely to meet the requirement: the best, {shown(choice.threshold)} ({units}), "
                f"meets it with probability {choice.probability:.3f}"]
    between = np.sum((curve.threshold >= ok.min()) & (curve.threshold <= ok.max()))
    return [f"best threshold: {shown(choice.threshold)} ({units}); probability the requirement is met: "
            f"{choice.probability:.3f}",
            f"thresholds meeting it with probability >= 0.5: {shown(ok.min())} to {shown(ok.max())}"
            + ("" if ok.size == between else " (not every threshold in between)")]


def rounded_down(value, digits=6):
    """``value`` > 0 written with ``digits`` significant digits, rounded down: a threshold copied from the summary
    (items at or above it are flagged) then keeps the item it was taken from."""
    from decimal import ROUND_FLOOR, Decimal

    text = f"{value:.{digits}g}"
    if float(text) <= value:
        return text
    x = Decimal(float(value))
    return f"{float(x.quantize(Decimal(1).scaleb(x.adjusted() - digits + 1), rounding=ROUND_FLOOR)):.{digits}g}"


def few_items_note(choice, min_recall):
    """A note when no recall was asked for and the surest threshold keeps few items: [] or [str]."""
    if min_recall == 0 and choice.metrics["recall"].mean < 0.1:
        return ["note: with no recall requirement the surest threshold keeps very few items; "
                "add --min-recall to ask for the recall you need"]
    return []

