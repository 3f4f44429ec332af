"""Wall time and peak memory of spe at N = 10³ … 10⁷ scored items, next to the floor of reading and sorting.

For every N: a scores file of N items (two Normal classes, prevalence 0.1,
6 significant digits, an ``id`` column) and a labels file of 20 items drawn
at random are written to a temporary directory. Then, each in a fresh
Python process so that its peak memory (``ru_maxrss``) is its own:

* ``floor``: read the scores with pandas and sort them — what any method
  must at least do;
* ``imports``: the modules ``spe estimate`` imports before any work
  (pandas, pyarrow, scipy.stats and scipy.optimize through the registries,
  arviz-stats), the part of the floor of ``estimate`` that no N changes;
* ``evaluate``: ``spe.read_scores`` + ``spe.evaluate`` (default draws, the
  importance-sampling path, default ``workers``: all usable cores), timed
  from before ``import spe``;
* ``estimate``: the whole ``spe estimate SCORES --labels LABELS --json OUT``
  command, in-process through ``spe.cli.main``;
* ``nuts``: ``spe.evaluate(..., inference="nuts")`` for N up to
  ``--nuts-max`` (NUTS's cost grows with the likelihood's bins, not N, but
  every iteration costs a full log-posterior evaluation).

It also prints the effective sample size of each sampler and the seconds
per effective draw, the comparison the paper makes (§3.1: importance
sampling around the MAP was faster than MCMC). The sampler times
(the mixture fit's ``mixture_fit.sampling_seconds``) exclude the one-off imports of PyMC
and ArviZ (NUTS) and of arviz-stats (importance sampling's PSIS); the end-to-end times include them.

Past one machine's memory (``--parquet N``, ``--csv N``, ``--generated N``;
see ``benchmarks/large.py``): N scores from Parquet shards or from one CSV
file with the Dask engine (``spe estimate --engine dask``), and N scores of a
generated Dask array that is never materialised (``spe.evaluate``), each
next to its Dask floor (reading or generating the same scores, their range
and histogram, with Dask alone) and with the peak memory of all its
processes together.

Every child runs with Python's bytecode cache on, after one untimed run
that compiles spe's modules (:func:`warm_up`), as for an installed package.

Run:  python benchmarks/speed.py [--sizes 1e3 1e4 1e5 1e6 1e7] [--nuts-max 1e4] [--parquet 1e8] [--csv 1e8]
      [--generated 1e9]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).parent))
from large import child_env, large_rows  # noqa: E402  (benchmarks/ is not a package)

CHILD = r"""
import json, resource, sys, time, warnings
t0 = time.perf_counter()
what, scores_path, labels_path, out_path = sys.argv[1:5]
result = {}
if what == "floor":
    import numpy as np, pandas as pd
    s = pd.read_csv(scores_path)["score"].to_numpy(float)
    np.sort(s)
elif what == "imports":  # what the estimate imports before any work: its floor at any N
    import pandas, pyarrow.csv, scipy.optimize  # noqa: F401
    from arviz_stats.base import array_stats  # noqa: F401
    from spe.cli.main import build_parser
    import spe.api  # noqa: F401
    build_parser()  # the registries: every family and score model (scipy.stats)
elif what == "estimate":
    import contextlib, io
    from spe.cli import main
    with contextlib.redirect_stdout(io.StringIO()):
        rc = main(["estimate", scores_path, "--labels", labels_path, "--json", out_path, "--seed", "0"])
    assert rc == 0
else:
    import spe
    from spe.io import read_labels, read_scores
    sc = read_scores(scores_path)
    labels = read_labels(labels_path, sc)
    # the samplers' one-off imports, kept out of the sampler comparison: PyMC and ArviZ (~5 s) for NUTS,
    # arviz-stats (~0.3 s) for the importance weights' PSIS
    if what == "nuts":
        import arviz, pymc  # noqa: F401
    else:
        from arviz_stats.base import array_stats  # noqa: F401
    t1 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(sc.scores, labels, rng=0, inference="nuts" if what == "nuts" else "importance")
    result.update(fit_seconds=time.perf_counter() - t1, ess=ev.diagnostics["ess"],
                  sampling_seconds=ev.mixture_model().mixture_fit.sampling_seconds,
                  draws=ev.diagnostics["draws"], score_bins=ev.diagnostics["score_bins"],
                  prevalence=ev.prevalence().mean)
result["seconds"] = time.perf_counter() - t0
result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps(result))
"""


def write_case_in_child(directory, n):
    """:func:`write_case` in a fresh process. Linux keeps a process's peak resident memory (``ru_maxrss``)
    across fork and exec, so a child started after this process had built a 10⁷-row table would report that
    table's memory as its own peak; the case is written elsewhere and this process stays small."""
    code = ("import sys; from pathlib import Path; import numpy as np; sys.path.insert(0, sys.argv[1]); "
            "from speed import write_case; "
            "write_case(Path(sys.argv[2]), int(sys.argv[3]), np.random.default_rng([0, int(sys.argv[3])]))")
    subprocess.run([sys.executable, "-c", code, str(Path(__file__).parent), str(directory), str(n)], check=True)
    return directory / f"scores_{n}.csv", directory / f"labels_{n}.csv"


