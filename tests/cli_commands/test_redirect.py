"""ace_lab.cli_commands.redirect: ``--method mosaic>ace-full`` unquoted is the shell's redirect;
the command sees its output going to a file named ``ace-full`` and stops with one line."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ace_lab.cli_commands.errors import UsageError
from ace_lab.cli_commands.redirect import check_not_cut_at_redirect, stdout_file_name


def test_a_file_completing_a_method_into_a_name_is_refused():
    with pytest.raises(UsageError, match=r"mosaic/ace-full"):
        check_not_cut_at_redirect(["mosaic"], output="ace-full")
    with pytest.raises(UsageError, match=r"ace/gap\+depth"):
        check_not_cut_at_redirect(["hirag", "ace"], output="gap+depth")
    check_not_cut_at_redirect(["mosaic"], output="answers.txt")  # an ordinary redirect
    check_not_cut_at_redirect(["mosaic"], output="")


def test_the_shell_redirect_is_caught_before_any_work(tmp_path):
    # what `ace-lab ask ... --method mosaic>ace-full` does: stdout is a new file "ace-full"
    command = [sys.executable, "-m", "ace_lab", "ask", "--dataset", "toy", "--n", "8"]
    with (tmp_path / "ace-full").open("w") as out:
        done = subprocess.run(
            [*command, "--method", "mosaic", "q?"], stdout=out, stderr=subprocess.PIPE, text=True
        )
    assert done.returncode == 2
    assert "write mosaic/ace-full" in done.stderr and len(done.stderr.splitlines()) == 1
    assert (tmp_path / "ace-full").read_text() == ""


def test_stdout_file_name_is_none_for_a_pipe():
    code = (
        "import sys; from ace_lab.cli_commands.redirect import stdout_file_name; "
        "sys.stderr.write(repr(stdout_file_name()))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stderr == "None"
    assert stdout_file_name() is None or isinstance(stdout_file_name(), str)
