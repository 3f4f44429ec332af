"""``spe suggest``: the items to label next, so that their labels settle the user's question."""

from __future__ import annotations


from .classes import add_class_options
from .common import choose_target, classifier_inputs, finish, fit_classifiers, plan_outputs
from .options import Once, add_classifier_inputs, add_model_options, add_target_options, positive, strategy_names
from .registry import Command, register

SUGGEST_HELP = """\
Which items to label next: the K unlabeled items whose labels are expected
to settle TARGET most, best first, from the posterior draws of the same
estimate as `spe estimate` (nothing else is fitted).

Targets:
  pr-band          the PR curve's band (precision at every recall; default
                   for one classifier)
  ap               the average precision
  prevalence       the fraction of positives
  threshold:P,R    whether the threshold most likely to meet precision >= P
                   and recall >= R does (e.g. threshold:0.9,0.5)
  compare          which of several classifiers is better: the difference
                   in average precision of every pair (default for several)

Several classifiers that scored the same items (one SCORES.csv each, or
one file with --score-columns a,b) are modelled together as in spe
compare; a one-classifier target then concerns --classifier (default the
first).

Strategies:
  information      (default) greedily, the item whose label is expected to
                   reduce the target's posterior variance most given the
                   items picked before it (so not K near-duplicates); every
                   fifth label (counting those known) goes to an item at
                   random, so that the labels keep checking the model
                   everywhere (the bands stay honest)
  greedy           as information, without the random fifth
  stratified       one item at random from each of K equal strata of the
                   score order
  random           uniformly at random (the baseline)

Writes a CSV 'id,expected_gain' (to --out, else standard output; the summary
then goes to standard error): id as in LABELS.csv (the scores' 'id', else the
0-based row), expected_gain the expected reduction of the target's posterior
standard deviation by that item's label given those above it (the target's
units). Items already labeled are never suggested: when every item is
labeled, the CSV has its header only and the summary says so (exit 0).

Labels gathered this way are valid input to `spe estimate` (the choice
depended only on the scores and on earlier labels, so SPE's posterior is
unchanged by it); give `spe estimate --adaptive-labels` so that it says so
and does not set the labeled items alone beside it as if they were random.
Choosing items by looking at them (not by this command) breaks that.

Exit status: 0 suggestions written, 2 bad input or options (nothing
written), 130 interrupted, 1 anything else.

examples:
  spe suggest examples/digits_scores.csv --labels examples/digits_labels.csv -k 10 --seed 0
  spe suggest scores.csv --labels few.csv -k 5 --target threshold:0.9,0.5 --out next.csv
  spe suggest old.csv new.csv --labels few.csv -k 10 --out next.csv
"""


def add_arguments(p):
    """The options of ``spe suggest``: the shared ones, k, the target, the strategy, the output."""
    add_classifier_inputs(p)
    add_model_options(p, inputs=False, baseline=False)
    p.add_argument("-k", type=positive, default=10, metavar="K", help="how many items to suggest (default 10)")
    add_target_options(p, "pr-band")
    add_class_options(p)
    p.add_argument("--strategy", default="information", choices=strategy_names(),
                   help="how the items are chosen (default: information)")
    p.add_argument("--out", metavar="NEXT.csv", action=Once,
                   help="write the CSV 'id,expected_gain' here (default: standard output)")


def run(args):
    """Run ``spe suggest``; returns the exit status."""
    from ..active import suggest
    from ..exceptions import SpeInputError

    from .classes import class_columns, run_class_suggest

    columns = class_columns(args, args.scores[0]) if not args.score_columns else None
    if columns is not None:
        return run_class_suggest(args, columns)
    plan = plan_outputs(args, ("--out", args.out if args.out is not None else "-", True))
    names, files, labels = classifier_inputs(args)
    target = choose_target(args, names, "pr-band")
    n_free = files[0].scores.size - (0 if labels is None else len(labels[0]))
    if 0 < n_free < args.k:  # before the fit (every item labeled: nothing to suggest, an empty list)
        raise SpeInputError(f"must be at most the {n_free} unlabeled items, got {args.k}", argument="k")
    ids, source = fit_classifiers(args, names, files, labels)
    seed = source.diagnostics["seed"]
    suggestion = suggest(source, args.k, target=target, strategy=args.strategy, classifier=args.classifier, rng=seed)
    frame = suggestion.to_frame(ids)
    table = frame.to_string(index=False, float_format=lambda v: f"{v:.4g}") + "\n" if len(frame) else ""
    text = f"{suggestion.summary()}\n{table}seed: {seed} (--seed repeats this run)"
    data = frame[["id", "expected_gain"]].to_csv(index=False, float_format="%.6g").encode()
    finish(plan, text, [(plan["--out"], data)], warnings=source.warnings, command="spe suggest")
    return 0


register(Command(name="suggest", help="which items to label next, so that their labels settle a question",
                 description=SUGGEST_HELP, add_arguments=add_arguments, run=run))