def write_case(directory, n, rng):
    y = rng.random(n) < 0.1
    s = np.where(y, rng.normal(2.0, 1.0, n), rng.normal(0.0, 1.0, n))
    ids = np.char.add("item", np.arange(n).astype(str))
    scores = directory / f"scores_{n}.csv"
    pd.DataFrame({"id": ids, "score": s}).to_csv(scores, index=False, float_format="%.6g")
    pick = np.sort(rng.choice(n, 20, replace=False))
    labels = directory / f"labels_{n}.csv"
    pd.DataFrame({"id": ids[pick], "label": y[pick].astype(int)}).to_csv(labels, index=False)
    return scores, labels


def warm_up(directory):
    """One untimed ``estimate`` on 1,000 items, so that the timed children find every module compiled."""
    scores, labels = write_case_in_child(directory, 1000)
    run("estimate", scores, labels, directory / "warm.json")


def run(what, scores, labels, out):
    proc = subprocess.run([sys.executable, "-c", CHILD, what, str(scores), str(labels), str(out)],
                          capture_output=True, text=True, env=child_env())
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else f"exit {proc.returncode}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _report(r):
    print(f"N={r['N']:>13,} {r['path']:16s} " + (f"{r['seconds']:7.1f} s  {r['peak_mb']:7.0f} MB"
                                                 if "seconds" in r else r["error"]), file=sys.stderr)


def _large_table(rows):
    """The out-of-core measurements: wall time and peak memory beside the Dask floor, and the ratio."""
    if not rows:
        return
    table = pd.DataFrame(rows)
    print("out of core (each in a fresh process, imports included; peak memory of the process and its children):")
    for source in ("parquet", "csv", "generated"):
        floor, spe_ = table[table.path == f"{source}_floor"], table[table.path == f"{source}_dask"]
        if len(floor) and len(spe_) and "seconds" in spe_.columns:
            f, s = floor.iloc[0], spe_.iloc[0]
            print(f"  {source:9s} N={int(s.N):,}: spe {s.seconds:.1f} s, {s.peak_mb:.0f} MB; Dask floor "
                  f"{f.seconds:.1f} s, {f.peak_mb:.0f} MB; {s.seconds / f.seconds:.1f}x the floor; "
                  f"prevalence {s.prevalence:.4f}; pool {s.pool}")
    print()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", type=float, nargs="*", default=[1e3, 1e4, 1e5, 1e6, 1e7])
    ap.add_argument("--nuts-max", type=float, default=1e4, help="largest N for the NUTS path (default 1e4)")
    ap.add_argument("--parquet", type=float, default=0, help="N from Parquet shards with the Dask engine (0: none)")
    ap.add_argument("--generated", type=float, default=0, help="N of a generated Dask array (0: none)")
    ap.add_argument("--csv", type=float, default=0, help="N from one CSV file with the Dask engine (0: none)")
    args = ap.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        warm_up(tmp)
        large = large_rows(tmp, int(args.parquet), int(args.generated), _report, int(args.csv))
        for n in map(int, args.sizes):
            scores, labels = write_case_in_child(tmp, n)
            for what in ("floor", "imports", "evaluate", "estimate") + (("nuts",) if n <= args.nuts_max else ()):
                r = run(what, scores, labels, tmp / "out.json")
                rows.append({"N": n, "path": what, **r})
                _report(rows[-1])
            (tmp / f"scores_{n}.csv").unlink()
    _large_table(large)
    if not rows:
        return
    table = pd.DataFrame(rows)
    wide = table.pivot(index="N", columns="path", values="seconds").round(1)
    mem = table.pivot(index="N", columns="path", values="peak_mb").round(0)
    print("wall time, seconds (each path in a fresh process, imports included):")
    print(wide.to_string())
    print("\npeak memory, MB (ru_maxrss of the process; the screening's forked workers share its pages):")
    print(mem.to_string())
    ess = table[table.path.isin(["evaluate", "nuts"]) & table.get("ess", pd.Series(dtype=float)).notna()]
    if len(ess):
        ess = ess.assign(seconds_per_effective_draw=ess.sampling_seconds / ess.ess)
        print("\nsampler efficiency (seconds spent sampling the SPE mixture's posterior / its ESS; the rest of "
              "spe.evaluate is the same for both):")
        print(ess[["N", "path", "fit_seconds", "sampling_seconds", "ess", "seconds_per_effective_draw",
                   "score_bins"]]
              .round(4).to_string(index=False))
        both = ess.pivot(index="N", columns="path", values="seconds_per_effective_draw")
        both = both.dropna() if "nuts" in both.columns else both.iloc[:0]
        for n, r in both.iterrows():
            print(f"N={n:,}: importance sampling is {r['nuts'] / r['evaluate']:.0f}× faster than NUTS per effective "
                  "draw")


if __name__ == "__main__":
    main()
