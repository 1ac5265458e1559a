"""Shared fixtures: isolated settings and a scripted OpenAI-shaped client for control-flow tests."""

from __future__ import annotations

import itertools
import json
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ace_lab.config import Settings, load_settings


def pytest_configure(config: pytest.Config) -> None:
    """Tests use a fresh user data folder: they never see or write the user's registered corpora
    (``ace-lab corpus add``); the benchmark sets ``ace-lab data fetch`` put there stay visible."""
    import tempfile

    from ace_lab.data.userdir import user_data_dir

    real = user_data_dir()
    isolated = Path(tempfile.mkdtemp(prefix="ace_lab_test_user_data_"))
    if (real / "benchmarks").is_dir():
        (isolated / "benchmarks").symlink_to(real / "benchmarks")
    config._ace_lab_user_data = isolated  # type: ignore[attr-defined]
    os.environ["ACE_LAB_USER_DATA"] = str(isolated)


def pytest_unconfigure(config: pytest.Config) -> None:
    import shutil

    isolated = getattr(config, "_ace_lab_user_data", None)
    if isolated is not None:
        shutil.rmtree(isolated, ignore_errors=True)  # removes the link, never its target


class ScriptedClient:
    """Stands in for ``openai.OpenAI`` in unit tests of control flow (never for results).

    ``script`` items are returned in order: a string is the completion text, an exception is
    raised, a callable gets the request kwargs and returns either. ``delay_s`` simulates a slow
    server; ``in_flight`` runs while a request is being served, outside the client's lock, so a
    test can observe how many requests are served at once.
    """

    def __init__(
        self,
        script: list[Any] | Callable[[dict], Any],
        delay_s: float = 0.0,
        server_cached_tokens: int = 0,
        in_flight: Callable[[], Any] | None = None,
    ) -> None:
        self.script = script
        self.delay_s = delay_s
        self.in_flight = in_flight
        self.server_cached_tokens = server_cached_tokens
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, **kwargs: Any) -> Any:
        with self._lock:
            self.requests.append(kwargs)
            item = self.script(kwargs) if callable(self.script) else self.script.pop(0)
        if self.delay_s:
            time.sleep(self.delay_s)
        if self.in_flight is not None:
            self.in_flight()
        if isinstance(item, BaseException):
            raise item
        message = SimpleNamespace(content=item)
        return SimpleNamespace(
            choices=[SimpleNamespace(message=message)],
            usage=SimpleNamespace(
                prompt_tokens=11,
                completion_tokens=len(str(item).split()),
                prompt_tokens_details=SimpleNamespace(cached_tokens=self.server_cached_tokens),
            ),
        )


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """Settings for the local smoke tier whose caches live in a fresh temporary directory."""
    base = load_settings()
    return Settings(
        data_dir=base.data_dir,
        cache_dir=tmp_path / "cache",
        model_dir=base.model_dir,
        results_dir=tmp_path / "results",
        figures_dir=tmp_path / "figures",
        graphs_dir=tmp_path / "graphs",
        llm=replace(base.llm, base_url=None, model=None, tier="smollm135m"),
        embed=base.embed,
    )


