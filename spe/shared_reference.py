"""A labeled reference set shared by several pools: what depends on the reference alone is computed once.

:func:`spe.monitor` estimates every chunk and slice of a pool against the same reference set (tens of
thousands of labeled items). The score models that learn from a reference fit its calibration map on the
reference's labels before carrying it to the pool (:mod:`spe.models.shift`, :mod:`spe.models.reference`); that
fit, the reference's score cells and its candidate binnings depend on the reference alone. A
:class:`SharedReference` keeps them, so every chunk reads the same posterior of the reference's map instead of
fitting its own: the chunks share one calibration map, learned once, and each is carried to its own prevalence.

Anything that takes a reference pair ``(scores, labels)`` takes a SharedReference (it is that pair);
:func:`kept` computes a value once per SharedReference and every time for a plain pair. A view
(:meth:`SharedReference.with_priors`) also carries one pool's priors learned from the other pools
(:class:`spe.models.pooling.PoolPriors`), which :func:`priors_of` reads.
"""

from __future__ import annotations

import threading

__all__ = ["SharedReference", "kept", "priors_of"]


class SharedReference(tuple):
    """The pair (scores (R,), labels (R,)) of a labeled reference set, with the values computed from it alone.

    Parameters
    ----------
    scores : float array, shape (R,)
        Score units, as :func:`spe.inputs.normalize_reference` returns them.
    labels : int array, shape (R,)
        0/1.

    Notes
    -----
    A copy sent to another process (pickled) starts with nothing kept; a forked worker inherits what was kept
    before it started. The first computation of a key decides its value (with the random stream of the pool
    that asked first): callers that need reproducible results compute the shared values in a fixed order
    (:func:`spe.monitor` estimates its first chunk before the others).

    Examples
    --------
    >>> import numpy as np
    >>> ref = SharedReference(np.array([0.2, 0.9]), np.array([0, 1]))
    >>> scores, labels = ref
    >>> kept(ref, "n", lambda: scores.size), kept(ref, "n", lambda: -1)
    (2, 2)
    """

    def __new__(cls, scores, labels):
        self = super().__new__(cls, (scores, labels))
        self._values = {}
        self._lock = threading.RLock()
        return self

    def __init__(self, scores, labels):  # the pair is made in __new__ (a tuple); this gives the signature
        super().__init__()

    def __getnewargs__(self):
        return tuple(self)

    def __getstate__(self):
        return None  # nothing kept travels: a pickled copy recomputes what it needs

    def __setstate__(self, state):
        self._values, self._lock = {}, threading.RLock()

    def with_priors(self, priors):
        """The same pair, sharing everything kept, carrying ``priors`` (a
        :class:`spe.models.pooling.PoolPriors`: one pool's priors learned from the other pools; read by
        :func:`priors_of`). Not kept by a pickled copy."""
        view = SharedReference(*self)
        view._values, view._lock, view.priors = self._values, self._lock, priors
        return view

    def kept(self, key, compute):
        """The value under ``key`` (hashable), ``compute()`` the first time."""
        with self._lock:
            if key not in self._values:
                self._values[key] = compute()
            return self._values[key]


def kept(reference, key, compute):
    """``compute()``, computed once per :class:`SharedReference` ``reference`` (under ``key``), every time for
    any other reference (a plain pair, or None)."""
    return reference.kept(key, compute) if isinstance(reference, SharedReference) else compute()


def priors_of(reference):
    """The pool priors a :meth:`SharedReference.with_priors` view carries; None for any other reference."""
    return getattr(reference, "priors", None)
