"""The model-fitting pipeline of one classifier's scores: fit every score model, check each against the labels
(and the mixture against the score histogram), weigh them by their evidence and average them.

:func:`fit_score_models` is what :func:`spe.evaluate` (through :func:`spe.fit_scores`) and :func:`spe.compare`
(each classifier alone, and the joint log-odds) run between reading the inputs and drawing the unknown labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..exceptions import MixtureFitError, Notice, SpeWarning, collected_notices
from ..inputs import labeled_auc
from ..progress import stage
from ..shared_reference import priors_of
from .anchor import hypothesis_prior, pool_scores_say, reference_hypotheses, reference_report
from .average import average_models
from .constant import fit_constant
from .criticism import P_VALUE_THRESHOLD, label_check
from .deviation import deviation_models
from .mixture.fit import fit_mixture
from .registry import REGISTRY
from .shift import carried_models

__all__ = ["ScoreModelFit", "fit_score_models", "prevalence_only", "NEGLIGIBLE_WEIGHT"]


@dataclass
class ScoreModelFit:
    """What :func:`fit_score_models` fitted: the model behind the seam, the mixture's families (None when it was
    not fitted), the diagnostics, and warnings for the user (str, or :class:`~spe.exceptions.Notice` with their
    own category)."""

    model: object
    families: dict
    diagnostics: dict
    messages: list = field(default_factory=list)


def prevalence_only(value, draws, rng):
    """All scores equal: the prevalence from the labels alone (:mod:`spe.models.constant`, a Beta posterior).

    ``value`` (n,) the 0/1 labels; ``draws`` M; ``rng`` a numpy Generator. Returns a :class:`ScoreModelFit` whose
    model has M draws of the prevalence π (a probability) and no families."""
    model = fit_constant(value, draws=draws, rng=rng)
    diagnostics = dict(model.diagnostics)
    diagnostics["score_models"] = [{"model": model.name, "log_evidence": model.log_evidence,
                                    "elpd_loo": model.elpd_loo, "weight": 1.0}]
    return ScoreModelFit(model, {"negative": None, "positive": None}, diagnostics)


def _fit_mixture_recording_warnings(s, s_sorted, index, value, options, rng):
    """:func:`spe.models.mixture.fit.fit_mixture` with its warnings kept: (model or None, list of Notice).

    A mixture that cannot be fitted at all (no family pair reaches an
    identified optimum: e.g. too few distinct scores) is None, with a
    warning; the other score models carry the estimate.
    """
    with collected_notices("mixture") as notices:
        try:
            mixture, _ = fit_mixture(s, index, value, rng=rng, identify_top=options["monotone"],
                                     sorted_scores=s_sorted, **options)
        except MixtureFitError as e:
            mixture = None
            notices.append(Notice(f"the SPE mixture could not be fitted to these scores ({e}): it is left out, and "
                                  "the estimate rests on the recalibrations of the score", SpeWarning, "mixture"))
    return mixture, notices


def _score_models(score_model, data):
    """The score models to fit (:class:`~spe.models.registry.ScoreModel` list): the one asked for, or all that
    ``"average"`` averages for these data — with a reference set, those carried from it too
    (:func:`spe.models.shift.carried_models`; the deviation from them is fitted after them), and without pool
    labels only those that rest on it (:mod:`spe.models.anchor`) —; without a mixture, those that do not need
    it."""
    if score_model != "average":
        names = (score_model,)
    elif _rests_on_reference(score_model, data):
        names = tuple(name for name, m in REGISTRY.items() if m.needs_reference and m.averaged(data))
    else:
        names = tuple(name for name, m in REGISTRY.items() if m.averaged(data))
    if data.mixture is None:
        names = tuple(m for m in names if not REGISTRY[m].uses_mixture) or ("platt",)
    carried = carried_models(data) if _anchored_average(score_model, data) else []
    return [REGISTRY[name] for name in names] + carried


def _anchored_average(score_model, data):
    """Whether the average weighs the hypotheses a reference set raises (:mod:`spe.models.anchor`)."""
    return score_model == "average" and data.reference is not None


def _rests_on_reference(score_model, data):
    """Whether the estimate rests on the reference set alone: averaged, with a reference and no pool labels."""
    return _anchored_average(score_model, data) and data.labeled_index.size == 0


def _uses_mixture(score_model, data):
    """Whether ``score_model`` (a name or ``"average"``) needs the SPE mixture fitted for these data."""
    if score_model == "average":
        return not _rests_on_reference(score_model, data)
    return REGISTRY[score_model].uses_mixture


def fit_score_models(data, score_model, options, rngs):
    """Fit, check, weigh and average the score models of one classifier's scores (:func:`spe.evaluate`'s model).

    Parameters
    ----------
    data : LabeledScores
        The pool (its N scores, or a pool's K values with ``counts``), the labeled items, the resolved score
        type, M draws and the reference set, built once (:func:`spe.api.fit_scores`).
    score_model : str
        A registered score model's name, or ``"average"``.
    options : dict
        The SPE mixture's options (:func:`spe.models.mixture.fit.fit_mixture`: ``families``, ``draws``,
        ``proposal``, ``score_space``, ``temper``, ``score_type``, ``monotone``, ``inference``, ``progressbar``,
        ``likelihood_bins``, ``workers``).
    rngs : four numpy.random.Generator
        The mixture's, the score models', the average's and the checks' streams.

    Returns
    -------
    ScoreModelFit
        The steps: the mixture (when a model asked for it uses it), every score model (the registry's; with a
        reference set those carried from it and the deviation, :mod:`spe.models.anchor`), each checked against
        the labels (and the mixture against the histogram), averaged by evidence; ``diagnostics["score_models"]``
        lists each with ``log_evidence``, ``elpd_loo``, ``weight``, ``draws``, ``excluded``, ``left_out_by``
        (``"labels"``, ``"histogram"`` or None) and ``label_check_p``.
    """
    fit_rng, recal_rng, avg_rng, check_rng = rngs
    draws = options["draws"]
    s, s_sorted, index, value = data.scores, data.sorted_scores, data.labeled_index, data.labeled_value
    counts = data.counts
    # averaged, a mixture failing the histogram check is left out (_criticise): it need not be tempered
    mixture_options = dict(options, leave_out_misfit=score_model == "average")
    data.mixture, mixture_warnings = (_fit_mixture_recording_warnings(s, s_sorted, index, value,
                                                                      dict(mixture_options, counts=counts), fit_rng)
                                      if _uses_mixture(score_model, data) else (None, []))
    mixture = data.mixture
    scores_say = pool_scores_say(data, check_rng.spawn(1)[0]) if _anchored_average(score_model, data) else None
    fitted, specs, model_warnings, anchored = _fit_all(score_model, data, recal_rng)
    with stage("checking and averaging the score models"):
        label_p, left_out = _criticise(fitted, mixture, s, index, value, check_rng)
        if scores_say is not None:  # the reference's hypotheses compete with a new map by their evidence
            left_out = [None if why == "labels" and h else why
                        for why, h in zip(left_out, reference_hypotheses(fitted, anchored))]
        if len(fitted) == 1:
            model = fitted[0]
        else:
            prior = (hypothesis_prior(fitted, anchored, scores_say["evidence"], _pooled_masses(data)) if scores_say
                     else None)
            model = average_models(fitted, draws=draws, rng=avg_rng, exclude=[w is not None for w in left_out],
                                   prior=prior)
        diagnostics, messages = _model_diagnostics(model, fitted, mixture, label_p, left_out, s, index, value,
                                                   check_rng, draws)
    if mixture is None and not _uses_mixture(score_model, data):
        diagnostics["mixture_not_fitted"] = (
            "no pool labels: the estimate rests on the reference set" if _rests_on_reference(score_model, data)
            else f"the score model {score_model!r} does not use it")
    messages += _reports(specs, fitted, diagnostics)
    if scores_say is not None:
        found, said = reference_report(fitted, diagnostics["score_models"], anchored, index.size, scores_say)
        diagnostics.setdefault("reference", {}).update(found)
        messages += said
    messages += _mixture_messages(mixture, mixture_warnings, diagnostics)
    messages += _model_messages(model_warnings, diagnostics)
    families = ({"negative": None, "positive": None} if mixture is None else
                {"negative": mixture.mixture_fit.mixture.negative.name,
                 "positive": mixture.mixture_fit.mixture.positive.name})
    return ScoreModelFit(model, families, diagnostics, messages)


def _pooled_masses(data):
    """The hypotheses' prior masses the other pools give this one (:mod:`spe.models.pooling`), or None."""
    pooled = priors_of(data.reference)
    return None if pooled is None else pooled.masses


