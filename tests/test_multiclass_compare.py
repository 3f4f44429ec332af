"""Comparing multiclass classifiers: the joint stacking map, counts from shared label draws, the differences'
posterior on simulated classifiers whose truth is known, reading and the command line."""

import json

import numpy as np
import pandas as pd
import pytest
from scipy import special
from sklearn import metrics as skm

import spe
from spe.exceptions import SpeInputError
from spe.multiclass.comparison import MulticlassComparison, compare_multiclass
from spe.multiclass.joint import joint_map
from spe.multiclass.models.base import linear


def _classifiers(n=1500, k=4, seed=0):
    """Three classifiers of the same items, the classes drawn from a hidden truth: 'sharp' sees it best,
    'blurred' adds noise, 'weak' adds more (each stating its own softmax)."""
    rng = np.random.default_rng(seed)
    truth_logits = rng.normal(0, 2.5, size=(n, k))
    y = (special.softmax(truth_logits, axis=1).cumsum(1) > rng.random(n)[:, None]).argmax(1)
    out = {name: truth_logits + rng.normal(0, sd, size=(n, k)) for name, sd in
           [("sharp", 0.3), ("blurred", 1.5), ("weak", 3.5)]}
    return out, y


def test_the_joint_maps_logits_are_its_design_times_its_parameters():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(7, 4, 3))
    cmap = joint_map(4, 3, scales=[1.5, 0.5, 2.0])
    theta = linear(rng.normal(size=(5, cmap.n_params)))
    direct = cmap.logits(theta, x)
    via_design = np.einsum("nkp,bp->bnk", cmap.design(x), theta)
    np.testing.assert_allclose(direct, via_design, atol=1e-12)
    # the ensemble at a = 1, no contrast, no shift: the mean of the scaled log-probabilities
    plain = np.zeros((1, cmap.n_params))
    plain[0, 0] = 1.0
    np.testing.assert_allclose(cmap.logits(plain, x)[0], np.mean(x * [1.5, 0.5, 2.0], axis=2), atol=1e-12)


def test_every_item_labeled_gives_each_classifiers_metrics_and_their_differences_exactly():
    scores, y = _classifiers(n=300)
    cmp = compare_multiclass(scores, y, draws=100, rng=0)
    assert isinstance(cmp, MulticlassComparison)
    acc = {k: skm.accuracy_score(y, v.argmax(1)) for k, v in scores.items()}
    for k in scores:
        assert cmp[k].accuracy().lo == cmp[k].accuracy().hi == pytest.approx(acc[k])
        assert cmp[k].macro_f1().mean == pytest.approx(skm.f1_score(y, scores[k].argmax(1), average="macro"))
    d = cmp.difference("sharp", "weak")
    assert d.lo == d.hi == pytest.approx(acc["sharp"] - acc["weak"])
    assert cmp.probability_better("sharp", "weak") == 1.0


def test_the_better_classifier_is_found_and_the_differences_intervals_hold_the_truth():
    """Simulated: 40 labels of 1,500 items; the posterior favours the truly more accurate classifier and every
    pair's 90% interval of the accuracy difference holds the pool's true difference."""
    scores, y = _classifiers(seed=2)
    rng = np.random.default_rng(2)
    labeled = rng.choice(y.size, 40, replace=False)
    cmp = spe.compare(scores, {int(i): int(y[i]) for i in labeled}, draws=400, rng=3)
    acc = {k: np.mean(v.argmax(1) == y) for k, v in scores.items()}
    assert acc["sharp"] > acc["blurred"] > acc["weak"]
    assert cmp.ranking()[0]["name"] == "sharp"
    assert cmp.probability_better("sharp", "weak") > 0.95
    for c in cmp.comparisons(["accuracy"]):
        truth = acc[c["a"]] - acc[c["b"]]
        assert c["difference"]["lo"] <= truth <= c["difference"]["hi"], c


def test_the_same_seed_gives_the_same_comparison_and_ids_match_items_in_any_order():
    scores, y = _classifiers(n=200)
    ids = [f"i{j}" for j in range(200)]
    frames = {k: pd.DataFrame(v, columns=list("abcd"), index=ids) for k, v in scores.items()}
    labels = pd.Series(["abcd"[c] for c in y[:30]], index=ids[:30])
    one = compare_multiclass(frames, labels, draws=150, rng=5)
    shuffled = dict(frames, weak=frames["weak"].sample(frac=1.0, random_state=0)[list("dcba")])
    two = compare_multiclass(shuffled, labels, draws=150, rng=5)
    assert one.to_dict() == two.to_dict()


