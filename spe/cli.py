"""The ``spe`` command (DESIGN.md, CLI contract).

Parses, reads and validates the files, calls :func:`spe.evaluate`, prints
the summary and writes ``Evaluation.to_dict()`` and figures. It does no
statistics of its own. Every output path is checked before the work starts
and outputs are written all or none (:mod:`spe.output`). Exit status: 0
success, 2 bad input (one message naming the option, or the file, row and
column), 130 interrupted, 1 otherwise; never a traceback unless
``SPE_DEBUG=1``.
"""

from __future__ import annotations

import argparse
import io
import json
import math
import os
import sys
import warnings
from pathlib import Path

__all__ = ["main", "build_parser"]

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

--report DIR writes every figure (score histogram with the fitted
class-conditional densities, precision and recall against the threshold, PR
and ROC curves with bands; with --requirement the probability that each
threshold meets it; with --truth the true curves and a reliability diagram)
next to the JSON, the item probabilities and a README.md that lists them.

Every option and output path is checked before the work starts; outputs are
written all or none. Exit status: 0 an answer (degenerate data get one, with
a warning saying what the numbers then mean), 2 bad input or options (one
line naming the file, row and column, or the option; nothing written), 130
interrupted, 1 anything else. The summary and the JSON give the seed used.

examples:
  spe estimate examples/digits_scores.csv --labels examples/digits_labels.csv \\
      --json out.json --plot pr.png --seed 0
  spe estimate examples/digits_scores.csv --labels examples/digits_labels.csv \\
      --report digits_report --requirement 0.9,0.5 --truth examples/digits_truth.csv
"""


THRESHOLD_HELP = """\
Choose a decision threshold that meets a precision/recall requirement, and
say how sure we are (Welinder et al. 2013, §4.4, Fig. 4).

For every threshold t (an item is predicted positive when its score is
>= t), the posterior probability p(C(t)) that precision(t) >= MIN_PRECISION
and recall(t) >= MIN_RECALL on this data set is computed from the same
posterior draws as `spe estimate`. Prints the threshold (in score units)
that maximises it, that probability, precision, recall, F1, accuracy, false
positive rate and the confusion counts there with credible intervals, and the
range of thresholds that meet the requirement with probability >= 0.5 —
or says plainly that no threshold is likely to meet it.

Inputs as for `spe estimate` (see `spe estimate --help`).

example:
  spe threshold examples/digits_scores.csv --labels examples/digits_labels.csv \\
      --min-precision 0.9 --min-recall 0.5 --seed 0
"""


FAMILIES_HELP = """\
Which class-conditional families fit these scores: the SPE paper's Table 1
(Welinder et al. 2013, §4.2) for your data.

Per class, every family is ranked — by the held-out log-likelihood of the
labeled items of that class (5-fold) when the class has at least 10 labeled
items, otherwise by the BIC of its fit to the class's share of all scores
under the best default mixture. Then every (negative, positive) pair is
fitted as a mixture to all scores and labels and ranked by BIC, next to the
pair that --families auto (the default of `spe estimate`) chooses. Any pair
can then be passed to `spe estimate --families NEG,POS`.

Inputs as for `spe estimate`. Takes longer than an estimate (every pair of
every family is fitted).

example:
  spe families examples/digits_scores.csv --labels examples/digits_labels.csv
