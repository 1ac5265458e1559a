"""The fixed request set of ``bench/llm_serving.py``: real HiRAG and Full-ACE calls.

    python bench/serving_requests.py [--dataset hotpotqa_dev_sample200] [--n 20] [--questions 4]
        [--methods hirag ace-full] [--out bench/serving_requests.json]

Runs each method over the first ``--questions`` questions of the committed slice, as a study
run would, and keeps every call it sends, in order. By default every call must hit the response
cache (so the requests are the ones the committed runs sent, and no model is called; a miss
stops with the request's tag); with ``--live`` the calls go to the local server with today's
default settings (xllamacpp) and the cache is neither read nor written. Writes one JSON file: per
question and method, the calls (messages and sampling fields) with the reply text, and the
question's gold answers. The file is committed; rerun this to regenerate it.
"""

from __future__ import annotations

import argparse
import json
import threading
from pathlib import Path
from typing import Any

from ace_lab.config import ServingOptions, load_settings
from ace_lab.data import load_slice
from ace_lab.llm import LLM
from ace_lab.llm.models import get_tier
from ace_lab.registry import graph_family, make_method
from ace_lab.retrieval import RetrievalGraph

OUT = Path(__file__).with_name("serving_requests.json")
SAMPLING = ("temperature", "top_p", "max_tokens", "stop", "seed", "response_format")


class CacheOnly:
    """A client that refuses every call: collection must be served from the cache."""

    class _Completions:
        def create(self, **kwargs: Any) -> Any:
            raise RuntimeError("cache miss: the committed run's cache does not hold this request")

    def __init__(self) -> None:
        self.chat = type("Chat", (), {"completions": self._Completions()})()


class RecordingLLM(LLM):
    """An ``LLM`` that keeps every request it answers, in call order, with the reply."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.calls: list[dict[str, Any]] = []
        self._calls_lock = threading.Lock()

    def chat(self, messages: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        completion = super().chat(messages, **kwargs)
        fields = {k: kwargs[k] for k in SAMPLING if k in kwargs}
        request = self.request(messages, **fields)
        with self._calls_lock:
            self.calls.append(
                {
                    "tag": kwargs.get("tag", ""),
                    **{k: request[k] for k in ("messages", *SAMPLING)},
                    "reference": completion.text,
                }
            )
        return completion


def collect(
    dataset: str, n: int, questions: int, methods: list[str], live: bool = False
) -> dict[str, Any]:
    settings = load_settings()
    if live:
        settings = settings.with_llm(cache=False, serving=ServingOptions(backend="xllamacpp"))
    tier = get_tier(settings.llm.tier)
    identity = f"local:{tier.name}:{tier.identity}"  # the real model's cache entries
    sl = load_slice(dataset, n, seed=0, data_dir=settings.data_dir)
    out: dict[str, Any] = {
        "command": "python bench/serving_requests.py "
        f"--dataset {dataset} --n {n} --questions {questions} --methods {' '.join(methods)}"
        + (" --live" if live else ""),
        "slice_id": sl.slice_id,
        "model": tier.name,
        "questions": [],
    }
    graphs = {
        family: RetrievalGraph.load(dataset, n, family, model=tier.name, seed=0, settings=settings)
        for family in {graph_family(m) for m in methods}
    }
    for q in sl.questions[:questions]:
        entry: dict[str, Any] = {"id": q.id, "question": q.question, "gold": list(q.answers)}
        for method in methods:
            client = None if live else CacheOnly()
            llm = RecordingLLM(settings, client=client, model_identity=identity)
            make_method(method, graphs[graph_family(method)], llm).answer(q.question, "qa")
            entry[method] = llm.calls
        out["questions"].append(entry)
    return out


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dataset", default="hotpotqa_dev_sample200")
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--questions", type=int, default=4)
    parser.add_argument("--methods", nargs="+", default=["hirag", "ace-full"])
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--live", action="store_true", help="ask the model, not the cache")
    a = parser.parse_args(argv)
    data = collect(a.dataset, a.n, a.questions, a.methods, a.live)
    a.out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    calls = sum(len(q[m]) for q in data["questions"] for m in a.methods)
    print(f"{a.out}: {len(data['questions'])} questions, {calls} calls")
    return a.out


if __name__ == "__main__":
    main()
