"""How long a user waits: every command of the README on the digits example, and ``spe estimate`` at 10³–10⁶ items.

Each command runs in a fresh process (``python -m spe ...``, as the installed ``spe`` script does), ``--repeats``
times; the median is printed beside the **floor** measured in the same run — a fresh Python process that imports
pandas and reads the same CSV (and sorts the scores, at the large sizes) — and as a ratio to it, so that figures
from a busy machine still compare. Also: ``spe.evaluate`` on the digits example in a warm process (the imports
paid, one call first), and where the time of ``spe estimate -v`` goes, stage by stage (its own log).

Run:  python benchmarks/latency.py [--repeats 5] [--sizes 1000 10000 100000 1000000] [--cases NAME ...]
      [--out latency.txt]
The sizes' pools are simulated (two Gaussian classes, 20% positive) with 20 labels drawn at random (seed 0),
written once to a temporary directory.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
EX = ROOT / "examples"
SCORES, LABELS, SVM = EX / "digits_scores.csv", EX / "digits_labels.csv", EX / "digits_svm_scores.csv"

def readme_commands(out):
    """The README's commands on the digits example (their outputs to the directory ``out``), by name."""
    d = ["--labels", str(LABELS)]
    return {
        "spe --help": ["--help"],
        "spe --version": ["--version"],
        "spe list": ["list"],
        "estimate": ["estimate", str(SCORES), *d, "--plot", str(out / "pr.png"), "--json", str(out / "r.json"),
                     "--seed", "0"],
        "estimate --report": ["estimate", str(SCORES), *d, "--report", str(out / "d.html"), "--requirement",
                              "0.9,0.5", "--seed", "0"],
        "threshold": ["threshold", str(SCORES), *d, "--min-precision", "0.9", "--min-recall", "0.5", "--seed", "0"],
        "suggest": ["suggest", str(SCORES), *d, "-k", "10", "--out", str(out / "next.csv"), "--seed", "0"],
        "calibrate": ["calibrate", str(SCORES), *d, "--out", str(out / "probs.csv"), "--seed", "0"],
        "compare (2 classifiers)": ["compare", str(SCORES), str(SVM), "--names", "logistic,svm", *d, "--json",
                                    str(out / "cmp.json"), "--plot", str(out / "cmp.png"), "--seed", "0"],
        "plan": ["plan", str(SCORES), *d, "--target", "ap", "--width", "0.1", "--seed", "0"],
        "prevalence --compare": ["prevalence", str(SCORES), *d, "--compare", "--seed", "0"],
    }


FLOOR = "import sys, numpy as np, pandas as pd; s = pd.read_csv(sys.argv[1])['score'].to_numpy(); {sort}"


def seconds(argv, repeats):
    """Median wall time of ``argv`` in fresh processes (its exit status must be 0)."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def floor(path, repeats, sort=False):
    """The floor: a fresh Python that imports pandas and reads ``path`` (and sorts its scores)."""
    return seconds([sys.executable, "-c", FLOOR.format(sort="s = np.sort(s)" if sort else ""), str(path)], repeats)


def spe(args, repeats):
    return seconds([sys.executable, "-m", "spe", *args], repeats)


def simulated(directory, n):
    """A pool of n simulated scores with 20 random labels, as CSV files (scores, labels)."""
    rng = np.random.default_rng(0)
    y = rng.random(n) < 0.2
    s = np.where(y, rng.normal(2.0, 1.0, n), rng.normal(0.0, 1.0, n)).round(6)
    scores, labels = directory / f"s{n}.csv", directory / f"l{n}.csv"
    pd.DataFrame({"score": s}).to_csv(scores, index=False)
    idx = np.sort(rng.choice(n, 20, replace=False))
    pd.DataFrame({"id": idx, "label": y[idx].astype(int)}).to_csv(labels, index=False)
    return scores, labels


def stages(args):
    """``spe estimate -v``'s stage lines (name: seconds), one run."""
    run = subprocess.run([sys.executable, "-m", "spe", *args, "-v"], capture_output=True, text=True, check=True)
    return [line.removeprefix("spe: ") for line in run.stderr.splitlines() if line.startswith("spe: ")
            and line.rstrip().endswith(" s")]


