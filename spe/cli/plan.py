"""``spe plan``: about how many more labels until a question is settled, with its uncertainty."""

from __future__ import annotations

from .common import choose_target, classifier_inputs, figure_bytes, finish, fit_classifiers, json_bytes, plan_outputs
from .options import (Once, add_classifier_inputs, add_model_options, add_target_options, number_in, positive,
                      strategy_names)
from .registry import Command, register

PLAN_HELP = """\
A label-budget plan: about how many more labels, chosen by STRATEGY, until
TARGET is settled — its credible interval narrower than --width, or (for
threshold:P,R) the decision whether that threshold meets the requirement
reaching --probability either way. From the posterior draws of the same
estimate as `spe estimate`: each of --futures simulated futures takes a
"true" draw, simulates the labels of the next items (in the order
`spe suggest` would give them now) and reweights the draws by them; the
plan is the spread over the futures of the labels needed.

Goals (exactly one):
  --width W         the mean width of the target's credible interval (the
                    band's, for pr-band) below W, in the target's units
  --probability Q   the decision made with probability >= Q either way, Q
                    in (0.5, 1): for threshold:P,R whether that threshold
                    meets the requirement; for compare (several
                    classifiers) which of every pair has the higher
                    average precision

Several classifiers that scored the same items (one SCORES.csv each, or one
file with --score-columns a,b) are modelled together as in spe compare; the
target is then compare unless --target says otherwise (a one-classifier
target concerns --classifier, default the first).

Prints the median labels needed and the range holding 80% of the futures,
and says how often the goal was not reached within --max-labels, or the
draws degenerated before it (their effective sample size fell below a tenth
of today's): then label some, refit and plan again. The plan assumes the
score model, as the estimate does; for the information strategy it fixes
the order of the items now (refitting after each batch adapts, so it is on
the cautious side).

Exit status: 0 plan written, 2 bad input or options (nothing written), 130
interrupted, 1 anything else.

Multiclass scores (one column per class, as for spe estimate): --target
accuracy (default), macro_f1 or ap:CLASS with --width; --strategy
information (default) or random. With several classifiers' class columns
(three classes or more) compare is every pair's difference in accuracy,
not in average precision: --probability, which of every pair is the more
accurate, or --width, the mean width of the differences' intervals; the
information strategy labels the items that best tell apart the two most
likely the most accurate. --target accuracy, macro_f1 or ap:CLASS plans
one classifier's (--classifier).

examples:
  spe plan examples/digits_scores.csv --labels examples/digits_labels.csv --target ap --width 0.05 --seed 0
  spe plan scores.csv --labels few.csv --target threshold:0.9,0.5 --probability 0.9 --plot plan.png
  spe plan old.csv new.csv --labels few.csv --probability 0.9
  spe plan a.csv b.csv --labels few.csv --class-prefix p_ --probability 0.9
"""


_width = number_in(lambda v: v > 0, "a number > 0")
_probability = number_in(lambda v: 0.5 < v < 1, "a number in (0.5, 1)")


def add_arguments(p):
    """The options of ``spe plan``: the shared ones, the target, the goal, the strategy, the simulation,
    the outputs."""
    from .classes import add_class_options

    add_classifier_inputs(p)
    add_class_options(p)
    add_model_options(p, inputs=False, baseline=False)
    add_target_options(p, "ap")
    goal = p.add_mutually_exclusive_group(required=True)
    goal.add_argument("--width", type=_width, metavar="W",
                      help="goal: the target's credible interval narrower than W (its units)")
    goal.add_argument("--probability", type=_probability, metavar="Q",
                      help="goal (threshold:P,R or compare): the decision made with probability >= Q either way")
    p.add_argument("--strategy", default="information", choices=strategy_names(),
                   help="how the further items are chosen (default: information, as spe suggest)")
    p.add_argument("--max-labels", type=positive, metavar="N",
                   help="the most further labels simulated (default 200, or the unlabeled items if fewer)")
    p.add_argument("--futures", type=positive, default=200, metavar="S",
                   help="simulated futures (default 200, at least 10)")
    p.add_argument("--json", metavar="OUT.json", action=Once,
                   help="write the plan (labels needed, the goal's quantity per number of labels) as JSON")
    p.add_argument("--plot", metavar="OUT.png", action=Once,
                   help="draw the goal's quantity against further labels, with the futures' spread")


def run(args):
    """Run ``spe plan``; returns the exit status."""
    from ..active import plan as label_plan
    from ..active.plan import check_goal

    from .classes import class_columns, class_plan

    columns = class_columns(args, args.scores[0]) if not args.score_columns else None
    outputs = plan_outputs(args, ("--json", args.json, True), ("--plot", args.plot, False))
    if columns is not None:
        plan, source = class_plan(args, columns)
    else:
        names, files, labels = classifier_inputs(args)
        target = choose_target(args, names, "ap")
        check_goal(target, args.width, args.probability)  # before the fit
        _, source = fit_classifiers(args, names, files, labels)
        plan = label_plan(source, width=args.width, probability=args.probability, target=target,
                          strategy=args.strategy, classifier=args.classifier, max_labels=args.max_labels,
                          futures=args.futures, rng=source.diagnostics["seed"])
    seed = source.diagnostics["seed"]
    results = []
    if args.json is not None:
        results.append((outputs["--json"], json_bytes(plan.to_dict())))
    if args.plot is not None:
        results.append((outputs["--plot"], _figure(plan, args.plot)))
    finish(outputs, f"{plan.summary()}\nseed: {seed} (--seed repeats this run)", results, warnings=source.warnings,
           command="spe plan")
    return 0


def _figure(plan, path):
    """``spe plan --plot``: the goal's quantity against further labels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..plot import plot_label_plan

    fig, ax = plt.subplots(figsize=(6, 4), layout="constrained")
    plot_label_plan(plan, ax)
    return figure_bytes(fig, path)


register(Command(name="plan", help="about how many more labels until a question is settled",
                 description=PLAN_HELP, add_arguments=add_arguments, run=run))
