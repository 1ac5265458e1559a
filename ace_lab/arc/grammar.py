"""A llama.cpp GBNF grammar for ArcRAG's Cypher, written from the introspected ``S_G``.

Under it the model cannot name a label, relationship type or property the schema lacks, and a
Generator query must start from the bound anchors. The language is the read-only subset the
prompts ask for::

    MATCH (a:<anchor label>)[<hop>(b[:<label>])[<hop>(c[:<label>])[<hop>(d[:<label>])]]]
    [WHERE <pred> (AND <pred>)*]  RETURN [DISTINCT ]<item>(, <item>)*  [LIMIT n]

- the start node ``a`` carries a label (the store then seeks its per-label id index instead of
  scanning every node); a Generator query's ``WHERE`` starts with ``a.<key> IN $anchors``;
- a hop is ``-[r:T|U]->``, ``<-[r:T]-``, ``-[r]-`` (relationship variables ``r``, ``r2``, ``r3``,
  types from the enum or none) or an anonymous bounded path ``-[:T*1..k]->`` (k ≤ 3);
- predicates: ``x.<key>`` compared (``=``, ``<>``, ``CONTAINS``, ``STARTS WITH``, ``ENDS
  WITH``) with a literal, ``toLower(x.<key>)`` likewise, ``x.<key> IN ['..', ..]``,
  ``x.<key> IN $anchors``, ``x.<key> IS NOT NULL``, ``NOT x:<label>``, the schema's passage
  scope of a relationship (``$chunk_ids``, on chunk-backed graphs), and ``( .. OR .. )``;
- returned items: a variable, ``x.<key>`` or ``type(r)``.

With ``patterns`` (ArcRAG's ``patterns`` switch) a hop must also be one the graph holds: each
node's label is carried through the pattern, and a hop from a labelled node may only take a
relationship type, direction and far label among the ``(label, type, label)`` hops
introspection found (``StoreSchema.hops``), its first hop only one of those of the edges at the
bound anchors when they are given. A hop from an unlabelled node may take any hop, a
variable-length hop's far node any label, and a type alternation ``T|U`` is not offered.

Node keys come from the properties introspection saw on nodes, edge keys from those on edges.
Only variables a pattern binds can be used (one rule set per pattern shape). The reply is the
JSON the prompts ask for (``{"cypher": "..."}``, or the explorer's turn), so the parsing path
is the same with and without the grammar; string literals exclude ``"`` and ``\\``, which
would need JSON escapes. :class:`~ace_lab.arc.gbnf.Recognizer` decides membership (tests, and
replies from a server that did not apply the grammar).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ace_lab.arc.schema import StoreSchema, q

#: Most hops of one pattern, and longest anonymous variable-length hop.
MAX_HOPS = 3
#: The node variables in pattern order, and the relationship variable of each hop.
NODES = ("a", "b", "c", "d")
RELS = ("r", "r2", "r3")
#: Stands for the relationship variable in the schema's scope predicate.
_REL = "\x00"
#: Comparison operators between a property and a literal.
OPERATORS = ("=", "<>", "CONTAINS", "STARTS WITH", "ENDS WITH")

_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def literal(text: str) -> str:
    """``text`` as a GBNF double-quoted literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _names(names: Iterable[str]) -> str:
    """Alternatives naming each of ``names`` as a Cypher identifier: quoted, or bare where a
    bare identifier is valid."""
    forms: list[str] = []
    for name in dict.fromkeys(names):
        forms.append(literal(q(name)))
        if _PLAIN.fullmatch(name):
            forms.append(literal(name))
    return " | ".join(forms) if forms else '"`_`"'