"""


def _add_input_options(p):
    """The input options every command shares: the files and how to read the scores."""
    p.add_argument("scores", metavar="SCORES.csv",
                   help="scores of all items (column 'score', optional 'id'); '-' reads them from standard input")
    p.add_argument("--labels", metavar="LABELS.csv", action=_Once,
                   help="known labels (columns 'id,label'); omit for none")
    p.add_argument("--score-type", default="auto", choices=_choices("score_type"),
                   help="what the scores are: 'probability' (in [0, 1]), 'log-odds' (e.g. a logistic "
                        "regression's decision function) or 'decision' (a score of unknown scale, e.g. an SVM "
                        "margin: the 'calibrated' model is then left out); 'auto' (default) = probability when "
                        "all scores are in [0, 1], else log-odds, a reading the labels' evidence weighs")
    p.add_argument("--score-space", default="linear", choices=_choices("score_space"),
                   help="where the families model the scores: 'linear' (default) as they are, 'logit' for "
                        "probabilities, 'auto' = logit when all scores are in [0, 1]; results are in score "
                        "units either way")
    p.add_argument("--score-column", default="score", help="name of the score column (default 'score')")


def _add_model_options(p):
    """The options every fitting command shares: inputs, score model, sampler, randomness."""
    _add_input_options(p)
    p.add_argument("--reference", metavar="REF.csv", action=_Once,
                   help="a reference set: the same classifier's scores with every label (columns 'score' "
                        "(or --score-column) and 'label'), e.g. its validation data. Its calibration map, carried "
                        "to this pool under a prior shift (the prevalence may differ), joins the average with "
                        "prior weight 1/2; if this pool's labels disagree with it, it loses weight and the summary "
                        "says so")
    p.add_argument("--families", default="auto", metavar="auto|all|NEG,POS",
                   help="class-conditional families, e.g. 'gamma,truncnorm'; 'auto' (default) picks the best "
                        "pair by BIC among truncnorm, gamma, asymlaplace and beta (beta only for probability scores; "
                        "for other scores also truncnorm2 for the negatives) and the pairs of the families that fit "
                        "each class best on their soft assignment; 'all' fits every pair of every family (slower; "
                        "see `spe families`). Known: " + ", ".join(_family_names()))
    p.add_argument("--draws", type=_draws, default=1000, metavar="M",
                   help="posterior draws, at least 100 (default 1000; memory grows with M, about 0.13 MB per draw: "
                        "a run that would not fit in the available memory is refused before it starts)")
    p.add_argument("--level", type=_level, default=0.9,
                   help="credible level of bands and intervals, in (0, 1) (default 0.9)")
    p.add_argument("--seed", type=_seed, default=None, action=_Once,
                   help="random seed (a non-negative integer); the same seed gives the same numbers. Without it a "
                        "seed is drawn, and the summary and the JSON say which, so any run can be repeated")
    p.add_argument("--inference", default="importance", choices=_choices("inference"),
                   help="sampler of the SPE mixture's posterior: importance sampling around the MAP (default, "
                        "fast) or NUTS with PyMC on the same posterior (the reference; minutes, with a progress "
                        "bar)")
    models = _score_models()
    p.add_argument("--score-model", default="average", choices=["average", *models],
                   help="model of p(y=1 | score): "
                        + "; ".join(f"'{name}': {m.about}" for name, m in models.items()).replace("%", "%%")
                        + "; 'average' (default) weighs them all by how well they predicted the labels")
    p.add_argument("--no-tempering", action="store_true",
                   help="keep the paper's mixture posterior even when its densities fail the check against the "
                        "score histogram (by default a misfit mixture's unlabeled scores are down-weighted so "
                        "its bands widen)")
    p.add_argument("--no-monotone", action="store_true",
                   help="use the paper's mixture as it is: its Bayes rule for p(y=1 | score) and its identification "
                        "(positive mean above the negative mean). By default the classifier is assumed to rank "
                        "items sensibly: p(y=1 | score) is made non-decreasing, the top scores may not be "
                        "the negative family's tail nor the bottom scores the positive family's")
    p.add_argument("--performance", default="sample", choices=_choices("performance"),
                   help="'sample' (default): performance on these N items, the unknown labels drawn from the "
                        "posterior; 'population': performance from the model's parameters alone, as on an "
                        "unlimited pool with the same score distribution (paper §3)")
    p.add_argument("--score-bins", type=_bins("score_bins"), default="auto", metavar="auto|B|exact",
                   help="draw the unknown labels per score bin instead of per item (at most B bins, placed at "
                        "equal steps of expected positives and of expected negatives; B at least "
                        f"{_min_bins('score_bins')}): 'auto' (default) uses 10,000 above 50,000 distinct scores; "
                        "'exact' never bins")
    p.add_argument("--likelihood-bins", type=_bins("likelihood_bins"), default="auto", metavar="auto|B|exact",
                   help="let the unlabeled scores into the mixture's likelihood as a histogram of about B bins "
                        f"(at least {_min_bins('likelihood_bins')}; exact likelihood of the bin counts, cost "
                        "independent of N): 'auto' (default) uses 1,024 above 50,000 distinct scores; 'exact' uses "
                        "every score's density")
    p.add_argument("--workers", type=_workers, default=None, metavar="auto|K",
                   help="cores to use: the candidate family pairs are fitted in K processes (Linux; elsewhere one "
                        "by one) and the labels drawn in K threads; the result is the same for any K. 'auto' "
                        "(default): all usable cores, at most 8; K above the usable cores is capped, with a note; "
                        "use 1 when running many estimates side by side")
    p.add_argument("--compare-labeled-only", action="store_true",
                   help="also give what the labeled items alone say (the naive estimate; Jeffreys intervals for "
                        "proportions, bootstrap otherwise), side by side; in the JSON under 'labeled_only'")


def _min_bins(name):
    from .api import MIN_BINS

    return MIN_BINS[name]


def _family_names():
    from .families import family_names

    return family_names()


def _choices(option):
    """The values an option takes, from where the library defines them (one list, not a copy here)."""
    from .evaluation import PERFORMANCE_KINDS
    from .inference import INFERENCE_METHODS
    from .models.mixture import SCORE_SPACES, SCORE_TYPES

    return list({"score_type": SCORE_TYPES, "score_space": SCORE_SPACES, "inference": INFERENCE_METHODS,
                 "performance": PERFORMANCE_KINDS}[option])


def _score_models():
    """The registered score models by name (:mod:`spe.models.registry`)."""
    from .models.registry import REGISTRY

    return REGISTRY


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad option said in one line (and where to read more) instead of the whole usage."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _command(sub, name, help_line, description):
    """A subcommand whose --help shows ``description`` as written (examples keep their line breaks)."""
    return sub.add_parser(name, help=help_line, description=description,
                          formatter_class=argparse.RawDescriptionHelpFormatter)


def build_parser():
    """The argparse parser of the ``spe`` command."""
    from . import __version__

    parser = _Parser(
        prog="spe",
        description="spe: Bayesian semisupervised performance evaluation of classifiers.",
    )
    parser.add_argument("--version", action="version", version=f"spe {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    est = _command(sub, "estimate",
                   "estimate PR/ROC curves, average precision and prevalence from scores and a few labels",
                   ESTIMATE_HELP)
    _add_model_options(est)
    est.add_argument("--json", metavar="OUT.json", action=_Once,
                     help="write the full result as JSON ('-': to standard output, and the summary to standard error)")
    est.add_argument("--plot", metavar="OUT.png", action=_Once, help="write the PR curve with its band as an image")
    est.add_argument("--items", metavar="OUT.csv", action=_Once,
                     help="write per-item probabilities p(y=1 | scores, labels) (id, score, probability; labeled "
                          "items keep their label; '-': to standard output)")
    est.add_argument("--threshold", type=_finite, action="append", metavar="T",
                     help="also give precision, recall, F1, accuracy, false positive rate and the confusion counts "
                          "at threshold T (score units; items scored >= T are predicted positive); repeatable")
    est.add_argument("--report", metavar="DIR", action=_Once,
                     help="write every figure (PNG) with the JSON, the item probabilities, the summary and a "
                          "README.md listing them to directory DIR (created if missing)")
    est.add_argument("--requirement", metavar="P,R", type=_requirement,
                     help="a precision/recall requirement, e.g. 0.9,0.5: drawn as a box on the PR figure, and "
                          "--report adds p(requirement met) against the threshold (paper Fig. 4)")
    est.add_argument("--truth", metavar="TRUTH.csv", action=_Once,
                     help="every item's true label (columns as LABELS.csv), when checking the method on a fully "
                          "labeled set: the figures add the true curves and --report the reliability diagram")
    thr = _command(sub, "threshold",
                   "the threshold most likely to meet a precision/recall requirement, and how likely",
                   THRESHOLD_HELP)
    _add_model_options(thr)
    thr.add_argument("--min-precision", type=_unit, default=0.0, metavar="P",
                     help="required precision, in [0, 1] (default 0)")
    thr.add_argument("--min-recall", type=_unit, default=0.0, metavar="R",
                     help="required recall, in [0, 1] (default 0)")
    thr.add_argument("--json", metavar="OUT.json", action=_Once,
                     help="write the choice, the metrics there and p(requirement met) at every threshold as JSON "
                          "('-': to standard output)")
    thr.add_argument("--plot", metavar="OUT.png", action=_Once,
                     help="write a figure: p(requirement met) against the threshold, and the PR curve with its band "
                          "and the requirement drawn as a box (paper Fig. 4)")
    fam = _command(sub, "families",
                   "rank the class-conditional families for these scores, per class and in pairs (paper Table 1)",
                   FAMILIES_HELP)
    _add_input_options(fam)
    fam.add_argument("--top", type=_positive, default=10, metavar="K", help="pairs to print (default 10; JSON has all)")
    fam.add_argument("--seed", type=_seed, default=None, action=_Once,
                     help="random seed of the held-out folds (a non-negative integer; drawn and printed if omitted)")
    fam.add_argument("--json", metavar="OUT.json", action=_Once,
                     help="write the whole table as JSON ('-': to standard output)")
    fam.add_argument("--workers", type=_workers, default=None, metavar="auto|K",
                     help="processes that fit the family pairs in parallel (Linux; default 'auto': all usable "
                          "cores, at most 8)")
    return parser


def _bins(name):
    """The parser of ``--score-bins`` / ``--likelihood-bins``: "auto", "exact" (None) or an integer ≥ the minimum."""
    def parse(text):
        if text in ("auto", "exact"):
            return None if text == "exact" else "auto"
        low = _min_bins(name)
        try:
            value = int(text)
        except ValueError:
            value = -1
        if value < low:
            raise argparse.ArgumentTypeError(f"expected 'auto', 'exact' or an integer ≥ {low}, got {text!r}")
        return value

    return parse


def _workers(text):
    """``--workers``: "auto" (None) or an integer ≥ 1."""
    if text == "auto":
        return None
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected 'auto' or an integer ≥ 1, got {text!r}")
    return value


def _integer(text, low, what):
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or value < low:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value


def _draws(text):
    from .inputs import MIN_DRAWS

    return _integer(text, MIN_DRAWS, f"an integer ≥ {MIN_DRAWS}")


def _seed(text):
    return _integer(text, 0, "a non-negative integer")


def _positive(text):
    return _integer(text, 1, "a positive integer")


def _finite(text, what="a finite number (score units)"):
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value


def _unit(text):
    value = _finite(text, "a number in [0, 1]")
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a number in [0, 1], got {text!r}")
    return value


def _level(text):
    value = _finite(text, "a number strictly between 0 and 1")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a number strictly between 0 and 1, got {text!r}")
    return value


class _Once(argparse.Action):
    """An option that may be given once: a second ``--json a --json b`` is an error, not a silent choice."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, f"_{self.dest}_seen", False):
            parser.error(f"argument {option_string}: given twice")
        setattr(namespace, f"_{self.dest}_seen", True)
        setattr(namespace, self.dest, values)


