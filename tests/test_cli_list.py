"""`spe list`, and the command registry: a command is one module that registers itself."""

import json

from spe.cli import main
from spe.cli.listing import lists
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