def test_bad_groups_of_classifiers_are_refused_with_the_reason():
    scores, y = _classifiers(n=100)
    with pytest.raises(SpeInputError, match="two or more"):
        compare_multiclass({"sharp": scores["sharp"]}, None, draws=100)
    with pytest.raises(SpeInputError, match="90 items, the first classifier 100"):
        compare_multiclass({"a": scores["sharp"], "b": scores["weak"][:90]}, None, draws=100)
    frames = {"a": pd.DataFrame(scores["sharp"], columns=list("abcd")),
              "b": pd.DataFrame(scores["weak"], columns=list("abce"))}
    with pytest.raises(SpeInputError, match="not the first classifier's"):
        compare_multiclass(frames, None, draws=100)
    with pytest.raises(SpeInputError, match="named 'x'"):
        compare_multiclass([scores["sharp"], scores["weak"]], None, names=["x", "x"], draws=100)
    cmp = compare_multiclass(scores, {0: int(y[0])}, draws=100, rng=0)
    with pytest.raises(SpeInputError, match="none of the classifiers"):
        cmp.difference("sharp", "nobody")
    with pytest.raises(SpeInputError, match="per-class metrics"):
        cmp.metric_draws("sharp", "lift:0")


def test_two_class_matrices_compare_as_their_one_column_scores():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    good = special.expit((2 * y - 1) * 2.0 + rng.normal(size=400))
    weak = special.expit((2 * y - 1) * 0.7 + rng.normal(size=400))
    known = {int(i): int(y[i]) for i in rng.choice(400, 30, replace=False)}
    one = spe.compare({"good": good, "weak": weak}, known, draws=200, rng=2)
    two = spe.compare({"good": np.c_[1 - good, good], "weak": np.c_[1 - weak, weak]}, known, draws=200, rng=2)
    assert two.to_dict() == one.to_dict()


def _write_classifiers(tmp_path, n=240):
    scores, y = _classifiers(n=n, k=3, seed=4)
    ids = [f"x{i}" for i in range(n)]
    for name, v in scores.items():
        frame = pd.DataFrame(special.softmax(v, axis=1), columns=["prob_ant", "prob_bee", "prob_cat"])
        frame.insert(0, "id", ids)
        frame.sample(frac=1.0, random_state=len(name)).to_csv(tmp_path / f"{name}.csv", index=False)
    pd.DataFrame({"id": ids[::8], "label": [["ant", "bee", "cat"][c] for c in y[::8]]}).to_csv(
        tmp_path / "labels.csv", index=False)
    return [str(tmp_path / f"{name}.csv") for name in scores]


def test_spe_compare_on_class_columns_writes_each_classifier_and_every_difference(tmp_path, capsys):
    from spe.cli.main import main

    files = _write_classifiers(tmp_path)
    out = tmp_path / "cmp.json"
    code = main(["compare", *files, "--labels", str(tmp_path / "labels.csv"), "--class-prefix", "prob_",
                 "--json", str(out), "--plot", str(tmp_path / "cmp.png"), "--draws", "150", "--seed", "0"])
    assert code == 0
    d = json.loads(out.read_text())
    assert d["classes"] == ["ant", "bee", "cat"] and list(d["classifiers"]) == ["sharp", "blurred", "weak"]
    assert {"accuracy", "macro_f1", "confusion_matrix", "per_class"} <= set(d["classifiers"]["weak"])
    pairs = {(c["a"], c["b"], c["metric"]) for c in d["comparisons"]}
    assert ("sharp", "weak", "accuracy") in pairs and ("blurred", "weak", "macro_roc_auc") in pairs
    assert len(d["per_class_comparisons"]) == 3 * 2 * 3
    assert abs(sum(r["p_best"] for r in d["ranking"]) - 1) < 1e-9
    assert (tmp_path / "cmp.png").stat().st_size > 0
    assert "most accurate" in capsys.readouterr().out