def _fit_all(score_model, data, rng):
    """Fit the score models (:func:`_score_models`), and when the average weighs a reference set's hypotheses the
    drift of the best anchored map under each shift (:func:`spe.models.deviation.deviation_models`): (fitted
    models, their registry entries, their warnings, whether each is anchored)."""
    fitted, specs, model_warnings = _fit_registered(_score_models(score_model, data), data, rng)
    anchored = [spec.needs_reference for spec in specs]
    if _anchored_average(score_model, data):
        more = _fit_registered(deviation_models([m for m, a in zip(fitted, anchored) if a]), data, rng)
        fitted, specs, model_warnings = fitted + more[0], specs + more[1], model_warnings + more[2]
        anchored += [False] * len(more[0])
    return fitted, specs, model_warnings, anchored


def _criticise(fitted, mixture, s, index, value, rng):
    """Box's loop, check then revise: each model's label-check p-value, and why it is left out of the average.

    A model whose own posterior predicts the labeled items worse than it
    expects to (label_check p < 0.01) is left out of the average, and so is
    the mixture when its densities do not reproduce the histogram of the
    scores (:mod:`spe.models.mixture.check`): tempered, its posterior is close to its
    prior, whose p(y | s) says little about these scores yet is sharp at the
    top (a positive family above a negative one), and 20 labels cannot
    refute that. (So it is fitted with ``leave_out_misfit``: not tempered.)
    """
    # a mixture left out at its MAP has one draw, not a posterior to check the labels against
    label_p = [label_check(fm, s[index], value, rng=rng) if index.size and fm.diagnostics.get("inference") != "map"
               else float("nan") for fm in fitted]
    hist = None if mixture is None else mixture.mixture_fit.histogram_check
    left_out = [("histogram" if fm is mixture and hist is not None and not hist.passed else
                 "labels" if p < P_VALUE_THRESHOLD else None)
                for fm, p in zip(fitted, label_p)]
    return label_p, left_out


