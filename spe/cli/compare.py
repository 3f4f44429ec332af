"""``spe compare``: several classifiers that scored the same items, one set of labels, which is better and how sure."""

from __future__ import annotations

from .classes import class_columns, run_class_compare
from .common import figure_bytes, finish, items_csv, joint_fit, json_bytes, plan_outputs, read_classifiers
from .options import Once, add_classifier_inputs, add_model_options
from .registry import Command, register

COMPARE_HELP = """\
Evaluate several classifiers that scored the same items from all their
scores and one set of labels, and say which is better and how sure.

Give one scores file per classifier (A.csv B.csv ...; column 'score', see
--score-column, and optionally 'id'), or one file with a column per
classifier (--score-columns a,b,c). The files must hold the same items:
matched by 'id' when every file has one (in any order), else by row.
LABELS.csv ('id,label') labels items of the first file, as in spe estimate.

All the classifiers' scores are modelled together: each classifier's own
score models (those of spe estimate), the joint log-odds of a Gaussian
mixture over all of them calibrated by the same models, and a logistic
recalibration on every classifier's log-odds; the labeled items weigh them
by their evidence. The unknown labels are
drawn once per posterior draw and every classifier's curves come from the
same draws, so a difference between two classifiers has the interval of a
difference, and P(A better than B) is a posterior probability.

Prints each classifier's average precision and ROC AUC with intervals, the
probability that each is the best, and every pair's differences with P(a
better than b); --json writes everything (each classifier's full spe
estimate JSON under 'classifiers'); --plot the overlaid PR curves with bands
and the differences; --items each item's id, scores and probability of
being positive under the joint model.

Multiclass classifiers: give each one file with one column per class
(probabilities, logits or decision values; --class-columns a,b,c or
--class-prefix prob_ as in spe estimate, or every column but 'id' when the
file has no 'score' column), and labels as class names. Prints each
classifier's accuracy and macro F1, the probability that each is the most
accurate, every pair's differences and the classes whose F1 differs most
surely; --json writes each classifier's multiclass estimate and every
pair's differences in accuracy, macro F1, macro AP and ROC AUC and per
class; --plot the metrics with intervals and the accuracy differences.

Exit status: 0 an answer, 2 bad input or options (nothing written), 130
interrupted, 1 anything else.

examples:
  spe compare erm.csv irm.csv coral.csv --labels few.csv --json cmp.json --plot cmp.png --seed 0
  spe compare scores.csv --score-columns old,new --labels few.csv
  spe compare resnet.csv vit.csv --class-prefix prob_ --labels few_classes.csv --json cmp.json
"""


def add_arguments(p):
    """The options of ``spe compare``."""
    from .classes import add_class_options

    add_classifier_inputs(p)
    add_class_options(p)
    add_model_options(p, inputs=False, reference=False, baseline=False)
    p.add_argument("--json", metavar="OUT.json", action=Once,
                   help="write the full result as JSON ('-': to standard output, and the summary to standard error)")
    p.add_argument("--plot", metavar="OUT.png", action=Once,
                   help="write the overlaid PR curves with their bands and the differences in average precision")
    p.add_argument("--items", metavar="OUT.csv", action=Once,
                   help="write id, each classifier's score and p(positive | every score, labels) per item (labeled "
                        "items keep their label; '-': to standard output); multiclass: id, each classifier's "
                        "predicted class, label and prob_CLASS under the joint model")


def run(args):
    """Run ``spe compare``; returns the exit status."""
    from ..exceptions import SpeInputError

    columns = None if args.score_columns is not None else class_columns(args, args.scores[0])
    if columns is not None:
        return run_class_compare(args, columns)
    plan = plan_outputs(args, ("--json", args.json, True), ("--items", args.items, True),
                        ("--plot", args.plot, False))
    names, matrix, ids, labels = read_classifiers(args)
    if args.items is not None and {"id", "probability"} & set(names):
        raise SpeInputError("--items writes the columns 'id' and 'probability' beside one column per classifier: "
                            "name the classifiers otherwise (--names)", argument="--names")
    cmp = joint_fit(args, names, matrix, labels)
    files = []
    if "--json" in plan:
        files.append((plan["--json"], json_bytes(cmp.to_dict(performance=args.performance))))
    if "--items" in plan:
        files.append((plan["--items"], items_csv(ids, dict(zip(names, matrix.T)), cmp.item_probabilities())))
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        from ..plot import comparison_figure

        files.append((plan["--plot"], figure_bytes(comparison_figure(cmp, performance=args.performance), args.plot)))
    finish(plan, cmp.summary(performance=args.performance, warnings=False), files, warnings=cmp.warnings,
           command="spe compare")
    return 0


register(Command(name="compare", help="compare several classifiers that scored the same items",
                 description=COMPARE_HELP, add_arguments=add_arguments, run=run))
