"""How long ``spe monitor`` takes end to end, and its peak memory, from the shell.

Two runs of ``spe monitor`` in a fresh process (imports, reading, writing the JSON included):

* ``census``: NannyML's employment data (benchmarks/data/census_*.parquet, written by benchmarks/monitor.py):
  the 208,892 analysis rows in 21 chunks of 10,000 against the 68,785-row reference (as CSV files: score, and
  score,label);
* ``scale``: ``--items`` generated scores (two Beta classes, prevalence 0.3; Parquet, in ``--shards`` shards)
  in ``--chunks`` chunks against a generated reference of 68,785 labeled items, with ``--engine`` (memory:
  every score read into the process; dask: counted chunk by chunk by Dask tasks, shard by shard).

Memory: every ``--every`` seconds the proportional set size (PSS: shared pages split among the processes that
share them, so the forked workers' copy-on-write pages are counted once) of the command and all its children,
summed (psutil); the peak of those sums, and the peak of the summed resident sizes (RSS, an upper bound).

Run:  python benchmarks/monitor_scale.py [--items 10000000] [--chunks 100] [--shards 1] [--engine memory]
      [--runs census scale] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

DATA = Path(__file__).resolve().parent / "data"
REFERENCE_ITEMS = 68785


def tree_memory(pid):
    """(PSS, RSS) in bytes, summed over the process ``pid`` and its children (0, 0 once it has ended)."""
    import psutil

    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0, 0
    pss = rss = 0
    for p in procs:
        try:
            info = p.memory_full_info()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        pss, rss = pss + info.pss, rss + info.rss
    return pss, rss


def timed(command, every):
    """Run ``command``: (seconds, peak PSS MB, peak RSS MB); raises when it fails."""
    peak = [0, 0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def sample():
        while proc.poll() is None:
            pss, rss = tree_memory(proc.pid)
            peak[0], peak[1] = max(peak[0], pss), max(peak[1], rss)
            time.sleep(every)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, err = proc.communicate()
    seconds = time.perf_counter() - t0
    sampler.join()
    if proc.returncode:
        raise SystemExit(f"{' '.join(command)} failed ({proc.returncode}):\n{err.decode()[-2000:]}")
    return seconds, peak[0] / 2 ** 20, peak[1] / 2 ** 20


def census_files(workdir):
    """The census reference and analysis as CSV files (score,label and score): two paths."""
    ref, ana = pd.read_parquet(DATA / "census_reference.parquet"), pd.read_parquet(DATA / "census_analysis.parquet")
    ref_path, ana_path = workdir / "census_reference.csv", workdir / "census_analysis.csv"
    pd.DataFrame({"score": ref.predicted_probability, "label": ref.employed.astype(int)}).to_csv(ref_path,
                                                                                                   index=False)
    pd.DataFrame({"score": ana.predicted_probability}).to_csv(ana_path, index=False)
    return ref_path, ana_path


def generated_files(workdir, n_items, shards=1, seed=0):
    """Generated scores (Parquet: one file, or a directory of ``shards`` shards; ``n_items``) and a labeled
    reference (CSV): two paths."""
    rng = np.random.default_rng(seed)

    def draw(n):
        y = rng.random(n) < 0.3
        return np.where(y, rng.beta(5, 2, n), rng.beta(2, 5, n)).round(6), y.astype(int)

    ref_path = workdir / "reference.csv"
    if shards == 1:
        scores_path = workdir / "scores.parquet"
        pd.DataFrame({"score": draw(n_items)[0]}).to_parquet(scores_path)
    else:
        scores_path = workdir / "shards"
        scores_path.mkdir(exist_ok=True)
        for k, part in enumerate(np.array_split(np.arange(n_items), shards)):
            pd.DataFrame({"score": draw(part.size)[0]}).to_parquet(scores_path / f"part-{k:05d}.parquet")
    rs, ry = draw(REFERENCE_ITEMS)
    pd.DataFrame({"score": rs, "label": ry}).to_csv(ref_path, index=False)
    return ref_path, scores_path


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--items", type=int, default=10_000_000)
    ap.add_argument("--chunks", type=int, default=100)
    ap.add_argument("--shards", type=int, default=1, help="Parquet shards of the generated scores")
    ap.add_argument("--engine", default="memory", choices=["memory", "dask"], help="spe monitor's --engine (scale)")
    ap.add_argument("--runs", nargs="*", default=["census", "scale"], choices=["census", "scale"])
    ap.add_argument("--every", type=float, default=0.5, help="seconds between memory samples")
    ap.add_argument("--workdir", type=Path)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.workdir or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        spe = [sys.executable, "-m", "spe", "monitor", "-q"]
        for run in args.runs:
            if run == "census":
                ref, scores = census_files(work)
                command = [*spe, str(scores), "--reference", str(ref), "--chunk-size", "10000"]
                what = "census: 208,892 items in 21 chunks of 10,000, reference 68,785"
            else:
                ref, scores = generated_files(work, args.items, args.shards)
                command = [*spe, str(scores), "--reference", str(ref), "--chunk-number", str(args.chunks),
                           "--engine", args.engine]
                what = (f"generated: {args.items:,} items ({args.shards} shards) in {args.chunks} chunks, reference "
                        f"{REFERENCE_ITEMS:,}, --engine {args.engine}")
            seconds, pss, rss = timed([*command, "--json", str(work / f"{run}.json"), "--seed", "0"], args.every)
            print(f"{what}: {seconds:.1f} s, peak memory {pss:,.0f} MB (PSS, all processes; RSS summed "
                  f"{rss:,.0f} MB)", flush=True)


if __name__ == "__main__":
    main()
