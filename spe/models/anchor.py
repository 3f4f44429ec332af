"""The hypotheses a labeled reference set raises, weighed by every label and by the pool's scores: its
calibration map applies to the pool up to a label shift or a covariate shift, or it does not (concept shift).

*The reference's map applies*, up to a *label shift* (the class-conditional
score densities are the reference's and only the prevalence differs;
Saerens, Latinne & Decaestecker 2002) or a *covariate shift* (the map
p(y = 1 | s) is the reference's and only the scores' distribution differs:
what NannyML's CBPE assumes). Its models are *anchored*: the reference set's
own map (:mod:`spe.models.reference`, BBQ, under either shift) and every score
model that learns the map from the reference's labels and is carried to the
pool under either assumption (:mod:`spe.models.shift`, ``reference-<name>``
and ``reference-<name>-covariate``). Each one's evidence is p(Y_ref, Y_L |
S_ref, S): the reference's R labels decide between the maps, and the pool's
score histogram between the assumptions
(:func:`~spe.models.label_shift_check.pool_score_evidence`: a label shift
predicts it with one free parameter, a covariate shift allows any), as do
the pool's labels.

*Concept shift*: the pool's map differs from the reference's: the best
anchored map deviated (:mod:`spe.models.deviation`: σ(a + b g(s)), a small
drift a priori, learned from the pool's labels when there are some) or, with
pool labels, a map learned from them alone (the score models fitted on the
pool: a reference from another classifier or another labeling says nothing
of this pool; without labels those would be their priors alone, so they are
not fitted). The reference's labels are then explained by the reference's
own map and say nothing more about the pool: each new map's evidence is
p(Y_ref | S_ref) averaged over the anchored maps (their prior equal) times
its own p(Y_L | S); a drift's is that average over the anchored maps of its
own assumption (it stands for the drift of any of them, as the assumption's
spike stands for all of them; the best one is drifted) times its own
p(Y_L | S), so that without pool labels a drift keeps its prior share. A
changed map says nothing of the pool's score histogram: it may still be the
reference's classes remixed (the labels of items changed, their scores not)
or anything, so its evidence is the two assumptions' averaged.

Prior: a new map :data:`NEW_MAP_PRIOR` (0.05: a reference that does not
apply at all is the exception a few labels reveal); otherwise the label and
the covariate shift equally, and under each a spike-and-slab prior on the
drift of its map: none, or a drift (the deviation of that shift's best map),
:data:`DRIFT_PRIOR` (1/2), since maps do drift between periods (on NannyML's
census data every later chunk's prevalence is 0.01–0.02 above what the 2015
map says).
Normalised over the hypotheses fitted, each shared equally by its models. Without pool labels the estimate rests on the
reference, and the summary says which shift the pool's scores favour and
that a few labels drawn at random would reveal a changed map.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from .criticism import P_VALUE_THRESHOLD
from .deviation import NAME as DEVIATION
from .label_shift_check import label_shift_check, pool_score_evidence

__all__ = ["NEW_MAP_PRIOR", "DRIFT_PRIOR", "WARNING_WEIGHT", "ASSUMPTION", "hypothesis_prior", "default_masses",
           "reference_report", "pool_scores_say", "reference_hypotheses"]

#: Prior probability that the pool's map is a new one, learned from its labels alone (a reference from another
#: classifier or labeling).
NEW_MAP_PRIOR = 0.05
#: Prior probability, otherwise, that the reference's map drifted (the slab of a spike-and-slab prior on the
#: drift, :mod:`spe.models.deviation`; the spike, no drift, is the label and covariate shifts' equally).
DRIFT_PRIOR = 0.5
#: Weight of label shift below which the summary says the reference set disagrees with the labeled items.
WARNING_WEIGHT = 0.2
#: The assumption the anchored models make, in the summary and the JSON.
ASSUMPTION = ("the reference set's calibration map applies to this pool up to a label shift (the prevalence may "
              "differ) or a covariate shift (the scores' distribution may differ), weighed by the pool's scores, "
              "and up to a drift of the map")


def hypothesis_prior(fitted, anchored, score_evidence=None, masses=None):
    """Prior model probabilities (K,) of the fitted models, and every model's evidence completed.

    Parameters
    ----------
    fitted : list of FittedScoreModel
        K models; the anchored ones carry ``reference_log_evidence`` = log p(Y_ref | S_ref). A drift
        (:mod:`spe.models.deviation`) takes the mean over its assumption's anchored maps: it stands for the drift
        of any of them (it deviates the best), as the spike of that assumption stands for all of them, so that
        without pool labels the drift keeps its prior share beside the maps it deviates.
    anchored : list of bool, length K
        Whether each model assumes the reference's map applies (label or covariate shift).
    score_evidence : dict, optional
        log p(the pool's score histogram | assumption) for ``"label"`` and ``"covariate"``
        (:func:`~spe.models.label_shift_check.pool_score_evidence`): added to the models that assume a label
        shift (``diagnostics["assumption"] == "label"``), to the new maps the average of the two (a changed map
        says nothing of the scores' distribution), and to the others the covariate shift's (the pool's scores
        unconstrained).
    masses : tuple (spike, slab, new map), optional
        The three hypotheses' prior probabilities: no drift (the label and covariate shifts' maps), a drift,
        a new map; None: :func:`default_masses` (a pooled one: :func:`spe.models.pooling.pooled_hypothesis_masses`).

    Returns
    -------
    array, shape (K,)
        By hypothesis (module docstring), each shared equally by its models, normalised over the hypotheses
        fitted. The new maps' ``log_evidence`` gains log p(Y_ref | S_ref, concept shift) (module docstring), the
        drifts' their assumption's mean, and their ``reference_log_evidence`` is set to it.
    """
    anchored = np.asarray(anchored, dtype=bool)
    carried = [m for m, a in zip(fitted, anchored) if a]
    concept_reference = _mean_reference_evidence(carried)
    by_assumption = {}  # a drift's: the mean over the anchored maps of its own assumption
    drift = _drifts(fitted)
    for model, a, d in zip(fitted, anchored, drift):
        if model.log_evidence is None:  # no evidence at all (left out of the average)
            continue
        if not a:
            own = _own_reference_evidence(model, carried, by_assumption) if d else concept_reference
            model.log_evidence = float(model.log_evidence) + own
            model.reference_log_evidence = own
        if score_evidence is not None:
            model.log_evidence += _score_evidence(model, a, score_evidence)
    label = _assumes_label_shift(fitted)
    spike, slab, new = default_masses() if masses is None else masses
    groups = [(anchored & label, spike / 2), (anchored & ~label, spike / 2), (drift & label, slab / 2),
              (drift & ~label, slab / 2), (~anchored & ~drift, new)]
    prior = np.zeros(anchored.size)
    for members, mass in groups:
        if members.any():
            prior[members] = mass / members.sum()
    return prior / prior.sum()


def _own_reference_evidence(model, carried, cache):
    """The mean reference evidence of the anchored maps (``carried``) that share ``model``'s assumption, computed
    once per assumption (``cache``)."""
    assumption = model.diagnostics.get("assumption")
    if assumption not in cache:
        cache[assumption] = _mean_reference_evidence(
            [m for m in carried if m.diagnostics.get("assumption") == assumption])
    return cache[assumption]


def _mean_reference_evidence(models):
    """log of the mean of p(Y_ref | S_ref) over the anchored ``models`` (their prior equal); NaN for none."""
    values = np.array([m.reference_log_evidence for m in models], dtype=float)
    return float(special.logsumexp(values) - np.log(values.size)) if values.size else float("nan")


def default_masses():
    """The three hypotheses' prior probabilities (module docstring): (no drift, a drift, a new map), sum 1."""
    return ((1 - NEW_MAP_PRIOR) * (1 - DRIFT_PRIOR), (1 - NEW_MAP_PRIOR) * DRIFT_PRIOR, NEW_MAP_PRIOR)


def _score_evidence(model, anchored, evidence):
    """log p(the pool's score histogram | the model's hypothesis): a label shift's for the models that assume one;
    for a new map (concept shift) either assumption's, equally likely (the map changed, and the scores may still be
    the reference's classes remixed, or anything); else a covariate shift's."""
    if _assumes_label_shift([model])[0]:
        return evidence["label"]
    if not anchored and not _drifts([model])[0]:
        return float(np.logaddexp(evidence["label"], evidence["covariate"]) - np.log(2))
    return evidence["covariate"]


def _assumes_label_shift(fitted):
    """Which fitted models read the pool's scores as a label shift of the reference's: bool array (K,)."""
    return np.array([m.diagnostics.get("assumption") == "label" for m in fitted], dtype=bool)


def reference_hypotheses(fitted, anchored):
    """Which fitted models say the reference's map applies, carried or drifted (the spike and the slab), against
    which the new maps compete by their evidence: bool array (K,). The label check does not leave these out
    (:func:`spe.models.pipeline.fit_score_models`): labels that disagree with them move the weight to a new map
    smoothly, by the evidence, instead of at a p-value's threshold, and the hypotheses' prior (pooled across
    chunks, :mod:`spe.models.pooling`) keeps its say."""
    return np.asarray(anchored, dtype=bool) | _drifts(fitted)


def _drifts(fitted):
    """Which fitted models are a drift of an anchored map (:mod:`spe.models.deviation`): bool array (K,)."""
    return np.array([m.name.startswith(DEVIATION) for m in fitted], dtype=bool)


def pool_scores_say(data, rng):
    """What the pool's scores say of the assumptions, for ``data`` (a :class:`~spe.models.features.LabeledScores`
    with a reference set): ``{"evidence": {"label": float, "covariate": float}, "p_value": float}`` — the
    histogram's log evidence under each (:func:`pool_score_evidence`) and the label-shift check's p-value
    (:func:`label_shift_check`)."""
    reference, pool = data.reference_cells, data.pool_cells
    return {"evidence": pool_score_evidence(reference, pool), "p_value": label_shift_check(reference, pool, rng)}


def _pool_prevalence(fitted, weights, anchored):
    """The anchored models' posterior means of (shift, reference prevalence, pool prevalence), weighted by their
    weights: three floats (NaN when they carry no weight)."""
    rows = [(w, m.weights @ m.constrained_draws[:, :3]) for m, w, a in zip(fitted, weights, anchored) if a and w > 0]
    if not rows:
        return (float("nan"),) * 3
    total = sum(w for w, _ in rows)
    return tuple(float(v) for v in sum(w * mean for w, mean in rows) / total)


def reference_report(fitted, entries, anchored, n_labeled, scores_say=None):
    """What the summary and ``diagnostics["reference"]`` say of the hypotheses, and the warnings.

    Parameters
    ----------
    fitted : list of FittedScoreModel
    entries : list of dict
        Their entries of ``diagnostics["score_models"]`` (``weight``).
    anchored : list of bool
    n_labeled : int
        The pool's labeled items.
    scores_say : dict or None
        What the pool's scores say (:func:`pool_scores_say`).

    Returns
    -------
    (dict, list of str)
        The fields merged into ``diagnostics["reference"]`` — ``assumption``, ``weight`` (of "its map applies",
        drifted or not), ``drift_weight`` (of its drift, part of ``weight``), ``concept_shift_weight`` (of a new
        map), ``maps`` (each anchored model's weight), ``drift_information`` (per assumption, the pool labels'
        information on its drift, :func:`spe.models.deviation.labels_information`), ``shift``,
        ``reference_prevalence``,
        ``pool_prevalence`` (posterior means over the anchored models), ``label_shift_check_p``, ``check``
        (what checked the assumption, what would reveal a violation) — and the warnings.
    """
    weights = np.array([e["weight"] for e in entries])
    anchored = np.asarray(anchored, dtype=bool)
    shift, reference_prevalence, pool_prevalence = _pool_prevalence(fitted, weights, anchored)
    drift = _drifts(fitted)
    weight = float(weights[anchored | drift].sum())
    found = {"assumption": ASSUMPTION, "weight": weight, "drift_weight": float(weights[drift].sum()),
             "concept_shift_weight": float(weights[~anchored & ~drift].sum()),
             "maps": {m.name: float(w) for m, w, a in zip(fitted, weights, anchored) if a},
             "shift": shift, "reference_prevalence": reference_prevalence, "pool_prevalence": pool_prevalence,
             "label_shift_weight": float(weights[_assumes_label_shift(fitted)].sum()),
             "label_shift_check_p": None if scores_say is None else scores_say["p_value"],
             "drift_information": {m.diagnostics.get("assumption"): m.diagnostics["labels_information"]
                                   for m in np.asarray(fitted, dtype=object)[drift]
                                   if "labels_information" in m.diagnostics},
             "check": _check_text(n_labeled, weight, scores_say)}
    if n_labeled == 0 or weight >= WARNING_WEIGHT:
        return found, []
    return found, [f"the pool's labels disagree with the reference set (concept shift: its map has weight "
                   f"{weight:.2f}): the estimate rests "
                   f"on the pool's own labels — is the reference from the same classifier, with the same labeling, "
                   f"on similar data?"]


def _check_text(n_labeled, weight, scores_say):
    p = None if scores_say is None else scores_say["p_value"]
    scores = ("" if p is None else
              f"the pool's scores refute a label shift (p = {p:.3f}: their distribution is not the reference's "
              f"classes remixed), so the estimate rests on a covariate shift; " if p < P_VALUE_THRESHOLD else
              f"the pool's scores allow a label shift (p = {p:.2f}); ")
    if n_labeled == 0:
        return (scores + "no pool item is labeled, so nothing checks the map itself: a few pool items labeled "
                "at random would reveal a change of the calibration map (concept shift)")
    return (scores + f"{n_labeled} labeled pool items give the reference's map weight {weight:.3f} against "
            f"a new map (prior {1 - NEW_MAP_PRIOR:.2f})")
