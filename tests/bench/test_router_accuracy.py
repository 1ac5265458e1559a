"""bench/router_accuracy.py: routing a slice's questions and the files it writes, recomputable
from the routes alone (a scripted router, no model); the tables themselves are tested in
test_ace_report_routes.py."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from ace_lab.data import Question
from ace_lab.llm import LLM
from tests.support.benches import load_bench
from tests.support.paths import REPO
from tests.support.scripted import ScriptedClient

bench = load_bench("router_accuracy")

QUESTIONS = [
    Question("h1", "Which band released X and had drummer Y?", "Rush", (), (), "bridge", "hp"),
    Question("h2", "Who is older, A or B?", "A", (), (), "comparison", "hp"),
    Question("h3", "Where was the director of Z born?", "Oslo", (), (), "bridge", "hp"),
]


def _router(kwargs: dict) -> str:
    query = kwargs["messages"][-1]["content"]
    if "older" in query:
        return '{"topology": "contrast"}'  # spelled another way: read as CONTRAST
    if "director" in query:
        return "not json"  # every attempt fails: the OVERVIEW fallback
    return '{"topology": "CHAIN"}'


@pytest.fixture
def routes(settings) -> pd.DataFrame:
    llm = LLM(settings, client=ScriptedClient(_router))
    rows = bench.route_questions(llm, "hp", "hp-n3-s0", QUESTIONS, "fewshot")
    return pd.DataFrame(rows)


def test_route_questions_keeps_type_proxy_and_the_routers_decision(routes):
    assert list(routes["label"]) == ["CHAIN", "CONTRAST", "OVERVIEW"]
    assert list(routes["proxy"]) == ["CHAIN", "CONTRAST", "CHAIN"]
    assert list(routes["raw_label"].fillna("-")) == ["CHAIN", "contrast", "-"]
    assert list(routes["fallback"]) == [False, False, True]
    assert list(routes["attempts"]) == [1, 1, 3] and set(routes["prompt"]) == {"fewshot"}


def test_written_tables_are_recomputable_from_routes_csv(routes, tmp_path):
    bench.write(routes, tmp_path)
    again = bench.read_routes(tmp_path / "routes.json")
    for name, text in bench.render(again).items():
        assert (tmp_path / name).read_text(encoding="utf-8") == text, name
    md = (tmp_path / "confusion.md").read_text(encoding="utf-8")
    assert "--datasets hp --n 3 --seed 0 --prompts fewshot" in md
    assert json.dumps(list(again["label"])) == '["CHAIN", "CONTRAST", "OVERVIEW"]'


@pytest.mark.parametrize("folder", ["router", "router_qfs"])
def test_the_committed_router_tables_are_what_their_records_make(folder):
    folder = REPO / "results" / folder
    routes = bench.read_routes(folder / "routes.json")
    for name, text in bench.render(routes).items():
        assert (folder / name).read_text(encoding="utf-8") == text, name


def test_a_slice_without_question_types_is_read_by_its_labels(routes):
    untyped = routes.assign(type=None, proxy=None)
    md = bench.render(untyped)["confusion.md"]
    assert md.count(bench.NO_PROXY) == 2  # no accuracy, no paired difference
    assert "| hp | fewshot | 3 | 0 | 1 | 1 | 1 | 1 |" in md  # POINT CONTRAST CHAIN OVERVIEW