# ------------------------------------------------------------------ toy graph + scripted ACE
@pytest.fixture(scope="session")
def toy_graph(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The hierarchical toy graph, built once with the scripted extraction model."""
    from ace_lab.data import chunk_passages, load_dataset
    from ace_lab.graph.hierarchy import build_hierarchical
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.llm import LLM
    from ace_lab.retrieval import RetrievalGraph

    base = Settings(cache_dir=tmp_path_factory.mktemp("cache"))
    llm = LLM(base, client=ScriptedClient(hierarchy_reply))
    chunks = chunk_passages(load_dataset("toy").passages)
    run = tmp_path_factory.mktemp("run")
    tables = build_hierarchical(chunks, llm, run, hierarchy_config(), progress=False)
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="toy")


def ace_reply(kwargs: dict) -> str:
    """Plays the model for ACE: router POINT, a two-query plan, a tagged answer."""
    system = kwargs["messages"][0]["content"]
    if "Strategic Router" in system:
        return '{"topology": "POINT"}'
    if "Retrieval Planner" in system or "rewrite a query" in system:
        return json.dumps(
            {
                "analysis": "the museum's city is missing",
                "queries": [
                    {"query": "tidal lantern museum", "mode": "hi_local", "goal": "empowerment"},
                    {"query": "Brinemouth museums", "mode": "hi_global", "goal": "diversity"},
                ],
            }
        )
    return "Reasoning: it is kept there.\nResult: [FINAL_ANSWER] Brinemouth [/FINAL_ANSWER]"


# ------------------------------------------------------------------ methods: small graphs
@pytest.fixture(scope="session")
def embedder() -> Any:
    """The process-wide default embedder (real offline MiniLM), as methods get it."""
    from ace_lab.embed import get_embedder

    return get_embedder()


@pytest.fixture(scope="session")
def openie_graph(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The OpenIE toy graph of the first three toy chunks (scripted extraction, one-hot
    synonyms so that no synonym edges appear; real MiniLM seed indexes)."""
    from ace_lab.graph.openie import OpenIEConfig, build_openie
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.llm import LLM
    from ace_lab.retrieval import RetrievalGraph

    base = Settings(cache_dir=tmp_path_factory.mktemp("cache"))
    llm = LLM(base, client=ScriptedClient(openie_reply))
    tables = build_openie(
        toy_chunk_list()[:3],
        llm,
        tmp_path_factory.mktemp("run"),
        OpenIEConfig(),
        progress=False,
        embedder=OneHotEmbedder(),
        embed_cache=False,
    )
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="openie")


def _tiny_entity(i: str, name: str, chunk: str) -> dict:
    return {"id": i, "label": "Entity", "name": name, "source_ids": [chunk]}


def _tiny_edge(i: str, a: str, b: str, kind: str, weight: float = 1.0, **extra: Any) -> dict:
    return {"id": i, "source": a, "target": b, "type": kind, "weight": weight, **extra}


@pytest.fixture(scope="session")
def tiny_graph() -> Any:
    """4 entities, 3 chunks: a chain Alpha–Beta–Gamma, Delta alone with its own chunk."""
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.graph.tables import GraphTables
    from ace_lab.retrieval import RetrievalGraph

    chunks = {
        "c1": "Alpha met Beta at the harbour.",
        "c2": "Gamma keeps the lighthouse records.",
        "c3": "Delta grows apples in the valley.",
    }
    nodes = [
        {"id": c, "label": "Chunk", "name": c.upper(), "description": t, "source_ids": [c]}
        for c, t in chunks.items()
    ]
    nodes += [
        _tiny_entity("a", "Alpha", "c1"),
        _tiny_entity("b", "Beta", "c1"),
        _tiny_entity("c", "Gamma", "c2"),
        _tiny_entity("d", "Delta", "c3"),
    ]
    edges = [
        _tiny_edge("r1", "a", "b", "RELATION", 2.0, predicate="met", source_ids=["c1"]),
        _tiny_edge("r2", "b", "c", "RELATION", 1.0, predicate="knows", source_ids=["c2"]),
        _tiny_edge("m1", "a", "c1", "MENTIONED_IN"),
        _tiny_edge("m2", "b", "c1", "MENTIONED_IN"),
        _tiny_edge("m3", "c", "c2", "MENTIONED_IN"),
        _tiny_edge("m4", "d", "c3", "MENTIONED_IN"),
    ]
    tables = GraphTables.from_records(nodes, edges, {"family": "openie"})
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="tiny")


def fits_budget(items: list[Any], budget: int) -> bool:
    """Whether rendering ``items`` as a ``Context`` drops nothing under ``budget`` tokens."""
    from ace_lab.evidence import Context

    _, dropped = Context(items).fit(budget)
    return not dropped


#: A tagged QA reply, for methods whose answer text is not under test.
QA_REPLY = "Reasoning: x\nResult: [FINAL_ANSWER] y [/FINAL_ANSWER]"


# ------------------------------------------------------------------ llm: scripted chat client
#: A fixed system + user chat, shared by the ace_lab.llm tests.
CHAT_MESSAGES = [{"role": "system", "content": "fixed"}, {"role": "user", "content": "q"}]


