"""Which items to label next (spe.active, Evaluation.suggest, spe suggest): the preposterior against exact
computations, the strategies, the command."""

import warnings

import numpy as np
import pandas as pd
import pytest

import spe
from spe.active import STRATEGIES, TARGETS, Preposterior, parse_target
from spe.cli import main
from spe.exceptions import SpeInputError

from .conftest import EXAMPLES, simulate


def _draws(m=400, b=6, r=2, seed=0):
    """Weighted draws of a target (M, R) correlated with the probabilities of B candidates (M, B)."""
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=m)
    p = 1 / (1 + np.exp(-(theta[:, None] * rng.normal(1, 0.5, b) + rng.normal(0, 1, b))))
    t = np.column_stack([theta + rng.normal(0, 0.3, m) for _ in range(r)])
    return t, p, rng.dirichlet(np.ones(m))


def test_one_label_reduces_the_variance_as_reweighting_the_draws_by_its_likelihood_does():
    t, p, w = _draws()
    gains = Preposterior(t, p, w).gains()
    for b in range(p.shape[1]):
        p1 = w @ p[:, b]
        expected = []
        for r in range(t.shape[1]):
            var = lambda v: v @ t[:, r] ** 2 - (v @ t[:, r]) ** 2  # noqa: E731
            w1, w0 = w * p[:, b] / p1, w * (1 - p[:, b]) / (1 - p1)
            expected.append(var(w) - p1 * var(w1) - (1 - p1) * var(w0))
        assert gains[b] == pytest.approx(np.mean(expected), rel=1e-9)


def test_labels_condition_each_other_as_jointly_gaussian_variables():
    """Two labels in turn reduce the variance by c' Σ⁻¹ c (Σ: the labels' covariance, each its own Bernoulli
    variance on the diagonal; c: their covariances with the target)."""
    t, p, w = _draws(r=1)
    i, j = 1, 4
    pre = Preposterior(t, p, w)
    v0 = pre.variance.sum()
    pre.condition(i)
    pre.condition(j)
    centred = lambda x: x - w @ x  # noqa: E731
    cov = lambda x, y: w @ (centred(x) * centred(y))  # noqa: E731
    noise = [w @ (p[:, k] * (1 - p[:, k])) for k in (i, j)]
    sigma = np.array([[cov(p[:, a], p[:, b]) + (noise[x] if a == b else 0) for b in (i, j)]
                      for x, a in enumerate((i, j))])
    c = np.array([cov(t[:, 0], p[:, k]) for k in (i, j)])
    assert v0 - pre.variance.sum() == pytest.approx(c @ np.linalg.solve(sigma, c), rel=1e-9)


def test_a_second_label_of_the_same_kind_is_worth_less_than_the_first():
    t, p, w = _draws(r=1)
    pre = Preposterior(t, p, w)
    b = int(np.argmax(pre.gains()))
    first = pre.gains()[b]
    pre.condition(b)
    assert 0 <= pre.gains()[b] < first


@pytest.mark.parametrize("chosen", [[], [2, 4]])
def test_bootstrap_gains_spread_as_the_gains_monte_carlo_error(chosen):
    """The gains under a Bayesian bootstrap of one set of M draws vary as much as the gains do from one
    independent set of M draws to the next, before and after labels are chosen (the median ratio of the SDs
    over 20 sets is within a factor 1.5 of 1 for each candidate)."""
    slopes, shifts = np.array([1.5, 1.0, 0.5, 1.0, 2.0, 0.2]), np.array([-1.0, 0.0, 1.0, 2.0, -2.0, 0.5])

    def preposterior(seed, m=300):
        theta = np.random.default_rng(seed).normal(size=m)
        p = 1 / (1 + np.exp(-(theta[:, None] * slopes + shifts)))
        pre = Preposterior(np.column_stack([theta, theta ** 2]), p, np.full(m, 1.0 / m))
        for b in chosen:
            pre.condition(b)
        return pre

    across = np.array([preposterior(seed).gains() for seed in range(300)]).std(axis=0)
    rng = np.random.default_rng(7)
    within = [np.array([pre.gains(rng) for _ in range(100)]).std(axis=0)
              for pre in map(preposterior, range(1000, 1020))]
    ratio = np.median(within, axis=0) / across
    assert np.all((ratio > 1 / 1.5) & (ratio < 1.5)), ratio


@pytest.fixture
def estimate(twenty_labels_of_3000):
    return twenty_labels_of_3000


