"""The paper's Table 1 for one data set: which class-conditional families fit, per class and in pairs.

Welinder et al. (2013), §4.2 and Table 1 rank the families for each class
by how well they fit, and the (negative, positive) combinations by their
likelihood on all scores. :func:`family_table` does both for a user's scores
and labels:

* **per class**: when a class has at least :data:`MIN_HELD_OUT` labeled
  items, each family is fitted to the labeled items of that class and
  ranked by the K-fold held-out log-likelihood of those items (what the
  paper's Table 1 uses, with all labels known); with fewer, by the BIC of
  its fit to the class's share of *all* scores under the best default
  mixture (each unlabeled score split between the classes by that
  mixture's p(y = 1 | s), as in EM);
* **pairs**: every (negative, positive) pair is fitted as a mixture to all
  scores and labels (MAP, screened on a coarse grid, the best refitted)
  and ranked by BIC, all on the coarse screening grid of
  :func:`spe.models.mixture.select.rank_family_pairs` (so that they compare), next to the
  pair ``families="auto"`` chooses.

All log-likelihoods are of model-space scores (:class:`~spe.models.ScoreSpace`),
so they are comparable between families but not between data sets.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...inputs import as_scores, normalize_labels
from ...output import jsonable
from .fit import LIKELIHOOD_RESOLUTION, SCREENING_RESOLUTION, rank_families
from .model import MixtureData, resolve_score_reading
from ...parallel import TaskPool, resolve_workers
from .select import (
    DECISION_NEGATIVE_CANDIDATES,
    DEFAULT_CANDIDATES,
    EXTENDED_CANDIDATES,
    fit_family_weighted,
    rank_class_families,
)
from ...families import get_family

__all__ = ["family_table", "FamilyTable", "MIN_HELD_OUT"]

#: Labeled items a class needs for its families to be ranked by held-out log-likelihood of the labels.
MIN_HELD_OUT = 10


@dataclass
class FamilyTable:
    """Families ranked per class and in pairs (paper Table 1); build with :func:`family_table`.

    Attributes
    ----------
    n_items, n_labeled : int
    score_type : str
    classes : dict
        ``{"negative": {...}, "positive": {...}}``, each with ``basis``
        ("held-out labeled items" or "soft assignment of all scores"),
        ``n_labeled`` and ``ranking``: a list of rows (family, score,
        relative, parameters), best first; ``score`` is the held-out
        log-likelihood (nats) or the Schwarz criterion (log L − (P/2) log N,
        −BIC/2), ``relative`` its difference from
        the best (≤ 0).
    pairs : list of dict
        Every pair fitted, best Schwarz criterion first: negative, positive,
        log_likelihood, schwarz, relative_schwarz, map_starts_agreeing.
    auto : dict
        The pair ``families="auto"`` chooses, its rank among ``pairs`` and
        its Schwarz criterion there (None if the exhaustive search could not fit it).
    """

    n_items: int
    n_labeled: int
    score_type: str
    classes: dict
    pairs: list
    auto: dict
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-ready dict (what ``spe families --json`` writes)."""
        return jsonable({"n_items": self.n_items, "n_labeled": self.n_labeled, "score_type": self.score_type,
                         "classes": self.classes, "pairs": self.pairs, "auto": self.auto, "notes": self.notes})

    def summary(self, top=10) -> str:
        """The table as text (what ``spe families`` prints): per class, then the ``top`` pairs."""
        lines = [f"spe families: {self.n_items} items, {self.n_labeled} labeled; scores read as {self.score_type}; "
                 f"log-likelihoods of the scores mapped to (0, 1)"]
        for cls in ("negative", "positive"):
            c = self.classes[cls]
            what = "held-out log-lik" if c["basis"] == "held-out labeled items" else "Schwarz (-BIC/2)"
            lines.append(f"{cls} class ({c['n_labeled']} labeled; ranked by {c['basis']}):")
            lines.append(f"  {'rank':<5}{'family':<12}{what:>17}{'relative':>11}  parameters")
            for i, row in enumerate(c["ranking"], 1):
                params = " ".join(f"{k}={v:.3g}" for k, v in row["parameters"].items())
                lines.append(f"  {i:<5}{row['family']:<12}{row['score']:>17.2f}{row['relative']:>11.2f}  {params}")
        lines.append(f"family pairs ranked by the Schwarz criterion (log-lik - (P/2) log N = -BIC/2) on all scores"
                     f" and labels ({len(self.pairs)} fitted):")
        lines.append(f"  {'rank':<5}{'negative':<12}{'positive':<12}{'log-lik':>12}{'Schwarz':>12}{'relative':>11}")
        for i, p in enumerate(self.pairs[:top], 1):
            lines.append(f"  {i:<5}{p['negative']:<12}{p['positive']:<12}{p['log_likelihood']:>12.2f}"
                         f"{p['schwarz']:>12.2f}{p['relative_schwarz']:>11.2f}")
        a = self.auto
        rank = f"rank {a['rank']} of {len(self.pairs)} above" if a.get("rank") else "not among the pairs above"
        lines.append(f"families='auto' chooses {a['negative']} (negative), {a['positive']} (positive): {rank}, "
                     f"from {a['pairs_tried']} pairs it screened")
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


