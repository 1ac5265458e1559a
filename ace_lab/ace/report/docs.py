"""ACE's figures in the documentation, generated from the committed records.

Each is a :data:`~ace_lab.eval.reporting.docs_numbers.Figure` (results directory, marker arguments
-> text) that the docs updater adds to the generic ones, so a sentence such as "the router's labels
match the committed runs' topologies 38 of 40 times", "the 20 questions of each slice" or "16
worked examples" is computed, never typed.
"""

from __future__ import annotations

from pathlib import Path

from ace_lab.ace.report.routes import load_routes
from ace_lab.ace.router import ROUTER_PROMPTS, router_messages
from ace_lab.eval.reporting.docs_numbers import DocsError, Figure, study_records
from ace_lab.eval.reporting.tables import method_rows
from ace_lab.prompts import load_prompt


def route_agreement(results_dir: Path, prompt: str, method: str) -> tuple[int, int]:
    """(agreeing, compared): the questions of ``results/router/routes.json`` routed with
    ``prompt`` whose label equals the ``topology`` that ``method``'s committed records (the
    study named by the route's slice) hold for the same question. Slices without such a study
    are left out."""
    routes = load_routes(results_dir)
    if routes.empty:
        raise ValueError(f"no router measurement under {results_dir}")
    agree = compared = 0
    for study, group in routes[routes["prompt"] == prompt].groupby("slice", sort=False):
        if not (Path(results_dir) / str(study)).is_dir():
            continue
        records = method_rows(study_records(Path(results_dir), str(study)), method)
        topology = records.set_index("id")["topology"]
        shared = group[group["id"].isin(topology.index)]
        compared += len(shared)
        agree += int((shared["label"].to_numpy() == topology.loc[shared["id"]].to_numpy()).sum())
    return agree, compared


def route_agreement_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``route_agreement PROMPT METHOD``: ``k of n`` (:func:`route_agreement`)."""
    prompt, method = args
    agree, compared = route_agreement(results_dir, prompt, method)
    return f"{agree} of {compared}"


def route_questions_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``route_questions``: how many questions ``results/router/routes.json`` routed per slice
    and prompt, one number for all; a :class:`DocsError` where they differ, so "the 20 questions
    of each slice, with both prompts" cannot outlive a slice routed in part."""
    routes = load_routes(results_dir)
    if routes.empty:
        raise DocsError(f"no router measurement under {results_dir}")
    counts = routes.groupby(["slice", "prompt"], sort=False)["id"].nunique()
    if counts.nunique() != 1:
        raise DocsError(f"routes.json routed different numbers of questions: {counts.to_dict()}")
    return str(int(counts.iloc[0]))


def router_examples_figure(results_dir: Path, args: tuple[str, ...]) -> str:
    """``router_examples PROMPT``: how many worked examples the router prompt ``PROMPT``
    (``paper``, ``fewshot``) sends as earlier user/assistant turns
    (:func:`~ace_lab.ace.router.router_messages`, counted on the committed prompt file)."""
    (prompt,) = args
    if prompt not in ROUTER_PROMPTS:
        raise DocsError(f"no router prompt {prompt!r}; known: {sorted(ROUTER_PROMPTS)}")
    messages = router_messages(load_prompt(ROUTER_PROMPTS[prompt]), "?")
    return str(sum(m["role"] == "assistant" for m in messages))


#: ACE's figures, by marker kind.
FIGURES: dict[str, Figure] = {
    "route_agreement": route_agreement_figure,
    "route_questions": route_questions_figure,
    "router_examples": router_examples_figure,
}