#: Options whose value may be a negative number in exponent form ("-1e-05"), which argparse takes for an option.
_NUMBER_OPTIONS = ("--threshold", "--requirement", "--min-precision", "--min-recall", "--level", "--seed",
                   "--draws", "--score-bins", "--likelihood-bins", "--workers", "--top")


def _join_negative_numbers(argv):
    """``--threshold -1e-05`` → ``--threshold=-1e-05`` (argparse reads only plain negative numbers as values)."""
    out, i = [], 0
    while i < len(argv):
        token = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if token in _NUMBER_OPTIONS and nxt is not None and nxt.startswith("-") and _looks_numeric(nxt):
            out.append(f"{token}={nxt}")
            i += 2
            continue
        out.append(token)
        i += 1
    return out


def _looks_numeric(text):
    try:
        float(text.split(",")[0])
    except ValueError:
        return False
    return True


def _requirement(text):
    """Parse ``--requirement P,R`` into (min_precision, min_recall), both in [0, 1]."""
    try:
        p, r = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MIN_PRECISION,MIN_RECALL such as 0.9,0.5, got {text!r}") from None
    if not (0 <= p <= 1 and 0 <= r <= 1):  # NaN fails too
        raise argparse.ArgumentTypeError(f"precision and recall must be in [0, 1], got {text!r}")
    return p, r


