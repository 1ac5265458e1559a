"""ace_lab.cli_commands.llm: ``ace-lab llm status`` lists every tier with a live server."""

from __future__ import annotations

from ace_lab.cli_commands import llm as llm_command
from ace_lab.config import load_settings
from ace_lab.llm import server
from ace_lab.llm.server import ServerInfo


def _info(tier: str, port: int) -> ServerInfo:
    return ServerInfo(4242, port, tier, "m.gguf", "0" * 64, 2, 8192, 1, "log", 0.0)


def test_status_lists_every_running_tier_not_only_the_configured_one(monkeypatch, capsys):
    live = {"smollm135m": _info("smollm135m", 8766)}
    monkeypatch.setattr(server, "status", lambda settings, tier=None: live.get(tier))
    settings = load_settings(tier="qwen1.5b")
    assert llm_command.print_status(settings) == 0
    assert (
        capsys.readouterr().out
        == "smollm135m: running at http://127.0.0.1:8766/v1 (pid 4242, local server)\n"
    )
    assert llm_command.print_status(settings, ["qwen1.5b"]) == 1
    assert capsys.readouterr().out == "qwen1.5b: not running\n"
    live.clear()
    assert llm_command.print_status(settings) == 1
    assert capsys.readouterr().out == "no tier: not running\n"