@pytest.mark.parametrize("strategy", list(STRATEGIES))
@pytest.mark.parametrize("target", ["ap", "pr-band", "prevalence", "threshold:0.9,0.5"])
def test_suggestions_are_unlabeled_distinct_repeatable_and_valued(estimate, strategy, target):
    ev, s, _ = estimate
    a = ev.suggest(7, target=target, strategy=strategy, rng=5)
    b = ev.suggest(7, target=target, strategy=strategy, rng=5)
    assert np.array_equal(a.items, b.items) and a.items.size == 7 == np.unique(a.items).size
    assert not np.isin(a.items, ev.labeled_index).any()
    np.testing.assert_array_equal(a.scores, s[a.items])
    assert np.all(a.expected_gain >= -1e-12)
    assert a.expected_uncertainty == pytest.approx(a.uncertainty - a.expected_gain.sum())


def test_information_expects_more_than_random_and_stratified_covers_the_scores(estimate):
    ev, s, _ = estimate
    info = ev.suggest(10, target="ap", rng=1)
    rand = ev.suggest(10, target="ap", strategy="random", rng=1)
    assert info.expected_uncertainty < rand.expected_uncertainty
    strat = ev.suggest(10, strategy="stratified", rng=1)
    free = np.sort(np.delete(s, ev.labeled_index))
    strata = np.searchsorted(free, s[strat.items], side="right") * 10 // free.size
    assert sorted(np.minimum(strata, 9)) == list(range(10))


def test_information_takes_every_fifth_label_at_random_and_the_rest_greedily(estimate):
    ev, *_ = estimate  # 20 labels known: the 25th label is the fifth of the batch
    greedy = ev.suggest(4, target="ap", strategy="greedy", rng=2)
    fifths = set()
    for seed in range(8):
        info = ev.suggest(5, target="ap", strategy="information", rng=seed)
        np.testing.assert_array_equal(info.items[:4], ev.suggest(4, target="ap", strategy="greedy", rng=seed).items)
        fifths.add(int(info.items[4]))
    assert np.array_equal(greedy.items, ev.suggest(4, target="ap", strategy="greedy", rng=2).items)
    assert len(fifths) >= 6


def test_bad_suggest_arguments_are_named(estimate):
    ev, *_ = estimate
    for kwargs, name in [({"k": 0}, "k"), ({"k": 2981}, "k"), ({"k": 2.0}, "k"), ({"target": "f1"}, "target"),
                         ({"target": "threshold:0.9"}, "target"), ({"target": "compare"}, "target"),
                         ({"strategy": "best"}, "strategy")]:
        with pytest.raises(SpeInputError) as e:
            ev.suggest(**{"k": 3, **kwargs})
        assert e.value.argument == name


def test_an_unknown_label_selection_is_named():
    with pytest.raises(SpeInputError) as e:
        spe.evaluate(np.arange(10.0), label_selection="chosen")
    assert e.value.argument == "label_selection"


def test_targets_parse_with_their_parameters():
    assert parse_target("threshold:0.9,0.5") == (TARGETS["threshold"], (0.9, 0.5))
    assert parse_target("ap") == (TARGETS["ap"], ())
    with pytest.raises(SpeInputError):
        parse_target("ap:1")


def test_the_threshold_target_is_the_requirement_at_the_recommended_threshold(estimate):
    ev, *_ = estimate
    thresholds, meets = ev.requirement_draws(0.8, 0.4)
    curve = ev.threshold_probability(0.8, 0.4)
    np.testing.assert_allclose(ev.weights @ meets / ev.weights.sum(), curve.probability)
    np.testing.assert_array_equal(thresholds, curve.threshold)
    choice = ev.best_threshold(0.8, 0.4)
    column = meets[:, np.flatnonzero(thresholds == choice.threshold)[0]]
    np.testing.assert_array_equal(choice.meets, column)
    assert ev.weights @ choice.meets / ev.weights.sum() == pytest.approx(choice.probability)
    np.testing.assert_array_equal(TARGETS["threshold"].draws(ev, (0.8, 0.4))[:, 0], column)


