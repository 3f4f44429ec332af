"""Options shared by the ``spe`` commands, and the parsers of option values (argparse types)."""

from __future__ import annotations

import argparse
import math

__all__ = ["add_input_options", "add_classifier_inputs", "add_model_options", "add_target_options",
           "add_reading_options", "Once", "finite", "unit", "positive", "seed", "workers", "requirement", "number_in",
           "level",
           "join_negative_numbers", "NUMBER_OPTIONS", "target_name", "strategy_names"]


def add_input_options(p):
    """The input options every command shares: the files and how to read the scores."""
    p.add_argument("scores", metavar="SCORES.csv",
                   help="scores of all items (column 'score', optional 'id'); '-' reads them from standard input")
    p.add_argument("--labels", metavar="LABELS.csv", action=Once,
                   help="known labels (columns 'id,label'); omit for none")
    p.add_argument("--pos-label", metavar="VALUE", action=Once,
                   help="the label of the positive class as the labels file writes it (e.g. 'spam'); default: labels "
                        "are 0/1, -1/1 or true/false")
    add_reading_options(p)


def add_classifier_inputs(p):
    """The inputs of commands that take one classifier or several: SCORES.csv ..., --labels, --score-columns,
    --names and how the scores are read."""
    p.add_argument("scores", metavar="SCORES.csv", nargs="+",
                   help="one scores file per classifier (or one file with --score-columns); '-' reads standard input")
    p.add_argument("--labels", metavar="LABELS.csv", action=Once,
                   help="known labels (columns 'id,label') of items of the first file; omit for none")
    p.add_argument("--pos-label", metavar="VALUE", action=Once,
                   help="the label of the positive class as the labels file writes it (e.g. 'spam'); default: labels "
                        "are 0/1, -1/1 or true/false")
    p.add_argument("--score-columns", metavar="A,B,...", action=Once,
                   help="the score columns of one file, one per classifier (instead of one file each)")
    p.add_argument("--names", metavar="A,B,...", action=Once,
                   help="the classifiers' names (default: the file names without extension, or the columns)")
    add_reading_options(p)


def add_model_options(p, *, inputs=True, reference=True, baseline=True):
    """The options every fitting command shares: inputs (unless ``inputs=False``: the command declares its own),
    score model, sampler, randomness; ``--reference`` and ``--compare-labeled-only`` unless switched off."""
    if inputs:
        add_input_options(p)
    if reference:
        add_reference_option(p)
    _add_fit_options(p)
    if baseline:
        p.add_argument("--adaptive-labels", action="store_true",
                       help="the labeled items were chosen from the scores and earlier labels (e.g. by spe suggest), "
                            "not at random: the estimate is the same (the choice is ignorable for SPE), the summary "
                            "says so, and --compare-labeled-only is not given (the labeled items alone would be a "
                            "biased sample)")
        p.add_argument("--compare-labeled-only", action="store_true",
                       help="also give what the labeled items alone say (the naive estimate; Jeffreys intervals "
                            "for proportions, bootstrap otherwise), side by side; in the JSON under 'labeled_only'")


def add_reading_options(p):
    """How the scores are read: --score-type, --score-space, --score-column."""
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


def add_reference_option(p):
    """``--reference REF.csv``: a labeled reference set of the same classifier."""
    p.add_argument("--reference", metavar="REF.csv", action=Once,
                   help="a reference set: the same classifier's scores with every label (columns 'score' "
                        "(or --score-column) and 'label'), e.g. its validation data. Its labels are evidence for "
                        "every score model, whose map is carried to this pool under a label shift (the prevalence "
                        "may differ) or a covariate shift (the scores' distribution may differ); with no --labels "
                        "the estimate rests on it; labels of this pool weigh it against concept shift (a map that "
                        "changed), and if they disagree with it the summary says so")


