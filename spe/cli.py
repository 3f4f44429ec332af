"""The ``spe`` command (DESIGN.md, CLI contract).

Parses, reads and validates the files, calls :func:`spe.evaluate`, prints
the summary and writes ``Evaluation.to_dict()`` and figures. It does no
statistics of its own. Exit status: 0 success, 2 bad input, 1 otherwise.
Outputs are rendered in memory first and then each written to a temporary
file and moved into place, so a failure leaves no partial file.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
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

example:
  spe estimate examples/digits_scores.csv --labels examples/digits_labels.csv \\
      --json out.json --plot pr.png --seed 0
"""


def build_parser():
    """The argparse parser of the ``spe`` command."""
    from . import __version__

    parser = argparse.ArgumentParser(
        prog="spe",
        description="spe: Bayesian semisupervised performance evaluation of classifiers.",
    )
    parser.add_argument("--version", action="version", version=f"spe {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    est = sub.add_parser(
        "estimate",
        help="estimate PR/ROC curves, average precision and prevalence from scores and a few labels",
        description=ESTIMATE_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    est.add_argument("scores", metavar="SCORES.csv", help="scores of all items (column 'score', optional 'id')")
    est.add_argument("--labels", metavar="LABELS.csv", help="known labels (columns 'id,label'); omit for none")
    est.add_argument("--json", metavar="OUT.json", help="write the full result as JSON")
    est.add_argument("--plot", metavar="OUT.png", help="write the PR curve with its band as an image")
    est.add_argument("--items", metavar="OUT.csv",
                     help="write per-item probabilities p(y=1 | scores, labels) (id, score, probability)")
    est.add_argument("--families", default="auto", metavar="auto|NEG,POS",
                     help="class-conditional families, e.g. 'gamma,truncnorm'; 'auto' (default) picks the best "
                          "pair by BIC (beta only for probability scores; for other scores also truncnorm2 for the "
                          "negatives). Known: truncnorm, gamma, asymlaplace, beta, truncnorm2 (two truncated normals)")
    est.add_argument("--draws", type=int, default=1000, metavar="M", help="posterior draws (default 1000)")
    est.add_argument("--level", type=float, default=0.9, help="credible level of bands and intervals (default 0.9)")
    est.add_argument("--seed", type=int, default=None, help="random seed; the same seed gives the same numbers")
    est.add_argument("--inference", default="importance", choices=["importance"],
                     help="posterior sampler (default: importance sampling around the MAP)")
    est.add_argument("--score-model", default="average",
                     choices=["average", "mixture", "hybrid", "calibrated", "platt"],
                     help="model of p(y=1 | score): 'mixture' is the paper's SPE alone; 'hybrid' recalibrates the "
                          "mixture's log-odds, 'calibrated' reads the score as log-odds up to a shift and slope, "
                          "'platt' is Bayesian Platt scaling; 'average' (default) weighs all four by how well they "
                          "predicted the labels")
    est.add_argument("--score-type", default="auto", choices=["auto", "probability", "log-odds", "decision"],
                     help="what the scores are: 'probability' (in [0, 1]), 'log-odds' (e.g. a logistic "
                          "regression's decision function) or 'decision' (a score of unknown scale, e.g. an SVM "
                          "margin: the 'calibrated' model is then left out); 'auto' (default) = probability when "
                          "all scores are in [0, 1], else log-odds, a reading the labels' evidence weighs")
    est.add_argument("--no-tempering", action="store_true",
                     help="keep the paper's mixture posterior even when its densities fail the check against the "
                          "score histogram (by default a misfit mixture's unlabeled scores are down-weighted so "
                          "its bands widen)")
    est.add_argument("--no-monotone", action="store_true",
                     help="use the paper's mixture as it is: its Bayes rule for p(y=1 | score) and its identification "
                          "(positive mean above the negative mean). By default the classifier is assumed to rank "
                          "items sensibly: p(y=1 | score) is made non-decreasing, the top scores may not be "
                          "the negative family's tail nor the bottom scores the positive family's")
    est.add_argument("--score-space", default="linear", choices=["linear", "logit", "auto"],
                     help="where the families model the scores: 'linear' (default) as they are, 'logit' for "
                          "probabilities, 'auto' = logit when all scores are in [0, 1]; results are in score "
                          "units either way")
    est.add_argument("--score-column", default="score", help="name of the score column (default 'score')")
    return parser


def _atomic_write(path, data: bytes):
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _check_output(path, flag):
    from .exceptions import SpeInputError

    parent = Path(path).resolve().parent
    if not parent.is_dir():
        raise SpeInputError(f"{flag}: directory {parent} does not exist")


def _estimate(args):
    from .api import evaluate
    from .io import read_labels, read_scores

    for path, flag in ((args.json, "--json"), (args.plot, "--plot"), (args.items, "--items")):
        if path:
            _check_output(path, flag)
    scores = read_scores(args.scores, score_column=args.score_column)
    labels = None
    if args.labels:
        labels = read_labels(args.labels, scores)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = evaluate(scores.scores, labels, families=args.families, draws=args.draws, level=args.level,
                      inference=args.inference, rng=args.seed, score_space=args.score_space,
                      score_model=args.score_model, score_type=args.score_type, temper=not args.no_tempering,
                      monotone=not args.no_monotone)
    outputs = {}
    if args.json:
        outputs[args.json] = (json.dumps(ev.to_dict(), indent=1) + "\n").encode()
    if args.items:
        import pandas as pd

        ids = scores.ids if scores.ids is not None else range(ev.n_items)
        buf = io.StringIO()
        pd.DataFrame({"id": ids, "score": scores.scores, "probability": ev.item_probabilities()}).to_csv(
            buf, index=False, float_format="%.6g")
        outputs[args.items] = buf.getvalue().encode()
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from .plot import plot_pr_curve

        ax = plot_pr_curve(ev)
        buf = io.BytesIO()
        fmt = Path(args.plot).suffix.lstrip(".").lower() or "png"
        ax.figure.savefig(buf, format=fmt, dpi=150)
        plt.close(ax.figure)
        outputs[args.plot] = buf.getvalue()
    for path, data in outputs.items():
        _atomic_write(path, data)
    print(ev.summary())
    for path in outputs:
        print(f"wrote {path}")
    return 0


def main(argv=None):
    """Run the ``spe`` command; returns the exit status (0, 1 or 2)."""
    from .exceptions import SpeInputError

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:
        return int(e.code or 0)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "estimate":
            return _estimate(args)
    except SpeInputError as e:
        print(f"spe: error: {e}", file=sys.stderr)
        return 2
    except ValueError as e:  # bad option values (families, draws, level)
        print(f"spe: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001
        print(f"spe: failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 1


if __name__ == "__main__":
    sys.exit(main())


def console_main():
    """Entry point of the installed ``spe`` script."""
    sys.exit(main())
