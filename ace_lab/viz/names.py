"""Display names: the one table from method and data-set ids to the names a figure shows.

Ids stay the keys of every record and table; only what a reader sees goes through here, so a
method is written the same way in every figure, legend and view title (``ace-full`` is
"Full-ACE" everywhere). A method id follows the registry's grammar
``head[:variant][@family][>policy]`` and is rendered part by part:

- the head from :data:`METHOD_NAMES` (``arcrag-explorer`` → "ArcRAG Explorer");
- the variant's ``+``-joined tokens in brackets, each through :data:`VARIANT_WORDS` or a
  :data:`VARIANT_PATTERNS` rule (``ace-full:b600`` → "Full-ACE (B=600)",
  ``arcrag:strict+grammar+patterns+r1p1`` → "ArcRAG (strict+grammar+patterns+r1p1)");
- the graph family or backbone after "on" (``arcrag@openie`` → "ArcRAG on OpenIE");
- a ``>`` composition as an arrow (``mosaic>ace-full`` → "MOSAIC → Full-ACE"), a fixed policy
  in brackets (``mosaic>narrow`` → "MOSAIC (narrow)").

Anything that is not an id of the table (a row label such as "Overall") comes back unchanged.
This is a table of strings: it imports no method package (``tests/project/test_architecture.py``).
"""

from __future__ import annotations

import re

#: Method heads → display names.
METHOD_NAMES: dict[str, str] = {
    "naive": "NaiveRAG",
    "hirag": "HiRAG",
    "hirag-local": "HiRAG (local)",
    "hirag-global": "HiRAG (global)",
    "hirag-json": "HiRAG (JSON)",
    "graphrag": "GraphRAG",
    "lightrag": "LightRAG",
    "lightrag-local": "LightRAG (local)",
    "lightrag-global": "LightRAG (global)",
    "hipporag": "HippoRAG",
    "ace": "ACE",
    "ace-full": "Full-ACE",
    "ace-adaptive": "Adaptive-ACE",
    "ace-adaptive-fewshot": "Adaptive-ACE (few-shot)",
    "ace-fixed": "Fixed-ACE",
    "ace-fixed-multires": "Fixed-ACE (multi-res.)",
    "ace-generic-prompt": "Full-ACE (generic prompt)",
    "ace-wo-breadth": "Full-ACE w/o breadth",
    "ace-wo-depth": "Full-ACE w/o depth",
    "ace-wo-gap": "Full-ACE w/o gap",
    "ace-wo-pruning": "Full-ACE w/o pruning",
    "ace-wo-semantic-pruning": "Full-ACE w/o sem. pruning",
    "ace-wo-report-drop": "Full-ACE w/o report drop",
    "arcrag": "ArcRAG",
    "arcrag-explorer": "ArcRAG Explorer",
    "arcrag-generator": "ArcRAG Generator",
    "direct-cypher": "Direct-Cypher",
    "mosaic": "MOSAIC",
    "mosaic-fixed": "MOSAIC-fixed",
    "mosaic-budget-matched": "MOSAIC (budget-matched)",
    "auto": "Auto",
}
#: Variant tokens written as words (the rest are kept as written: ``gap``, ``narrow``, …).
VARIANT_WORDS: dict[str, str] = {
    "fewshot": "few-shot",
    "multires": "multi-res.",
}
#: Variant tokens that follow a rule: (pattern, replacement) — ACE's adaptation budget
#: ``b600`` → "B=600"; ArcRAG's retries-and-passes budget ``r1p1`` stays as written.
VARIANT_PATTERNS: tuple[tuple[str, str], ...] = ((r"b(\d+)", r"B=\1"),)
#: Graph families and backbones after ``@``.
FAMILY_NAMES: dict[str, str] = {
    "typed": "typed graph",
    "openie": "OpenIE",
    "openie-bare": "bare OpenIE",
    "hierarchical": "hierarchical graph",
    **{head: METHOD_NAMES[head] for head in ("hirag", "graphrag", "lightrag", "hipporag")},
}
#: Data sets → display names (a slice id ``<data set>-n20-s0`` takes its data set's name).
DATASET_NAMES: dict[str, str] = {
    "hotpotqa_dev_sample200": "HotpotQA",
    "hotpotqa_train_sample100_hipporag": "HotpotQA (train)",
    "2wikimultihopqa_hipporag1000": "2Wiki",
    "musique_dev_sample292": "MuSiQue",
    "musique_train_sample100_hipporag": "MuSiQue (train)",
    "graphragbench_medical": "GraphRAG-Bench Medical",
    "graphragbench_novel": "GraphRAG-Bench Novel",
    "hotpotqa_train_sample100_hipporag_pooled": "HotpotQA (pooled)",
    "musique_train_sample100_hipporag_pooled": "MuSiQue (pooled)",
    "graphragbench_medical_pooled": "GraphRAG-Bench Medical (pooled)",
    "ultradomain_mix": "UltraDomain",
    "multihoprag_small20": "MultiHop-RAG",
    "msgraphrag_podcast": "Podcast transcripts",
    "msgraphrag_msft_transcripts": "MSFT transcripts",
    "toy": "Toy corpus",
    "toy_mixed": "Toy corpus (mixed)",
}
#: A slice id: data set, ``-n<size>-s<seed>``, then an optional run label (``-cold``).
_SLICE = re.compile(r"(?P<dataset>.+?)-n\d+-s\d+(?:-(?P<label>[a-z0-9-]+))?")
_NAME = re.compile(
    r"(?P<head>[a-z][a-z0-9]*(?:-[a-z0-9]+)*)(?::(?P<variant>[a-z0-9][a-z0-9+]*))?"
    r"(?:@(?P<family>[a-z]+(?:-[a-z]+)*))?(?:>(?P<policy>.+))?"
)


