"""The README and docs/: short README, working links, and every result number generated.

The documents of :data:`ace_lab.cli_commands.docs.DOCUMENTS` carry generated parts
(:mod:`ace_lab.eval.reporting.docs_numbers`); each is recomputed here from the committed records
and must read exactly what the document says (``ace-lab docs`` rewrites them). The README and
``docs/results.md`` may hold no other number, except the phrases of :data:`NOT_RESULTS`.
"""

from __future__ import annotations

import re

import pytest

from ace_lab.cli_commands.docs import DOCUMENTS, figures
from ace_lab.eval.reporting.docs_numbers import loose_numbers, parts, stale_parts
from tests.support.paths import REPO

#: Documents that may hold no hand-typed number.
STRICT = (
    "README.md",
    "docs/results.md",
    "results/ultradomain_mix-n8-s0/README.md",
    "results/hotpotqa_dev_sample200-n20-s0/README.md",
    "results/hotpotqa_dev_sample200-n20-s0-cold/README.md",
    "results/musique_dev_sample292-n10-s0/README.md",
    "results/router_qfs/README.md",
    "results/2wikimultihopqa_hipporag1000-n20-s0/README.md",
    "results/graphragbench_medical-n20-s0/README.md",
    "results/graphragbench_novel-n20-s0/README.md",
    "results/router/README.md",
)
#: Phrases whose numbers are names, settings or the paper's table numbers, not results.
NOT_RESULTS = (
    r"[Nn]otebooks?\s\d\d(?:['’]s)?(?:(?: and |–)\d\d)?",  # notebook names (06–08: a range)
    r"section \d",  # a notebook's section
    r"Table \d+",  # the paper's tables
    r"95 %",  # the confidence level of every interval
    r"the paper: [^;)]*",  # the paper's figures, quoted beside ours
    r"\d-core",  # the machine the defaults are sized for
    r"includes 0|excludes it",  # a paired interval against zero
    r"\(2 for a\s+usage error\)",  # an exit status
    r"power 0\.8|difference of 0\.05|p below 0\.05|minus 0\.05|interval above 0",  # test settings
    r"slice n = \d+ \(seed \d+\)",  # a study's name
    r"the paper's \d+-document",  # the paper's data set
    r"near 0\.5",  # a win rate's no-preference value
)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#([^)\s]+))?\)")


def _text(name: str) -> str:
    return (REPO / name).read_text(encoding="utf-8")


def _slug(heading: str) -> str:
    """GitHub's anchor for a markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_the_readme_is_short_and_keeps_the_test_command():
    readme = _text("README.md")
    assert len(readme.splitlines()) <= 150
    # .ci/run runs "the README's test command": the line must stay findable as `make test`.
    assert re.search(r"^make test\b", readme, re.M)
    assert "make reproduce" in readme


@pytest.mark.parametrize("name", DOCUMENTS)
def test_every_generated_number_agrees_with_the_records(name):
    text = _text(name)
    assert parts(text), f"{name} has no generated part"
    stale = stale_parts(text, figures(), REPO / "results")
    assert not stale, f"{name} disagrees with the records (run `ace-lab docs`):\n" + "\n".join(
        stale
    )


@pytest.mark.parametrize("name", STRICT)
def test_no_hand_typed_numbers(name):
    loose = loose_numbers(_text(name), NOT_RESULTS)
    assert not loose, (
        f"{name} has numbers outside generated parts; generate them "
        "(ace_lab.eval.reporting.docs_numbers) or, if not a result, add the phrase to "
        "NOT_RESULTS:\n" + "\n".join(loose)
    )


def test_the_router_readme_states_the_agreement_the_records_give():
    text = _text("results/router/README.md")
    assert "40 of 40<!-- route_agreement paper" not in text
    assert any(key == "route_agreement paper ace-adaptive" for key, _ in parts(text))


@pytest.mark.parametrize(
    "name", ["README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "docs").glob("*.md"))]
)
def test_relative_links_resolve(name):
    path = REPO / name
    broken = []
    for target, anchor in LINK.findall(path.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        linked = (path.parent / target).resolve()
        if not linked.exists():
            broken.append(target)
        elif anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.M)
            if anchor not in {_slug(h) for h in headings}:
                broken.append(f"{target}#{anchor}")
    assert not broken, f"{name} links to what does not exist: {broken}"


def test_the_docs_the_readme_promises_exist():
    for page in ("llm-and-serving", "data", "graphs", "methods", "evaluation", "results"):
        assert (REPO / "docs" / f"{page}.md").is_file()
    for page in ("reliability", "scaling", "your_corpus", "layout"):
        assert (REPO / "docs" / f"{page}.md").is_file()
