"""``spe calibrate``: calibrated per-item probabilities from the scores and a few labels, by one method or all of
them compared (issue 26; DESIGN.md "Calibration and prevalence")."""

from __future__ import annotations

from ..display import score_type_lines
from .common import figure_bytes, finish, items_csv, plan_outputs, read_inputs, reference_of, score_type_read
from .options import Once, add_input_options, add_reference_option, folds, positive, seed
from .registry import Command, register

CALIBRATE_HELP = """\
Turn the classifier's scores into calibrated probabilities p(y=1 | score),
learned from the labeled items (and, for 'spe', from every score).

Methods (`spe list calibration` describes each):
  spe          SPE's semisupervised item probabilities (default): every
               score and the labels, the score models averaged by evidence
  platt        Platt scaling: a logistic regression on the score's log-odds
  asymlaplace  Bennett (2003): asymmetric Laplace class-conditionals
  asymgauss    Bennett (2003): asymmetric Gaussian class-conditionals
  piecewise    Zhang & Yang (2004): piecewise logistic regression, 3 pieces
  isotonic     isotonic regression (scikit-learn), the non-parametric reference

With --reference REF.csv (the same classifier's scores with every label, e.g.
its validation set) --labels may be left out: 'spe' learns the map from the
reference and carries it to this pool (a label or covariate shift, a drift
allowed, weighed by this pool's scores and labels); the other methods fit on
the reference's labels and this pool's together.

Writes 'id,probability' for every item to --out (the calibration map at each
item's score; a labeled item's probability is the map's, not its label).
--compare fits every method K times on K-1 folds of the labeled items
(stratified; K = min(--folds, the fewest labels of a class)) and prints the
held-out log-loss (nats per item), Brier score and expected calibration
error (10 equal-width probability bins), best log-loss first; --plot then
draws their reliability diagram from the held-out probabilities.

examples:
  spe calibrate examples/digits_scores.csv --labels examples/digits_labels.csv --out probs.csv --seed 0
  spe calibrate examples/digits_scores.csv --labels examples/digits_labels.csv --compare --plot reliability.png
"""


def add_arguments(p):
    """The options of ``spe calibrate``."""
    add_input_options(p)
    p.add_argument("--method", default="spe", metavar="NAME",
                   help="the calibration method (default 'spe'; the list above, or `spe list calibration`)")
    p.add_argument("--out", metavar="PROBS.csv", action=Once,
                   help="write 'id,probability' for every item ('-': standard output)")
    p.add_argument("--compare", action="store_true",
                   help="compare every method by cross-validation on the labeled items (instead of one method)")
    p.add_argument("--folds", type=folds, default=5, metavar="K",
                   help="at most K cross-validation folds for --compare, K ≥ 2 (default 5; fewer when a class has "
                        "fewer than K labels)")
    p.add_argument("--plot", metavar="OUT.png", action=Once,
                   help="with --compare: the reliability diagram of every method; else the calibration map")
    p.add_argument("--json", metavar="OUT.json", action=Once,
                   help="write the method, the map at the pool's score quantiles (or the comparison) as JSON")
    p.add_argument("--draws", type=positive, default=1000, metavar="M",
                   help="posterior draws of the 'spe' method (default 1000)")
    p.add_argument("--seed", type=seed, default=0,
                   help="seed of the 'spe' method's draws and of the folds (default 0)")
    add_reference_option(p)


def _training(args):
    """(scores file, labeled scores, labels, unlabeled scores, reference (scores, labels) or None); an input error
    without labeled items (unless a reference set is given)."""
    import numpy as np

    from ..exceptions import SpeInputError

    scores, labels = read_inputs(args)
    reference = reference_of(args)
    if reference is None and (labels is None or len(labels[0]) == 0):
        raise SpeInputError("calibration needs labeled items (--labels LABELS.csv, or --reference REF.csv)",
                            argument="--labels")
    index, value = (np.asarray(v) for v in labels) if labels is not None else (np.zeros(0, int), np.zeros(0, int))
    rest = np.ones(scores.scores.size, dtype=bool)
    rest[index] = False
    return scores, scores.scores[index], value.astype(int), scores.scores[rest], reference


def _fit_method(args, name, s, y, unlabeled, reference):
    """The calibration method ``name`` fitted: 'spe' on this pool with the reference set as ``reference=``, the
    others on the reference's labels and the pool's together."""
    import numpy as np

    from ..calibration import make

    options = _method_options(args, name)
    if reference is not None and name == "spe":
        options["options"] = {"reference": reference}
    elif reference is not None:
        s, y = np.concatenate([reference[0], s]), np.concatenate([reference[1], y])
    return make(name, argument="--method", **options).fit(s, y, unlabeled)


def _method_options(args, name):
    return {"score_type": args.score_type, **({"draws": args.draws, "rng": args.seed} if name == "spe" else {})}


def map_table(calibrator, scores):
    """The fitted map at the pool's score quantiles (0, 1, 10, 25, 50, 75, 90, 99, 100 %): list of dicts."""
    import numpy as np

    q = np.array([0, 1, 10, 25, 50, 75, 90, 99, 100])
    at = np.percentile(scores, q, method="inverted_cdf")
    p = calibrator.positive_probability(at)
    return [{"quantile": int(a), "score": float(s), "probability": float(b)} for a, s, b in zip(q, at, p)]