def _report_files(ev, scores, base, truth, requirement, perf, json_bytes, items_bytes, summary):
    """The files of ``--report``: the figures as PNG, estimate.json, items.csv, summary.txt and README.md."""
    from .plot import report_figures

    files = {}
    index = [f"# spe estimate: {Path(scores.path).name}", "",
             "```", summary.rstrip(), "```", ""]
    for name, (fig, caption) in report_figures(ev, labeled_only=base, truth=truth, requirement=requirement,
                                               performance=perf).items():
        files[f"{name}.png"] = _figure_bytes(fig, f"{name}.png")
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


def _plan_outputs(args, *specs):
    """Check the outputs given on the command line before any work (:func:`spe.output.check_outputs`):
    ``specs`` are (flag, path or None, may go to stdout); ``--report`` is added when the command has it."""
    from .output import Output, check_outputs

    outputs = [Output(flag, path, stdout=stdout) for flag, path, stdout in specs if path is not None]
    if getattr(args, "plot", None) is not None:
        _check_figure_format(args.plot)
    if getattr(args, "report", None) is not None:
        outputs.append(Output("--report", args.report, directory=True, names=REPORT_NAMES))
    inputs = {"the scores file": args.scores, "the labels file": args.labels,
              "the truth file": getattr(args, "truth", None), "the reference file": getattr(args, "reference", None)}
    check_outputs(outputs, inputs)
    if getattr(args, "report", None) is not None:
        _check_report_directory(args.report)
    return {o.flag: o for o in outputs}


def _figure_format(path):
    """The image format of a figure file: its suffix, PNG without one."""
    return Path(path).suffix.lstrip(".").lower() or "png"


def _check_figure_format(path):
    """``--plot``'s suffix names a format matplotlib writes without more software (not PGF, which needs
    LaTeX)."""
    from matplotlib.backend_bases import FigureCanvasBase

    from .exceptions import SpeInputError

    known = sorted(set(FigureCanvasBase.get_supported_filetypes()) - {"pgf"})
    if _figure_format(path) not in known:
        raise SpeInputError(f"{path}: the suffix names no image format matplotlib writes; use one of "
                            f"{', '.join('.' + k for k in known)} (none: PNG)", argument="--plot")