@pytest.mark.slow
def test_a_comparison_suggests_items_for_the_difference():
    s1, y = simulate(1500, 0.2, seed=4)
    s2 = np.where(y == 1, s1 * 0.5 + 0.5, s1) + np.random.default_rng(0).normal(0, 0.5, y.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = spe.compare({"a": s1, "b": s2}, {i: int(y[i]) for i in range(20)}, draws=200, rng=0, workers=1)
    out = cmp.suggest(5, rng=0)
    assert out.items.size == 5 and not np.isin(out.items, cmp.labeled_index).any()
    assert out.target == "compare" and out.expected_uncertainty <= out.uncertainty
    assert cmp.suggest(3, target="ap", classifier="b", rng=0).items.size == 3


@pytest.mark.slow
def test_labels_chosen_for_the_ap_narrow_its_interval_more_than_random_ones():
    """A simulation where the truth is known: 10 more labels chosen for the AP against 10 at random, 3 seeds."""
    widths = {"information": [], "random": []}
    families = "truncnorm,truncnorm"  # the simulated classes (as in test_plan's simulation): no screening needed
    for seed in range(3):
        s, y = simulate(3000, 0.05, seed=seed)
        known = list(range(10))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = spe.evaluate(s, {i: int(y[i]) for i in known}, draws=300, rng=seed, families=families)
            for strategy in widths:
                more = known + ev.suggest(10, target="ap", strategy=strategy, rng=seed).items.tolist()
                after = spe.evaluate(s, {i: int(y[i]) for i in more}, draws=300, rng=seed, families=families)
                ap = after.average_precision()
                widths[strategy].append(ap.hi - ap.lo)
    assert np.mean(widths["information"]) < np.mean(widths["random"])


@pytest.mark.slow
def test_spe_suggest_writes_k_unlabeled_ids_best_first(tmp_path, capsys):
    out = tmp_path / "next.csv"
    argv = ["suggest", str(EXAMPLES / "digits_scores.csv"), "--labels", str(EXAMPLES / "digits_labels.csv"),
            "-k", "4", "--draws", "200", "--seed", "0", "--out", str(out)]
    assert main(argv) == 0
    table = pd.read_csv(out)
    labeled = pd.read_csv(EXAMPLES / "digits_labels.csv")["id"]
    assert list(table.columns) == ["id", "expected_gain"] and len(table) == 4
    assert not table["id"].isin(labeled).any()
    assert table["id"].isin(pd.read_csv(EXAMPLES / "digits_scores.csv")["id"]).all()
    assert "4 items to label next" in capsys.readouterr().out
    assert main(argv[:-2]) == 0  # to standard output, the summary to standard error
    captured = capsys.readouterr()
    assert captured.out.startswith("id,expected_gain") and "items to label next" in captured.err


@pytest.mark.parametrize("bad", [["--target", "threshold:2,1"], ["--target", "compare"], ["-k", "0"],
                                 ["--strategy", "best"], ["--classifier", "b"]])
def test_spe_suggest_bad_options_exit_2(bad, capsys):
    assert main(["suggest", str(EXAMPLES / "digits_scores.csv"), *bad]) == 2
    err = capsys.readouterr().err
    assert "error" in err and bad[0] in err


def test_spe_suggest_more_items_than_unlabeled_exits_2_naming_k(capsys):
    argv = ["suggest", str(EXAMPLES / "digits_scores.csv"), "--labels", str(EXAMPLES / "digits_labels.csv"),
            "-k", "880"]
    assert main(argv) == 2
    assert "-k: must be at most the 879 unlabeled items" in capsys.readouterr().err


@pytest.mark.slow
def test_spe_suggest_on_two_classifiers_settles_their_comparison(two_classifiers, tmp_path, capsys):
    out = tmp_path / "next.csv"
    argv = ["suggest", str(two_classifiers), "--score-columns", "a,b", "--labels", str(EXAMPLES / "digits_labels.csv"),
            "-k", "3", "--draws", "200", "--seed", "0", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "target compare" in printed and "score a" in printed and "score b" in printed
    frame = pd.read_csv(two_classifiers)
    labels = pd.read_csv(EXAMPLES / "digits_labels.csv")
    row = {i: r for r, i in enumerate(frame["id"])}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = spe.compare({"a": frame["a"].to_numpy(), "b": frame["b"].to_numpy()},
                          {row[i]: v for i, v in zip(labels["id"], labels["label"])}, draws=200, rng=0)
    suggestion = cmp.suggest(3, rng=0)
    np.testing.assert_array_equal(pd.read_csv(out)["id"], frame["id"].to_numpy()[suggestion.items])
    np.testing.assert_array_equal(suggestion.scores, frame[["a", "b"]].to_numpy()[suggestion.items])


@pytest.mark.parametrize("bad, option", [(["--classifier", "c"], "--classifier"),
                                         (["--reference", str(EXAMPLES / "digits_truth.csv")], "--reference")])
def test_spe_suggest_on_two_classifiers_bad_options_exit_2(two_classifiers, bad, option, capsys):
    assert main(["suggest", str(two_classifiers), "--score-columns", "a,b", "--draws", "200", *bad]) == 2
    assert f"error: {option}" in capsys.readouterr().err


def test_estimate_with_adaptive_labels_says_so_and_gives_no_labeled_only_baseline(capsys):
    argv = ["estimate", str(EXAMPLES / "digits_scores.csv"), "--labels", str(EXAMPLES / "digits_labels.csv"),
            "--draws", "200", "--seed", "0", "--adaptive-labels", "--compare-labeled-only"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "labels chosen adaptively" in out and "not comparable with --adaptive-labels" in out
    assert "labeled items only" not in out


# --- every item labeled, ids ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", sorted(t for t in TARGETS if t != "compare"))
@pytest.mark.parametrize("strategy", sorted(STRATEGIES))
def test_every_item_labeled_leaves_nothing_to_suggest(every_item_labeled, target, strategy):
    target = "threshold:0.8,0.5" if target == "threshold" else target
    sg = every_item_labeled.suggest(5, target=target, strategy=strategy, rng=0)
    assert sg.items.size == 0 and sg.expected_gain.size == 0 and sg.n_labeled == 80
    assert sg.uncertainty == sg.expected_uncertainty == pytest.approx(0.0, abs=1e-12)  # the labels are all known
    assert "no items to label next: all 80 items are labeled" in sg.summary()
    frame = sg.to_frame()
    assert len(frame) == 0 and list(frame.columns) == ["id", "position", "score", "expected_gain"]
    with pytest.raises(SpeInputError, match="^k: "):  # k is still checked
        every_item_labeled.suggest(0, target=target, strategy=strategy)


def test_spe_suggest_on_every_item_labeled_writes_the_header_only(tmp_path, capsys):
    out = tmp_path / "next.csv"
    pd.read_csv(EXAMPLES / "digits_scores.csv").head(120).to_csv(tmp_path / "s.csv", index=False)
    pd.read_csv(EXAMPLES / "digits_truth.csv").head(120).to_csv(tmp_path / "t.csv", index=False)
    rc = main(["suggest", str(tmp_path / "s.csv"), "--labels", str(tmp_path / "t.csv"), "-k", "5", "--draws", "100",
               "--families", "truncnorm,truncnorm", "--workers", "1", "--out", str(out)])
    stdout, err = capsys.readouterr()
    assert rc == 0 and "Traceback" not in err, err
    assert out.read_text() == "id,expected_gain\n"
    assert "no items to label next: all 120 items are labeled" in stdout and "Empty DataFrame" not in stdout


def test_the_suggestion_names_the_items_by_the_ids_given_or_refuses_too_few(twenty_labels_of_3000):
    ev = twenty_labels_of_3000[0]
    sg = ev.suggest(4, target="ap", rng=0)
    ids = np.array([f"item{i:04d}" for i in range(ev.n_items)])
    frame = sg.to_frame(ids)
    assert list(frame["id"]) == [f"item{i:04d}" for i in sg.items] and list(frame["position"]) == list(sg.items)
    assert list(sg.to_frame()["id"]) == list(sg.items)  # no ids anywhere: the positions
    for few in (ids[:10], ids[:-1], np.append(ids, "extra"), ids.reshape(-1, 2)):
        with pytest.raises(SpeInputError, match=r"^ids: must hold one id per item \(3000\), got"):
            sg.to_frame(few)


def test_an_estimate_that_carries_ids_names_its_suggestions_by_them(twenty_labels_of_3000):
    import dataclasses

    ev = twenty_labels_of_3000[0]
    ids = np.array([f"item{i:04d}" for i in range(ev.n_items)])
    sg = dataclasses.replace(ev, ids=ids).suggest(4, target="ap", rng=0)
    frame = sg.to_frame()
    assert list(frame["id"]) == [f"item{i:04d}" for i in sg.items] and list(frame["position"]) == list(sg.items)
    assert list(sg.to_frame(ids[::-1])["id"]) == list(ids[::-1][sg.items])  # ids given win


def test_suggestions_from_scores_with_an_id_index_carry_those_ids():
    s, y = simulate(400, 0.3, 12)
    ids = [f"doc-{i}" for i in range(400)]
    scores = pd.Series(s, index=ids)
    labels = pd.Series(y[:30], index=ids[:30])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(scores, labels, draws=100, rng=0, workers=1)
    frame = ev.suggest(5, target="ap", rng=0).to_frame()
    assert list(frame["id"]) == [ids[i] for i in frame["position"]]
