"""``spe.evaluate`` for a K-class classifier: scores (N, K) and a few labels → :class:`MulticlassEvaluation`."""

from __future__ import annotations

import numpy as np

from ..exceptions import SpeInputError
from ..inputs import check_choice, check_level, seed_of
from .average import average_class_models, fit_class_models
from .evaluation import MulticlassEvaluation
from .models import CLASS_MODELS
from .performance import sample_class_performance
from .scores import class_labels, class_reference, class_scores

__all__ = ["evaluate_multiclass", "evaluate_classes"]


def evaluate_multiclass(scores, labels=None, *, classes=None, draws=1000, level=0.9, rng=None,
                        score_model="average", reference=None):
    """Estimate a K-class classifier's performance on a pool from all its scores and a few labels.

    Every registered multiclass score model of p(y | s) (:data:`spe.multiclass.models.CLASS_MODELS`: Bayesian
    temperature scaling, vector scaling and Dirichlet calibration, each with a prior-shift term) is fitted to
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

    Returns
    -------
    MulticlassEvaluation

    Raises
    ------
    SpeInputError
        Bad scores (:func:`~spe.multiclass.scores.class_scores`), a label that is no class (naming the item), an
        option out of range.
    """
    level = check_level(level)
    check_choice("score_model", score_model, ("average", *CLASS_MODELS))
    if int(draws) < 100:
        raise SpeInputError(f"must be at least 100, got {draws}", argument="draws")
    seed = seed_of(rng)
    data = class_scores(scores, classes)
    index, value = class_labels(labels, data)
    ref = None if reference is None else class_reference(reference, data.classes)
    gen = np.random.default_rng(seed)
    fit_rng, average_rng, label_rng = gen.spawn(3)
    names = tuple(n for n, m in CLASS_MODELS.items() if m.averaged) if score_model == "average" else (score_model,)
    fitted = fit_class_models(data.log_probs, index, value, names=names, draws=int(draws), rng=fit_rng,
                              reference=ref)
    model = average_class_models(fitted, draws=int(draws), rng=average_rng)
    performance = sample_class_performance(model, data.log_probs, data.predicted, index, value, rng=label_rng)
    diagnostics = {"seed": seed, "draws": int(draws), "score_models": model.table(),
                   **({} if ref is None else {"reference": {"n_items": int(ref[1].size)}})}
    return MulticlassEvaluation(data, index, value, model, performance, level, diagnostics,
                                _warnings(data, value, ref is not None))


def evaluate_classes(scores, labels=None, *, classes=None, draws=1000, level=0.9, rng=None, score_model="average",
                     reference=None, **binary_options):
    """K-class scores: :func:`evaluate_multiclass` for K ≥ 3; for K = 2, :func:`spe.evaluate` of the second class's
    score alone (its probability, or the difference of the two logits), with the second class positive — the
    same answer as that one score column gives (a reference set read the same way). ``binary_options`` are
    :func:`spe.evaluate`'s other options (K = 2 only)."""
    from ..api import evaluate

    data = class_scores(scores, classes)
    if data.n_classes > 2:
        _warn_unused(binary_options, evaluate)
        return evaluate_multiclass(scores, labels, classes=classes, draws=draws, level=level, rng=rng,
                                   score_model=score_model, reference=reference)
    index, value = class_labels(labels, data)
    binary_reference = None
    if reference is not None:
        ref_log_probs, ref_class = class_reference(reference, data.classes)
        binary_reference = (_second_class_score(ref_log_probs, data.score_type), ref_class)
    return evaluate(_positive_score(scores, data), (index, value), draws=draws, level=level, rng=rng,
                    score_model=score_model, reference=binary_reference, **binary_options)


def _warn_unused(options, evaluate):
    """A SpeWarning naming the binary-only options given other values than their defaults (K ≥ 3 reads none)."""
    import inspect
    import warnings

    from ..exceptions import SpeWarning

    defaults = {k: p.default for k, p in inspect.signature(evaluate).parameters.items()}
    unused = sorted(k for k, v in options.items() if k in defaults and not _same(v, defaults[k]))
    if unused:
        warnings.warn(SpeWarning(f"{', '.join(unused)}: options of one score, not used for multiclass "
                                 "scores"), stacklevel=4)


def _same(value, default):
    try:
        return bool(value == default)
    except (TypeError, ValueError):
        return False


def _second_class_score(log_probs, score_type):
    """The second class's score from two-class log-probabilities: its probability, or the log-odds."""
    return np.exp(log_probs[:, 1]) if score_type == "probabilities" else log_probs[:, 1] - log_probs[:, 0]


def _positive_score(scores, data):
    """The second class's score as one column: its probability, or the logits' difference (the log-odds);
    indexed by the items' positions (the labels are positions by then)."""
    if data.score_type == "probabilities":
        frame = scores.drop(columns="id", errors="ignore") if hasattr(scores, "columns") else None
        return np.asarray(frame.iloc[:, 1] if frame is not None else np.asarray(scores, dtype=float)[:, 1],
                          dtype=float)
    return data.log_probs[:, 1] - data.log_probs[:, 0]


def _warnings(data, labeled_class, has_reference=False):
    out = []
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