def test_spe_compare_names_a_file_whose_classes_differ_and_writes_the_joint_items(tmp_path, capsys):
    from spe.cli.main import main

    files = _write_classifiers(tmp_path)
    good = ["compare", *files[::2], "--labels", str(tmp_path / "labels.csv"), "--class-prefix", "prob_", "--draws",
            "120", "--seed", "0", "--items", str(tmp_path / "items.csv")]
    assert main(good) == 0
    items = pd.read_csv(tmp_path / "items.csv")
    assert list(items.columns) == ["id", "sharp", "weak", "label", "prob_ant", "prob_bee", "prob_cat"]
    np.testing.assert_allclose(items[["prob_ant", "prob_bee", "prob_cat"]].sum(axis=1), 1.0, atol=1e-5)
    capsys.readouterr()
    pd.read_csv(files[1]).rename(columns={"prob_cat": "prob_cow"}).to_csv(files[1], index=False)
    args = ["compare", *files, "--labels", str(tmp_path / "labels.csv"), "--class-prefix", "prob_"]
    assert main(args) == 2
    assert "prob_cat" in capsys.readouterr().err
    pd.read_csv(files[0]).iloc[:50].to_csv(tmp_path / "short.csv", index=False)
    assert main(["compare", files[0], str(tmp_path / "short.csv"), "--class-prefix", "prob_"]) == 2
    assert "short.csv: it scores 50 items" in capsys.readouterr().err


def test_the_items_suggested_to_compare_are_unlabeled_and_their_gain_is_the_variance_they_remove():
    scores, y = _classifiers(n=300, seed=6)
    known = {i: int(y[i]) for i in range(0, 300, 20)}
    cmp = compare_multiclass(scores, known, draws=200, rng=1)
    got = cmp.suggest(5, rng=0)
    assert got.target.startswith("compare: accuracy of")
    assert not set(got.items.tolist()) & set(known)
    assert np.all(np.diff(got.expected_gain) <= 0) and np.all(got.expected_gain <= got.variance + 1e-12)
    one = cmp.suggest(3, "ap:2", classifier="weak", rng=0)
    assert one.target == "ap:2" and one.items.size == 3
    with pytest.raises(SpeInputError):
        cmp.suggest(3, "lift", rng=0)


def test_spe_suggest_on_several_class_files_names_items_of_the_first_file(tmp_path):
    from spe.cli.main import main

    files = _write_classifiers(tmp_path)
    out = tmp_path / "next.csv"
    args = ["suggest", *files, "--labels", str(tmp_path / "labels.csv"), "--class-prefix", "prob_", "-k", "4",
            "--draws", "150", "--seed", "0", "--out", str(out)]
    assert main(args) == 0
    got = pd.read_csv(out)
    assert len(got) == 4 and not set(got["id"]) & set(pd.read_csv(tmp_path / "labels.csv")["id"])
    assert set(got["id"]) <= set(pd.read_csv(files[0])["id"])
    assert main(args[:-2] + ["--classifier", "nobody", "--out", str(tmp_path / "x.csv")]) == 2


