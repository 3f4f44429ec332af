"""``spe.evaluate`` for a K-class classifier: scores (N, K) and a few labels → :class:`MulticlassEvaluation`."""

from __future__ import annotations

import numpy as np

from ..exceptions import SpeInputError
from ..inputs import MIN_DRAWS, check_choice, check_level, seed_of
from .average import average_class_models, fit_class_models
from .criticism import CHECK_THRESHOLD, class_label_check
from .evaluation import MulticlassEvaluation
from .models import CLASS_MODELS
from .performance import sample_class_performance
from .scores import (class_labels, class_reference, class_scores, reference_values, score_matrix,
                     second_class_score)

__all__ = ["evaluate_multiclass", "evaluate_classes", "estimate_from_scores", "warn_unused", "class_warnings",
           "error_free_warnings", "check_warnings"]


def evaluate_multiclass(scores, labels=None, *, classes=None, draws=1000, level=0.9, rng=None,
                        score_model="average", reference=None, class_thresholds=None):
    """Estimate a K-class classifier's performance on a pool from all its scores and a few labels.

    Every registered multiclass score model of p(y | s) (:data:`spe.multiclass.models.CLASS_MODELS`: Bayesian
    temperature scaling, vector scaling and Dirichlet calibration, each with a prior-shift term; top-label
    Platt scaling, and the same with a ceiling, :mod:`spe.multiclass.models.contaminated`) is fitted to
    the labeled items and they are averaged by their evidence p(Y_L | S) (:mod:`spe.multiclass.average`); the
    unlabeled items' classes are drawn under each of the M posterior draws and every metric is counted from the
    drawn labels (:mod:`spe.multiclass.performance`), as Welinder et al. (2013, §3) do for one score.

    Parameters
    ----------
    scores : array-like (N, K) or pandas DataFrame
        One column per class: probabilities (rows summing to one), logits or per-class decision values
        (:func:`spe.multiclass.scores.class_scores`). Never modified.
    labels : None, mapping, Series, DataFrame, (N,) array or (index, value) pair
        The known classes, as class names or 0-based class positions; NaN/None for unlabeled items (the forms of
        :func:`spe.inputs.normalize_labels`). Classes with no labeled item are allowed.
    classes : sequence of str, optional
        The classes' names (default: the DataFrame's columns, or "0".."K−1").
    draws : int
        M, posterior draws (≥ 100).
    level : float
        Credible level of the intervals and bands, in (0, 1).
    rng : numpy.random.Generator, int or None
        Seed or generator; the same seed gives the same result.
    score_model : "average" or a name of ``CLASS_MODELS``
        The evidence-weighted average of every model (default), or one model alone.
    reference : pandas DataFrame, (scores, labels) pair or None
        A labeled reference set of the same classifier (its validation set, an earlier period): a DataFrame with
        one column per class and ``label``, or an (R, K) matrix and R labels
        (:func:`~spe.multiclass.scores.class_reference`). Its labels teach every model the map; the pool's class
        shares may differ from the reference's (a prior shift, :func:`spe.multiclass.models.base.fit_map`).
    class_thresholds : mapping class name → float, optional
        One-vs-rest decisions to evaluate besides the argmax: an item is predicted of class k when the
        classifier's probability of k (as stated; the softmax of logits) is at least its threshold, in (0, 1].
        :meth:`~spe.multiclass.evaluation.MulticlassEvaluation.at_thresholds` gives each such class's precision,
        recall and F1 there.

    Returns
    -------
    MulticlassEvaluation

    Raises
    ------
    SpeInputError
        Bad scores (:func:`~spe.multiclass.scores.class_scores`), a label that is no class (naming the item), an
        option out of range, a ``score_model`` not fitted to this many classes (``dirichlet`` above 10).
    """
    return estimate_from_scores(class_scores(scores, classes), labels, draws=draws, level=level, rng=rng,
                                score_model=score_model, reference=reference, class_thresholds=class_thresholds)


