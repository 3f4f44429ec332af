"""``spe families``: which class-conditional families fit these scores (the paper's Table 1 for the user's data)."""

from __future__ import annotations

import warnings

from .common import finish, json_bytes, plan_outputs, read_inputs
from .options import Once, add_input_options, positive, seed, workers
from .registry import Command, register

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


def add_arguments(fam):
    """The options of ``spe families``."""
    add_input_options(fam)
    fam.add_argument("--top", type=positive, default=10, metavar="K", help="pairs to print (default 10; JSON has all)")
    fam.add_argument("--seed", type=seed, default=None, action=Once,
                     help="random seed of the held-out folds (a non-negative integer; drawn and printed if omitted)")
    fam.add_argument("--json", metavar="OUT.json", action=Once,
                     help="write the whole table as JSON ('-': to standard output)")
    fam.add_argument("--workers", type=workers, default=None, metavar="auto|K",
                     help="processes that fit the family pairs in parallel (Linux; default 'auto': all usable "
                          "cores, at most 8)")


def run(args):
    """Run ``spe families``; returns the exit status."""
    from ..exceptions import MixtureFitError
    from ..inputs import seed_of
    from ..models.mixture.ranking import family_table

    plan = plan_outputs(args, ("--json", args.json, True))
    scores, labels = read_inputs(args)
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
        files.append((plan["--json"], json_bytes(dict(result, seed=seed))))
    finish(plan, text + f"\nseed: {seed} (--seed {seed} repeats the held-out folds)", files,
           warnings=result["warnings"], command="spe families")
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
    return result, f"spe families: {scores.scores.size} items, {n_labeled} labeled; no ranking"


register(Command(name="families",
                 help="rank the class-conditional families for these scores, per class and in pairs (paper Table 1)",
                 description=FAMILIES_HELP, add_arguments=add_arguments, run=run, number_options=("--top",)))