def scripted_llm(settings: Settings, script: Any, **kw: Any) -> Any:
    """An ``ace_lab.llm.LLM`` answering from a :class:`ScriptedClient` (``kw`` go to it)."""
    from ace_lab.llm import LLM

    return LLM(settings, client=ScriptedClient(script, **kw))


# ------------------------------------------------------------------ embed: real MiniLM + fakes
@pytest.fixture(scope="session")
def minilm() -> Any:
    """One real offline MiniLM for the whole session: loading it is the slow part."""
    from ace_lab.embed import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder()


class CountingEmbedder:
    """Wraps an embedder, recording every text it is asked to encode."""

    def __init__(self, inner: Any, model_id: str | None = None) -> None:
        self.inner = inner
        self.model_id = model_id or inner.model_id
        self.dim = inner.dim
        self.calls: list[list[str]] = []

    def encode(self, texts: list[str]) -> Any:
        self.calls.append(list(texts))
        return self.inner.encode(texts)

    @property
    def encoded(self) -> list[str]:
        return [text for call in self.calls for text in call]


def fake_vectors(texts: list[str], dim: int = 8) -> Any:
    """Deterministic float32 rows seeded by each text, for tests that need no model."""
    import numpy as np

    rows = [np.random.default_rng(sum(t.encode())).standard_normal(dim) for t in texts]
    return np.asarray(rows, dtype=np.float32)


# ------------------------------------------------------------------ graph: scripted builds
def toy_chunk_list() -> list[Any]:
    """Every chunk of the toy corpus (the builders' test input)."""
    from ace_lab.data import chunk_passages, load_dataset

    return chunk_passages(load_dataset("toy").passages)


@pytest.fixture(scope="session")
def toy_chunks() -> list[Any]:
    """Every chunk of the toy corpus."""
    return toy_chunk_list()


@pytest.fixture(scope="session")
def first_toy_chunks() -> list[Any]:
    """The first three toy chunks: the ones the OpenIE and typed scripts have answers for."""
    return toy_chunk_list()[:3]


def title_of(kwargs: dict) -> str:
    """The ``Title:`` line of a request's user message (which chunk the model is asked about)."""
    return kwargs["messages"][-1]["content"].split("Title: ", 1)[1].split("\n", 1)[0]


def prompt_of(kwargs: dict, names: tuple[str, ...]) -> str:
    """Which of the prompt files ``names`` a request's system message comes from."""
    from ace_lab.prompts import load_prompt

    system = kwargs["messages"][0]["content"]
    for name in names:
        if system == load_prompt(name).system:
            return name
    raise AssertionError(f"unexpected prompt: {system[:80]}")


def hierarchy_config() -> Any:
    """Small layers, so that the toy corpus gets summaries and communities."""
    from ace_lab.graph.hierarchy import HierarchyConfig  # deferred: a heavy import

    return HierarchyConfig(cluster_size=4, min_layer_size=4, community_min_size=2)


def hierarchy_reply(kwargs: dict) -> str:
    """Plays the model: capitalised words become entities, neighbours become relations."""
    system = kwargs["messages"][0]["content"]
    user = kwargs["messages"][-1]["content"]
    if "extract a knowledge graph" in system:
        text = user.split("Text:", 1)[1]
        names = list(dict.fromkeys(re.findall(r"\b[A-Z][a-z]{3,}\b", text)))[:6]
        return json.dumps(
            {
                "entities": [[n, "CONCEPT", f"{n} appears in the text."] for n in names],
                "relations": [
                    [a, b, f"{a} relates to {b}.", 5] for a, b in itertools.pairwise(names)
                ],
            }
        )
    if "levels of abstraction" in system:
        first = re.search(r"- ([^:]+):", user).group(1)
        return json.dumps({"name": f"Theme of {first}", "description": "A group."})
    if "communities of a knowledge graph" in system:
        return json.dumps({"title": "A community", "summary": "Members relate.", "rating": 7})
    return "merged description"


