"""`spe list`, and the command registry: a command is one module that registers itself."""

import json

from spe.cli import main
from spe.cli.listing import lists, package_fingerprint
from spe.cli.registry import COMMANDS, Command
from spe.families import family_names
from spe.metrics import REGISTRY as METRICS
from spe.models.registry import score_model_names


def test_list_names_every_family_score_model_metric_and_command(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    for name in [*family_names(), *score_model_names(), *METRICS, *COMMANDS]:
        assert f"  {name} " in out


def test_list_json_is_the_registries(tmp_path, capsys):
    path = tmp_path / "list.json"
    assert main(["list", "score-models", "--json", str(path)]) == 0
    listed = json.loads(path.read_text())
    assert listed == lists(("score-models",))
    assert [e["name"] for e in listed["score-models"]] == list(score_model_names())
    assert f"wrote {path}" in capsys.readouterr().out


def test_list_names_the_multiclass_score_models_that_score_model_takes(capsys):
    from spe.multiclass.models import CLASS_MODELS

    assert main(["list", "class-score-models"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("class-score-models:") and all(f"  {name} " in out for name in CLASS_MODELS)


def test_list_bad_kind_exits_2(capsys):
    assert main(["list", "nothing"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_a_registered_command_is_parsed_dispatched_and_in_the_help(monkeypatch, capsys):
    seen = {}

    def add_arguments(p):
        p.add_argument("--times", type=int, default=1)

    def run(args):
        seen["times"] = args.times
        return 0

    monkeypatch.setitem(COMMANDS, "hello", Command("hello", "say hello", "Says hello.", add_arguments, run,
                                                   number_options=("--times",)))
    assert main(["hello", "--times", "-3"]) == 0
    assert seen == {"times": -3}
    assert main(["--help"]) == 0
    assert "say hello" in capsys.readouterr().out


def _list_in_a_fresh_process(cache_dir, *args):
    """``spe list ARGS`` in a new Python process with its cache in ``cache_dir``: (its output, whether it imported
    scipy)."""
    import os
    import subprocess
    import sys

    code = ("import sys\nfrom spe.cli import main\nrc = main(['list', *sys.argv[1:]])\n"
            "print('scipy imported:', 'scipy' in sys.modules, rc)")
    env = dict(os.environ, SPE_CACHE_DIR=str(cache_dir))
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True,
                         env=env).stdout
    body, _, last = out.rstrip("\n").rpartition("\n")
    return body, last


def test_a_second_list_reads_the_cache_without_the_scientific_stack(tmp_path, capsys):
    """The first ``spe list`` of an installed version imports the registries and keeps their lists; the next
    ones print the same without importing scipy (the 2 s that ``spe list`` took)."""
    first, first_status = _list_in_a_fresh_process(tmp_path)
    assert first_status == "scipy imported: True 0"
    assert [p.name for p in tmp_path.iterdir()] == [f"list-{package_fingerprint()}.json"]
    second, second_status = _list_in_a_fresh_process(tmp_path)
    assert second_status == "scipy imported: False 0"
    assert second == first
    assert main(["list"]) == 0  # in this process, with the registries imported: read live, the same
    assert capsys.readouterr().out.rstrip("\n") == first
    metrics, _ = _list_in_a_fresh_process(tmp_path, "metrics")
    assert metrics.splitlines()[0] == "metrics of the whole ranking:" and metrics in first


def test_an_unusable_cache_is_ignored(tmp_path):
    """A cache directory that cannot be created (here, a file is in its place) or a cache file that is not JSON:
    ``spe list`` lists from the registries and exits 0."""
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    out, status = _list_in_a_fresh_process(blocked / "spe")
    assert status == "scipy imported: True 0" and "truncnorm" in out
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / f"list-{package_fingerprint()}.json").write_text("{not json")
    again, status = _list_in_a_fresh_process(cache)
    assert status == "scipy imported: True 0" and again == out
    assert json.loads((cache / f"list-{package_fingerprint()}.json").read_text())["families"]


def test_the_fingerprint_follows_the_source_files(tmp_path):
    """The cache is named by a digest of the package's source files: it changes when a file is added or
    rewritten (a new family registers itself in a new file), so a stale list is never read."""
    import os

    (tmp_path / "a.py").write_text("x = 1\n")
    before = package_fingerprint(tmp_path)
    assert package_fingerprint(tmp_path) == before
    (tmp_path / "b.py").write_text("y = 2\n")
    added = package_fingerprint(tmp_path)
    assert added != before
    (tmp_path / "a.py").write_text("x = 10\n")
    os.utime(tmp_path / "a.py", ns=(1, 1))
    assert package_fingerprint(tmp_path) not in (before, added)