def _check_report_directory(path):
    """``--report`` into an existing directory only when its files would not overwrite anything but an earlier
    report (a README.md of the user's is not replaced)."""
    from .exceptions import SpeInputError

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


def _stdout_taken(plan):
    return any(o.to_stdout for o in plan.values())


def _say(plan, text):
    """Print the human-readable text: on standard output, unless an output goes there."""
    print(text, file=sys.stderr if _stdout_taken(plan) else sys.stdout)


def _fit(args, scores=None):
    """Read the inputs (the scores unless given) and run :func:`spe.evaluate` with the shared options:
    (scores file, Evaluation)."""
    from .api import evaluate
    from .io import read_labels, read_reference, read_scores

    if scores is None:
        scores = read_scores(args.scores, score_column=args.score_column)
    labels = read_labels(args.labels, scores) if args.labels is not None else None
    reference = read_reference(args.reference, args.score_column) if args.reference is not None else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate(scores.scores, labels, families=args.families, draws=args.draws, level=args.level,
                      inference=args.inference, rng=args.seed, score_space=args.score_space,
                      score_model=args.score_model, score_type=args.score_type, temper=not args.no_tempering,
                      monotone=not args.no_monotone, progressbar=args.inference == "nuts" and sys.stderr.isatty(),
                      score_bins=args.score_bins, likelihood_bins=args.likelihood_bins, workers=args.workers,
                      reference=reference)
    return scores, ev


def _labeled_only(args, ev):
    """The labeled-only baseline for ``--compare-labeled-only`` (None without labels)."""
    import numpy as np

    from .baselines import labeled_only

    if not args.compare_labeled_only or ev.n_labeled == 0:  # without labels: said in the summary
        return None
    # its own stream, from the run's seed: the same seed repeats it too
    return labeled_only(ev.scores, ev.labeled_index, ev.labeled_value, level=ev.level,
                        rng=np.random.SeedSequence([ev.diagnostics["seed"], 1]))


def _fmt(v, width=0):
    return f"{v:{width}.3f}" if math.isfinite(v) else f"{'n/a':>{width}}"


def _interval_text(i):
    return f"{_fmt(i.mean)} [{_fmt(i.lo)}, {_fmt(i.hi)}]"


_METRIC_LABELS = {"precision": "precision", "recall": "recall", "f1": "F1", "accuracy": "accuracy",
                  "false_positive_rate": "false positive rate", "true_positives": "true positives",
                  "false_positives": "false positives", "true_negatives": "true negatives",
                  "false_negatives": "false negatives"}


def _metrics_lines(metrics, baseline=None, indent="    "):
    lines = []
    for name, label in _METRIC_LABELS.items():
        if name not in metrics:
            continue
        i = metrics[name]
        text = (f"{i.mean:.1f} [{i.lo:.1f}, {i.hi:.1f}]" if name.startswith(("true_", "false_n", "false_p")) and
                name != "false_positive_rate" else _interval_text(i))
        line = f"{indent}{label:<20s} {text}"
        if baseline is not None and name in baseline:
            line = f"{line:<60s} labeled only: {_interval_text(baseline[name])}"
        lines.append(line)
    return lines


def _comparison_lines(ev, base, level, performance):
    import numpy as np

    pct = f"{100 * level:g}%"
    lines = [f"labeled items only ({base.n_labeled} items; estimate [{pct} interval]) next to SPE:"]
    for name, label in (("prevalence", "prevalence"), ("average_precision", "average precision"),
                        ("roc_auc", "ROC AUC"), ("equal_error_rate", "equal error rate")):
        spe_i = getattr(ev, name)(level, performance)
        lines.append(f"  {label:<18s} SPE {_interval_text(spe_i):<28s} labeled only {_interval_text(getattr(base, name)(level))}")
    pr, bpr = ev.pr_curve(level, performance), base.pr_curve(level)
    for r in (0.25, 0.5, 0.75):
        g = int(np.argmin(np.abs(pr.x - r)))
        lines.append(f"  precision at recall {pr.x[g]:.2f}: SPE {_fmt(pr.median[g])} [{_fmt(pr.lo[g])}, "
                     f"{_fmt(pr.hi[g])}]   labeled only {_fmt(bpr.median[g])} [{_fmt(bpr.lo[g])}, {_fmt(bpr.hi[g])}]")
    return lines