# openie: what the scripted model "extracts" from each of the first three toy chunks, by title
OPENIE_PROMPTS = ("openie_joint", "openie_ner", "openie_triples")
OPENIE_ANSWERS = {
    "Ilse Marrin": {
        "named_entities": ["Ilse Marrin", "Kesterholm", "Varrowmere Lantern Works"],
        "triples": [
            ["Ilse Marrin", "born in", "Kesterholm"],
            ["Ilse Marrin", "co-founded", "The Varrowmere Lantern Works"],
            ["", "moved to", "Varrowmere"],  # empty subject: dropped
        ],
    },
    "Tidal lantern": {
        "named_entities": ["Tidal lantern", "Ilse Marrin", "Lake Varrow"],
        "triples": [["Ilse Marrin", "demonstrated the first one on", "Lake Varrow"]],
    },
    "Varrowmere Lantern Works": {
        "named_entities": ["Varrowmere Lantern Works", "1889"],
        "triples": [["Varrowmere Lantern Works", "was founded in", "1889"]],
    },
}


def openie_reply(kwargs: dict) -> str:
    """Answers the OpenIE prompt being asked, for the chunk being asked about."""
    answer = OPENIE_ANSWERS[title_of(kwargs)]
    prompt = prompt_of(kwargs, OPENIE_PROMPTS)
    if prompt == "openie_ner":
        return json.dumps({"named_entities": answer["named_entities"]})
    if prompt == "openie_triples":
        return json.dumps({"triples": answer["triples"]})
    return json.dumps(answer)


class OneHotEmbedder:
    """Every distinct text gets its own axis: no two phrases are similar (no synonym edges)."""

    model_id = "test:onehot"
    dim = 512

    def __init__(self) -> None:
        self.axes: dict[str, int] = {}

    def encode(self, texts: list[str]) -> Any:
        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, self.axes.setdefault(text, len(self.axes))] = 1.0
        return out


# typed: a schema proposal, and extractions for the first three toy chunks, by title. Only the
# tidal lantern chunk has triples whose ends are not both in its text ("Atlantis", "Great Flood").
TYPED_PROMPTS = ("typed_schema", "typed_extract", "typed_reflect")
TYPED_PROPOSAL = {
    "node_types": ["person", "Organization", "place", "Chunk", "sports team", "PERSON"],
    "relation_types": ["born in", "co-founded", "locatedIn", "MENTIONED_IN", "demonstrated at"],
}
TYPED_NODE_TYPES = ["Person", "Organization", "Place", "SportsTeam"]
TYPED_RELATION_TYPES = ["BORN_IN", "CO_FOUNDED", "LOCATED_IN", "DEMONSTRATED_AT"]


def typed_triple(s: str, st: str, r: str, o: str, ot: str) -> dict[str, str]:
    return {"subject": s, "subject_type": st, "relation": r, "object": o, "object_type": ot}


_t = typed_triple
TYPED_EXTRACTIONS = {
    "Ilse Marrin": [
        _t("Ilse Marrin", "Person", "BORN_IN", "Kesterholm", "Place"),
        _t("Ilse Marrin", "Person", "CO_FOUNDED", "the Varrowmere Lantern Works", "Organization"),
    ],
    "Tidal lantern": [
        _t("Ilse Marrin", "Person", "DEMONSTRATED_AT", "Lake Varrow", "Place"),
        _t("Ilse Marrin", "Person", "BORN_IN", "Atlantis", "Place"),
        _t("Great Flood of 1897", "Place", "LOCATED_IN", "Estlund Maritime Museum", "Place"),
    ],
    "Varrowmere Lantern Works": [
        _t("Varrowmere Lantern Works", "Organization", "LOCATED_IN", "Brinemouth", "Place"),
    ],
}
TYPED_REPAIR = _t("Tidal lantern", "Organization", "LOCATED_IN", "Estlund Maritime Museum", "Place")


