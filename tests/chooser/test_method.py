"""``auto`` resolves through the registry, picks per question and runs through the harness."""

from __future__ import annotations

import pandas as pd
import pytest

from ace_lab.chooser import fit
from ace_lab.chooser.method import AutoMethod
from ace_lab.chooser.specs import MODEL_FILE, load_model, model_path
from ace_lab.chooser.steps import ChosenMethod, MethodChoice
from ace_lab.eval.studies.record import step_payloads
from ace_lab.eval.studies.runner import run
from ace_lab.llm import LLM
from ace_lab.registry import METHODS, make_method, spec
from ace_lab.steps import from_record, to_record
from tests.support.replies import ace_reply
from tests.support.scripted import ScriptedClient


def _model_frame() -> pd.DataFrame:
    """hirag wins comparisons, naive wins everything else; naive is cheaper."""
    rows = []
    for i, form in enumerate(["comparison"] * 3 + ["what_where"] * 3):
        hirag_wins = form == "comparison"
        rows.append((f"q{i}", form, "hirag", float(hirag_wins), 2000.0))
        rows.append((f"q{i}", form, "naive", float(not hirag_wins), 1500.0))
    return pd.DataFrame(rows, columns=["id", "bucket", "method", "accuracy", "tokens"])


@pytest.fixture
def model_settings(settings):
    path = settings.results_dir / MODEL_FILE
    path.parent.mkdir(parents=True)
    path.write_text(fit(_model_frame(), shrinkage=0.0, slices=("toy",)).to_json())
    return settings


def test_auto_names_resolve_without_joining_every_registered_method():
    assert spec("auto").family == "hierarchical"
    assert spec("auto:20").name == "auto:20"
    assert "auto" not in METHODS
    with pytest.raises(KeyError, match="auto:<λ"):
        spec("auto@openie")
    with pytest.raises(KeyError, match="per million"):
        spec("auto:fast")


def test_the_committed_model_loads_with_runnable_candidates():
    model = load_model(spec, model_path())
    assert model.methods and all(spec(m).family == "hierarchical" for m in model.methods)
    assert model.command


def test_auto_answers_with_the_chosen_method_and_says_why(model_settings, toy_graph):
    llm = LLM(model_settings, client=ScriptedClient(ace_reply))
    method = make_method("auto", toy_graph, llm)
    assert isinstance(method, AutoMethod)
    answer = method.answer("Who was born first, Tobias Quell or Corvin Abernast?")
    choice = answer.trace.steps[0].payload
    assert isinstance(choice, MethodChoice)
    assert choice.chosen == "hirag" and choice.bucket == "comparison"
    assert choice.features["form"] == "comparison"
    assert set(choice.scores) == {"hirag", "naive"}
    assert [s.name for s in answer.trace.steps] == ["choose", "retrieve:base", "generate"]
    assert answer.method == "auto"
    assert isinstance(answer.details, ChosenMethod)
    assert answer.details.columns()["chosen_method"] == "hirag"
    assert from_record(to_record(choice)) == choice
    other = method.answer("In which city is the museum that displays the tidal lantern?")
    assert other.details.chosen == "naive"


def test_auto_at_infinite_lambda_runs_the_cheapest(model_settings, toy_graph):
    llm = LLM(model_settings, client=ScriptedClient(ace_reply))
    method = make_method("auto:inf", toy_graph, llm)
    answer = method.answer("Who was born first, Tobias Quell or Corvin Abernast?")
    assert answer.details.chosen == "naive"
    assert answer.trace.steps[0].payload.lam == "inf"


def test_auto_runs_through_the_harness(model_settings, toy_graph):
    llm = LLM(model_settings, client=ScriptedClient(ace_reply))
    kwargs = {"settings": model_settings, "llm": llm, "graph": toy_graph, "progress": False}
    frame = run("auto", "toy", 8, limit=3, **kwargs)
    assert len(frame) == 3 and set(frame["method"]) == {"auto"}
    assert set(frame["chosen_method"]) <= {"hirag", "naive"}
    for rec in frame.to_dict("records"):
        choice = step_payloads(rec)[0]
        assert isinstance(choice, MethodChoice) and choice.chosen == rec["chosen_method"]