def warm_evaluate(repeats):
    """Median seconds of ``spe.evaluate`` on the digits example in this process, after one call."""
    import spe as package

    scores = pd.read_csv(SCORES, index_col="id")["score"]
    labels = pd.read_csv(LABELS, index_col="id")["label"]
    package.evaluate(scores, labels, rng=0)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        package.evaluate(scores, labels, rng=0)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def shared_case(directory, name, n_labels=20):
    """A shared case's scores and 20 random labels (:func:`cases.trial_rng`, seed 0) as CSV files: (scores,
    labels, N)."""
    from cases import DEFAULT_CASES, random_labels, read_case, trial_rng

    s, y, _ = read_case(DEFAULT_CASES / f"{name}.csv")
    idx = random_labels(trial_rng(0, n_labels, name), s.size, n_labels)
    scores, labels = directory / f"{name}.csv", directory / f"{name}_labels.csv"
    pd.DataFrame({"score": s}).to_csv(scores, index=False)
    pd.DataFrame({"id": idx, "label": y[idx]}).to_csv(labels, index=False)
    return scores, labels, s.size


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", type=int, nargs="*", default=[1000, 10000, 100000, 1000000])
    ap.add_argument("--cases", nargs="*", default=[],
                    help="also time spe estimate on these shared cases (../shared/cases/NAME.csv), 20 random labels "
                         "drawn as every benchmark draws them (cases.py): e.g. a deep network's civil_distilbert_erm1")
    ap.add_argument("--out", type=Path, help="also write the tables here")
    args = ap.parse_args(argv)
    lines = [f"# {' '.join(sys.argv)}; median of {args.repeats} fresh processes"]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        base = floor(SCORES, args.repeats)
        lines.append(f"\n=== the digits example (899 items, 20 labels); floor {base:.2f} s ===")
        lines.append(f"{'command':28s} {'seconds':>8s} {'× floor':>8s}")
        for name, cmd in readme_commands(out).items():
            t = spe(cmd, args.repeats)
            lines.append(f"{name:28s} {t:8.2f} {t / base:8.1f}")
            print(lines[-1], file=sys.stderr, flush=True)
        lines.append(f"{'spe.evaluate, warm process':28s} {warm_evaluate(args.repeats):8.2f}")
        lines.append("\nwhere spe estimate's time goes (-v, one run):")
        lines += [f"  {s}" for s in stages(["estimate", str(SCORES), "--labels", str(LABELS), "--seed", "0"])]
        if args.sizes:
            lines.append("\n=== spe estimate from CSV, simulated pools, 20 labels ===")
            lines.append(f"{'items':>9s} {'seconds':>8s} {'floor':>7s} {'× floor':>8s}")
        for n in args.sizes:
            scores, labels = simulated(out, n)
            cmd = ["estimate", str(scores), "--labels", str(labels), "--seed", "0"]
            t, f = spe(cmd, args.repeats), floor(scores, args.repeats, sort=n >= 100000)
            lines.append(f"{n:9d} {t:8.2f} {f:7.2f} {t / f:8.1f}")
            print(lines[-1], file=sys.stderr, flush=True)
            lines += [f"    {s}" for s in stages(cmd)]
        if args.cases:
            lines.append("\n=== spe estimate on shared cases, 20 random labels (seed 0) ===")
            lines.append(f"{'case':28s} {'items':>7s} {'seconds':>8s} {'floor':>7s} {'× floor':>8s}")
        for name in args.cases:
            scores, labels, n = shared_case(out, name)
            cmd = ["estimate", str(scores), "--labels", str(labels), "--seed", "0"]
            t, f = spe(cmd, args.repeats), floor(scores, args.repeats, sort=n >= 100000)
            lines.append(f"{name:28s} {n:7d} {t:8.2f} {f:7.2f} {t / f:8.1f}")
            print(lines[-1], file=sys.stderr, flush=True)
            lines += [f"    {s}" for s in stages(cmd)]
    text = "\n".join(lines)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")


if __name__ == "__main__":
    sys.exit(main())
