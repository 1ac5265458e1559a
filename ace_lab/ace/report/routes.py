"""The router measured alone: tables over ``results/router/routes.json``.

``bench/router_accuracy.py`` routes every question of the default slices with each router
prompt (router calls only) and writes one record per question and prompt to
``results/router/routes.json``; these functions turn the records into the tables it commits
(``confusion.md``) and notebook 08 shows: accuracy under the proxy mapping of
:data:`ace_lab.ace.analysis.PROXY_TOPOLOGY` with a 95% bootstrap interval, the labels each
prompt gave, the paired difference between two prompts on the same questions, and the question
type × label confusion.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from ace_lab.ace.analysis import router_accuracy, router_confusion, router_hits
from ace_lab.ace.policy import TOPOLOGIES
from ace_lab.eval.statistics import paired_bootstrap, permutation_test
from ace_lab.eval.statistics.proportions import mean_interval

#: Where the router measurement lives under a results directory.
ROUTES_FILE = Path("router") / "routes.json"


def load_routes(results_dir: Path) -> pd.DataFrame:
    """``<results_dir>/router/routes.json`` as a frame; empty when it has not been made."""
    path = Path(results_dir) / ROUTES_FILE
    return read_routes(path) if path.is_file() else pd.DataFrame()


def read_routes(path: Path) -> pd.DataFrame:
    """The records ``bench/router_accuracy.py`` saved to ``routes.json``."""
    return pd.DataFrame(json.loads(Path(path).read_text(encoding="utf-8")))


def confusion_table(routes: pd.DataFrame) -> pd.DataFrame:
    """Question type × label counts, one block per (data set, prompt), in ``routes`` order."""
    blocks = []
    for (dataset, prompt), group in routes.groupby(["dataset", "prompt"], sort=False):
        table = router_confusion(group["type"], group["label"])
        table.insert(0, "prompt", prompt)
        table.insert(0, "dataset", dataset)
        blocks.append(table)
    return pd.concat(blocks, ignore_index=True).fillna(0) if blocks else pd.DataFrame()


def label_table(routes: pd.DataFrame) -> pd.DataFrame:
    """How many questions each prompt routed to each topology, per data set (the only reading
    of a slice whose questions have no type, such as query-focused summaries)."""
    rows = []
    for (dataset, prompt), group in routes.groupby(["dataset", "prompt"], sort=False):
        counts = group["label"].value_counts()
        labels = {t: int(counts.get(t, 0)) for t in TOPOLOGIES}
        fallbacks = int(group["fallback"].sum())
        rows.append(
            {"dataset": dataset, "prompt": prompt, "n": len(group), **labels}
            | {"fallbacks": fallbacks}
        )
    return pd.DataFrame(rows)


def accuracy_table(routes: pd.DataFrame) -> pd.DataFrame:
    """Accuracy under the proxy mapping per (data set, prompt), with a 95% Wilson interval
    and the number of distinct labels, plus each prompt over all data sets."""
    groups = [
        ((dataset, prompt), group)
        for (dataset, prompt), group in routes.groupby(["dataset", "prompt"], sort=False)
    ]
    groups += [(("all", prompt), g) for prompt, g in routes.groupby("prompt", sort=False)]
    rows = []
    for (dataset, prompt), group in groups:
        result = router_accuracy(group["type"], group["label"])
        ci = mean_interval(router_hits(group["type"], group["label"]).to_numpy())
        rows.append(
            {
                "dataset": dataset,
                "prompt": prompt,
                **result,
                "accuracy [95% CI]": str(ci) if result["n"] else "",
                "fallbacks": int(group["fallback"].sum()),
                "retries": int((group["attempts"] > 1).sum()),
            }
        )
    return pd.DataFrame(rows)


def paired_table(routes: pd.DataFrame, a: str = "fewshot", b: str = "paper") -> pd.DataFrame:
    """Accuracy of prompt ``a`` minus prompt ``b`` on the same questions, per data set and over
    all: paired bootstrap interval and sign-flip permutation p-value. Empty without both."""
    if not {a, b} <= set(routes["prompt"]):
        return pd.DataFrame()
    keyed = routes.set_index(["dataset", "id"])
    first, second = keyed[keyed["prompt"] == a], keyed[keyed["prompt"] == b]
    shared = first.index.intersection(second.index)
    hits_a = router_hits(first.loc[shared, "type"], first.loc[shared, "label"])
    hits_b = router_hits(second.loc[shared, "type"], second.loc[shared, "label"])
    datasets = list(dict.fromkeys(shared.get_level_values(0)))
    rows = []
    for dataset in [*datasets, "all"]:
        pick = (
            hits_a.index
            if dataset == "all"
            else hits_a.index[hits_a.index.get_level_values(0) == dataset]
        )
        x, y = hits_a.loc[pick].to_numpy(), hits_b.loc[pick].to_numpy()
        diff = paired_bootstrap(x, y)
        rows.append(
            {
                "dataset": dataset,
                "comparison": f"{a} − {b}",
                "n": len(pick),
                "accuracy diff": diff.mean_diff,
                "diff [95% CI]": diff.interval,
                "p_permutation": permutation_test(x, y),
            }
        )
    return pd.DataFrame(rows)