def typed_reply(kwargs: dict) -> str:
    """Answers the typed prompt being asked: the proposal, extractions, reflection verdicts."""
    prompt = prompt_of(kwargs, TYPED_PROMPTS)
    if prompt == "typed_schema":
        return json.dumps(TYPED_PROPOSAL)
    title = title_of(kwargs)
    if prompt == "typed_extract":
        return json.dumps({"triples": TYPED_EXTRACTIONS[title]})
    if title == "Tidal lantern":
        return json.dumps(
            {"verdicts": ["keep", "drop", "repair"], "repairs": [TYPED_REPAIR | {"n": 3}]}
        )
    n = len(TYPED_EXTRACTIONS[title])
    return json.dumps({"verdicts": ["keep"] * n, "repairs": []})


def typed_prompt_of(kwargs: dict) -> str:
    return prompt_of(kwargs, TYPED_PROMPTS)


def typed_prompts(client: ScriptedClient) -> list[str]:
    """The typed prompt of every request the client received, in order."""
    return [typed_prompt_of(r) for r in client.requests]


def build_typed_scripted(
    settings: Settings, run_dir: Path, chunks: Any, script: Any = typed_reply,
    config: Any = None, **kw: Any,
) -> tuple[Any, ScriptedClient]:  # fmt: skip
    """``build_typed`` over ``chunks`` with a scripted model; the graph and the client."""
    from ace_lab.graph.typed import TypedConfig, build_typed
    from ace_lab.llm import LLM

    client = ScriptedClient(script)
    graph = build_typed(
        chunks, LLM(settings, client=client), run_dir, config or TypedConfig(), progress=False, **kw
    )
    return graph, client


# ------------------------------------------------------------------ graph store: small tables
def small_tables() -> Any:
    """Three entities, a Person, a two-word schema type, two chunks; RELATED and MENTIONS."""
    from ace_lab.graph.tables import GraphTables

    nodes = [
        {"id": "e1", "label": "Entity", "name": "Set theory", "type": "field", "level": 0},
        {"id": "e2", "label": "Entity", "name": "Logic", "type": "field"},
        {"id": "e3", "label": "Entity", "name": "Create Labs", "type": "org"},
        {"id": "p1", "label": "Person", "name": "Georg Cantor", "source_ids": ["c1", "c2"]},
        {"id": "t1", "label": "Sports Team", "name": "Halle FC"},
        {"id": "c1", "label": "Chunk", "name": "Doc A", "description": 'Cantor\'s "set" text'},
        {"id": "c2", "label": "Chunk", "name": "Doc B", "description": "line one\nline two"},
    ]
    edges = [
        {"id": "r1", "source": "e1", "target": "e2", "type": "RELATED", "weight": 0.5},
        {"id": "r2", "source": "p1", "target": "e1", "type": "RELATED", "predicate": "founded"},
        {"id": "r3", "source": "t1", "target": "p1", "type": "RELATED"},
        {"id": "m1", "source": "c1", "target": "e1", "type": "MENTIONS", "source_ids": ["c1"]},
        {"id": "m2", "source": "c1", "target": "p1", "type": "MENTIONS"},
        {"id": "m3", "source": "c2", "target": "e2", "type": "MENTIONS"},
    ]
    return GraphTables.from_records(nodes, edges, {"family": "test"})


def pid_alive(pid: int) -> bool:
    """Whether a process with ``pid`` still exists (a stopped store must leave none behind)."""
    import os

    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# ------------------------------------------------------------------ eval: synthetic results
#: Question ids and Adaptive-ACE's router labels of :func:`synthetic_results`.
RESULT_IDS = [f"q{i}" for i in range(6)]
RESULT_TOPOLOGIES = ["POINT", "POINT", "CONTRAST", "CHAIN", "OVERVIEW", "POINT"]


def result_record(method: str, i: int, **fields: Any) -> dict[str, Any]:
    """One results record (``ace_lab.eval.studies.record`` columns) for question ``i``."""
    base = {
        "id": RESULT_IDS[i], "position": i, "method": method, "em": 0.0, "f1": 0.0,
        "context_has_answer": True, "base_has_answer": None, "topology": None,
        "retrieval_calls": 1, "llm_calls": 1, "input_tokens": 100, "output_tokens": 10,
        "wall_s": 1.0, "llm_s": 0.5, "cache_hits": 0, "steps": [],
    }  # fmt: skip
    return base | fields


