"""ace_lab.eval.metrics.facts: a question's supporting facts (HotpotQA sentences, 2Wiki triples,
MuSiQue hops) and the share of them a hand-made context holds."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from ace_lab.eval.metrics.facts import (
    Fact,
    hotpot_sentences,
    question_facts,
    supporting_fact_recall,
)


@dataclass(frozen=True)
class P:
    """A passage as the slice has it: a title and its sentences joined as they are."""

    title: str
    text: str


LANTERN = P(
    "Brinemouth Lantern",
    "The Brinemouth Lantern is a lighthouse built in 1942. It was designed by J. R. Hale for "
    "the U.S. Navy. Its keeper, Dr. Ada Voss, lived there until 1960.",
)
VOSS = P("Ada Voss", "Ada Voss (born 1901) was a keeper. She wrote three books on art.")
HOTPOT = {
    "supporting_facts": [["Brinemouth Lantern", 2], ["Ada Voss", 1]],
    "supporting_titles": ["Brinemouth Lantern", "Ada Voss"],
}
IDS = ("pL", "pV")
PASSAGES = {"pL": LANTERN, "pV": VOSS}


def test_hotpot_sentences_cut_at_sentence_ends_but_not_after_initials_or_abbreviations():
    assert hotpot_sentences(LANTERN.text) == [
        "The Brinemouth Lantern is a lighthouse built in 1942.",
        "It was designed by J. R. Hale for the U.S. Navy.",
        "Its keeper, Dr. Ada Voss, lived there until 1960.",
    ]
    assert hotpot_sentences('He said "Go." Then he left! "Why?" she asked.') == [
        'He said "Go."',
        "Then he left!",
        '"Why?" she asked.',
    ]
    assert hotpot_sentences("") == []


def test_a_hotpot_sentence_is_found_by_its_text_or_by_its_whole_passage():
    facts = question_facts(HOTPOT, IDS, PASSAGES)
    assert facts == [
        Fact(("Its keeper, Dr. Ada Voss, lived there until 1960.",), "pL"),
        Fact(("She wrote three books on art.",), "pV"),
    ]
    # the sentence's text, quoted anywhere (punctuation and case do not matter)
    quoted = "- its keeper dr ada voss lived there until 1960\n- Voss: a keeper."
    assert supporting_fact_recall(facts, quoted, ["ent:voss"]) == 0.5
    # the passage whole in the context finds its sentence whatever the text shows
    assert supporting_fact_recall(facts, "", ["pL", "pV"]) == 1.0
    # a chunk of the passage is not the whole passage: its text must hold the sentence
    assert supporting_fact_recall(facts, "It was designed by J. R. Hale.", ["pL#0"]) == 0.0
    # without passage texts only the passage counts (titles map to the supporting ids)
    bare = question_facts(HOTPOT, IDS)
    assert bare == [Fact((), "pL"), Fact((), "pV")]
    assert supporting_fact_recall(bare, quoted, ["pV"]) == 0.5


def test_a_hotpot_sentence_must_occur_as_whole_words():
    facts = question_facts({**HOTPOT, "supporting_facts": [["Ada Voss", 1]]}, IDS, PASSAGES)
    assert supporting_fact_recall(facts, "She wrote three books on artistry.", []) == 0.0
    assert supporting_fact_recall(facts, "Ada: she wrote three books on art!", []) == 1.0


def test_hotpot_facts_out_of_range_or_with_an_unknown_title():
    # an index past the recovered sentences: only the passage can find it
    facts = question_facts({**HOTPOT, "supporting_facts": [["Ada Voss", 9]]}, IDS, PASSAGES)
    assert facts == [Fact((), "pV")]
    unknown = {"supporting_facts": [["Nowhere", 0]], "supporting_titles": ["Nowhere"]}
    assert question_facts(unknown, (), PASSAGES) is None  # no passage id to resolve it to
    # the titles come from the passages when extra has no aligned supporting_titles
    titles_from_passages = question_facts({"supporting_facts": [["Ada Voss", 0]]}, IDS, PASSAGES)
    assert titles_from_passages == [Fact(("Ada Voss (born 1901) was a keeper.",), "pV")]


TRIPLES = {
    "evidence_triples": [
        ["The Glass Boat", "director", "Constantin J. David"],
        ["Constantin J. David", "spouse", "Käthe von Nagy"],
    ]
}


def test_a_2wiki_triple_needs_its_subject_and_its_object_as_whole_words():
    facts = question_facts(TRIPLES)
    both = "The Glass Boat (1927) was directed by Constantin J. David."
    assert supporting_fact_recall(facts, both, []) == 0.5
    # the two need not share a sentence, but each must be there
    assert supporting_fact_recall(facts, both + " His wife was Käthe.", []) == 0.5
    full = both + "\nConstantin J David's wife: Käthe von Nagy"
    assert supporting_fact_recall(facts, full, []) == 1.0
    # the subject only inside a longer word does not count
    assert supporting_fact_recall(facts, "The Glass Boats by Constantin J. David", []) == 0.0


MUSIQUE = {
    "question_decomposition": [
        {"question": "Lovin' All Night >> performer", "answer": "Rodney Crowell"},
        {"question": "#1 >> record label", "answer": "Warner Bros. Records"},
        {"question": "who is the owner of #2", "answer": "Warner Music Group"},
    ]
}


def test_musique_hops_are_subject_and_answer_with_earlier_answers_substituted():
    facts = question_facts(MUSIQUE)
    assert facts == [
        Fact(("Lovin' All Night", "Rodney Crowell")),
        Fact(("Rodney Crowell", "Warner Bros. Records")),
        Fact(("Warner Music Group",)),
    ]
    text = "Lovin' All Night is a song by Rodney Crowell. Warner Music Group owns labels."
    assert supporting_fact_recall(facts, text, []) == pytest.approx(2 / 3)
    # a hop's answer only inside another word is not found
    assert supporting_fact_recall(facts, "Warner Music Groupie", []) == 0.0


def test_data_sets_without_facts_have_no_recall():
    assert question_facts({}) is None
    assert question_facts({"evidence": "a statement."}) is None  # GraphRAG-Bench
    assert question_facts({"evidence_triples": [["only", "two"]]}) is None  # malformed
    assert supporting_fact_recall(None, "anything", []) is None
    assert supporting_fact_recall([], "anything", []) is None
