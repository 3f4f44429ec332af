"""``spe threshold``: the threshold most likely to meet a precision/recall requirement, and how likely (§4.4)."""

from __future__ import annotations

from ..display import score_type_lines
from .classes import add_class_options, class_columns, run_class_threshold
from .common import (few_items_note, figure_bytes, finish, fit, json_bytes, labeled_only_baseline, metrics_lines,
                     notes, plan_outputs, rounded_down, threshold_choice_lines)
from .options import Once, add_model_options, unit
from .registry import Command, register

THRESHOLD_HELP = """\
Choose a decision threshold that meets a precision/recall requirement, and
say how sure we are (Welinder et al. 2013, §4.4, Fig. 4).

For every threshold t (an item is predicted positive when its score is
>= t), the posterior probability p(C(t)) that precision(t) >= MIN_PRECISION
and recall(t) >= MIN_RECALL on this data set is computed from the same
posterior draws as `spe estimate`, weighed with the possibility that the
score model is wrong above t (then only the labeled items scoring >= t say
what the precision there is): a probability that rests on the model's
extrapolation, with few or no labeled items above t, is never confident.
Prints the threshold (in score units) that maximises it, that probability,
what it rests on (the labeled items above the threshold, the model's own
probability), precision, recall, F1, accuracy, false positive rate and the
confusion counts there with credible intervals, and the range of thresholds
that meet the requirement with probability >= 0.5 — or says plainly that no
threshold is likely to meet it.

Inputs as for `spe estimate` (see `spe estimate --help`). With multiclass
scores (one column per class), --class NAME chooses the threshold on that
class's probability for the one-vs-rest decision "flag the item as NAME when
its probability of NAME is at least the threshold". Its p(C(t)) is the score
models' own, from that class's labels drawn under each posterior draw: no
labels-only alternative is weighed in (the models' ceiling keeps room for
errors at high confidence), and the summary says how many labeled items are
at or above the threshold.

examples:
  spe threshold examples/digits_scores.csv --labels examples/digits_labels.csv \\
      --min-precision 0.9 --min-recall 0.5 --seed 0
  spe threshold examples/digits10_scores.csv --labels examples/digits10_labels.csv \\
      --class-prefix p --class 8 --min-precision 0.9 --min-recall 0.5 --seed 0
"""


def add_arguments(thr):
    """The options of ``spe threshold``: the shared ones, the class columns, the requirement and the outputs."""
    add_model_options(thr)
    add_class_options(thr)
    thr.add_argument("--class", dest="target_class", metavar="NAME", action=Once,
                     help="multiclass scores: the class (its name, or its 0-based position) whose decision 'its "
                          "probability is at least the threshold' is chosen (one-vs-rest: precision and recall of "
                          "that class)")
    thr.add_argument("--min-precision", type=unit, default=0.0, metavar="P",
                     help="required precision, in [0, 1] (default 0)")
    thr.add_argument("--min-recall", type=unit, default=0.0, metavar="R",
                     help="required recall, in [0, 1] (default 0)")
    thr.add_argument("--json", metavar="OUT.json", action=Once,
                     help="write the choice, the metrics there, what the probability rests on (model_probability, "
                          "labels_only_weight, labeled_above, positives_above; with --class the class and the "
                          "labeled items only) and p(requirement met) at every threshold as JSON ('-': to standard "
                          "output)")
    thr.add_argument("--plot", metavar="OUT.png", action=Once,
                     help="write a figure: p(requirement met) against the threshold, and the PR curve with its band "
                          "and the requirement drawn as a box (paper Fig. 4)")


def run(args):
    """Run ``spe threshold``; returns the exit status."""
    from ..exceptions import SpeInputError

    columns = class_columns(args)
    if columns is not None:
        return run_class_threshold(args, columns)
    if args.target_class is not None:
        raise SpeInputError("for multiclass scores only (one column per class)", argument="--class")
    plan = plan_outputs(args, ("--json", args.json, True), ("--plot", args.plot, False))
    scores, ev = fit(args)
    base = labeled_only_baseline(args, ev)
    perf = args.performance
    choice = ev.best_threshold(args.min_precision, args.min_recall, performance=perf)
    result = {"n_items": ev.n_items, "n_labeled": ev.n_labeled, "level": ev.level,
              "score_type": ev.diagnostics.get("score_type"), **choice.to_dict(),
              "seed": ev.diagnostics["seed"], "warnings": list(ev.warnings)}
    bchoice = None
    if base is not None:
        bchoice = base.best_threshold(args.min_precision, args.min_recall)
        result["labeled_only"] = bchoice.to_dict()
    files = []
    if args.json is not None:
        files.append((plan["--json"], json_bytes(result)))
    if args.plot is not None:
        files.append((plan["--plot"], _threshold_figure(args, ev, base)))
    finish(plan, "\n".join(_threshold_lines(args, ev, choice, base, bchoice)), files, warnings=ev.warnings,
           command="spe threshold")
    return 0


