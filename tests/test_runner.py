"""Evaluation runner (records, manifest, resume, failures, order) on the toy graph with a
scripted LLM, and the result tables on a synthetic results frame with known answers."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pandas as pd
import pytest

from ace_lab.data import load_dataset, make_slice
from ace_lab.eval import tables
from ace_lab.eval.runner import (
    ResultsError,
    _read_jsonl,
    load_results,
    results_path,
    run,
    safe_name,
    study_dir,
)
from ace_lab.llm import LLM
from tests.conftest import ScriptedClient, ace_reply

RECORD_KEYS = {
    "position", "id", "question", "type", "gold", "answer", "raw", "em", "f1", "yes_no",
    "context_tokens", "context_ids", "context_has_answer", "base_has_answer", "support_recall",
    "method", "policy", "topology", "plan", "retrieval_calls", "llm_calls", "model_calls",
    "cache_hits", "input_tokens", "output_tokens", "server_cached_tokens", "wall_s", "cold_wall_s",
    "llm_s", "steps",
}  # fmt: skip


# ------------------------------------------------------------------------------- fixtures
@pytest.fixture(scope="module")
def toy_questions() -> list:
    return make_slice(load_dataset("toy"), 8).questions


class Failing:
    """The scripted model, raising (not a transient error) while ``fail_on`` is in the prompt."""

    def __init__(self, fail_on: str | None) -> None:
        self.fail_on = fail_on

    def __call__(self, kwargs: dict) -> str | BaseException:
        user = kwargs["messages"][-1]["content"]
        if self.fail_on and self.fail_on in user:
            return RuntimeError("model fell over")
        return ace_reply(kwargs)


# ------------------------------------------------------------------------------------ run
def test_run_records_manifest_and_resume(settings, toy_graph, toy_questions):
    client = ScriptedClient(ace_reply)
    llm = LLM(settings, client=client)
    kwargs = {"settings": settings, "llm": llm, "graph": toy_graph, "progress": False}
    hirag = run("hirag", "toy", 8, limit=5, **kwargs)
    ace = run("ace-full", "toy", 8, limit=5, **kwargs)

    study = "toy-n8-s0"
    assert results_path(study, "hirag", settings).is_file()
    assert list(hirag["id"]) == [q.id for q in toy_questions[:5]]
    assert list(hirag["position"]) == list(range(5))
    for frame, calls, retrievals in ((hirag, 1, 1), (ace, 2, 3)):
        assert set(frame.columns) == RECORD_KEYS
        assert (frame["llm_calls"] == calls).all() and (
            frame["retrieval_calls"] == retrievals
        ).all()
        assert (frame["input_tokens"] == 11 * calls).all()  # ScriptedClient: 11 prompt tokens
        assert (frame["model_calls"] == calls).all() and (frame["cache_hits"] == 0).all()
        assert (frame["answer"] == "Brinemouth").all()
        assert frame["context_ids"].map(len).min() > 0
    first = ace.iloc[0]
    assert first["gold"] == list(toy_questions[0].answers)
    hits = ace[ace["gold"].map(lambda g: g == ["Brinemouth"])]
    assert (hits["em"] == 1.0).all() and (hits["f1"] == 1.0).all()
    assert (ace.loc[ace.index.difference(hits.index), "em"] == 0.0).all()
    assert first["context_has_answer"] in (True, False) and first["base_has_answer"] in (
        True,
        False,
    )
    assert first["policy"]["label"] == "gap+depth+breadth+prune" and first["topology"] is None
    assert first["plan"]["queries"]["depth"] == "tidal lantern museum"
    assert [s["name"] for s in first["steps"]][-1] == "generate"
    assert {"name", "elapsed", "llm_calls"} <= set(first["steps"][0])
    assert 0 <= first["support_recall"] <= 1
    assert hirag["base_has_answer"].isna().all() and hirag["policy"].isna().all()
    assert (hirag["em"] == [float(q.answer == "Brinemouth") for q in toy_questions[:5]]).all()

    manifest = json.loads((study_dir(study, settings) / "manifest.json").read_text())
    assert (manifest["dataset"], manifest["n"], manifest["seed"]) == ("toy", 8, 0)
    assert manifest["slice_id"] == study and manifest["task"] == "qa"
    assert manifest["model"] == llm.model and manifest["model_identity"] == llm.model_identity
    assert manifest["llm"]["tier"] == "smollm135m" and "ctx_size" in manifest["llm"]
    assert manifest["graph_model"] == "qwen1.5b" and "git_commit" in manifest
    assert manifest["methods"]["hirag"]["records"] == 5
    assert manifest["methods"]["ace-full"]["records"] == 5
    assert manifest["methods"]["ace-full"]["finished"]

    # Resume: nothing to do makes no request; extending the limit answers only new questions.
    before = len(client.requests)
    again = run("hirag", "toy", 8, limit=5, **kwargs)
    assert len(client.requests) == before and len(again) == 5
    full = run("hirag", "toy", 8, **kwargs)
    assert len(client.requests) == before + 3
    assert list(full["id"]) == [q.id for q in toy_questions]
    yes_no = full[full["yes_no"]]
    assert list(yes_no["type"]) == ["yes_no"] and yes_no["context_has_answer"].isna().all()

    both = load_results(study, settings)
    assert len(both) == 13 and set(both["method"]) == {"hirag", "ace-full"}
    assert len(load_results(study, settings, methods=["ace-full"])) == 5
    with pytest.raises(FileNotFoundError, match="ace-adaptive"):
        load_results(study, settings, methods=["ace-adaptive"])


def test_failed_question_is_logged_and_retried(settings, toy_graph, toy_questions):
    failing = Failing(toy_questions[2].question)
    client = ScriptedClient(failing)
    llm = LLM(settings, client=client)
    kwargs = {"settings": settings, "llm": llm, "graph": toy_graph, "progress": False}
    first = run("hirag", "toy", 8, study="interrupted", **kwargs)
    assert first.attrs["errors"] == 1 and len(first) == 7
    assert toy_questions[2].id not in set(first["id"])
    errors_path = study_dir("interrupted", settings) / "hirag.errors.jsonl"
    (error,) = _read_jsonl(errors_path)
    assert error["id"] == toy_questions[2].id and "model fell over" in error["error"]

    failing.fail_on = None
    before = len(client.requests)
    second = run("hirag", "toy", 8, study="interrupted", **kwargs)
    assert len(client.requests) == before + 1  # only the failed question is asked again
    assert second.attrs["errors"] == 0 and list(second["id"]) == [q.id for q in toy_questions]
    lines = _read_jsonl(results_path("interrupted", "hirag", settings))
    assert len(lines) == 8 and len({r["id"] for r in lines}) == 8


def test_concurrent_run_order_and_safe_names(settings, toy_graph, toy_questions):
    llm = LLM(settings, client=ScriptedClient(ace_reply, delay_s=0.02))
    name = "ace-fixed:gap+depth+prune"
    frame = run(
        name, "toy", 8, study="conc", settings=settings, llm=llm, graph=toy_graph,
        progress=False, concurrency=3,
    )  # fmt: skip
    assert list(frame["id"]) == [q.id for q in toy_questions]
    assert (frame["method"] == name).all()
    assert (frame["policy"].map(lambda p: p["label"]) == "gap+depth+prune").all()
    assert (study_dir("conc", settings) / "ace-fixed_gap+depth+prune.jsonl").is_file()
    assert safe_name("ace-full@graphrag") == "ace-full_graphrag"
    assert list(load_results("conc", settings)["id"]) == [q.id for q in toy_questions]


def test_manifest_refuses_another_slice_in_the_same_study(settings, toy_graph):
    llm = LLM(settings, client=ScriptedClient(ace_reply))
    kwargs = {"settings": settings, "llm": llm, "graph": toy_graph, "progress": False}
    run("hirag", "toy", 8, study="mixed", limit=1, **kwargs)
    with pytest.raises(ResultsError, match="n=8"):
        run("hirag", "toy", 6, study="mixed", limit=1, **kwargs)


def test_corrupt_lines_are_named_and_a_torn_tail_is_repaired(settings, tmp_path):
    directory = study_dir("broken", settings)
    directory.mkdir(parents=True)
    path = directory / "hirag.jsonl"
    path.write_text('{"id": "a", "method": "hirag"}\nnot json\n{"id": "b", "method": "hirag"}\n')
    with pytest.raises(ResultsError, match=r"hirag\.jsonl: corrupt line 2"):
        load_results("broken", settings)
    torn = tmp_path / "torn.jsonl"
    torn.write_text('{"id": "a"}\n{"id": "b", "ans')
    assert [r["id"] for r in _read_jsonl(torn, repair_tail=True)] == ["a"]
    assert torn.read_text() == '{"id": "a"}\n'
    unterminated = tmp_path / "unterminated.jsonl"
    unterminated.write_text('{"id": "a"}')
    assert [r["id"] for r in _read_jsonl(unterminated, repair_tail=True)] == ["a"]
    assert unterminated.read_text() == '{"id": "a"}\n'  # the next append starts a new line


# --------------------------------------------------------------------------------- tables
IDS = [f"q{i}" for i in range(6)]
TOPO = ["POINT", "POINT", "CONTRAST", "CHAIN", "OVERVIEW", "POINT"]


def _rec(method: str, i: int, **fields) -> dict:
    base = {
        "id": IDS[i], "position": i, "method": method, "em": 0.0, "f1": 0.0,
        "context_has_answer": True, "base_has_answer": None, "topology": None,
        "retrieval_calls": 1, "llm_calls": 1, "input_tokens": 100, "output_tokens": 10,
        "wall_s": 1.0, "llm_s": 0.5, "cache_hits": 0, "steps": [],
    }  # fmt: skip
    return base | fields


def _synthetic() -> pd.DataFrame:
    rows = []
    em_hirag = [1, 0, 0, 1, 0, 0]
    em_full = [1, 1, 0, 1, 1, 0]
    em_adaptive = [1, 1, 1, 1, 0, 0]
    base_has = [False, False, True, True, None, True]
    final_has = [True, False, True, True, None, True]
    for i in range(6):
        rows.append(_rec("hirag", i, em=em_hirag[i], f1=em_hirag[i]))
        rows.append(
            _rec(
                "ace-full", i, em=em_full[i], f1=em_full[i], retrieval_calls=3, llm_calls=2,
                input_tokens=250, output_tokens=30, wall_s=3.0,
                base_has_answer=base_has[i], context_has_answer=final_has[i],
            )
        )  # fmt: skip
        rows.append(_rec("ace-adaptive", i, em=em_adaptive[i], f1=em_adaptive[i], topology=TOPO[i]))
        for j, method in enumerate(tables.topology_methods([]).values()):
            # Every policy scores a question the same, so shuffling policies changes nothing.
            rows.append(_rec(method, i, em=0.0, f1=(i + 1) / 10 + 0 * j))
    return pd.DataFrame(rows)


def test_topology_methods_follow_policy_labels_and_accept_the_ablation_alias():
    assert tables.topology_methods([]) == {
        "POINT": "ace-fixed:gap+depth+prune",
        "CONTRAST": "ace-fixed:gap+breadth+prune",
        "CHAIN": "ace-fixed:gap+depth+breadth",
        "OVERVIEW": "ace-fixed:depth+breadth+prune",
    }
    # Each topology policy is one ablation of Full-ACE: its run serves the control too.
    assert tables.topology_methods(["ace-wo-breadth", "ace-wo-gap"]) == {
        "POINT": "ace-wo-breadth",
        "CONTRAST": "ace-fixed:gap+breadth+prune",
        "CHAIN": "ace-fixed:gap+depth+breadth",
        "OVERVIEW": "ace-wo-gap",
    }


def test_main_table_and_paired_tests():
    df = _synthetic()
    main = tables.main_table(df, ["hirag", "ace-full"]).set_index("method")
    assert main.loc["hirag", "EM"] == pytest.approx(2 / 6)
    assert main.loc["ace-full", "EM"] == pytest.approx(4 / 6)
    assert main.loc["ace-full", "n"] == 6
    for m in ("hirag", "ace-full"):
        assert main.loc[m, "EM_low"] <= main.loc[m, "EM"] <= main.loc[m, "EM_high"]
        assert main.loc[m, "F1_low"] <= main.loc[m, "F1"] <= main.loc[m, "F1_high"]
    assert main.loc["hirag", "EM [95% CI]"].startswith("0.333 [")
    assert main.loc["ace-full", "input_tokens"] == 250 and main.loc["ace-full", "wall_s"] == 3.0
    with pytest.raises(KeyError, match="graphrag"):
        tables.main_table(df, ["graphrag"])

    paired = tables.paired_tests(df.drop(index=0), "hirag", ["ace-full"]).iloc[0]
    assert paired["n"] == 5  # hirag's q0 was dropped: only shared questions are paired
    assert paired["diff"] == pytest.approx(2 / 5)
    assert paired["diff_low"] <= paired["diff"] <= paired["diff_high"]
    assert 0 < paired["p_permutation"] <= 1


def test_coverage_and_cost_tables():
    df = _synthetic()
    cov = tables.coverage_table(df, ["ace-full", "hirag"]).set_index("method")
    full = cov.loc["ace-full"]
    assert (full["n"], full["n_uncovered"]) == (5, 2)  # the yes/no question is excluded
    assert full["coverage_initial"] == pytest.approx(3 / 5)
    assert full["coverage_final"] == pytest.approx(4 / 5)
    assert full["recovery"] == pytest.approx(1 / 2)
    assert cov.loc["hirag", "coverage_initial"] == cov.loc["hirag", "coverage_final"] == 1.0

    cost = tables.cost_table(df, ["hirag", "ace-full"], reference="hirag").set_index("method")
    assert cost.loc["ace-full", "input_ratio"] == pytest.approx(2.5)
    assert cost.loc["hirag", "input_ratio"] == 1.0
    assert cost.loc["ace-full", "wall_ratio"] == pytest.approx(3.0)  # 3.0 s vs hirag's 1.0 s
    assert (cost.loc["ace-full", "retrieval_calls"], cost.loc["ace-full", "llm_calls"]) == (3, 2)
    # A partial run: means move to the shared questions.
    partial = df[~((df["method"] == "hirag") & (df["id"] == "q0"))].copy()
    partial.loc[(partial["method"] == "ace-full") & (partial["id"] == "q0"), "input_tokens"] = 10**6
    cost = tables.cost_table(partial, ["ace-full"], reference="hirag").set_index("method")
    assert cost.loc["ace-full", "n"] == 5 and cost.loc["ace-full", "input_ratio"] == 2.5
    missing = tables.cost_table(df, ["ace-full"], reference="graphrag")
    assert pd.isna(missing.loc[0, "input_ratio"]) and "graphrag" in missing.attrs["note"]


def test_router_tables():
    df = _synthetic()
    dist = tables.router_distribution(df).set_index("topology")
    assert list(dist.index) == ["POINT", "CONTRAST", "CHAIN", "OVERVIEW"]
    assert list(dist["count"]) == [3, 1, 1, 1] and dist.loc["POINT", "share"] == 0.5
    assert dist.loc["CONTRAST", "name"] == "Edge"

    change = tables.f1_change_by_topology(df).set_index("topology")
    assert change.loc["POINT", "n"] == 3
    assert change.loc["POINT", "diff"] == pytest.approx(0.0)  # [1,1,0] vs [1,1,0]
    assert change.loc["CONTRAST", "diff"] == pytest.approx(1.0)
    assert change.loc["OVERVIEW", "diff"] == pytest.approx(-1.0)
    assert change.loc["all", "n"] == 6 and change.loc["all", "diff"] == pytest.approx(0.0)


def test_ablation_with_oracle_and_shuffled_router():
    df = _synthetic()
    fixed = list(tables.topology_methods([]).values())
    table = tables.ablation_table(df, ["ace-full", "ace-adaptive", "ace-wo-gap"], fixed)
    rows = table.set_index("method")
    assert rows.loc["ace-full", "F1"] == pytest.approx(4 / 6)
    assert rows.loc["ace-wo-gap", "note"] == "missing run" and rows.loc["ace-wo-gap", "n"] == 0
    oracle = rows.loc["oracle best fixed"]
    assert oracle["F1"] == pytest.approx(0.35) and oracle["note"].startswith(fixed[0])
    shuffled = rows.loc["shuffled router"]
    assert shuffled["n"] == 6 and shuffled["F1"] == pytest.approx(0.35)
    assert shuffled["F1_sd"] == pytest.approx(0.0, abs=1e-12)

    # The policy CHAIN maps to is missing: the control is skipped, and says why.
    without = df[df["method"] != tables.topology_methods([])["CHAIN"]]
    skipped = tables.ablation_table(without, ["ace-adaptive"], fixed).set_index("method")
    assert "missing runs: ace-fixed:gap+depth+breadth" in skipped.loc["shuffled router", "note"]
    assert pd.isna(skipped.loc["shuffled router", "F1"])
    assert "missing runs" in skipped.loc["oracle best fixed", "note"]

    # Policies that differ make the shuffled average vary.
    varied = df.copy()
    point = varied["method"] == tables.topology_methods([])["POINT"]
    varied.loc[point, "f1"] = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    shuffled = tables.ablation_table(varied, [], fixed).set_index("method").loc["shuffled router"]
    assert shuffled["F1_sd"] > 0


def test_export_writes_csv_md_and_tex(tmp_path, monkeypatch):
    table = tables.main_table(_synthetic(), ["hirag", "ace-full"])
    paths = tables.export_table(table, "main_table", tmp_path / "study")
    assert {p.name for p in paths.values()} == {"main_table.csv", "main_table.md", "main_table.tex"}
    assert pd.read_csv(paths["csv"])["EM"].tolist() == pytest.approx([2 / 6, 4 / 6])
    md = paths["md"].read_text().splitlines()
    assert md[0].startswith("| method | n | EM |") and md[1].startswith("| --- | ---: |")
    assert "| hirag | 6 | 0.333 |" in md[2]
    tex = paths["tex"].read_text()
    assert "\\begin{tabular}" in tex and "EM [95\\% CI]" in tex and "EM\\_low" in tex

    monkeypatch.setitem(sys.modules, "jinja2", None)  # importing it now raises ImportError
    fallback = tables.to_latex(table)
    assert fallback.startswith("\\begin{tabular}{lr") and "\\toprule" in fallback
    assert "EM [95\\% CI]" in fallback and "0.333" in fallback


def test_cli_report_exports_tables(tmp_path, monkeypatch, capsys):
    from ace_lab.cli import build_parser, main

    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(tmp_path))
    directory = Path(tmp_path) / "synthetic"
    directory.mkdir()
    for method, frame in _synthetic().groupby("method", sort=False):
        lines = [json.dumps(rec) for rec in frame.to_dict("records")]
        (directory / f"{safe_name(method)}.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["report", "--study", "synthetic", "--export"]) == 0
    out = capsys.readouterr().out
    assert "## Accuracy" in out and "| ace-full | 6 |" in out and "F1 vs hirag" in out
    assert {"main_table.md", "cost_table.tex", "paired_tests.csv"} <= {
        p.name for p in directory.iterdir()
    }
    args = build_parser().parse_args(
        ["run", "--methods", "hirag", "ace-full", "--dataset", "toy", "--n", "8", "--limit", "2"]
    )
    assert args.methods == ["hirag", "ace-full"] and args.limit == 2 and args.concurrency == 1


def test_rescore_reextracts_answers_from_stored_generations(settings, toy_graph):
    from ace_lab.eval.metrics import exact_match
    from ace_lab.eval.runner import rescore

    llm = LLM(settings, client=ScriptedClient(ace_reply))
    run("hirag", "toy", 8, settings=settings, llm=llm, graph=toy_graph, limit=2, progress=False)
    path = results_path("toy-n8-s0", "hirag", settings)
    records = [json.loads(line) for line in path.read_text().splitlines()]
    records[0]["raw"] = "Reasoning: x\nResult: [Brinemouth] [/Brinemouth]"
    records[0]["answer"], records[0]["em"] = "", 0.0
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    assert rescore("toy-n8-s0", settings) == {"hirag": 1}
    again = load_results("toy-n8-s0", settings)
    first = again[again["id"] == records[0]["id"]].iloc[0]
    assert first["answer"] == "Brinemouth"
    assert first["em"] == exact_match("Brinemouth", list(first["gold"]))


def test_cost_table_times_only_answers_made_without_cache_hits():
    rows = [_rec("hirag", 0, wall_s=10.0), _rec("hirag", 1, wall_s=0.01, cache_hits=1)]
    table = tables.cost_table(pd.DataFrame(rows), ["hirag"]).iloc[0]
    assert table["wall_s"] == 10.0 and table["wall_n"] == 1 and table["n"] == 2
    assert math.isnan(table["server_cached_tokens"])  # runs recorded before it was kept
    rows = [_rec("m", 0, server_cached_tokens=300), _rec("m", 1, server_cached_tokens=100)]
    table = tables.cost_table(pd.DataFrame(rows), ["m"], reference="m").iloc[0]
    assert table["server_cached_tokens"] == 200


def test_cold_wall_replaces_cache_lookups_with_recorded_model_time():
    from ace_lab.eval.runner import cold_wall_s
    from ace_lab.evidence import LLMCall

    fresh = LLMCall("plan", "m", 10, 5, 2.0, False, response_latency_s=2.0)
    hit = LLMCall("gen", "m", 0, 0, 0.001, True, response_latency_s=3.0)
    assert cold_wall_s(2.5, [fresh, hit]) == pytest.approx(5.499)
    unknown = LLMCall("gen", "m", 0, 0, 0.001, True)
    assert cold_wall_s(2.5, [fresh, unknown]) is None
    rows = [_rec("m", 0, wall_s=0.5, cache_hits=1, cold_wall_s=4.0), _rec("m", 1, wall_s=2.0)]
    rows.append(_rec("m", 2, wall_s=0.01, cache_hits=1, cold_wall_s=None))
    table = tables.cost_table(pd.DataFrame(rows), ["m"], reference="m").iloc[0]
    assert table["wall_s"] == pytest.approx(3.0) and table["wall_n"] == 2
