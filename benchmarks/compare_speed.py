"""Wall time and peak memory of ``spe compare`` with K classifiers on N items (issue 23: 9 × 10⁵ under 60 s).

The pool is synthetic, shaped like the deep networks users compare: every item has a latent evidence for its
class (prevalence 0.1), and each of the K classifiers sees it through its own noise and temperature and writes
an over-confident probability (piled near 0 and 1), to 6 significant digits, in one CSV with an ``id`` column
and one column per classifier; 20 items drawn at random are labeled. Each measurement runs in a fresh Python
process, so its peak memory (``ru_maxrss``) is its own, and is timed from before ``import spe``:

* ``compare``: ``spe.read_score_columns`` + ``spe.compare`` (default draws and ``workers``);
* ``cli``: the whole ``spe compare SCORES --score-columns ... --labels LABELS --json OUT`` command, in-process
  through ``spe.cli.main``.

Run:  python benchmarks/compare_speed.py [--classifiers 9] [--sizes 1e4 1e5]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

CHILD = r"""
import json, resource, sys, time, warnings
t0 = time.perf_counter()
what, scores, labels, out, names = sys.argv[1:6]
names = names.split(",")
import spe
if what == "compare":
    from spe.io import read_labels, read_score_columns
    files = read_score_columns(scores, names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cmp = spe.compare({n: f.scores for n, f in zip(names, files)}, read_labels(labels, files[0]), rng=0)
    cmp.ranking()
else:
    from spe.cli import main
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["compare", scores, "--score-columns", ",".join(names), "--labels", labels, "--json", out,
                     "--seed", "0"])
    assert code == 0, code
print(json.dumps({"seconds": time.perf_counter() - t0,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def write_pool(directory, n, k, rng):
    """SCORES.csv (id + K probability columns) and LABELS.csv (20 random items) of a synthetic pool."""
    y = rng.random(n) < 0.1
    evidence = np.where(y, rng.normal(2.0, 1.0, n), rng.normal(-2.0, 1.0, n))
    names = [f"net{j + 1}" for j in range(k)]
    columns = {"id": np.arange(n)}
    for name in names:
        noise, temperature = rng.uniform(0.5, 2.0), rng.uniform(1.5, 4.0)
        logit = temperature * (evidence + rng.normal(0.0, noise, n))
        columns[name] = np.char.mod("%.6g", 1.0 / (1.0 + np.exp(-logit)))
    scores, labels = Path(directory) / "scores.csv", Path(directory) / "labels.csv"
    pd.DataFrame(columns).to_csv(scores, index=False)
    idx = np.sort(rng.choice(n, 20, replace=False))
    pd.DataFrame({"id": idx, "label": y[idx].astype(int)}).to_csv(labels, index=False)
    return scores, labels, names


def run(what, scores, labels, out, names):
    res = subprocess.run([sys.executable, "-c", CHILD, what, str(scores), str(labels), str(out), ",".join(names)],
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise SystemExit(f"{what} failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--classifiers", type=int, default=9, help="K (default 9)")
    ap.add_argument("--sizes", type=float, nargs="+", default=[1e4, 1e5], help="N (default 1e4 1e5)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print(f"{'N':>9} {'K':>3} {'what':>8} {'seconds':>8} {'peak MB':>8}")
    for n in (int(s) for s in args.sizes):
        with tempfile.TemporaryDirectory() as tmp:
            scores, labels, names = write_pool(tmp, n, args.classifiers, rng)
            for what in ("compare", "cli"):
                r = run(what, scores, labels, Path(tmp) / "out.json", names)
                print(f"{n:>9} {args.classifiers:>3} {what:>8} {r['seconds']:8.1f} {r['peak_mb']:8.0f}", flush=True)


if __name__ == "__main__":
    main()
