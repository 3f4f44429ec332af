"""The shared benchmark cases (``../shared/cases/``): where they are, which to run, and each trial's labels.

Every benchmark script reads the cases and draws a trial's random labels here, so that the same seed, number
of labels and case give the same labeled items in every script (and the same JSON in ``same_json.py``).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

#: The real classifiers' scores with every label (see its README).
DEFAULT_CASES = Path(__file__).resolve().parent.parent.parent / "shared" / "cases"


def case_paths(cases_dir, names=None):
    """The cases' CSV files in ``cases_dir``, sorted by name; only those named in ``names`` when given."""
    paths = sorted(Path(cases_dir).glob("*.csv"))
    return [p for p in paths if p.stem in set(names)] if names else paths


def selected_cases(cases_dir, names=None):
    """:func:`case_paths`, or ``SystemExit`` naming the directory (and the names asked for) when none is there."""
    paths = case_paths(cases_dir, names)
    if not paths:
        raise SystemExit(f"no cases in {cases_dir}" + (f" named {names}" if names else ""))
    return paths


def run_tasks(worker, tasks, jobs, what="tasks"):
    """``worker(task)`` for every task in ``jobs`` processes, results in the tasks' order; progress on standard
    error every tenth. Returns (results, seconds)."""
    t0, results = time.perf_counter(), []
    with ProcessPoolExecutor(jobs) as pool:
        for i, result in enumerate(pool.map(worker, tasks), 1):
            results.append(result)
            if i % max(1, len(tasks) // 10) == 0:
                print(f"  {i}/{len(tasks)} {what}, {time.perf_counter() - t0:.0f}s", file=sys.stderr, flush=True)
    return results, time.perf_counter() - t0


def add_run_arguments(ap, seeds, out, start, draws):
    """The options every case loop shares: --cases-dir, --cases, --seeds (default ``seeds``), --seed-start, --jobs,
    --out (default ``out``), --from-csv (earlier runs' CSVs, read together: e.g. subsets of the cases run apart),
    --start (random labels to start from, default ``start``) and --draws (per fit, default ``draws``)."""
    ap.add_argument("--cases-dir", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--cases", nargs="*", help="case names (default: all)")
    ap.add_argument("--seeds", type=int, default=seeds)
    ap.add_argument("--seed-start", type=int, default=0, help="first seed (default 0): more seeds of an earlier run")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path(out))
    ap.add_argument("--from-csv", type=Path, nargs="+",
                    help="print the tables of earlier runs' CSVs instead of running (several: their rows together; "
                         "a later CSV's rows replace an earlier one's of the same case, seed and run: a re-run)")
    ap.add_argument("--start", type=int, default=start, help=f"random labels to start from (default {start})")
    ap.add_argument("--draws", type=int, default=draws, help=f"posterior draws per fit (default {draws})")


def rows_of_run(args, worker, tasks_of, what):
    """The rows of a run: read from --from-csv, or ``worker`` over ``tasks_of(case paths)`` in --jobs processes
    (each returns a row or a list of rows), written to --out and headed by the command line and its seconds."""
    if args.from_csv:
        return read_runs(args.from_csv)
    results, seconds = run_tasks(worker, tasks_of(selected_cases(args.cases_dir, args.cases)), args.jobs, what)
    df = pd.DataFrame([row for r in results for row in (r if isinstance(r, list) else [r])])
    df.to_csv(args.out, index=False)
    print(f"# {' '.join(sys.argv)}; {seconds:.0f}s on {os.cpu_count()} cores")
    return df


def seeds_of(args):
    """The seeds of a run: --seeds of them from --seed-start."""
    return range(args.seed_start, args.seed_start + args.seeds)


def read_runs(paths):
    """Several runs' CSVs together; where a later one has rows of a case, seed and run (those of the three
    columns it has), they replace the earlier ones' (a re-run of part of a benchmark)."""
    frames = [pd.read_csv(p) for p in paths]
    for i, later in enumerate(frames[1:], 1):
        keys = [c for c in ("case", "seed", "run") if c in later]
        again = pd.MultiIndex.from_frame(later[keys].drop_duplicates())
        frames[:i] = [f[~pd.MultiIndex.from_frame(f[keys]).isin(again)] if set(keys) <= set(f) else f
                      for f in frames[:i]]
    return pd.concat(frames, ignore_index=True)


def read_case(path):
    """A case's scores (N,) in score units, its labels (N,) 0/1 and its name (the file's stem)."""
    df = pd.read_csv(path)
    return df["score"].to_numpy(float), df["label"].to_numpy(int), Path(path).stem


def trial_rng(seed, n_labels, name):
    """The random stream of one trial: the seed, the number of labels and the case's name fix it."""
    return np.random.default_rng([seed, n_labels, sum(map(ord, name))])


def random_labels(rng, n_items, n_labels):
    """``n_labels`` distinct items of ``n_items`` drawn at random, sorted (int array)."""
    return np.sort(rng.choice(n_items, n_labels, replace=False))


#: A case is a deep network's when its manifest description says so (its scores are softmax probabilities of a
#: fine-tuned network: piled near 0 and 1, many distinct values); the summary reports those apart.
DEEP_NETWORK = re.compile(r"fine-tuned|bert|transformer|resnet|cnn|deep", re.IGNORECASE)


def case_group(case_path):
    """"deep network" or "classical", from the case's entry in the manifest beside it (classical if none)."""
    manifest = Path(case_path).with_name("manifest.json")
    try:
        entry = json.loads(manifest.read_text())["cases"][Path(case_path).stem]
    except (OSError, KeyError, ValueError):
        return "classical"
    return "deep network" if DEEP_NETWORK.search(str(entry.get("classifier_desc", ""))) else "classical"