@dataclass(frozen=True)
class CypherLanguage:
    """What the grammar lets a query name, read from ``S_G``."""

    anchor_labels: tuple[str, ...]
    labels: tuple[str, ...]
    rel_types: tuple[str, ...]
    node_keys: tuple[str, ...]
    edge_keys: tuple[str, ...]
    anchor_key: str | None  # the identifier key the anchors are values of (None: id())
    scope: str | None  # the passage scope of a relationship (None: not chunk-backed)
    anchored: bool = True
    parameters: bool = True  # False: Direct-Cypher, whose queries run with no $anchors bound
    patterns: tuple[tuple[str, str, str], ...] = ()  # hops the graph holds (): any hop
    anchor_patterns: tuple[tuple[str, str, str], ...] = ()  # ... at the anchors (first hop)

    @classmethod
    def of(
        cls,
        schema: StoreSchema,
        anchor_labels: Sequence[str] = (),
        *,
        anchored: bool = True,
        parameters: bool = True,
        patterns: bool = False,
        anchor_patterns: Sequence[tuple[str, str, str]] = (),
    ) -> CypherLanguage:
        """The language over ``schema``; ``anchor_labels`` narrows the start node's label to
        the labels of the bound anchors (default: every label but the passages');
        ``patterns``: hops only along the schema's signatures, and a first hop only along
        ``anchor_patterns`` (the signatures of the edges at the bound anchors) when given."""
        labels = tuple(name for name, _ in schema.labels if name)
        entity = tuple(name for name in labels if name != schema.passage_label) or labels
        starts = tuple(name for name in anchor_labels if name in labels) or entity
        node_keys = sorted({k for keys in schema.node_keys.values() for k in keys})
        edge_keys = sorted({k for keys in schema.edge_keys.values() for k in keys})
        return cls(
            anchor_labels=starts,
            labels=labels,
            rel_types=tuple(name for name, _ in schema.rel_types if name),
            node_keys=tuple(node_keys or schema.property_keys),
            edge_keys=tuple(edge_keys or schema.property_keys),
            anchor_key=schema.key,
            scope=schema.scope(_REL) if schema.chunk_backed and parameters else None,
            anchored=anchored,
            parameters=parameters,
            patterns=tuple(h for h in schema.hops if {h[0], h[2]} <= set(labels))
            if patterns
            else (),
            anchor_patterns=tuple(anchor_patterns) if patterns else (),
        )

    def scope_of(self, rel: str) -> str | None:
        return None if self.scope is None else self.scope.replace(_REL, rel)


def _shapes() -> list[tuple[bool, ...]]:
    """Every pattern shape: per hop (none: the start node alone, at most :data:`MAX_HOPS`)
    whether it binds a relationship variable (an anonymous hop is a bounded variable-length
    path)."""
    return [
        named
        for hops in range(MAX_HOPS + 1)
        for named in itertools.product((True, False), repeat=hops)
    ]


def _tag(named: tuple[bool, ...]) -> str:
    return str(len(named)) + "".join("n" if n else "v" for n in named)


def _shape_rules(lang: CypherLanguage, named: tuple[bool, ...]) -> list[str]:
    """The rules of the query's rest after a path of shape ``named``: its ``WHERE`` and
    ``RETURN`` over the variables bound so far, or one more hop. Shapes share their prefixes
    (a trie), so a sampler tracks few alternatives at a time."""
    tag, hops = _tag(named), len(named)
    nodes = NODES[: hops + 1]
    rels = [RELS[i] for i in range(hops) if named[i]]
    preds = [f"pred-{v}" for v in nodes] + [f"pred-{r}" for r in rels]
    items = [f"item-{v}" for v in nodes] + [f"item-{r}" for r in rels]
    if lang.anchored:
        where = f'" WHERE " anchor (" AND " p-{tag})*'
    else:
        where = f'(" WHERE " p-{tag} (" AND " p-{tag})*)?'
    rest = [f'{where} " RETURN " ("DISTINCT ")? i-{tag} (", " i-{tag})* limit?']
    rules = [
        f"p-{tag} ::= " + " | ".join(preds) + f' | "(" p-{tag} (" OR " p-{tag})+ ")"',
        f"i-{tag} ::= " + " | ".join(items),
    ]
    if lang.patterns:
        return [*rules, f"e-{tag} ::= {rest[0]}", *_pattern_states(lang, named)]
    if hops < MAX_HOPS:
        node = f'"({NODES[hops + 1]}" (":" label)? ")"'
        rest.append(f"hop-{RELS[hops]} {node} s-{_tag((*named, True))}")
        rest.append(f"hop-var {node} s-{_tag((*named, False))}")
    return [f"s-{tag} ::= " + " | ".join(rest), *rules]


#: The state of a pattern whose last node carries no label (any hop the graph holds follows).
_UNLABELLED = "x"


def _states(lang: CypherLanguage) -> dict[str, str | None]:
    """Pattern states: the last node's label (its index in ``lang.labels``), or none."""
    return {**{str(i): label for i, label in enumerate(lang.labels)}, _UNLABELLED: None}


def _hop_types(
    patterns: Sequence[tuple[str, str, str]],
    rel_types: Sequence[str],
    near: str | None,
    far: str | None,
) -> dict[str, list[str]]:
    """The relationship types (``ty-<j>``) ``patterns`` hold from a node labelled ``near`` to
    one labelled ``far`` (``o``), from ``far`` to ``near`` (``i``) and either way (``u``); None:
    any label. An empty list: no such hop."""

    def held(src: str | None, dst: str | None) -> set[str]:
        return {t for a, t, b in patterns if src in (None, a) and dst in (None, b)}

    ahead, behind = held(near, far), held(far, near)
    ways = {"o": ahead, "i": behind, "u": ahead | behind}
    return {w: [f"ty-{j}" for j, t in enumerate(rel_types) if t in ts] for w, ts in ways.items()}