def synthetic_results() -> Any:
    """A results frame with known answers: hirag, ace-full, ace-adaptive (routed by
    ``RESULT_TOPOLOGIES``) and one fixed-policy run per topology, all scoring alike."""
    import pandas as pd

    from ace_lab.ace.report.tables import topology_methods

    rows = []
    em_hirag = [1, 0, 0, 1, 0, 0]
    em_full = [1, 1, 0, 1, 1, 0]
    em_adaptive = [1, 1, 1, 1, 0, 0]
    base_has = [False, False, True, True, None, True]
    final_has = [True, False, True, True, None, True]
    for i in range(6):
        rows.append(result_record("hirag", i, em=em_hirag[i], f1=em_hirag[i]))
        rows.append(
            result_record(
                "ace-full", i, em=em_full[i], f1=em_full[i], retrieval_calls=3, llm_calls=2,
                input_tokens=250, output_tokens=30, wall_s=3.0,
                base_has_answer=base_has[i], context_has_answer=final_has[i],
            )
        )  # fmt: skip
        rows.append(
            result_record(
                "ace-adaptive", i, em=em_adaptive[i], f1=em_adaptive[i],
                topology=RESULT_TOPOLOGIES[i],
            )
        )  # fmt: skip
        for j, method in enumerate(topology_methods([]).values()):
            # Every policy scores a question the same, so shuffling policies changes nothing.
            rows.append(result_record(method, i, em=0.0, f1=(i + 1) / 10 + 0 * j))
    return pd.DataFrame(rows)


# ------------------------------------------------------------------ index: toy corpus + cache
#: The toy corpus as raw ``{"id", "title", "text"}`` records.
TOY_CORPUS = Path(__file__).resolve().parents[1] / "data" / "toy" / "corpus.json"