def _add_fit_options(p):
    p.add_argument("--families", default="auto", metavar="auto|all|NEG,POS",
                   help="class-conditional families, e.g. 'gamma,truncnorm'; 'auto' (default) picks the best "
                        "pair by BIC among truncnorm, gamma, asymlaplace and beta (beta only for probability scores; "
                        "for other scores also truncnorm2 for the negatives) and the pairs of the families that fit "
                        "each class best on their soft assignment; 'all' fits every pair of every family (slower; "
                        "see `spe families`). Known: " + ", ".join(_family_names()))
    p.add_argument("--draws", type=_draws, default=1000, metavar="M",
                   help="posterior draws, at least 100 (default 1000; memory grows with M, about 0.13 MB per draw: "
                        "a run that would not fit in the available memory is refused before it starts)")
    p.add_argument("--level", type=level, default=0.9,
                   help="credible level of bands and intervals, in (0, 1) (default 0.9)")
    p.add_argument("--seed", type=seed, default=None, action=Once,
                   help="random seed (a non-negative integer); the same seed gives the same numbers. Without it a "
                        "seed is drawn, and the summary and the JSON say which, so any run can be repeated")
    p.add_argument("--inference", default="importance", choices=_choices("inference"),
                   help="sampler of the SPE mixture's posterior: importance sampling around the MAP (default, "
                        "fast) or NUTS with PyMC on the same posterior (the reference; minutes, with a progress "
                        "bar)")
    models, class_models = _score_models(), _class_score_models()
    p.add_argument("--score-model", default="average",
                   choices=["average", *models, *(n for n in class_models if n not in models)],
                   help="model of p(y=1 | score): "
                        + "; ".join(f"'{name}': {m.about}" for name, m in models.items()).replace("%", "%%")
                        + "; 'average' (default) weighs them all by how well they predicted the labels. For class "
                          "columns (three or more classes) the models of p(y | scores) are: "
                        + "; ".join(f"'{name}': {m.about}" for name, m in class_models.items()).replace("%", "%%"))
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
                        f"{_min_bins('score_bins')}): 'auto' (default) uses {_auto_bins('score_bins')}; "
                        "'exact' never bins")
    p.add_argument("--likelihood-bins", type=_bins("likelihood_bins"), default="auto", metavar="auto|B|exact",
                   help="let the unlabeled scores into the mixture's likelihood as a histogram of about B bins "
                        f"(at least {_min_bins('likelihood_bins')}; exact likelihood of the bin counts, cost "
                        f"independent of N): 'auto' (default) uses {_auto_bins('likelihood_bins')}; 'exact' uses "
                        "every score's density")
    p.add_argument("--workers", type=workers, default=None, metavar="auto|K",
                   help="cores to use: the candidate family pairs are fitted in K processes (Linux; elsewhere one "
                        "by one) and the labels drawn in K threads; the result is the same for any K. 'auto' "
                        "(default): all usable cores, at most 8; K above the usable cores is capped, with a note; "
                        "use 1 when running many estimates side by side")


def _min_bins(name):
    from ..api import MIN_BINS

    return MIN_BINS[name]


def _auto_bins(name):
    """What ``auto`` means for ``--score-bins`` or ``--likelihood-bins``, from the library's constants."""
    from .. import api

    bins, above = {"score_bins": (api.AUTO_SCORE_BINS, api.AUTO_SCORE_BIN_ABOVE),
                   "likelihood_bins": (api.AUTO_LIKELIHOOD_BINS, api.AUTO_BIN_ABOVE)}[name]
    return f"{bins:,} above {above:,} distinct scores"


def _family_names():
    from ..families import family_names

    return family_names()


def _choices(option):
    """The values an option takes, from where the library defines them (one list, not a copy here)."""
    from ..evaluation import PERFORMANCE_KINDS
    from ..inference import INFERENCE_METHODS
    from ..models.mixture import SCORE_SPACES, SCORE_TYPES

    return list({"score_type": SCORE_TYPES, "score_space": SCORE_SPACES, "inference": INFERENCE_METHODS,
                 "performance": PERFORMANCE_KINDS}[option])


def _score_models():
    """The registered score models by name (:mod:`spe.models.registry`)."""
    from ..models.registry import REGISTRY

    return REGISTRY


def _class_score_models():
    """The registered multiclass score models by name (:data:`spe.multiclass.models.CLASS_MODELS`)."""
    from ..multiclass.models import CLASS_MODELS

    return CLASS_MODELS


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


