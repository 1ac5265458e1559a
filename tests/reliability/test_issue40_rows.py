"""The reliability rows of issue 40's second round: an interrupted server start, explosive reads
under load, the guard and the word ``call``, credentials in every URL form, answer formats."""

from __future__ import annotations

import pytest

from tests.reliability import answer_formats, credential_urls, guard_aliases, loaded_reads
from tests.reliability.scale import full_scale

pytestmark = pytest.mark.reliability


def held(row: dict) -> None:
    assert row["failed"] == 0, row["note"]
    assert row["held"] == row["attempts"] > 0


@pytest.mark.integration
def test_an_interrupted_server_start_leaves_no_orphan() -> None:
    from tests.reliability import interrupted_start

    [row] = interrupted_start.measure(full_scale())
    held(row)
    assert row["attempts"] >= 3


def test_explosive_reads_stop_in_bound_under_cpu_burners() -> None:
    [row] = loaded_reads.measure(full_scale())
    held(row)
    assert row["note"].startswith("2 burners")


def test_the_guard_reads_call_as_a_name_and_finds_a_call_behind_it() -> None:
    [row] = guard_aliases.measure(full_scale())
    held(row)


def test_the_guard_row_fails_when_the_guard_accepts_everything(monkeypatch) -> None:
    monkeypatch.setattr(guard_aliases, "check_read_only", lambda cypher: None)
    [row] = guard_aliases.measure(False)
    assert row["failed"] == len(guard_aliases.HIDDEN_CALLS)


def test_credentials_in_every_url_form_are_masked_in_manifest_and_cache() -> None:
    [row] = credential_urls.measure(full_scale())
    held(row)
    assert row["attempts"] == len(credential_urls.FORMS)


def test_the_credential_row_sees_a_key_written_unmasked(tmp_path) -> None:
    import sqlite3

    key = credential_urls.KEY
    (tmp_path / "manifest.json").write_text(f'{{"model": "http://gw/{key}/v1#m"}}')
    conn = sqlite3.connect(tmp_path / "cache.sqlite")
    conn.execute("CREATE TABLE responses (model TEXT)")
    conn.execute("INSERT INTO responses VALUES (?)", (f"http://gw/v1?code={key}#m",))
    conn.commit()
    conn.close()
    found = credential_urls.key_places(tmp_path)
    assert "manifest.json" in found and any(f.startswith("cache model") for f in found)
    url = credential_urls.form_url("http://127.0.0.1:1/v1", "?code=")
    assert url == f"http://127.0.0.1:1/v1?code={key}"


def test_every_answer_format_of_the_probe_is_read() -> None:
    [row] = answer_formats.measure(full_scale())
    held(row)
    assert row["attempts"] >= 12


def test_the_format_row_fails_when_extraction_loses_the_answer(monkeypatch) -> None:
    monkeypatch.setattr(answer_formats, "extract_final_answer", lambda text: text.strip())
    [row] = answer_formats.measure(False)
    assert row["failed"] > 0
