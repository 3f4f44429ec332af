"""Results pickle and come back the same (issue 25, item 1): every score model's fitted probability is a
module-level function or a partial of one, not a closure."""

import pickle
import warnings

import numpy as np
import pytest

import spe
from spe.models.registry import REGISTRY

from .conftest import simulate


def _same(a, b):
    assert b.summary() == a.summary()
    np.testing.assert_array_equal(b.item_probabilities(), a.item_probabilities())
    np.testing.assert_array_equal(b.pr_curve().median, a.pr_curve().median)


def test_an_evaluation_pickles_and_answers_as_before(twenty_labels_of_3000):
    ev = twenty_labels_of_3000[0]
    back = pickle.loads(pickle.dumps(ev))
    _same(ev, back)
    np.testing.assert_array_equal(back.suggest(5, rng=1).items, ev.suggest(5, rng=1).items)


def test_a_comparison_pickles_and_answers_as_before(good_and_weak):
    cmp = good_and_weak
    back = pickle.loads(pickle.dumps(cmp))
    assert back.summary() == cmp.summary()
    assert back.probability_better("good", "weak") == cmp.probability_better("good", "weak")


@pytest.mark.slow
@pytest.mark.parametrize("model", list(REGISTRY))
def test_every_score_model_pickles(model):
    s, y = simulate(1500, 0.2, 6)
    rng = np.random.default_rng(7)
    known = {int(i): int(y[i]) for i in rng.choice(s.size, 30, replace=False)}
    options = {"score_model": model}
    if REGISTRY[model].needs_reference:
        options["reference"] = (s[:300], y[:300].astype(int))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, known, draws=200, rng=0, **options)
    _same(ev, pickle.loads(pickle.dumps(ev)))