def _drifting_pool(seed=0, n=1200, k=3):
    """A reference set and a pool of three chunks of a 3-class classifier, the last chunk's items far harder
    (its true classes drawn from a flatter softmax): the classifier's accuracy drops there."""
    rng = np.random.default_rng(seed)

    def part(m, temperature):
        logits = rng.normal(0, 3.0, size=(m, k))
        y = (special.softmax(logits / temperature, axis=1).cumsum(1) > rng.random(m)[:, None]).argmax(1)
        return special.softmax(logits, axis=1), y

    ref_p, ref_y = part(600, 1.0)
    chunks = [part(n // 3, t) for t in (1.0, 1.0, 4.0)]
    p = np.vstack([c[0] for c in chunks])
    y = np.concatenate([c[1] for c in chunks])
    frame = pd.DataFrame(p, columns=["ant", "bee", "cat"])
    frame["week"] = np.repeat(["w1", "w2", "w3"], n // 3)
    frame["region"] = np.where(np.arange(n) % 2 == 0, "north", "south")
    reference = pd.DataFrame(ref_p, columns=["ant", "bee", "cat"]).assign(label=np.array(["ant", "bee", "cat"])[ref_y])
    return frame, reference, y


def test_monitor_finds_the_chunk_where_accuracy_dropped_and_its_intervals_hold_each_chunks_truth():
    frame, reference, y = _drifting_pool()
    labels = {int(i): int(y[i]) for i in range(0, len(y), 40)}
    m = spe.monitor(frame, reference=reference, labels=labels, chunk_column="week", by="region", draws=300, rng=0)
    assert [c.key for c in m.chunks] == ["w1", "w2", "w3"] and [s.key for s in m.slices] == ["region=north",
                                                                                              "region=south"]
    predicted = frame[["ant", "bee", "cat"]].to_numpy().argmax(1)
    for c in m.chunks:
        truth = np.mean(predicted[frame.week == c.key] == y[frame.week == c.key])
        assert c.metrics["accuracy"].lo <= truth <= c.metrics["accuracy"].hi, (c.key, truth)
    alerted = {key for kind, key, metric, _ in m.alerts if metric == "accuracy"}
    assert alerted == {"w3"}
    ref_p = reference[["ant", "bee", "cat"]].to_numpy()
    assert m.reference["accuracy"] == pytest.approx(np.mean(ref_p.argmax(1) == reference["label"].map(
        {"ant": 0, "bee": 1, "cat": 2}).to_numpy()))
    assert {g["metric"] for g in m.gaps} == {"accuracy", "macro_f1", "macro_average_precision"}
    assert "accuracy" in m.summary() and m.to_dict()["threshold"] is None


def test_spe_monitor_on_class_columns_writes_chunks_with_their_accuracy(tmp_path, capsys):
    from spe.cli.main import main

    frame, reference, y = _drifting_pool(seed=1, n=600)
    frame.insert(0, "id", [f"i{j}" for j in range(len(frame))])
    frame.to_csv(tmp_path / "pool.csv", index=False)
    reference.to_csv(tmp_path / "ref.csv", index=False)
    out = tmp_path / "m.json"
    args = ["monitor", str(tmp_path / "pool.csv"), "--reference", str(tmp_path / "ref.csv"), "--chunk-column",
            "week", "--by", "region", "--draws", "150", "--seed", "0", "--json", str(out),
            "--plot", str(tmp_path / "m.png")]
    assert main(args) == 0
    d = json.loads(out.read_text())
    assert [c["key"] for c in d["chunks"]] == ["w1", "w2", "w3"]
    assert {"accuracy", "macro_f1", "macro_average_precision", "calibration_error"} <= set(d["chunks"][0])
    assert (tmp_path / "m.png").stat().st_size > 0
    assert "accuracy" in capsys.readouterr().out
    assert main(args + ["--report", str(tmp_path / "r.html")]) == 0
    page = (tmp_path / "r.html").read_text()
    assert "Accuracy and macro F1 per chunk" in page and "w3" in page and "<img" in page
    assert main(args + ["--threshold", "0.5", "--json", str(tmp_path / "t.json")]) == 2
    assert not (tmp_path / "t.json").exists()


def test_spe_monitor_reads_class_columns_and_chunk_columns_from_standard_input_once(tmp_path, monkeypatch):
    """The class columns and the chunk and slice columns come from one pass over the file: a pool piped in on
    standard input (its class columns named: no header is read ahead of it) gives the file's answer."""
    import io
    import sys

    from spe.cli.main import main

    frame, reference, _ = _drifting_pool(seed=2, n=300)
    frame.to_csv(tmp_path / "pool.csv", index=False)
    reference.to_csv(tmp_path / "ref.csv", index=False)
    common = ["--class-columns", "ant,bee,cat", "--reference", str(tmp_path / "ref.csv"), "--chunk-column", "week",
              "--by", "region", "--draws", "100", "--seed", "0", "--json"]
    assert main(["monitor", str(tmp_path / "pool.csv"), *common, str(tmp_path / "file.json")]) == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((tmp_path / "pool.csv").read_bytes())))
    assert main(["monitor", "-", *common, str(tmp_path / "stdin.json")]) == 0
    assert json.loads((tmp_path / "stdin.json").read_text()) == json.loads((tmp_path / "file.json").read_text())


def test_load_reads_a_multiclass_comparison_back(tmp_path):
    scores, y = _classifiers(n=200)
    cmp = compare_multiclass(scores, {i: int(y[i]) for i in range(0, 200, 10)}, draws=150, rng=0)
    path = tmp_path / "cmp.json"
    cmp.save(path)
    back = spe.load(path)
    assert back.names == cmp.names and back.summary() == cmp.summary()
    assert back.difference("sharp", "weak") == cmp.difference("sharp", "weak")
    assert back.difference("sharp", "weak", "f1:2") == cmp.difference("sharp", "weak", "f1:2")
    reversed_pair, live = back.difference("weak", "sharp"), cmp.difference("weak", "sharp")
    assert (reversed_pair.mean, reversed_pair.lo, reversed_pair.hi) == pytest.approx((live.mean, live.lo, live.hi),
                                                                                      abs=0.01)
    assert back.probability_better("weak", "sharp") == pytest.approx(cmp.probability_better("weak", "sharp"))
    assert back["blurred"].accuracy() == cmp["blurred"].accuracy()


def test_two_class_files_compare_as_one_score_each_with_their_ids(tmp_path):
    from spe.cli.main import main

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    ids = [f"x{i}" for i in range(300)]
    for name, strength in (("good", 2.0), ("weak", 0.6)):
        p = special.expit((2 * y - 1) * strength + rng.normal(size=300))
        pd.DataFrame({"id": ids, "no": 1 - p, "yes": p}).to_csv(tmp_path / f"{name}.csv", index=False)
    pd.DataFrame({"id": ids[::10], "label": np.array(["no", "yes"])[y[::10]]}).to_csv(tmp_path / "l.csv", index=False)
    assert main(["compare", str(tmp_path / "good.csv"), str(tmp_path / "weak.csv"), "--labels",
                 str(tmp_path / "l.csv"), "--draws", "150", "--seed", "0", "--items", str(tmp_path / "i.csv"),
                 "--json", str(tmp_path / "c.json")]) == 0
    items = pd.read_csv(tmp_path / "i.csv")
    assert list(items.columns) == ["id", "good", "weak", "label", "probability"] and items["id"][0] == "x0"
    assert "average_precision" in {c["metric"] for c in json.loads((tmp_path / "c.json").read_text())["comparisons"]}


def test_a_comparisons_plan_reads_every_pairs_difference_now_and_a_stricter_goal_needs_more_labels():
    scores, y = _classifiers(n=500, k=3, seed=5)
    cmp = compare_multiclass(scores, {i: int(y[i]) for i in range(0, 500, 25)}, draws=300, rng=0)
    pairs = [("sharp", "blurred"), ("sharp", "weak"), ("blurred", "weak")]
    widths = [cmp.difference(a, b, performance="population") for a, b in pairs]
    by_width = cmp.plan_labels(width=0.05, max_labels=40, futures=20, rng=0)
    assert by_width.kind == "width" and by_width.now == pytest.approx(np.mean([w.hi - w.lo for w in widths]))
    sides = [cmp.probability_better(a, b, performance="population") for a, b in pairs]
    loose = cmp.plan_labels(probability=0.6, max_labels=40, futures=20, rng=0)
    strict = cmp.plan_labels(probability=0.99, max_labels=40, futures=20, rng=0)
    assert loose.now == pytest.approx(min(max(p, 1 - p) for p in sides))
    # the same futures (same seed): the stricter goal is never met sooner
    assert np.all(loose.needed <= strict.needed)
    assert loose.target == "compare" and loose.to_dict()["kind"] == "probability"


def test_two_identical_classifiers_are_never_told_apart_by_further_labels():
    scores, y = _classifiers(n=300, k=3, seed=6)
    cmp = compare_multiclass({"a": scores["blurred"], "b": scores["blurred"]}, {i: int(y[i]) for i in range(0, 300, 15)},
                             draws=200, rng=0)
    plan = cmp.plan_labels(probability=0.9, max_labels=30, futures=15, rng=0)
    assert plan.now == 0.5 and not np.isfinite(plan.needed).any()
    assert np.nanmax(plan.progress) == pytest.approx(0.5)
    with pytest.raises(SpeInputError, match="not a decision"):
        cmp.plan_labels(probability=0.9, target="accuracy")
    with pytest.raises(SpeInputError, match="exactly one goal"):
        cmp.plan_labels(width=0.1, probability=0.9)
    one = cmp.plan_labels(width=0.1, target="accuracy", classifier="b", max_labels=10, futures=10, rng=0)
    assert one.target == "accuracy" and one.kind == "width"


def test_spe_plan_on_several_class_files_plans_the_comparison(tmp_path, capsys):
    from spe.cli.main import main

    files = _write_classifiers(tmp_path)
    out = tmp_path / "plan.json"
    base = ["plan", *files, "--labels", str(tmp_path / "labels.csv"), "--class-prefix", "prob_", "--draws", "150",
            "--seed", "0", "--futures", "20", "--max-labels", "30"]
    assert main(base + ["--probability", "0.9", "--json", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["target"] == "compare" and d["kind"] == "probability" and d["futures"] == 20
    assert "more accurate" in capsys.readouterr().out
    assert main(base + ["--target", "accuracy", "--classifier", "weak", "--width", "0.05"]) == 0
    assert main(base + ["--target", "accuracy", "--probability", "0.9"]) == 2
    assert "--probability" in capsys.readouterr().err
    assert main(base + ["--target", "ap:owl", "--width", "0.05"]) == 2
    assert main(base + ["--probability", "0.9", "--reference", files[0]]) == 2
    assert "reference set is for one classifier" in capsys.readouterr().err
    with pytest.raises(SpeInputError, match="none of the classifiers"):
        compare_multiclass(*_classifiers(n=100, k=3), draws=100, rng=0).plan_labels(width=0.1, classifier="owl")