#: How each way of a hop is written: its opening before the variable, its closing.
_WAYS = {"o": ("-[", "]->"), "i": ("<-[", "]-"), "u": ("-[", "]-")}


def _hop_sets(lang: CypherLanguage, hop: int) -> tuple[str, tuple[tuple[str, str, str], ...]]:
    """The rule prefix and the signatures of hop number ``hop``: the anchors' own for the
    first hop when they are known, else the graph's."""
    if hop == 0 and lang.anchor_patterns:
        return "a", lang.anchor_patterns
    return "", lang.patterns


def _pattern_rules(lang: CypherLanguage) -> list[str]:
    """The names (``lb-<i>``, ``ty-<j>``) and the hops the signatures hold between states: the
    typed tail ``d-<near>-<far>-<way>`` (``(":" T)? "]->"``) once, the hop ``t-<rel>-<near>-<far>``
    with each relationship variable (``ad-``, ``at-``: the first hop along the anchors' own)."""
    rules = [f"lb-{i} ::= {_names([label])}" for i, label in enumerate(lang.labels)]
    rules += [f"ty-{j} ::= {_names([t])}" for j, t in enumerate(lang.rel_types)]
    states = _states(lang)
    # the graph's hops, then the anchors' own (once when they are the same): a set would order
    # the rules by string hash, so one grammar would differ between processes and miss the cache
    sets = dict.fromkeys([_hop_sets(lang, 1), _hop_sets(lang, 0)])
    for prefix, patterns in sets:
        rels = RELS[:1] if prefix else RELS
        for near, near_label in states.items():
            for far, far_label in states.items():
                types = _hop_types(patterns, lang.rel_types, near_label, far_label)
                ways = {w: ts for w, ts in types.items() if ts}
                for way, held in ways.items():
                    tail = f'(":" ({" | ".join(held)}))? "{_WAYS[way][1]}"'
                    rules.append(f"{prefix}d-{near}-{far}-{way} ::= {tail}")
                for rel in rels if ways else ():
                    forms = [f'"{_WAYS[w][0]}{rel}" {prefix}d-{near}-{far}-{w}' for w in ways]
                    rules.append(f"{prefix}t-{rel}-{near}-{far} ::= " + " | ".join(forms))
    return rules


def _pattern_states(lang: CypherLanguage, named: tuple[bool, ...]) -> list[str]:
    """``s-<shape>-<state>`` for each state of the last node: the query's ``WHERE``/``RETURN``
    (``e-<shape>``) or one more hop the graph holds from it, then the far node
    (``f-<shape>-<state>``: ``:<label>)`` or ``)``, going on in that label's state)."""
    tag, hops = _tag(named), len(named)
    rules = []
    for state, label in _states(lang).items():
        options = [f"e-{tag}"]
        if hops < MAX_HOPS:
            var, rel, ahead = NODES[hops + 1], RELS[hops], _tag((*named, True))
            prefix, patterns = _hop_sets(lang, hops)
            for far, far_label in _states(lang).items():
                if any(_hop_types(patterns, lang.rel_types, label, far_label).values()):
                    options.append(f'{prefix}t-{rel}-{state}-{far} "({var}" f-{ahead}-{far}')
            options.append(f"v-{tag}")
        rules.append(f"s-{tag}-{state} ::= " + " | ".join(options))
        colon = "" if label is None else f'":" lb-{state} '
        rules.append(f'f-{tag}-{state} ::= {colon}")" s-{tag}-{state}')
    if hops < MAX_HOPS:  # a variable-length hop: its far node may carry any label
        far = " | ".join(f"f-{_tag((*named, False))}-{state}" for state in _states(lang))
        rules.append(f'v-{tag} ::= hop-var "({NODES[hops + 1]}" ({far})')
    return rules


def _variable_rules(lang: CypherLanguage) -> list[str]:
    rules = []
    for v in NODES:
        prop = f'"{v}." nkey'
        bound = ' | "$anchors"' if lang.parameters else ""
        rules.append(
            f"pred-{v} ::= {prop} compare | "
            f'"toLower(" {prop} ")" textcompare | '
            f'{prop} " IN " (strlist{bound}) | {prop} " IS NOT NULL" | '
            f'"NOT {v}:" label'
        )
        rules.append(f'item-{v} ::= "{v}" | {prop}')
    for r in RELS:
        prop = f'"{r}." ekey'
        scope = lang.scope_of(r)
        extra = f" | {literal(scope)}" if scope else ""
        rules.append(
            f'pred-{r} ::= {prop} compare | "toLower(" {prop} ")" textcompare | '
            f'{prop} " IN " strlist | {prop} " IS NOT NULL"{extra}'
        )
        rules.append(f'item-{r} ::= "{r}" | {prop} | "type({r})"')
        rules.append(
            f'hop-{r} ::= "-[{r}" reltypes? "]->" | "<-[{r}" reltypes? "]-" | '
            f'"-[{r}" reltypes? "]-"'
        )
    return rules