def _threshold_figure(args, ev, base):
    """``spe threshold --plot``: p(requirement met) against the threshold, and the PR curve with the requirement
    (paper Fig. 4), as image bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plot import plot_pr_curve, plot_threshold_probability

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5), layout="constrained")
    plot_threshold_probability(ev, axes[0], min_precision=args.min_precision, min_recall=args.min_recall,
                               performance=args.performance)
    plot_pr_curve(ev, axes[1], requirement=(args.min_precision, args.min_recall),
                  labeled_only=None if base is None else base.pr_curve().median)
    return figure_bytes(fig, args.plot)


def _threshold_lines(args, ev, choice, base, bchoice):
    """The summary ``spe threshold`` prints."""
    import numpy as np

    n_pos = int(np.sum(ev.labeled_value == 1))
    pct = f"{100 * ev.level:g}%"
    lines = [
        f"spe: {ev.n_items} items, {ev.n_labeled} labeled ({n_pos} positive, {ev.n_labeled - n_pos} negative)",
        *score_type_lines(ev.diagnostics.get("score_type")),
        f"requirement: precision >= {args.min_precision:g} and recall >= {args.min_recall:g} "
        f"({args.performance} performance; an item is predicted positive when its score is >= the threshold)",
    ]
    lines += threshold_choice_lines(choice, "score units", rounded_down)
    lines += _rests_on_lines(ev, choice)
    lines += few_items_note(choice, args.min_recall)
    lines.append(f"at {rounded_down(choice.threshold)} (posterior mean [{pct} credible interval]):")
    lines += metrics_lines(choice.metrics, None if base is None else base.metrics_at(choice.threshold))
    if bchoice is not None:
        lines.append(f"labeled items only would pick {rounded_down(bchoice.threshold)} (requirement met in "
                     f"{bchoice.probability:.3f} of bootstrap resamples of the {base.n_labeled} labeled items)")
    seed = ev.diagnostics["seed"]
    lines.append(f"seed: {seed} (--seed {seed} repeats this run)")
    lines += notes(args, ev)
    lines += [f"note: {n}" for n in ev.diagnostics.get("notes", [])]
    return lines


def _rests_on_lines(ev, choice):
    """What the stated probability rests on at the chosen threshold: the labeled items above it, the score
    model's own probability, and scores piled on a few values there."""
    import numpy as np
    from scipy import stats

    r = choice.rests_on()
    tau, k, j = rounded_down(choice.threshold), r["labeled_above"], r["positives_above"]
    prior = ev.labels_only_prior()
    if prior < 0.5 and r["labels_only_weight"] < 0.1:
        lines = [f"rests on: the score model, whose map the reference set's labels checked across the scores "
                 f"(its own probability {r['model_probability']:.3f}; {k} pool label{'' if k == 1 else 's'} score "
                 f">= {tau})"]
    elif k == 0:
        lines = [f"rests on: the score model alone — no labeled item scores >= {tau}, so nothing checks its "
                 f"p(y=1 | score) there (the model alone says {r['model_probability']:.3f}; the probability "
                 f"stated gives weight {r['labels_only_weight']:.2f} to the model being wrong above the threshold)"]
    elif r["labels_only_weight"] >= 0.1:
        lo, hi = stats.beta.ppf([(1 - ev.level) / 2, (1 + ev.level) / 2], 1 + j, 1 + k - j)
        lines = [f"rests on: {k} labeled item{'s' if k > 1 else ''} scoring >= {tau} ({j} positive) and the score "
                 f"model, which alone says {r['model_probability']:.3f}; those labels leave a "
                 f"{r['labels_only_weight']:.2f} chance that the model is wrong above the threshold, where they "
                 f"alone put the precision at [{lo:.2f}, {hi:.2f}] ({100 * ev.level:g}%; the intervals below are "
                 "the model's)"]
    else:
        lines = [f"rests on: {k} labeled items scoring >= {tau} ({j} positive), which agree with the score model "
                 f"(alone it says {r['model_probability']:.3f})"]
    above = ev.scores >= choice.threshold
    n_above = int(above.sum() if ev.counts is None else ev.counts[above].sum())
    distinct = int(np.unique(ev.scores[above]).size)
    if n_above >= 20 and distinct <= 3:
        lines.append(f"note: the {n_above} items scoring >= {tau} share {distinct} distinct "
                     f"score{'s' if distinct > 1 else ''}: the classifier does not rank them, so no threshold "
                     "between them can be chosen")
    return lines


register(Command(name="threshold",
                 help="the threshold most likely to meet a precision/recall requirement, and how likely",
                 description=THRESHOLD_HELP, add_arguments=add_arguments, run=run,
                 number_options=("--min-precision", "--min-recall")))
