"""SSME's estimator for one classifier, as its paper describes it: the baseline of ``benchmarks/multiclass.py``.

Shanmugam, Sadhuka et al., "Evaluating multiple models using labeled and unlabeled data" (NeurIPS 2025): a
mixture over the classifier's probability vectors in additive log-ratio coordinates (ALR: log p_j / p_K,
j < K), one Gaussian kernel density per class, fitted by semi-supervised EM: the labeled items keep their class
(and weigh ``labeled_weight`` times an unlabeled item), the unlabeled ones start from classes drawn from the
classifier's probabilities; each epoch refits the densities with the items' posterior class probabilities as
weights and the class priors as the mean assignment. The bandwidth is the smallest over the ALR coordinates of
statsmodels' normal-reference bandwidth, divided by four. The accuracy estimate is the mean posterior
probability that an item's class is its argmax class (the expectation of metrics counted on labels drawn from
the posterior, which SSME averages).

Written here from that description (not from SSME's code). In two coordinates (three classes) the densities
are binned on a 256 × 256 grid and smoothed (scipy.ndimage.gaussian_filter) for speed; above that,
scikit-learn's ``KernelDensity`` is exact.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage, special

__all__ = ["ssme_posterior", "ssme_accuracy"]

GRID = 256


def _alr(probs, floor=1e-4):
    p = np.clip(probs, floor, 1.0)
    return np.log(p[:, :-1]) - np.log(p[:, -1:])


def _bandwidth(x):
    import statsmodels.api as sm

    return min(sm.nonparametric.KDEUnivariate(x[:, j]).fit().bw for j in range(x.shape[1])) / 4.0


def _binned_log_density(x, weights, bw):
    """log of a weighted Gaussian KDE in two coordinates, evaluated at every item (binned): (N,)."""
    lo, hi = x.min(axis=0), x.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    cells = np.minimum(((x - lo) / span * GRID).astype(int), GRID - 1)
    hist = np.zeros((GRID, GRID))
    np.add.at(hist, (cells[:, 0], cells[:, 1]), weights)
    sigma = bw / (span / GRID)
    smooth = ndimage.gaussian_filter(hist, sigma=sigma, mode="constant", truncate=4.0)
    density = smooth[cells[:, 0], cells[:, 1]] / max(weights.sum(), 1e-300)
    return np.log(np.maximum(density, 1e-300))


def _exact_log_density(x, weights, bw):
    from sklearn.neighbors import KernelDensity

    keep = weights > 0
    kde = KernelDensity(bandwidth=bw).fit(x[keep], sample_weight=weights[keep])
    return kde.score_samples(x)


def ssme_posterior(probs, labeled_index, labeled_class, *, epochs=20, labeled_weight=10.0, rng=None):
    """Each item's posterior class probabilities (N, K) after SSME's semi-supervised EM."""
    rng = np.random.default_rng(rng)
    n, k = probs.shape
    x = _alr(probs)
    bw = _bandwidth(x)
    density = _binned_log_density if x.shape[1] <= 2 else _exact_log_density
    drawn = (np.cumsum(probs, axis=1) > rng.random(n)[:, None]).argmax(axis=1)
    drawn[labeled_index] = labeled_class
    resp = np.eye(k)[drawn]
    clamp = np.eye(k)[labeled_class]
    for epoch in range(epochs):
        weights = resp.copy()
        if epoch > 0:
            weights[labeled_index] *= labeled_weight
        priors = resp.mean(axis=0)
        log_lik = np.column_stack([density(x, weights[:, c], bw) if weights[:, c].sum() > 0
                                   else np.full(n, -np.inf) for c in range(k)])
        resp = special.softmax(log_lik + np.log(np.maximum(priors, 1e-12)), axis=1)
        resp[labeled_index] = clamp
    return resp


def ssme_accuracy(probs, labeled_index, labeled_class, rng=None):
    """SSME's accuracy estimate for one classifier."""
    resp = ssme_posterior(probs, labeled_index, labeled_class, rng=rng)
    return float(np.mean(resp[np.arange(len(probs)), probs.argmax(axis=1)]))
