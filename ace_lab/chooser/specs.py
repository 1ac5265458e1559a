"""``auto`` and ``auto:<λ>``: the per-question method chooser (:mod:`ace_lab.chooser`).

``auto`` loads the fitted model (``<results_dir>/chooser/model.json``, else the checkout's
committed ``results/chooser/model.json``; written by
``python -m ace_lab.eval.reporting.chooser``), picks one of its candidate methods for each
question from the question's text and runs it over the same hierarchical graph. ``auto:<λ>``
chooses at another cost weight: ``λ`` per million input tokens (``auto:20``: 1,000 more input
tokens must buy 0.02 more expected accuracy) or ``auto:inf`` (the cheapest candidate).
Candidates that read another graph family are left out (``auto`` is given one graph). Both
names resolve through :func:`ace_lab.registry.spec` without being listed in ``METHODS`` (as
``ace-fixed:<policy>`` is not); the registry hands :func:`resolve` its lookup, through which
``auto`` builds its candidates (the chooser imports no other method).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from ace_lab.bounded import Bounded, bounded
from ace_lab.chooser import ChooserModel, parse_lam
from ace_lab.chooser.method import AutoMethod
from ace_lab.config.settings import default_results_dir
from ace_lab.llm import LLM
from ace_lab.methods.base import Method
from ace_lab.methods.names import MethodName
from ace_lab.methods.plugin import Lookup
from ace_lab.methods.spec import MethodSpec
from ace_lab.retrieval import RetrievalGraph

HEAD = "auto"
FAMILY = "hierarchical"
#: The model file under ``results_dir``.
MODEL_FILE = Path("chooser") / "model.json"


@dataclass(frozen=True)
class ChooserConfig(Bounded):
    """What ``auto`` chooses with; part of its configuration hash, so a refitted model or
    another ``λ`` is another run identity."""

    model_sha256: str = bounded("", help="sha256 of the committed chooser model file")
    lam: str = bounded("", help="the cost weight of the name ('' = the model's own)")


def is_auto(head: str) -> bool:
    """Whether the chooser owns the name head ``head``."""
    return head == HEAD


def model_path(results_dir: Path | str | None = None) -> Path:
    """Where ``auto`` reads its fitted model: under ``results_dir`` when one is there, else
    the checkout's committed model."""
    committed = default_results_dir() / MODEL_FILE
    if results_dir is None:
        return committed
    local = Path(results_dir) / MODEL_FILE
    return local if local.is_file() else committed


def load_model(lookup: Lookup, path: Path | None = None) -> ChooserModel:
    """The committed chooser model, over the candidates ``auto``'s graph can run (``lookup``
    resolves a candidate's name to its spec)."""
    path = path or model_path()
    if not path.is_file():
        raise FileNotFoundError(
            f"no chooser model at {path}; run `python -m ace_lab.eval.reporting.chooser`"
        )
    model = ChooserModel.from_json(path.read_text(encoding="utf-8"))
    return model.restricted(m for m in model.methods if lookup(m).family == FAMILY)


def resolve(parts: MethodName, lookup: Lookup) -> MethodSpec:
    """The spec of ``auto`` or ``auto:<λ>``; ``lookup`` resolves its candidates' names."""
    name = str(parts)
    if parts.family or parts.policy:
        raise KeyError(f"{name!r}: the chooser's names are auto and auto:<λ per million>|inf")
    lam = parse_lam(parts.variant) if parts.variant else None

    def factory(graph: RetrievalGraph, llm: LLM) -> Method:
        path = model_path(llm.settings.results_dir)
        model = load_model(lookup, path)
        source = f"{path.name} ({', '.join(model.slices)})"
        return AutoMethod(name, model, lambda m: lookup(m).make(graph, llm), lam=lam, source=source)

    about = "picks a method per question from its wording (results/chooser/model.json)"
    if lam is not None:
        about += f", λ = {parts.variant} per million input tokens"
    committed = model_path()
    digest = hashlib.sha256(committed.read_bytes()).hexdigest() if committed.is_file() else ""
    config = ChooserConfig(model_sha256=digest, lam=parts.variant)
    return MethodSpec(name, FAMILY, factory, False, about, configs=(config,))