def _model_diagnostics(model, fitted, mixture, label_p, left_out, s, index, value, rng, draws):
    """The diagnostics of the fitted score models (the mixture's sampler, each model's weight, evidence and
    checks, the averaged model's label check) and the label-check warning."""
    if mixture is not None:
        diagnostics = dict(mixture.diagnostics)
    else:
        diagnostics = {"inference": "grid", "draws": int(draws), "ess": float(draws), "pareto_k": None}
    messages = []
    if len(fitted) == 1:
        diagnostics["score_models"] = [{"model": model.name, "log_evidence": model.log_evidence,
                                        "elpd_loo": model.elpd_loo, "weight": 1.0}]
    else:
        diagnostics["score_models"] = model.diagnostics["models"]
        diagnostics["chosen"] = model.diagnostics["chosen"]
        for entry, why in zip(diagnostics["score_models"], left_out):
            entry["left_out_by"] = why if entry["excluded"] else None
    if index.size:
        for entry, p in zip(diagnostics["score_models"], label_p):
            entry["label_check_p"] = None if np.isnan(p) else p  # None: not checked (left out at its MAP)
        p_all = label_p[0] if len(fitted) == 1 else label_check(model, s[index], value, rng=rng)
        diagnostics["label_check"] = {"p_value": p_all, "passed": bool(p_all >= P_VALUE_THRESHOLD)}
        if p_all < P_VALUE_THRESHOLD:
            messages.append(
                f"no score model predicts the labeled items well: the labels are less probable under the "
                f"{'averaged ' if len(fitted) > 1 else ''}model than labels it would generate itself "
                f"(posterior-predictive p = {p_all:.3f}); the bands may be too narrow — check the scores and "
                f"labels belong together, and label more items at random" + _backwards_hint(s[index], value))
    return diagnostics, messages


