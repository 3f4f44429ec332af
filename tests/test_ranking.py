"""spe families: the paper's Table 1 for a data set (families per class, pairs by BIC)."""

import json

import numpy as np
import pytest

from spe.cli import main
from spe.models.mixture.ranking import family_table


@pytest.fixture(scope="module")
def gumbel_table():
    """Negatives right-skewed Gumbel, positives left-skewed Gumbel; 240 labels (with 25 labeled per class the
    held-out log-likelihoods of the families lie within a nat of each other: noise)."""
    rng = np.random.default_rng(0)
    n = 400
    y = (rng.random(n) < 0.4).astype(int)
    s = np.where(y == 1, 6 - rng.gumbel(0, 0.6, n), rng.gumbel(2, 0.6, n))
    idx = rng.choice(n, 240, replace=False)
    return s, y, idx, family_table(s, (idx, y[idx]), score_type="decision", rng=1)


@pytest.mark.slow
def test_true_families_rank_high_per_class(gumbel_table):
    _, y, idx, table = gumbel_table
    neg, pos = table.classes["negative"], table.classes["positive"]
    assert neg["basis"] == pos["basis"] == "held-out labeled items"
    assert neg["n_labeled"] == int(np.sum(y[idx] == 0)) and pos["n_labeled"] == int(np.sum(y[idx] == 1))
    neg_names = [r["family"] for r in neg["ranking"]]
    pos_names = [r["family"] for r in pos["ranking"]]
    assert "gumbel_r" in neg_names[:3] and "gumbel_l" in pos_names[:3]
    # the wrong skew ranks below the right one
    assert neg_names.index("gumbel_r") < neg_names.index("gumbel_l")
    assert pos_names.index("gumbel_l") < pos_names.index("gumbel_r")
    for c in (neg, pos):
        rel = [r["relative"] for r in c["ranking"]]
        assert rel[0] == 0 and all(np.diff(rel) <= 1e-12)
    assert "beta" not in neg_names  # not for decision scores


@pytest.mark.slow
def test_pairs_ranked_and_auto_choice_reported(gumbel_table):
    _, _, _, table = gumbel_table
    pairs = table.pairs
    assert pairs[0]["relative_schwarz"] == 0 and len(pairs) > 20
    schwarz_values = [p["schwarz"] for p in pairs]
    assert schwarz_values == sorted(schwarz_values, reverse=True)  # one grid for all pairs, so one order
    a = table.auto
    assert (pairs[a["rank"] - 1]["negative"], pairs[a["rank"] - 1]["positive"]) == (a["negative"], a["positive"])
    # the auto screening finds a pair within a few BIC units of the exhaustive best
    assert a["schwarz"] >= pairs[0]["schwarz"] - 10
    text = table.summary()
    assert "negative class" in text and "families='auto' chooses" in text
    d = json.loads(json.dumps(table.to_dict()))
    assert d["classes"]["positive"]["ranking"][0]["family"] == table.classes["positive"]["ranking"][0]["family"]


@pytest.mark.slow
def test_few_labels_rank_on_the_soft_assignment(tmp_path, capsys):
    rng = np.random.default_rng(2)
    n = 300
    y = (rng.random(n) < 0.3).astype(int)
    s = np.where(y == 1, rng.normal(3, 1, n), rng.normal(0, 1, n))
    scores, labels = tmp_path / "s.csv", tmp_path / "l.csv"
    scores.write_text("score\n" + "\n".join(f"{v:.6f}" for v in s) + "\n")
    idx = rng.choice(n, 8, replace=False)
    labels.write_text("id,label\n" + "\n".join(f"{i},{y[i]}" for i in idx) + "\n")
    out = tmp_path / "f.json"
    assert main(["families", str(scores), "--labels", str(labels), "--json", str(out), "--top", "5"]) == 0
    text = capsys.readouterr().out
    d = json.loads(out.read_text())
    assert d["classes"]["negative"]["basis"] == "soft assignment of all scores"
    assert "fewer than 10 labeled items" in text and text.count("\n  ") >= 5
    assert main(["families", str(scores), "--top", "0"]) == 2


def test_weighted_family_fit_is_the_mle_of_the_repeated_data():
    """Integer weights act as repeated items; with many items the MAP is scipy's maximum-likelihood fit."""
    from scipy import stats

    from spe.models.mixture.select import fit_family_weighted

    rng = np.random.default_rng(5)
    x = rng.gumbel(0.4, 0.08, 3000)
    ref_loc, ref_scale = stats.gumbel_r.fit(x)
    fit = fit_family_weighted("gumbel_r", x, np.ones(x.size))
    assert fit.theta == pytest.approx([ref_loc, ref_scale], rel=2e-3)
    w = rng.integers(1, 4, 200).astype(float)
    a = fit_family_weighted("lognormal", x[:200] + 0.5, w)
    b = fit_family_weighted("lognormal", np.repeat(x[:200] + 0.5, w.astype(int)), np.ones(int(w.sum())))
    assert a.theta == pytest.approx(b.theta, rel=1e-4) and a.log_likelihood == pytest.approx(b.log_likelihood)
