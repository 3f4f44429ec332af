"""``spe prevalence``: the share of positives in the pool, by one method or all of them side by side (issue 26;
DESIGN.md "Calibration and prevalence")."""

from __future__ import annotations

from ..display import score_type_lines
from .common import finish, plan_outputs, read_inputs, reference_of, score_type_read
from .options import Once, add_input_options, finite, level, positive, seed
from .registry import Command, register

PREVALENCE_HELP = """\
Estimate the prevalence (the fraction of positives) of the pool of scored
items, with an interval.

Methods (`spe list prevalence` describes each):
  spe      SPE's posterior (default): credible interval from every score
           and the labels
  labeled  the labeled items' own fraction (Jeffreys interval): what random
           labels alone say
  cc       classify and count at the classifier's threshold (0.5 for
           probabilities, 0 otherwise; --threshold): biased unless the
           classifier is perfect, its interval is sampling error only
  acc      adjusted classify and count: CC corrected by the true and false
           positive rates measured on the labeled items (bootstrap interval)
  sld      SLD/EMQ (Saerens et al. 2002, as in Esuli et al. 2020, Alg. 1):
           EM on Platt-calibrated posteriors, for a prior shift between the
           labeled set and the pool (bootstrap interval)

Labeled items count as known; the methods estimate the rest. With
--reference REF.csv (the classifier's validation set, every item labeled,
its prevalence may differ) acc and sld learn their rates and posteriors there,
and spe weighs its calibration map.

examples:
  spe prevalence examples/digits_scores.csv --labels examples/digits_labels.csv --seed 0
  spe prevalence examples/digits_scores.csv --labels examples/digits_labels.csv --compare --json prev.json
"""


def add_arguments(p):
    """The options of ``spe prevalence``."""
    add_input_options(p)
    p.add_argument("--method", default="spe", metavar="NAME",
                   help="the prevalence method (default 'spe'; the list above, or `spe list prevalence`)")
    p.add_argument("--compare", action="store_true", help="every method side by side")
    p.add_argument("--reference", metavar="REF.csv", action=Once,
                   help="a labeled reference set (columns 'score' (or --score-column) and 'label')")
    p.add_argument("--threshold", type=finite, default=None, metavar="T",
                   help="the decision threshold of cc and acc, score units (default 0.5 for probabilities, else 0)")
    p.add_argument("--level", type=level, default=0.9, help="the intervals' level, in (0, 1) (default 0.9)")
    p.add_argument("--json", metavar="OUT.json", action=Once, help="write the estimates as JSON ('-': stdout)")
    p.add_argument("--draws", type=positive, default=1000, metavar="M",
                   help="posterior draws of the 'spe' method (default 1000)")
    p.add_argument("--seed", type=seed, default=0, help="seed of the bootstrap and of SPE's draws (default 0)")


def _options(args):
    return {"cc": {"threshold": args.threshold}, "acc": {"threshold": args.threshold},
            "spe": {"draws": args.draws, "progressbar": False if args.quiet else None}}


def run(args):
    """Run ``spe prevalence``; returns the exit status."""
    import warnings

    from ..output import json_bytes
    from ..exceptions import SpeWarning
    from ..prevalence import REGISTRY, estimate_prevalence
    from ..prevalence.base import estimate_all
    from ..prevalence.base import check_method

    plan = plan_outputs(args, ("--json", args.json, True))
    methods = list(REGISTRY) if args.compare else [args.method]
    check_method(methods[0], argument="--method")
    scores, labels = read_inputs(args)
    reference = reference_of(args)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("ignore")
        warnings.simplefilter("always", SpeWarning)
        if args.compare:
            results = estimate_all(scores.scores, labels, level=args.level, rng=args.seed, reference=reference,
                                   score_type=args.score_type, options=_options(args))
        else:
            results = [estimate_prevalence(args.method, scores.scores, labels, level=args.level, rng=args.seed,
                                           reference=reference, score_type=args.score_type,
                                           **_options(args).get(args.method, {}))]
    warns = list(dict.fromkeys(str(w.message) for w in caught))
    score_type = score_type_read(scores.scores, args.score_type)
    files = []
    if args.json is not None:
        body = {"n_items": int(scores.scores.size), "n_labeled": 0 if labels is None else len(labels[0]),
                "score_type": score_type, "level": args.level, "estimates": {r.method: r.to_dict() for r in results}, "warnings": warns}
        files.append((plan["--json"], json_bytes(body)))
    finish(plan, _text(scores, labels, results, args.level, score_type), files, warnings=warns, command="spe prevalence")
    return 0


def _text(scores, labels, results, level, score_type):
    n = 0 if labels is None else len(labels[0])
    lines = [f"spe prevalence: {scores.scores.size} items, {n} labeled; {100 * level:g}% intervals",
             *score_type_lines(score_type)]
    for r in results:
        extra = ""
        if r.method == "sld" and "iterations" in r.details:
            extra = f"; {r.details['iterations']} iterations" + ("" if r.details["converged"] else ", NOT converged")
        if r.method == "acc" and not r.details.get("defined", True):
            extra = "; tpr = fpr at the threshold: not adjusted"
        lines.append(f"  {r.method:<8s} {r}  ({r.interval}{extra})")
    return "\n".join(lines)


register(Command(name="prevalence", help="the pool's prevalence with an interval, by one method or all compared",
                 description=PREVALENCE_HELP, add_arguments=add_arguments, run=run,
                 number_options=("--threshold",)))