def cypher_rules(lang: CypherLanguage) -> list[str]:
    """The rules of the query language, start rule ``query`` (no reply wrapper)."""
    if lang.patterns:
        states = [lang.labels.index(label) for label in lang.anchor_labels]
        starts = [f'lb-{i} ")" s-0-{i}' for i in states]
        rules = ['query ::= "MATCH (a:" (' + " | ".join(starts) + ")", *_pattern_rules(lang)]
    else:
        rules = ['query ::= "MATCH (a:" alabel ")" s-0']
    for named in _shapes():
        rules += _shape_rules(lang, named)
    rules += _variable_rules(lang)
    rules += [
        'anchor ::= "a." akey " IN $anchors"'
        if lang.anchor_key
        else 'anchor ::= "id(a) IN $anchors"',
        f"akey ::= {_names([lang.anchor_key] if lang.anchor_key else [])}",
        f"alabel ::= {_names(lang.anchor_labels)}",
        f"label ::= {_names(lang.labels)}",
        f"reltype ::= {_names(lang.rel_types)}",
        f"nkey ::= {_names(lang.node_keys)}",
        f"ekey ::= {_names(lang.edge_keys)}",
        'reltypes ::= ":" reltype ("|" reltype)*',
        f'hop-var ::= "-[" reltypes? "*1..{MAX_HOPS - 1}]->" | "<-[" reltypes? '
        f'"*1..{MAX_HOPS - 1}]-" | "-[" reltypes? "*1..{MAX_HOPS - 1}]-"',
        "compare ::= " + " | ".join(f'" {op} " value' for op in OPERATORS),
        "textcompare ::= " + " | ".join(f'" {op} " str' for op in OPERATORS),
        'strlist ::= "[" str (", " str)* "]"',
        "value ::= str | number",
        'str ::= "\'" strchar* "\'"',
        "strchar ::= [^'\"\\\\\\n]",
        'number ::= "-"? [0-9]+ ("." [0-9]+)?',
        'limit ::= " LIMIT " [1-9] [0-9]? [0-9]?',
    ]
    return rules


#: The reply wrappers: the Generator's ``{"cypher": ...}`` and the explorer's turn.
_CYPHER_REPLY = 'root ::= "{\\"cypher\\": \\"" query "\\"}"'
_EXPLORER_REPLY = [
    'root ::= "{\\"queries\\": [" queries "], \\"descriptors\\": [" strings "], '
    '\\"aliases\\": [" aliases "], \\"notes\\": " jstr ", \\"done\\": " ("true" | "false") "}"',
    'queries ::= (jquery (", " jquery (", " jquery (", " jquery)?)?)?)?',
    'jquery ::= "\\"" query "\\""',
    'strings ::= (jstr (", " jstr)*)?',
    'aliases ::= ("[" strings "]" (", [" strings "]")*)?',
    'jstr ::= "\\"" jchar* "\\""',
    'jchar ::= [^"\\\\\\n] | "\\\\" ["\\\\/nt]',
]


def cypher_grammar(
    schema: StoreSchema,
    anchor_labels: Sequence[str] = (),
    *,
    anchored: bool = True,
    parameters: bool = True,
    patterns: bool = False,
    anchor_patterns: Sequence[tuple[str, str, str]] = (),
) -> str:
    """The GBNF of a Generator reply ``{"cypher": "<query>"}`` over ``schema``."""
    lang = CypherLanguage.of(
        schema,
        anchor_labels,
        anchored=anchored,
        parameters=parameters,
        patterns=patterns,
        anchor_patterns=anchor_patterns,
    )
    return "\n".join([_CYPHER_REPLY, *cypher_rules(lang)]) + "\n"


def explorer_grammar(
    schema: StoreSchema, anchor_labels: Sequence[str] = (), *, patterns: bool = False
) -> str:
    """The GBNF of an explorer turn (up to four queries, not bound to start at the anchors:
    an explorer also looks for aliases by name)."""
    lang = CypherLanguage.of(schema, anchor_labels, anchored=False, patterns=patterns)
    return "\n".join([*_EXPLORER_REPLY, *cypher_rules(lang)]) + "\n"


def query_grammar(schema: StoreSchema, anchor_labels: Sequence[str] = (), **kw: Any) -> str:
    """The GBNF of a bare query (start rule ``root``), for checking one query's text."""
    lang = CypherLanguage.of(schema, anchor_labels, **kw)
    return "\n".join(["root ::= query", *cypher_rules(lang)]) + "\n"
