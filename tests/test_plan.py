"""The label-budget plan (spe.active.plan, Evaluation.plan_labels, spe plan): goals, limits, the command, and
a simulation where the labels the loop needs are known."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import spe
from spe.cli import main
from spe.exceptions import SpeInputError

from .conftest import EXAMPLES, simulate


@pytest.fixture
def estimate(twenty_labels_of_3000):
    return twenty_labels_of_3000[0]


def test_a_goal_already_met_needs_no_labels_and_an_impossible_one_more_than_the_horizon(estimate):
    ap = estimate.average_precision()
    met = estimate.plan_labels(width=1.01 * (ap.hi - ap.lo), max_labels=20, futures=20, rng=0)
    assert np.all(met.needed == 0) and "already so" in met.summary()
    assert met.now == pytest.approx(ap.hi - ap.lo)
    never = estimate.plan_labels(width=1e-4, max_labels=20, futures=20, rng=0)
    assert np.all(np.isinf(never.needed)) and "more than 20 more labels" in never.summary()


def test_the_plan_is_repeatable_and_its_width_falls_with_labels(estimate):
    a = estimate.plan_labels(width=0.1, target="pr-band", max_labels=60, futures=30, rng=4)
    b = estimate.plan_labels(width=0.1, target="pr-band", max_labels=60, futures=30, rng=4)
    np.testing.assert_array_equal(a.needed, b.needed)
    assert a.checkpoints[0] == 0 and a.checkpoints[-1] == 60 and a.progress.shape == (a.checkpoints.size, 3)
    assert np.all(a.progress[0] == pytest.approx(a.now))
    last = a.progress[np.isfinite(a.progress[:, 1])][-1]
    assert last[0] <= last[1] <= last[2] < a.now
    json.dumps(a.to_dict())


def test_labels_chosen_for_the_target_settle_it_sooner_than_random_ones(estimate):
    info = estimate.plan_labels(width=0.1, max_labels=80, futures=60, strategy="information", rng=1)
    rand = estimate.plan_labels(width=0.1, max_labels=80, futures=60, strategy="random", rng=1)
    at = rand.checkpoints.size // 2
    assert info.progress[at, 1] < rand.progress[at, 1]


def test_a_decision_goal_reads_the_threshold_decision(estimate):
    plan = estimate.plan_labels(probability=0.95, target="threshold:0.8,0.4", max_labels=40, futures=30, rng=0)
    choice = estimate.best_threshold(0.8, 0.4)
    assert plan.now == pytest.approx(max(choice.probability, 1 - choice.probability))
    assert plan.kind == "probability" and plan.value == 0.95
    assert np.all(plan.progress[np.isfinite(plan.progress)] >= 0.5)


@pytest.mark.parametrize("kwargs, name", [({}, "width"), ({"width": 0.1, "probability": 0.9}, "width"),
                                          ({"width": -1}, "width"), ({"probability": 0.9}, "probability"),
                                          ({"probability": 0.4, "target": "threshold:0.9,0.5"}, "probability"),
                                          ({"width": 0.1, "target": "threshold:0.9,0.5"}, "width"),
                                          ({"width": 0.1, "max_labels": 10**6}, "max_labels"),
                                          ({"width": 0.1, "futures": 3}, "futures"),
                                          ({"width": 0.1, "strategy": "best"}, "strategy")])
def test_bad_plan_arguments_are_named(estimate, kwargs, name):
    with pytest.raises(SpeInputError) as e:
        estimate.plan_labels(**kwargs)
    assert e.value.argument == name


def test_the_plan_figure_shows_the_goal(estimate):
    import matplotlib

    matplotlib.use("Agg")
    from spe.plot import plot_label_plan

    plan = estimate.plan_labels(width=0.2, max_labels=30, futures=20, rng=0)
    ax = plot_label_plan(plan)
    assert any(np.allclose(line.get_ydata(), 0.2) for line in ax.get_lines())
    assert "until the 90% interval of ap narrower than 0.2" in ax.get_title()


def test_spe_plan_prints_the_plan_and_writes_json_and_a_figure(tmp_path, capsys):
    argv = ["plan", str(EXAMPLES / "digits_scores.csv"), "--labels", str(EXAMPLES / "digits_labels.csv"),
            "--width", "0.2", "--max-labels", "40", "--futures", "20", "--draws", "200", "--seed", "0",
            "--json", str(tmp_path / "plan.json"), "--plot", str(tmp_path / "plan.png")]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Until the 90% interval of ap narrower than 0.2" in out
    result = json.loads((tmp_path / "plan.json").read_text())
    assert result["horizon"] == 40 and set(result["labels_needed"]) == {"q10", "median", "q90"}
    assert (tmp_path / "plan.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("bad", [[], ["--width", "0.1", "--probability", "0.9"], ["--width", "-1"],
                                 ["--probability", "0.9"], ["--probability", "1.5", "--target", "threshold:0.9,0.5"]])
def test_spe_plan_bad_goals_exit_2(bad, capsys):
    assert main(["plan", str(EXAMPLES / "digits_scores.csv"), "--draws", "200", *bad]) == 2
    err = capsys.readouterr().err
    assert "error" in err and ("--width" in err or "--probability" in err)


@pytest.mark.slow
def test_spe_plan_on_two_classifiers_plans_their_comparison(two_classifiers, tmp_path, capsys):
    argv = ["plan", str(two_classifiers), "--score-columns", "a,b", "--labels", str(EXAMPLES / "digits_labels.csv"),
            "--probability", "0.9", "--max-labels", "20", "--futures", "20", "--draws", "200", "--seed", "0",
            "--json", str(tmp_path / "plan.json")]
    assert main(argv) == 0
    assert "Until the decision on compare reaches probability 0.9" in capsys.readouterr().out
    assert json.loads((tmp_path / "plan.json").read_text())["target"] == "compare"


@pytest.mark.slow
def test_the_labels_a_random_loop_needs_fall_in_the_plans_range():
    """A simulation where the truth is known: plan "until the AP interval is half as wide" from 10 random
    labels, then reveal random labels in the plan's order 10 at a time until it is; 3 seeds."""
    inside = []
    for seed in range(3):
        s, y = simulate(1500, 0.2, seed=10 + seed)
        known = list(range(10))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = spe.evaluate(s, {i: int(y[i]) for i in known}, draws=200, rng=seed,
                              families="truncnorm,truncnorm")  # the simulated classes: no screening needed
            ap = ev.average_precision()
            goal = (ap.hi - ap.lo) / 2
            plan = ev.plan_labels(width=goal, strategy="random", max_labels=60, futures=60, rng=seed)
            order = ev.suggest(60, strategy="random", rng=seed).items.tolist()
            needed = np.inf
            for n in range(10, 70, 10):
                after = spe.evaluate(s, {i: int(y[i]) for i in known + order[:n]}, draws=200, rng=seed,
                                     families="truncnorm,truncnorm")
                ap = after.average_precision()
                if ap.hi - ap.lo < goal:
                    needed = n
                    break
        lo, hi = plan.labels_needed((0.1, 0.9))
        inside.append(np.floor(lo / 10) * 10 <= needed <= np.ceil(hi / 10) * 10)
    assert sum(inside) >= 2


