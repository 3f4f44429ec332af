"""What would it take for ``spe estimate`` on 10⁶ items from CSV to finish in 3 s? An oracle on the fixed cost.

Issue 27 asks for 10⁶ items end to end (CSV, imports included) in ≤ 3 s,
or ≤ 5× the floor (reading and sorting the same scores), on this 2-core
machine, with the accuracy benchmark unchanged. ``benchmarks/speed.py``
shows that the time is not in the work that grows with N. This script
measures what it is in, by taking pieces of the method away, in fresh
processes, each run ``--repeats`` times (median reported):

* ``floor``: pandas reads the scores and numpy sorts them;
* ``imports + reading``: every module the estimate imports (the registries
  through the parser, ``spe.api``, arviz-stats for PSIS) and the scores and
  labels read by ``spe.io``: the part of the default run no model change
  can remove;
* ``default``: ``spe estimate SCORES --labels LABELS --json OUT --seed 0``;
* then the same with, cumulatively: the family pair given (no screening),
  1,000 score bins (the default, ``spe.api.AUTO_SCORE_BINS``, is 2,000 since
  this script's first run, 10,000 before),
  the SPE mixture alone (no other score model, no averaging), 200 posterior
  draws instead of 1,000.

Wall time is measured from the process's start to its exit (the
interpreter's start included, as a user waits for it). Beside it, the CPU
time (user + system) of the process and of the workers it forked: on 2
cores no scheduling of the same work can take less wall time than half of
it.

The case is ``benchmarks/speed.py``'s (two Normal classes, prevalence 0.1,
6 significant digits, an ``id`` column, 20 labels at random).

Run:  python benchmarks/speed_oracle.py [--n 1e6] [--repeats 3]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from large import child_env  # noqa: E402  (benchmarks/ is not a package)
from speed import warm_up, write_case_in_child  # noqa: E402

CHILD = r"""
import sys
what, scores, labels, out = sys.argv[1:5]
options = sys.argv[5:]
if what == "floor":
    import numpy as np, pandas as pd
    np.sort(pd.read_csv(scores)["score"].to_numpy(float))
elif what == "imports":
    from spe.cli.main import build_parser
    build_parser()
    import spe.api  # noqa: F401
    from arviz_stats.base import array_stats  # noqa: F401
    from spe.io import read_labels, read_scores
    read_labels(labels, read_scores(scores))
else:
    import contextlib, io
    from spe.cli import main
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        rc = main(["estimate", scores, "--labels", labels, "--json", out, "--seed", "0", *options])
    assert rc == 0
"""

#: (row label, what, options): each row keeps the previous row's cuts.
ROWS = [
    ("floor: read (pandas) and sort", "floor", []),
    ("imports + reading, no model", "imports", []),
    ("default", "estimate", []),
    ("  families given (no screening)", "estimate", ["--families", "truncnorm,truncnorm"]),
    ("  + 1,000 score bins", "estimate", ["--families", "truncnorm,truncnorm", "--score-bins", "1000"]),
    ("  + the mixture alone (no averaging)", "estimate",
     ["--families", "truncnorm,truncnorm", "--score-bins", "1000", "--score-model", "mixture"]),
    ("  + 200 draws (default 1,000)", "estimate",
     ["--families", "truncnorm,truncnorm", "--score-bins", "1000", "--score-model", "mixture", "--draws", "200"]),
]


def run(what, scores, labels, out, options):
    """One fresh process: its wall time from start to exit (the interpreter's start included) and the CPU time
    of it and of the workers it waited for (user + system), in seconds."""
    before = _cpu_of_children()
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", CHILD, what, str(scores), str(labels), str(out), *options],
                          capture_output=True, text=True, env=child_env())
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr else f"exit {proc.returncode}")
    return {"wall": wall, "cpu": _cpu_of_children() - before}


def _cpu_of_children():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def median_run(repeats, *args):
    runs = sorted((run(*args) for _ in range(repeats)), key=lambda r: r["wall"])
    return runs[len(runs) // 2]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e6, help="items (default 10⁶)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per row; the median is reported (default 3)")
    args = ap.parse_args(argv)
    n = int(args.n)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        warm_up(tmp)
        scores, labels = write_case_in_child(tmp, n)
        from spe.api import AUTO_SCORE_BIN_ABOVE, AUTO_SCORE_BINS

        print(f"N = {n:,} items from CSV, 20 labels; median of {args.repeats} runs, each in a fresh process; "
              f"default score bins: {AUTO_SCORE_BINS:,} above {AUTO_SCORE_BIN_ABOVE:,} distinct scores")
        print(f"{'':40s} {'wall s':>7s} {'CPU s':>7s} {'CPU/2':>7s}")
        for label, what, options in ROWS:
            r = median_run(args.repeats, what, scores, labels, tmp / "out.json", options)
            print(f"{label:40s} {r['wall']:7.2f} {r['cpu']:7.2f} {r['cpu'] / 2:7.2f}", flush=True)


if __name__ == "__main__":
    main()
