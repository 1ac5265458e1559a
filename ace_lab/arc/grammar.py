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

    @classmethod
    def of(
        cls,
        schema: StoreSchema,
        anchor_labels: Sequence[str] = (),
        *,
        anchored: bool = True,
        parameters: bool = True,
    ) -> CypherLanguage:
        """The language over ``schema``; ``anchor_labels`` narrows the start node's label to
        the labels of the bound anchors (default: every label but the passages')."""
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
    if hops < MAX_HOPS:
        node = f'"({NODES[hops + 1]}" (":" label)? ")"'
        rest.append(f"hop-{RELS[hops]} {node} s-{_tag((*named, True))}")
        rest.append(f"hop-var {node} s-{_tag((*named, False))}")
    return [
        f"s-{tag} ::= " + " | ".join(rest),
        f"p-{tag} ::= " + " | ".join(preds) + f' | "(" p-{tag} (" OR " p-{tag})+ ")"',
        f"i-{tag} ::= " + " | ".join(items),
    ]


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
) -> str:
    """The GBNF of a Generator reply ``{"cypher": "<query>"}`` over ``schema``."""
    lang = CypherLanguage.of(schema, anchor_labels, anchored=anchored, parameters=parameters)
    return "\n".join([_CYPHER_REPLY, *cypher_rules(lang)]) + "\n"


def explorer_grammar(schema: StoreSchema, anchor_labels: Sequence[str] = ()) -> str:
    """The GBNF of an explorer turn (up to four queries, not bound to start at the anchors:
    an explorer also looks for aliases by name)."""
    lang = CypherLanguage.of(schema, anchor_labels, anchored=False)
    return "\n".join([*_EXPLORER_REPLY, *cypher_rules(lang)]) + "\n"


def query_grammar(schema: StoreSchema, anchor_labels: Sequence[str] = (), **kw: bool) -> str:
    """The GBNF of a bare query (start rule ``root``), for checking one query's text."""
    lang = CypherLanguage.of(schema, anchor_labels, **kw)
    return "\n".join(["root ::= query", *cypher_rules(lang)]) + "\n"