def estimate_from_scores(data, labels, *, draws=1000, level=0.9, rng=None, score_model="average",
                         reference=None, class_thresholds=None):
    """:func:`evaluate_multiclass` of scores already read (a :class:`~spe.multiclass.scores.ClassScores`);
    raises as it does."""
    level = check_level(level)
    check_choice("score_model", score_model, ("average", *CLASS_MODELS))
    if int(draws) < MIN_DRAWS:
        raise SpeInputError(f"must be at least {MIN_DRAWS}, got {draws}", argument="draws")
    seed = seed_of(rng)
    index, value = class_labels(labels, data)
    ref = None if reference is None else class_reference(reference, data.classes)
    fit_rng, average_rng, label_rng = np.random.default_rng(seed).spawn(3)
    names = tuple(n for n, m in CLASS_MODELS.items() if m.averaged) if score_model == "average" else (score_model,)
    _check_model_fits(score_model, len(data.classes))
    fitted = fit_class_models(data.log_probs, index, value, names=names, draws=int(draws), rng=fit_rng,
                              reference=ref)
    model = average_class_models(fitted, draws=int(draws), rng=average_rng)
    thresholds = _thresholds(class_thresholds, data.classes)
    performance = sample_class_performance(model, data.log_probs, data.predicted, index, value, rng=label_rng,
                                           thresholds=thresholds)
    check = class_label_check(model, data.log_probs[index], data.predicted[index], value,
                              rng=np.random.default_rng([seed, 2]))  # its own stream: the estimate's are unchanged
    diagnostics = {"seed": seed, "draws": int(draws), "score_models": model.table(), "label_check": check,
                   **({} if ref is None else {"reference": {"n_items": int(ref[1].size)}}),
                   **({} if not class_thresholds else
                      {"class_thresholds": {c: float(t) for c, t in zip(data.classes, thresholds) if t == t}})}
    return MulticlassEvaluation(data, index, value, model, performance, level, diagnostics,
                                class_warnings(data, value, ref is not None) + check_warnings(check)
                                + error_free_warnings(data.predicted[index], value, ref is not None))


def _check_model_fits(score_model, n_classes):
    """Raises SpeInputError (argument ``score_model``) when the one model asked for is not fitted to K classes."""
    if score_model != "average" and not CLASS_MODELS[score_model].fits(n_classes):
        raise SpeInputError(f"the score model {score_model!r} is not fitted to {n_classes} classes "
                            f"({CLASS_MODELS[score_model].about}); choose another, or 'average'",
                            argument="score_model")


def _thresholds(class_thresholds, classes):
    """A mapping class name → probability threshold as an array (K,), NaN for the classes without one.

    Raises SpeInputError (argument ``class_thresholds``) for an unknown class or a threshold outside (0, 1]."""
    out = np.full(len(classes), np.nan)
    for name, t in (class_thresholds or {}).items():
        if str(name) not in classes:
            raise SpeInputError(f"no class {name!r} (the classes are {', '.join(classes)})",
                                argument="class_thresholds")
        try:
            t = float(t)
        except (TypeError, ValueError):
            t = float("nan")
        if not 0 < t <= 1:
            raise SpeInputError(f"the threshold of {name!r} must be a probability in (0, 1], got {t!r}",
                                argument="class_thresholds")
        out[classes.index(str(name))] = t
    return out


