"""ace_lab.cli_commands.answering: where ``ace-lab run`` writes a user corpus's records."""

from __future__ import annotations

import os
import signal
import time

import pytest

from ace_lab.cli_commands import answering
from ace_lab.config import load_settings


def test_a_user_corpus_writes_to_the_user_data_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("ACE_LAB_USER_DATA", str(tmp_path / "user"))
    monkeypatch.delenv("ACE_LAB_RESULTS_DIR", raising=False)
    monkeypatch.setattr(answering, "is_user_corpus", lambda name: name == "mine")
    settings = load_settings()
    assert answering.user_results(settings, "mine").results_dir == tmp_path / "user" / "results"
    assert answering.user_results(settings, "toy").results_dir == settings.results_dir
    monkeypatch.setenv("ACE_LAB_RESULTS_DIR", str(tmp_path / "chosen"))  # a folder named wins
    chosen = load_settings()
    assert answering.user_results(chosen, "mine").results_dir == tmp_path / "chosen"


def test_sigterm_interrupts_a_build_and_the_handler_is_restored():
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), answering.sigterm_interrupts():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler interrupts the sleep
    assert signal.getsignal(signal.SIGTERM) is before