def _estimate(args):
    from .io import read_scores, read_truth

    plan = _plan_outputs(args, ("--json", args.json, True), ("--items", args.items, True),
                         ("--plot", args.plot, False))
    scores = read_scores(args.scores, score_column=args.score_column)
    truth = read_truth(args.truth, scores) if args.truth is not None else None  # checked before the fit
    scores, ev = _fit(args, scores)
    base = _labeled_only(args, ev)
    perf = args.performance
    result, at = _estimate_result(args, ev, base)
    true = None
    if truth is not None:
        from .baselines import true_performance
        from .output import jsonable

        true = true_performance(ev.scores, truth)
        result["truth"] = jsonable(true)
    json_bytes = (json.dumps(result, indent=1) + "\n").encode()
    items_bytes = _items_csv(scores, ev) if args.items is not None or args.report is not None else None
    files = {"--json": json_bytes, "--items": items_bytes}
    files = [(plan[flag], data) for flag, data in files.items() if flag in plan]
    if args.plot is not None or args.report is not None:
        import matplotlib

        matplotlib.use("Agg")
    if args.plot is not None:
        files.append((plan["--plot"], _pr_figure(args, ev, base, truth)))
    summary = _estimate_summary(args, ev, base, at, perf, true)
    directories = []
    if args.report is not None:
        directories.append((plan["--report"], _report_files(ev, scores, base, truth, args.requirement, perf,
                                                              json_bytes, items_bytes, summary)))
    _finish(plan, summary, files, directories)
    return 0


def _finish(plan, text, files, directories=()):
    """Write every output (all or none), then print the text and what was written."""
    from .output import write_outputs

    written = write_outputs(files, directories)
    _say(plan, text.rstrip("\n"))
    for line in written:
        _say(plan, line)


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


def _items_csv(scores, ev):
    """``--items``: id, score exactly as read, and p(y = 1 | scores, labels) to 6 significant digits."""
    import pandas as pd

    ids = scores.ids if scores.ids is not None else range(ev.n_items)
    buf = io.StringIO()
    # formatted here, which is also faster than to_csv's float_format
    pd.DataFrame({"id": ids, "score": list(map(repr, scores.scores.tolist())),
                  "probability": list(map("{:.6g}".format, ev.item_probabilities().tolist()))}).to_csv(
        buf, index=False)
    return buf.getvalue().encode()


def _pr_figure(args, ev, base, truth):
    from .baselines import pr_curve_from_labels
    from .plot import plot_pr_curve

    ax = plot_pr_curve(ev, labeled_only=None if base is None else base.pr_curve().median,
                       truth=None if truth is None else pr_curve_from_labels(ev.scores, truth),
                       requirement=args.requirement)
    return _figure_bytes(ax.figure, args.plot)


def _notes(args, ev):
    """Notes on options that had nothing to act on."""
    out = []
    if args.compare_labeled_only and ev.n_labeled == 0:
        out.append("note: --compare-labeled-only: there are no labeled items to compare with")
    if getattr(args, "requirement", None) is not None and args.plot is None and args.report is None:
        out.append("note: --requirement is drawn in the figures (--plot, --report); `spe threshold` chooses a "
                   "threshold for it")
    return out


def _estimate_summary(args, ev, base, at, perf, true):
    """The text the command prints; ``true``: :func:`spe.baselines.true_performance` under ``--truth``, else None."""
    level = ev.level
    lines = [ev.summary(performance=perf)]
    if true is not None:
        lines.append(_truth_line(true))
    for t, m, b in at:
        lines.append(f"at threshold {t:g} ({perf} performance, posterior mean [{100 * level:g}% credible interval]):")
        lines.append("\n".join(_metrics_lines(m, b, indent="  ")))
    if base is not None:
        lines.append("\n".join(_comparison_lines(ev, base, level, perf)))
    lines += _notes(args, ev)
    return "\n".join(lines) + "\n"


def _truth_line(t):
    """``--truth``: the true values of the summary's estimates, to compare."""
    return (f"truth (every label known): prevalence {t['prevalence']:.3f}, average precision "
            f"{_fmt(t['average_precision'])}, ROC AUC {_fmt(t['roc_auc'])}")


def _num_dict(interval):
    from .output import jsonable

    return jsonable(interval.to_dict())


def _figure_bytes(fig, path):
    """Render a matplotlib figure in memory in the format of ``path``'s suffix (PNG by default), and close it."""
    import matplotlib.pyplot as plt

    buf = io.BytesIO()
    fig.savefig(buf, format=_figure_format(path), dpi=150)
    plt.close(fig)
    return buf.getvalue()