@pytest.mark.parametrize("goal", [{"width": 0.05}, {"width": 0.05, "max_labels": 30},
                                  {"probability": 0.9, "target": "threshold:0.8,0.5"}])
def test_every_item_labeled_needs_no_more_labels(every_item_labeled, goal):
    plan = every_item_labeled.plan_labels(futures=20, rng=0, **goal)
    assert plan.horizon == 0 and list(plan.checkpoints) == [0] and np.all(plan.needed == 0)
    assert "already so" in plan.summary() and plan.to_dict()["labels_needed"]["median"] == 0.0
    with pytest.raises(SpeInputError, match="^max_labels: "):
        every_item_labeled.plan_labels(width=0.05, max_labels=0)


def test_spe_plan_on_every_item_labeled_answers(tmp_path, capsys):
    out = tmp_path / "plan.json"
    pd.read_csv(EXAMPLES / "digits_scores.csv").head(120).to_csv(tmp_path / "s.csv", index=False)
    pd.read_csv(EXAMPLES / "digits_truth.csv").head(120).to_csv(tmp_path / "t.csv", index=False)
    rc = main(["plan", str(tmp_path / "s.csv"), "--labels", str(tmp_path / "t.csv"),
               "--width", "0.1", "--draws", "100", "--families", "truncnorm,truncnorm", "--workers", "1",
               "--futures", "20", "--json", str(out)])
    stdout, err = capsys.readouterr()
    assert rc == 0 and "Traceback" not in err, err
    body = json.loads(out.read_text())
    assert body["horizon"] == 0 and body["labels_needed"]["median"] == 0.0 and "already so" in stdout


def test_future_labels_above_the_threshold_lift_a_statement_that_rests_on_none():
    """Every labeled item scores below the threshold: the statement is capped near (1 + 0.2) / 2, and only
    labels above the threshold can lift it; the plan's futures, whose next items score high, do."""
    rng = np.random.default_rng(3)
    y = rng.random(3000) < 0.3
    s = np.where(y, rng.normal(3, 1, 3000), rng.normal(0, 1, 3000))
    low = np.flatnonzero(s < 1.0)[:40]
    ev = spe.evaluate(s, (low, y[low].astype(int)), draws=400, rng=0, score_model="calibrated")
    choice = ev.best_threshold(0.8, 0.3)
    assert choice.rests_on()["labeled_above"] == 0 and choice.probability <= 0.6 + 1e-9
    plan = ev.plan_labels(probability=0.9, target="threshold:0.8,0.3", max_labels=60, futures=40, rng=0)
    assert plan.now == pytest.approx(max(choice.probability, 1 - choice.probability))
    assert np.nanmax(plan.progress[:, 1]) > 0.8


def test_a_tie_in_every_draw_is_never_a_decision():
    """Two classifiers that rank alike: every draw's AP difference is 0, so P(a better) is one half, as
    Comparison.probability_better counts ties — not 'b is better' with certainty."""
    from spe.active.plan import _Decision
    from spe.active.targets import parse_target

    spec, _ = parse_target("compare")
    reader = _Decision(np.zeros((50, 2)), spec, 0.9)
    value = reader.value(np.full((3, 50), 1 / 50))
    assert value == pytest.approx([0.5, 0.5, 0.5]) and not reader.met(value).any()
    mixed = _Decision(np.array([[0.1], [0.0], [-0.1], [0.2]]), spec, 0.9)
    assert mixed.value(np.full((1, 4), 0.25)) == pytest.approx([0.625])