def _backwards_hint(labeled_scores, labeled_value):
    """When the labeled positives score lower than the labeled negatives on the whole: say so (a classifier
    that ranks backwards fails the label check; too few labels may leave the ranking test short of evidence)."""
    pos, neg = labeled_scores[labeled_value == 1], labeled_scores[labeled_value == 0]
    if not (pos.size and neg.size):
        return ""
    auc = labeled_auc(pos, neg)
    return (f"; the labeled positives score lower than the labeled negatives (ROC AUC of the labeled items "
            f"{auc:.2f}): does the classifier rank backwards?" if auc < 0.5 else "")


def _reports(specs, fitted, diagnostics):
    """What each fitted model's registry entry reports (:attr:`ScoreModel.report`): merged into ``diagnostics``;
    returns the warnings."""
    messages, alone = [], len(fitted) == 1
    for spec, model, entry in zip(specs, fitted, diagnostics["score_models"]):
        if spec.report is not None:
            found, said = spec.report(model, entry, alone)
            diagnostics.update(found)
            messages += said
    return messages


def _fit_registered(models, data, rng):
    """Fit each score model (a :class:`~spe.models.registry.ScoreModel`) on its own stream of ``rng``: (the fitted
    models, their registry entries, their warnings as :class:`~spe.exceptions.Notice` objects whose source is the
    model's name)."""
    fitted, specs, notices = [], [], []
    with stage("fitting the score models", total=len(models), unit="model") as progress:
        for spec, stream in zip(models, rng.spawn(len(models))):
            with collected_notices(spec.name) as found:
                model = spec.fit(data, stream)
            progress.advance()
            source = spec.name if model is None else model.name
            notices.append((source, [Notice(n, n.category, source) for n in found]))
            if model is not None:
                fitted.append(model)
                specs.append(spec)
    return fitted, specs, notices


#: Weight below which a score model cannot mislead the estimates: its warnings become notes in the diagnostics.
NEGLIGIBLE_WEIGHT = 0.01


def _weighed_warnings(label, weight, notices, diagnostics):
    """A score model's warnings for the user, each prefixed with ``label``; when the labels switched the model off
    (weight < :data:`NEGLIGIBLE_WEIGHT`) they become notes in ``diagnostics`` instead."""
    if weight >= NEGLIGIBLE_WEIGHT:
        return [Notice(f"{label}: {n}", n.category, n.source) for n in notices]
    for n in notices:
        diagnostics.setdefault("notes", []).append(
            f"{label} (weight {weight:.3f}, so it does not affect the estimates): {n}")
    return []


def _model_messages(model_warnings, diagnostics):
    """The registered score models' own warnings ((model name, notices) pairs), by their weight."""
    weights = _weights(diagnostics)
    return [msg for source, notices in model_warnings
            for msg in _weighed_warnings(f"score model {source!r}", weights.get(source, 1.0), notices, diagnostics)]


def _mixture_messages(mixture, mixture_warnings, diagnostics):
    """The mixture's warnings, by its weight; that it could not be fitted at all is said as it is."""
    if mixture is None:
        return list(mixture_warnings)
    return _weighed_warnings("SPE mixture", _weights(diagnostics).get(mixture.name, 0.0), mixture_warnings,
                             diagnostics)


def _weights(diagnostics):
    """Each fitted score model's weight in the average, by its name."""
    return {m["model"]: m["weight"] for m in diagnostics["score_models"]}