def _variant(variant: str) -> str:
    words = []
    for token in variant.split("+"):
        word = VARIANT_WORDS.get(token, token)
        for pattern, replacement in VARIANT_PATTERNS:
            word = re.sub(rf"^{pattern}$", replacement, word)
        words.append(word)
    return "+".join(words)


def display_name(method_id: str) -> str:
    """The name a figure shows for ``method_id`` (ids not in the table come back unchanged)."""
    match = _NAME.fullmatch(method_id)
    if match is None or match["head"] not in METHOD_NAMES:
        return method_id
    head, variant, family, policy = match.group("head", "variant", "family", "policy")
    text = METHOD_NAMES[head]
    if variant and text.endswith(")"):  # one bracket: "MOSAIC (budget-matched, 12x2)"
        text = f"{text[:-1]}, {_variant(variant)})"
    elif variant:
        text += f" ({_variant(variant)})"
    if family:
        text += f" on {FAMILY_NAMES.get(family, family)}"
    if policy:
        composed = display_name(policy)
        text += f" → {composed}" if composed != policy else f" ({_variant(policy)})"
    return text


def dataset_name(dataset_or_slice_id: str) -> str:
    """The name a figure shows for a data set or a slice id (``hotpotqa_dev_sample200-n20-s0``
    → "HotpotQA"; a run label after the slice goes in brackets: ``…-s0-cold`` → "HotpotQA
    (cold)"); ids not in the table come back unchanged."""
    if dataset_or_slice_id in DATASET_NAMES:
        return DATASET_NAMES[dataset_or_slice_id]
    match = _SLICE.fullmatch(dataset_or_slice_id)
    if match is None or match["dataset"] not in DATASET_NAMES:
        return dataset_or_slice_id
    name = DATASET_NAMES[match["dataset"]]
    return f"{name} ({match['label']})" if match["label"] else name


def family_name(family: str) -> str:
    """A graph family (or ACE backbone) as a noun a title can use: ``openie`` → "OpenIE
    graph", ``typed`` → "typed graph", ``hirag`` → "HiRAG graph"; unknown ids unchanged."""
    if family not in FAMILY_NAMES:
        return family
    name = FAMILY_NAMES[family]
    return name if name.endswith("graph") else f"{name} graph"