def workers(text):
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
    from ..inputs import MIN_DRAWS

    return _integer(text, MIN_DRAWS, f"an integer ≥ {MIN_DRAWS}")


def seed(text):
    return _integer(text, 0, "a non-negative integer")


def positive(text):
    return _integer(text, 1, "a positive integer")


def folds(text):
    """Cross-validation folds: an integer ≥ 2 (one fold leaves nothing to fit on)."""
    return _integer(text, 2, "an integer ≥ 2 (cross-validation needs at least 2 folds)")


def finite(text, what="a finite number (score units)"):
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value


def number_in(accept, what):
    """An argparse type: a finite number for which ``accept(value)`` holds, else "expected WHAT, got ..."."""
    def parse(text):
        value = finite(text, what)
        if not accept(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


unit = number_in(lambda v: 0 <= v <= 1, "a number in [0, 1]")
level = number_in(lambda v: 0 < v < 1, "a number strictly between 0 and 1")


class Once(argparse.Action):
    """An option that may be given once: a second ``--json a --json b`` is an error, not a silent choice."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, f"_{self.dest}_seen", False):
            parser.error(f"argument {option_string}: given twice")
        setattr(namespace, f"_{self.dest}_seen", True)
        setattr(namespace, self.dest, values)


#: The shared options whose value may be a negative number in exponent form ("-1e-05"), which argparse takes for an
#: option (a command adds its own: :attr:`spe.cli.registry.Command.number_options`).
NUMBER_OPTIONS = ("--level", "--seed", "--draws", "--score-bins", "--likelihood-bins", "--workers")


def join_negative_numbers(argv, options=NUMBER_OPTIONS):
    """``--threshold -1e-05`` → ``--threshold=-1e-05`` for the ``options`` that take numbers (argparse reads only
    plain negative numbers as values)."""
    out, i = [], 0
    while i < len(argv):
        token = argv[i]
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if token in options and nxt is not None and nxt.startswith("-") and _looks_numeric(nxt):
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


def requirement(text):
    """Parse ``--requirement P,R`` into (min_precision, min_recall), both in [0, 1]."""
    try:
        p, r = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected MIN_PRECISION,MIN_RECALL such as 0.9,0.5, got {text!r}") from None
    if not (0 <= p <= 1 and 0 <= r <= 1):  # NaN fails too
        raise argparse.ArgumentTypeError(f"precision and recall must be in [0, 1], got {text!r}")
    return p, r


def target_name(text):
    """``--target`` of spe suggest and spe plan: a registered target (spe.active.targets), its parameters
    checked (whether it fits the number of classifiers is checked once they are read)."""
    from ..active import parse_target
    from ..exceptions import SpeInputError

    if text in ("accuracy", "macro_f1") or text.startswith("ap:") or (text.startswith("threshold:")
                                                                        and text.count(":") >= 2):
        return text  # a multiclass target (spe.multiclass.suggest), checked against the classes once read
    try:
        target, _ = parse_target(text)
    except SpeInputError as e:
        hint = " (threshold:CLASS:P,R is for class columns)" if text.startswith("threshold:") else ""
        raise argparse.ArgumentTypeError(str(e).split(": ", 1)[-1] + hint) from None
    return text


def add_target_options(p, default):
    """--target and --classifier of spe suggest and spe plan (one classifier or several)."""
    p.add_argument("--target", type=target_name, default=None, metavar="TARGET",
                   help=f"what the labels should settle: {default} (default for one classifier), "
                        + ", ".join(n for n in ("pr-band", "ap", "prevalence") if n != default)
                        + ", threshold:P,R; compare (default for several classifiers: the difference in average "
                          "precision of every pair; in accuracy for multiclass scores); for multiclass scores "
                          "accuracy (default), macro_f1, ap:CLASS or (spe suggest) threshold:CLASS:P,R, whether "
                          "CLASS's best threshold meets precision >= P and recall >= R (spe threshold --class)")
    p.add_argument("--classifier", metavar="NAME", action=Once,
                   help="with several classifiers and a one-classifier target: whose (default: the first)")


def strategy_names():
    """The registered strategies (spe.active.strategies)."""
    from ..active import STRATEGIES

    return list(STRATEGIES)