def _threshold(args):
    plan = _plan_outputs(args, ("--json", args.json, True), ("--plot", args.plot, False))
    scores, ev = _fit(args)
    base = _labeled_only(args, ev)
    perf = args.performance
    choice = ev.best_threshold(args.min_precision, args.min_recall, performance=perf)
    result = {"n_items": ev.n_items, "n_labeled": ev.n_labeled, "level": ev.level, **choice.to_dict(),
              "seed": ev.diagnostics["seed"], "warnings": list(ev.warnings)}
    bchoice = None
    if base is not None:
        bchoice = base.best_threshold(args.min_precision, args.min_recall)
        result["labeled_only"] = bchoice.to_dict()
    files = []
    if args.json is not None:
        files.append((plan["--json"], (json.dumps(result, indent=1) + "\n").encode()))
    if args.plot is not None:
        files.append((plan["--plot"], _threshold_figure(args, ev, base)))
    _finish(plan, "\n".join(_threshold_lines(args, ev, choice, base, bchoice)), files)
    return 0


def _threshold_figure(args, ev, base):
    """``spe threshold --plot``: p(requirement met) against the threshold, and the PR curve with the requirement
    (paper Fig. 4), as image bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plot import plot_pr_curve, plot_threshold_probability

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
    plot_threshold_probability(ev, axes[0], min_precision=args.min_precision, min_recall=args.min_recall,
                               performance=args.performance)
    plot_pr_curve(ev, axes[1], requirement=(args.min_precision, args.min_recall),
                  labeled_only=None if base is None else base.pr_curve().median)
    return _figure_bytes(fig, args.plot)


def _threshold_lines(args, ev, choice, base, bchoice):
    """The summary ``spe threshold`` prints."""
    import numpy as np

    n_pos = int(np.sum(ev.labeled_value == 1))
    pct = f"{100 * ev.level:g}%"
    lines = [
        f"spe: {ev.n_items} items, {ev.n_labeled} labeled ({n_pos} positive, {ev.n_labeled - n_pos} negative)",
        f"requirement: precision >= {args.min_precision:g} and recall >= {args.min_recall:g} "
        f"({args.performance} performance; an item is predicted positive when its score is >= the threshold)",
    ]
    curve = choice.curve
    ok = curve.threshold[curve.probability >= 0.5]
    if choice.likely:
        lines.append(f"best threshold: {choice.threshold:.6g} (score units); probability the requirement is met: "
                     f"{choice.probability:.3f}")
        lines.append(f"thresholds meeting it with probability >= 0.5: {ok.min():.6g} to {ok.max():.6g}"
                     + ("" if ok.size == np.sum((curve.threshold >= ok.min()) & (curve.threshold <= ok.max()))
                        else " (not every threshold in between)"))
    else:
        lines.append(f"no threshold is likely to meet the requirement: the best, {choice.threshold:.6g} "
                     f"(score units), meets it with probability {choice.probability:.3f}")
    if args.min_recall == 0 and choice.metrics["recall"].mean < 0.1:
        lines.append("note: with no recall requirement the surest threshold keeps very few items; "
                     "add --min-recall to ask for the recall you need")
    lines.append(f"at {choice.threshold:.6g} (posterior mean [{pct} credible interval]):")
    lines += _metrics_lines(choice.metrics, None if base is None else base.metrics_at(choice.threshold))
    if bchoice is not None:
        lines.append(f"labeled items only would pick {bchoice.threshold:.6g} (requirement met in "
                     f"{bchoice.probability:.3f} of bootstrap resamples of the {base.n_labeled} labeled items)")
    seed = ev.diagnostics["seed"]
    lines.append(f"seed: {seed} (--seed {seed} repeats this run)")
    lines += _notes(args, ev)
    lines += [f"warning: {w}" for w in ev.warnings]
    lines += [f"note: {n}" for n in ev.diagnostics.get("notes", [])]
    return lines


def _families(args):
    from .exceptions import MixtureFitError
    from .inputs import seed_of
    from .io import read_labels, read_scores
    from .ranking import family_table

    plan = _plan_outputs(args, ("--json", args.json, True))
    scores = read_scores(args.scores, score_column=args.score_column)
    labels = read_labels(args.labels, scores) if args.labels is not None else None
    seed = seed_of(args.seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            table = family_table(scores.scores, labels, score_type=args.score_type, score_space=args.score_space,
                                 rng=seed, workers=args.workers)
            result, text = dict(table.to_dict(), warnings=[]), table.summary(top=args.top)
        except MixtureFitError as e:  # degenerate scores (all equal, say): an answer that says so
            result, text = _no_family_table(scores, labels, e)
    files = []
    if args.json is not None:
        files.append((plan["--json"], (json.dumps(dict(result, seed=seed), indent=1) + "\n").encode()))
    _finish(plan, text + f"\nseed: {seed} (--seed {seed} repeats the held-out folds)", files)
    return 0


def _no_family_table(scores, labels, error):
    """``spe families`` when no pair of families can be fitted: the JSON (empty rankings, a warning) and text."""
    n_labeled = 0 if labels is None else len(labels[0])
    distinct = len(set(scores.scores.tolist()))
    why = "all scores are equal" if distinct == 1 else f"only {distinct} distinct scores"
    warning = (f"no pair of class-conditional families can be fitted to these scores ({why}: {error}), so there "
               "is nothing to rank; `spe estimate` still answers for them")
    result = {"n_items": int(scores.scores.size), "n_labeled": n_labeled, "score_type": None, "classes": {},
              "pairs": [], "auto": None, "notes": [], "warnings": [warning]}
    return result, (f"spe families: {scores.scores.size} items, {n_labeled} labeled; no ranking\n"
                    f"warning: {warning}")


#: Python argument names whose command-line option is not ``--`` + the name with dashes.
_OPTION_OF = {"rng": "--seed", "labels": "--labels"}


def _error_text(error, args):
    """An input error's message, located by the command-line option (or the scores file) when it names a
    Python argument."""
    arg = error.argument
    if arg is None:
        return str(error)
    if arg == "scores":
        return error.located("<stdin>" if args.scores == "-" else args.scores)
    return error.located(arg if arg.startswith("-") else _OPTION_OF.get(arg, "--" + arg.replace("_", "-")))


def _run(args):
    if args.command == "estimate":
        return _estimate(args)
    if args.command == "threshold":
        return _threshold(args)
    return _families(args)


def main(argv=None):
    """Run the ``spe`` command; returns the exit status.

    0: success; 2: bad input or options (one message on standard error,
    naming the option, or the file, row and column; nothing written);
    130: interrupted (Ctrl-C; one line, nothing written); 1: anything else
    (one line; ``SPE_DEBUG=1`` shows the traceback).
    """
    with _InterruptWatch() as watch:
        try:
            return _main(argv, watch)
        except KeyboardInterrupt:
            print("spe: interrupted", file=sys.stderr)
            return 130


class _InterruptWatch:
    """Records a Ctrl-C even when a library catches the KeyboardInterrupt and raises something else in its
    place (PyMC, interrupted while sampling, says "Not enough samples to build a trace")."""

    def __init__(self):
        self.interrupted = False
        self._previous = None

    def _handler(self, signum, frame):
        self.interrupted = True
        raise KeyboardInterrupt

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handler)
        return self

    def __exit__(self, *exc):
        import signal

        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)
        return False


def _main(argv, watch):
    from .exceptions import SpeInputError

    _tolerant_streams()
    parser = build_parser()
    try:
        args = parser.parse_args(_join_negative_numbers(sys.argv[1:] if argv is None else list(argv)))
    except SystemExit as e:
        return int(e.code or 0)
    if args.command is None:
        print("spe: error: name a command: estimate, threshold or families (see spe --help)", file=sys.stderr)
        return 2
    try:
        return _run(args)
    except SpeInputError as e:
        print(f"spe: error: {_error_text(e, args)}", file=sys.stderr)
        return 2
    except MemoryError:
        print("spe: failed: out of memory; try fewer --draws, or --score-bins / --likelihood-bins for many "
              "items", file=sys.stderr)
        return 1
    except BrokenPipeError:
        _silence_stdout()
        return 1
    except Exception as e:  # noqa: BLE001
        if watch.interrupted:
            raise KeyboardInterrupt from None
        if os.environ.get("SPE_DEBUG"):
            raise
        print(f"spe: internal error: {type(e).__name__}: {' '.join(str(e).split())} (please report it; "
              "SPE_DEBUG=1 shows where)", file=sys.stderr)
        return 1


def _tolerant_streams():
    """Text that the console's encoding cannot show (the k̂ of the summary on an ASCII terminal) is escaped,
    not an error after the work is done."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass


def _silence_stdout():
    """After the reader of standard output went away (``spe ... | head``): no error at exit from flushing it."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def console_main():
    """Entry point of the installed ``spe`` script (and ``python -m spe``).

    Ctrl-C, even while the heavy modules are imported, exits 130 with one
    line: through ``os._exit``, because an interrupt that arrived inside an
    import makes the interpreter kill itself with SIGINT at a normal exit
    (status −2 instead of 130). Once the outcome is decided, Ctrl-C is
    ignored, so that one arriving while the interpreter shuts down does not
    turn a finished run into status −2.
    """
    import signal

    try:
        code = main()
    except KeyboardInterrupt:
        print("spe: interrupted", file=sys.stderr)
        code = 130
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the outcome is decided: a late Ctrl-C must not change it
    if code == 130:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(130)
    sys.exit(code)


if __name__ == "__main__":
    console_main()
