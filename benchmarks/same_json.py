"""Same seed, same JSON: snapshot ``spe.evaluate(...).to_dict()`` on every shared case, and compare snapshots.

A refactor must not change any number. This script runs the estimate a
user would on every case in ``../shared/cases/`` (or --cases-dir): n random
labels (default 20, drawn with a seed fixed per case), the default score
model, a fixed ``rng``; and writes each result's JSON (the CLI/JSON contract
of ``../shared/DESIGN.md``, ``Evaluation.to_dict``), with the printed
summary, the best threshold for precision ≥ 0.9 and recall ≥ 0.5, and the
labeled-only baseline's JSON and threshold, to ``OUT/<case>.json``.
Run it on the code before and after the change, then compare:

    git worktree add --detach /tmp/old <commit before the change>
    PYTHONPATH=/tmp/old python benchmarks/same_json.py --out /tmp/before
    PYTHONPATH=. python benchmarks/same_json.py --out /tmp/after
    python benchmarks/same_json.py --compare /tmp/before /tmp/after

(``PYTHONPATH`` says which ``spe`` is measured: a script in ``benchmarks/``
otherwise imports whichever ``spe`` is installed.)

The comparison is exact (every key, every number equal, NaN to NaN) and prints the
first differing path of each case that differs; exit 1 if any does. A key
renamed on purpose is compared under its new name with ``--rename OLD=NEW``;
a key added on purpose is left out of the comparison with ``--ignore KEY``
(wherever it occurs), a summary line added on purpose with ``--ignore-line
TEXT``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from cases import DEFAULT_CASES, case_paths, random_labels, read_case, trial_rng


def snapshot(case_path, out_dir, n_labels, seed):
    """Write the JSON of one case's estimate to ``out_dir/<case>.json``; return the case's name."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)  # the jobs already use the cores
    import spe
    from spe.output import jsonable

    s, y, name = read_case(case_path)
    idx = random_labels(trial_rng(seed, n_labels, name), s.size, n_labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = spe.evaluate(s, (idx, y[idx]), rng=seed, workers=1)
        # spe.labeled_only since the layout of issue 22; spe.baselines before
        labeled_only = getattr(spe, "labeled_only", None) or importlib.import_module("spe.baselines").labeled_only
        base = labeled_only(s, idx, y[idx], rng=seed)
        result = ev.to_dict()
        result["_summary"] = ev.summary().splitlines()  # the printed report and the labeled-only baseline count too
        result["_best_threshold"] = ev.best_threshold(0.9, 0.5).to_dict()
        result["_labeled_only"] = base.to_dict()
        result["_labeled_only_best_threshold"] = base.best_threshold(0.9, 0.5).to_dict()
    (Path(out_dir) / f"{name}.json").write_text(json.dumps(jsonable(result), sort_keys=True))
    return name


def first_difference(a, b, path="$"):
    """The JSON path of the first place where ``a`` and ``b`` differ, or None."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} vs {type(b).__name__}"
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'after' if key not in a else 'before'}"
            found = first_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} vs {len(b)} items"
        for k, (u, v) in enumerate(zip(a, b)):
            found = first_difference(u, v, f"{path}[{k}]")
            if found:
                return found
        return None
    return None if a == b or (a != a and b != b) else f"{path}: {a!r} vs {b!r}"


def renamed(obj, names):
    """``obj`` (parsed JSON) with every dict key in ``names`` (old → new) renamed."""
    if isinstance(obj, dict):
        return {names.get(k, k): renamed(v, names) for k, v in obj.items()}
    if isinstance(obj, list):
        return [renamed(v, names) for v in obj]
    return obj


def without(obj, keys, lines):
    """``obj`` (parsed JSON) without the dict keys ``keys`` and without the strings of a list containing any of
    ``lines`` (summary lines)."""
    if isinstance(obj, dict):
        return {k: without(v, keys, lines) for k, v in obj.items() if k not in keys}
    if isinstance(obj, list):
        return [without(v, keys, lines) for v in obj
                if not (isinstance(v, str) and any(text in v for text in lines))]
    return obj


def compare(before, after, renames=None, ignore=(), ignore_lines=()):
    """Print each case whose JSON differs (and where), keys of ``before`` renamed by ``renames`` (old → new),
    keys ``ignore`` and summary lines containing any of ``ignore_lines`` left out; return the number that
    differ."""
    names = sorted({p.name for p in Path(before).glob("*.json")} | {p.name for p in Path(after).glob("*.json")})
    differ = 0
    for name in names:
        a, b = Path(before) / name, Path(after) / name
        if not (a.exists() and b.exists()):
            print(f"{name}: only in {'after' if not a.exists() else 'before'}")
            differ += 1
            continue
        old = without(renamed(json.loads(a.read_text()), renames or {}), set(ignore), tuple(ignore_lines))
        found = first_difference(old, without(json.loads(b.read_text()), set(ignore), tuple(ignore_lines)))
        if found:
            print(f"{name}: {found}")
            differ += 1
    print(f"{len(names) - differ} of {len(names)} cases identical")
    return differ


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases-dir", type=Path, default=DEFAULT_CASES)
    ap.add_argument("--cases", nargs="*", help="case names (default: all)")
    ap.add_argument("--labels", type=int, default=20)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--out", type=Path, help="directory for the snapshot")
    ap.add_argument("--compare", type=Path, nargs=2, metavar=("BEFORE", "AFTER"))
    ap.add_argument("--rename", nargs="*", default=[], metavar="OLD=NEW",
                    help="with --compare: keys renamed on purpose, compared under the new name")
    ap.add_argument("--ignore", nargs="*", default=[], metavar="KEY",
                    help="with --compare: keys added on purpose, left out wherever they occur")
    ap.add_argument("--ignore-line", nargs="*", default=[], metavar="TEXT",
                    help="with --compare: summary lines containing TEXT (added on purpose), left out")
    args = ap.parse_args(argv)
    if args.compare:
        renames = dict(pair.split("=", 1) for pair in args.rename)
        sys.exit(1 if compare(*args.compare, renames, args.ignore, args.ignore_line) else 0)
    if args.out is None:
        ap.error("give --out DIR (a snapshot) or --compare BEFORE AFTER")
    paths = case_paths(args.cases_dir, args.cases)
    args.out.mkdir(parents=True, exist_ok=True)
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(snapshot, str(p), str(args.out), args.labels, args.seed) for p in paths]
        for f in futures:
            print(f"  {f.result()}", file=sys.stderr)


if __name__ == "__main__":
    main()
