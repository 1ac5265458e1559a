"""What bench/remote_concurrency.py prints, from its rows: the settings line, the table, the checks.

Also how its committed ``results/bench/remote_concurrency.md`` is remade from the ``.json``
(a test checks that the two agree).
"""

from __future__ import annotations

from typing import Any


def report_parts(
    rows: list[dict[str, Any]], settings: dict[str, Any], failures: list[str]
) -> tuple[str, list[str], str]:
    """What the bench prints: the settings line, the table's lines, the checks line."""
    s = settings
    header = (
        f"latency {s['latency_s']:g} s/request, {s['faults']:.0%} 429 (Retry-After "
        f"{s['retry_after']:g} s), {s['chunks']} chunks (OpenIE joint, 1 call each), "
        f"{s['questions']} questions (NaiveRAG, 1 call each); files in {s['tmp'] or 'tmp'}"
    )
    table = [
        "| what | n | in flight | wall s | latency floor s | CPU s | speed-up | ideal | peak "
        "| 429s | records | cache rows |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    table += [
        f"| {r['what']} | {r['n']} | {r['k']} | {r['wall']:.2f} | {r['floor']:.1f} | "
        f"{r['cpu']:.1f} | "
        f"{r['speedup']:.1f}x | {r['ideal']:.1f}x | {r['peak']} | {r['429']} | "
        f"{r['records']} | {r['cache']} |"
        for r in rows
    ]
    checks = "checks: " + ("all held" if not failures else "FAILED: " + "; ".join(failures))
    return header, table, checks