@pytest.fixture(scope="session")
def vector_cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One embedding cache for the index tests, so each text is encoded once per session."""
    from ace_lab.embed import VectorCache

    return VectorCache(tmp_path_factory.mktemp("index-cache") / "embeddings.sqlite")


@pytest.fixture(scope="session")
def toy_records() -> list[dict[str, str]]:
    return json.loads(TOY_CORPUS.read_text())


# ------------------------------------------------------------------ data: sets on this machine
def available_datasets() -> list[str]:
    """The benchmark sets present here (just the toy corpus when no data directory is found)."""
    from ace_lab.data import DataError, list_datasets

    try:
        return list_datasets()
    except DataError:
        return ["toy"]


def need_dataset(name: str) -> None:
    """Skip the calling test unless benchmark set ``name`` is present — but only off CI.

    CI (``CI=true``) runs beside a copy of ``../shared/data`` by design, so there a missing or
    unreadable set is a failure, not a skip: a test must not pass by silently testing nothing.
    A person's checkout without the shared data skips these tests, saying why.
    """
    if name in available_datasets():
        return
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"benchmark set {name} is missing or unreadable under ../shared/data in CI")
    pytest.skip(f"benchmark set {name} not available (set ACE_LAB_DATA)")


#: A two-passage corpus and one question, written by :func:`fake_dataset_dir`.
FAKE_PASSAGES = [
    {"id": "p1", "title": "A", "text": "alpha"},
    {"id": "p2", "title": "B", "text": "b"},
]
FAKE_QUESTION = {"id": "q1", "question": "?", "answer": "a", "supporting_passage_ids": ["p1"]}


def fake_dataset_dir(root: Path, corpus: object, questions: object | None) -> Path:
    """A ``hotpotqa_dev_sample200`` folder under ``root`` (a str is written verbatim, else JSON;
    ``None`` leaves the file out)."""
    folder = root / "hotpotqa_dev_sample200"
    folder.mkdir(parents=True)
    for fname, content in (("corpus.json", corpus), ("questions.json", questions)):
        if content is None:
            continue
        text = content if isinstance(content, str) else json.dumps(content)
        (folder / fname).write_text(text, encoding="utf-8")
    return folder


# ------------------------------------------------------------------ mosaic: scripted analyzer
#: What the scripted analyzer reports (a comparison of two targets, mediated, two hops).
MOSAIC_SIGNALS = {
    "cardinality": "single", "targets": ["Ilse Marrin", "Brinemouth"], "comparison": True,
    "mediated": True, "depth": 2, "anchoring": "specific", "breadth": "narrow",
}  # fmt: skip


def mosaic_reply(signals: Any = None) -> Callable[[dict], str]:
    """Plays the model for MOSAIC: ``signals`` (JSON text or an object) for the analyzer
    prompt, a tagged answer for everything else."""

    def reply(kwargs: dict) -> str:
        if "MOSAIC query analyzer" in kwargs["messages"][0]["content"]:
            given = MOSAIC_SIGNALS if signals is None else signals
            return given if isinstance(given, str) else json.dumps(given)
        return QA_REPLY

    return reply


# ------------------------------------------------------------------ arc: scripted ArcRAG agents
#: Which ArcRAG prompt a request is, by a phrase of its system message.
ARC_PROMPTS = {
    "rewrite": "rewrite a question for retrieval", "phrases": "extract search phrases",
    "explore": "explore a knowledge graph", "plan": "You plan retrieval",
    "bind": "attach anchors", "compile": "compile one step", "refine": "repair a read-only",
    "direct": "translate a question", "sufficient": "judge whether an answer",
}  # fmt: skip
ARC_QUESTION = "Where was the co-founder of the Varrowmere Lantern Works born?"
ARC_DEFAULTS: dict[str, Any] = {
    "rewrite": {"query": ARC_QUESTION},
    "phrases": {"phrases": ["Varrowmere Lantern Works", "Ilse Marrin", "Zorblax Tower"]},
    "explore": {
        "queries": ["MATCH (a)-[r]-(b) WHERE a.id IN $anchors RETURN a, r, b LIMIT 5"],
        "descriptors": ["co-founded"], "aliases": [["Ilse Marrin", "I. Marrin"]],
        "notes": "the founder link is there", "done": True,
    },
    "plan": {"answer_type": "entity", "subplans": [
        {"goal": "birthplace of the co-founder", "hops": ["co-founded", "born in"]}]},
    "bind": {"bindings": [{"subplan": 0, "anchors": ["ent:ilse marrin", "not-an-anchor"]}]},
    "compile": {"cypher": "MATCH (a)-[r]->(b) RETURN a, r, b LIMIT 3"},
    "refine": {"cypher": "MATCH (a)-[r]->(b) RETURN a, r, b LIMIT 3"},
    "direct": {"cypher": "MATCH (a)-[r]->(b) RETURN a, r, b LIMIT 3"},
    "sufficient": {"sufficient": True, "missing": "", "follow_up": ""},
}  # fmt: skip


def arc_prompt(kwargs: dict) -> str:
    """The ArcRAG prompt key of a request ("answer" for the shared answer prompt)."""
    system = kwargs["messages"][0]["content"]
    return next((k for k, phrase in ARC_PROMPTS.items() if phrase in system), "answer")


def arc_reply(**overrides: Any) -> Callable[[dict], str]:
    """Plays every ArcRAG agent: ``ARC_DEFAULTS`` unless overridden by prompt key; a value
    may be an object (sent as JSON), raw text, or a callable of the request kwargs."""
    script = {**ARC_DEFAULTS, **overrides}

    def reply(kwargs: dict) -> str:
        key = arc_prompt(kwargs)
        if key == "answer":
            return "Reasoning: x\nResult: [FINAL_ANSWER] Kesterholm [/FINAL_ANSWER]"
        value = script[key]
        value = value(kwargs) if callable(value) else value
        return value if isinstance(value, str) else json.dumps(value)

    return reply


@pytest.fixture(scope="session")
def typed_graph(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The typed toy graph of the first three toy chunks (scripted extraction), as a
    RetrievalGraph with real MiniLM seed indexes."""
    from ace_lab.graph.seeds import build_seed_indexes
    from ace_lab.retrieval import RetrievalGraph

    base = Settings(cache_dir=tmp_path_factory.mktemp("cache"))
    tables, _ = build_typed_scripted(base, tmp_path_factory.mktemp("run"), toy_chunk_list()[:3])
    return RetrievalGraph(tables, build_seed_indexes(tables, progress=False), name="typed")