def run(args):
    """Run ``spe calibrate``; returns the exit status."""
    plan = plan_outputs(args, ("--out", args.out, True), ("--json", args.json, True), ("--plot", args.plot, False))
    if args.compare:
        return _run_compare(args, plan)
    from ..calibration import make
    from ..output import json_bytes

    make(args.method, argument="--method")  # an unknown method is refused before reading
    scores, s, y, unlabeled, reference = _training(args)
    calibrator = _fit_method(args, args.method, s, y, unlabeled, reference)
    table = map_table(calibrator, scores.scores)
    warns = list(getattr(getattr(calibrator, "evaluation_", None), "warnings", []))
    warns += _clip_notes(scores.scores, args.score_type, warns)
    files = []
    if args.out is not None:
        files.append((plan["--out"], _probabilities_csv(scores, calibrator.positive_probability(scores.scores))))
    if args.json is not None:
        files.append((plan["--json"], json_bytes({"method": args.method, "n_items": int(scores.scores.size),
                                                  "n_labeled": int(y.size),
                                                  "score_type": score_type_read(scores.scores, args.score_type),
                                                  "map": table, "warnings": warns})))
    if args.plot is not None:
        files.append((plan["--plot"], _map_figure(args, calibrator, scores.scores, s, y)))
    finish(plan, _map_text(args, scores, y, table), files, warnings=warns, command="spe calibrate")
    return 0


def _run_compare(args, plan):
    from ..calibration import compare_methods, method_names
    from ..exceptions import SpeInputError
    from ..output import json_bytes

    if args.reference is not None:
        raise SpeInputError("--compare cross-validates the methods on this pool's labels alone; with --reference "
                            "fit one method (--method) instead", argument="--reference")
    scores, s, y, unlabeled, _ = _training(args)
    cmp = compare_methods(s, y, unlabeled, folds=args.folds, rng=args.seed,
                          options={m: _method_options(args, m) for m in method_names()})
    files = []
    if args.json is not None:
        files.append((plan["--json"], json_bytes(cmp.to_dict())))
    if args.plot is not None:
        files.append((plan["--plot"], _reliability_figure(args, cmp)))
    if args.out is not None:
        fitted = _fit_method(args, cmp.table.index[0], s, y, unlabeled, None)
        files.append((plan["--out"], _probabilities_csv(scores, fitted.positive_probability(scores.scores))))
    finish(plan, _compare_text(args, cmp, y), files, command="spe calibrate")
    return 0


def _clip_notes(scores, score_type, already):
    """The note that probabilities carried float noise outside [0, 1] (clipped), unless a warning says so."""
    from ..models.mixture import clipped_probabilities

    note = clipped_probabilities(scores, score_type)[1]
    return [] if note is None or note in already else [note]


def _probabilities_csv(scores, probability):
    """``--out``: ``id,probability`` for every item (:func:`spe.cli.common.items_csv` without score columns)."""
    return items_csv(scores.ids, {}, probability)


def _map_text(args, scores, y, table):
    lines = [f"spe calibrate: {scores.scores.size} items, {y.size} labeled ({int(y.sum())} positive, "
             f"{int(y.size - y.sum())} negative); method {args.method}",
             *score_type_lines(score_type_read(scores.scores, args.score_type)),
             "calibration map at quantiles of the pool's scores:",
             "  quantile      score  p(y=1 | score)"]
    lines += [f"  {r['quantile']:>7d}%  {r['score']:>9.4g}  {r['probability']:.4f}" for r in table]
    if args.out is None:
        lines.append("(--out PROBS.csv writes every item's probability)")
    return "\n".join(lines)


def _compare_text(args, cmp, y):
    t = cmp.table
    lines = [f"spe calibrate --compare: {y.size} labeled items ({int(y.sum())} positive), {cmp.folds}-fold "
             f"cross-validation (held-out items only; ECE: {cmp.bins} equal-width bins)",
             f"  {'method':<12s} {'log-loss':>9s} {'Brier':>8s} {'ECE':>7s}"]
    lines += [f"  {m:<12s} {r.log_loss:9.4f} {r.brier:8.4f} {r.ece:7.4f}" for m, r in t.iterrows()]
    lines.append(f"lowest held-out log-loss: {t.index[0]}" + (" (its probabilities are in --out)" if args.out else ""))
    if y.size < 50:
        lines.append(f"with {y.size} labels these scores are noisy: differences of a few hundredths are not "
                     "significant")
    return "\n".join(lines)


def _reliability_figure(args, cmp):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plot import plot_reliability_diagram

    fig, ax = plt.subplots(figsize=(6, 5), layout="constrained")
    plot_reliability_diagram(cmp.probabilities, cmp.labels, ax=ax, bins=cmp.bins,
                             title=f"Reliability of each method ({cmp.folds}-fold held-out probabilities of "
                                   f"{cmp.labels.size} labeled items)")
    return figure_bytes(fig, args.plot)


def _map_figure(args, calibrator, pool, s, y):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plot import plot_calibration_map

    fig, ax = plt.subplots(figsize=(6, 4.5), layout="constrained")
    plot_calibration_map(calibrator, pool, s, y, ax=ax, label=args.method)
    return figure_bytes(fig, args.plot)


register(Command(name="calibrate", help="calibrated probabilities per item, by one method or all compared",
                 description=CALIBRATE_HELP, add_arguments=add_arguments, run=run))