def _held_out_ranking(xl, names, folds, rng):
    """K-fold held-out log-likelihood of labeled model-space scores xl (n_c,) per family: list of rows."""
    k = min(folds, xl.size)
    fold_of = rng.permutation(np.arange(xl.size) % k)
    rows = []
    for name in names:
        fam = get_family(name)
        total, ok = 0.0, True
        for f in range(k):
            train, test = xl[fold_of != f], xl[fold_of == f]
            fit = fit_family_weighted(name, train, np.ones(train.size))
            if fit is None:
                ok = False
                break
            total += float(fam.logpdf(fit.theta, test)[0].sum())
        if ok and np.isfinite(total):
            full = fit_family_weighted(name, xl, np.ones(xl.size))
            rows.append({"family": name, "score": total,
                         "parameters": dict(zip(fam.param_names, full.theta.tolist())) if full else {}})
    return sorted(rows, key=lambda r: -r["score"])


def family_table(scores, labels=None, *, score_type="auto", score_space="linear", folds=5, rng=None,
                 resolution=LIKELIHOOD_RESOLUTION, workers=None) -> FamilyTable:
    """Rank the class-conditional families for these scores, per class and in pairs (paper §4.2, Table 1).

    Parameters
    ----------
    scores : array-like, shape (N,)
        Score units; finite.
    labels : see :func:`spe.normalize_labels`
    score_type : {"auto", "probability", "log-odds", "decision"}
        Beta is considered only for probability scores; two truncated
        normals (``truncnorm2``) only for the negatives of other scores.
    score_space : {"linear", "logit", "auto"}
    folds : int
        K of the K-fold held-out log-likelihood per class.
    rng : numpy.random.Generator, int or None
        Fold assignment.
    resolution : float or None
        Model-space grid of the unlabeled likelihood (as in :func:`spe.evaluate`).
    workers : int or None
        Processes for the pair fits (as in :func:`spe.evaluate`); the table
        does not depend on it.

    Returns
    -------
    FamilyTable

    Raises
    ------
    SpeInputError
        Bad scores, labels or options (as :func:`spe.evaluate`).
    MixtureFitError
        No family pair could be fitted (e.g. all scores equal).

    Notes
    -----
    A ``score_type`` or ``score_space`` the scores contradict is replaced
    as in :func:`spe.evaluate` (:func:`spe.models.mixture.resolve_score_reading`),
    and the table's notes say so.
    """
    s = as_scores(scores)
    index, value = normalize_labels(labels, s.size)
    resolve_workers(workers)
    kind, score_space, reading_notes = resolve_score_reading(s, score_type, score_space)
    rng = np.random.default_rng(rng)
    names = [f for f in DEFAULT_CANDIDATES + EXTENDED_CANDIDATES if f != "beta" or kind == "probability"]
    auto = rank_families(s, index, value, families="auto", resolution=resolution, score_space=score_space,
                         score_type=kind, workers=workers)
    x, auto_ranking = auto.x, auto.ranking
    # every pair on the same coarse grid, so that their Schwarz criteria compare (the refit of the best few on the
    # fine grid would put them on another scale)
    every = rank_families(s, index, value, families="all", resolution=resolution, score_space=score_space,
                          score_type=kind, refit=0, workers=workers)
    ranking = every.ranking
    screen = MixtureData.build(x, index, value, resolution=max(resolution or 0, SCREENING_RESOLUTION))
    with TaskPool(workers) as pool:
        soft = rank_class_families(auto_ranking[0], screen, names, pool=pool)
    classes, notes = {}, list(reading_notes)
    for cls, yv in (("negative", 0), ("positive", 1)):
        xl = x[index[value == yv]]
        if xl.size >= MIN_HELD_OUT:
            rows = _held_out_ranking(xl, names, folds, rng)
            basis = "held-out labeled items"
        else:
            rows = [{"family": f.family, "score": f.schwarz,
                     "parameters": dict(zip(get_family(f.family).param_names, f.theta.tolist()))} for f in soft[cls]]
            basis = "soft assignment of all scores"
        best = rows[0]["score"] if rows else np.nan
        for r in rows:
            r["relative"] = r["score"] - best
        classes[cls] = {"basis": basis, "n_labeled": int(xl.size), "ranking": rows}
    if any(c["basis"] != "held-out labeled items" for c in classes.values()):
        notes.append(f"a class with fewer than {MIN_HELD_OUT} labeled items is ranked on its share of all scores "
                     "under the best default mixture, which assumes that mixture splits the classes correctly")
    notes.append("pairs are fitted and compared on the screening grid (unlabeled scores binned at 1/512 of the "
                 "score range); spe estimate refits the chosen pair on a finer one")
    if kind != "probability":
        notes.append("beta is left out (the scores are not probabilities); "
                     f"{', '.join(DECISION_NEGATIVE_CANDIDATES)} is tried for the negatives in pairs")
    best_schwarz = ranking[0].schwarz
    pairs = [dict(f.to_dict(), relative_schwarz=f.schwarz - best_schwarz) for f in ranking]
    chosen = (auto_ranking[0].mixture.negative.name, auto_ranking[0].mixture.positive.name)
    rank = next((i for i, p in enumerate(pairs, 1) if (p["negative"], p["positive"]) == chosen), None)
    auto_tried = {(f.mixture.negative.name, f.mixture.positive.name) for f in auto_ranking}
    return FamilyTable(int(s.size), int(index.size), kind, classes, pairs,
                       {"negative": chosen[0], "positive": chosen[1], "rank": rank,
                        "schwarz": pairs[rank - 1]["schwarz"] if rank else None, "pairs_tried": len(auto_tried)}, notes)