def evaluate_classes(scores, labels=None, *, classes=None, draws=1000, level=0.9, rng=None, score_model="average",
                     reference=None, class_thresholds=None, **binary_options):
    """K-class scores: :func:`evaluate_multiclass` for K ≥ 3; for K = 2, :func:`spe.evaluate` of the second class's
    score alone (its probability, or the difference of the two logits), with the second class positive — the
    same answer as that one score column gives (a reference set read the same way). ``binary_options`` are
    :func:`spe.evaluate`'s other options (K = 2 only; for K ≥ 3 those given other values than their defaults
    are named in a :class:`~spe.exceptions.SpeWarning`).

    Returns
    -------
    MulticlassEvaluation (K ≥ 3) or spe.evaluation.Evaluation (K = 2)

    Raises
    ------
    SpeInputError
        As :func:`evaluate_multiclass` (K ≥ 3) or :func:`spe.evaluate` (K = 2).
    """
    from ..api import evaluate

    data = class_scores(scores, classes)
    if data.n_classes > 2:
        warn_unused(binary_options, evaluate)
        return estimate_from_scores(data, labels, draws=draws, level=level, rng=rng, score_model=score_model,
                                    reference=reference, class_thresholds=class_thresholds)
    if class_thresholds:
        raise SpeInputError("two classes are one score (the second class's): evaluate its thresholds with the "
                            "result's metrics_at(threshold)", argument="class_thresholds")
    index, value = class_labels(labels, data)
    binary_reference = None
    if reference is not None:
        ref_values, ref_class = reference_values(reference, data.classes)
        binary_reference = (second_class_score(ref_values, data.score_type), ref_class)
    values = score_matrix(scores, classes)[0]
    return evaluate(second_class_score(values, data.score_type), (index, value), draws=draws, level=level, rng=rng,
                    score_model=score_model, reference=binary_reference, **binary_options)


def warn_unused(options, function):
    """A SpeWarning naming the options of the binary ``function`` (:func:`spe.evaluate`, :func:`spe.compare`)
    given to a K ≥ 3 call with other values than their defaults (K ≥ 3 reads none of them)."""
    import inspect
    import warnings

    from ..exceptions import SpeWarning

    defaults = {k: p.default for k, p in inspect.signature(function).parameters.items()}
    unused = sorted(k for k, v in options.items() if k not in defaults or not _same(v, defaults[k]))
    if unused:
        warnings.warn(SpeWarning(f"{', '.join(unused)}: options of one score, not used for multiclass "
                                 "scores"), stacklevel=4)


def _same(value, default):
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def check_warnings(p_value):
    """The warning of a failed posterior-predictive label check ([] when it passes or cannot run)."""
    if not p_value < CHECK_THRESHOLD:
        return []
    return [f"the labeled items are less probable under the score models than the models expect (posterior-"
            f"predictive p = {p_value:.3f}): the intervals rest on a calibration map the labels do not support; "
            "more labels, or a labeled reference set, would tell"]


def error_free_warnings(labeled_predicted, labeled_class, has_reference=False):
    """The warning when every labeled item is classified right and no reference set is given (list of str).

    The labels then bound how often the classifier errs only from above; the estimate reads it from the stated
    confidence through the score models' priors, and an over-confident classifier reads as more accurate than it
    is (``benchmarks/multiclass.py``, 20 labels, 30 seeds: on the five over-confident networks, 3 of the 10 such
    label sets' accuracy intervals held the truth; docs/benchmarks.md).

    Parameters
    ----------
    labeled_predicted, labeled_class : int arrays, shape (n,)
        The n labeled items' predicted (argmax) and true classes, as 0-based class positions.
    has_reference : bool
        Whether a labeled reference set was given (then no warning: its labels show the errors).
    """
    if has_reference or np.size(labeled_class) == 0 or np.any(np.asarray(labeled_predicted) != labeled_class):
        return []
    return ["every labeled item is classified right, so the labels say little about how often the classifier "
            "errs: the accuracy is read from its stated confidence, and for an over-confident classifier (most "
            "deep networks) its interval can end above the truth; more labels, or a labeled reference set, would "
            "tell"]


def class_warnings(data, labeled_class, has_reference=False):
    """The warnings of a multiclass estimate (list of str): how the scores were read (values in [0, 1] read as
    logits), classes with no labeled item, no label at all."""
    out = list(data.reading_warnings)
    if has_reference:
        return out
    missing = [c for j, c in enumerate(data.classes) if not np.any(labeled_class == j)]
    if labeled_class.size and missing:
        shown = ", ".join(map(str, missing[:10])) + (" …" if len(missing) > 10 else "")
        out.append(f"{len(missing)} of {len(data.classes)} classes have no labeled item ({shown}): their "
                   "estimates rest on the classifier's own probabilities and are wide")
    if labeled_class.size == 0:
        out.append("no labeled item: every estimate rests on the models' priors about the classifier's "
                   "probabilities")
    return out
