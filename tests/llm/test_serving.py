"""Serving options: validation, the server process's flags, both backends' settings."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from ace_lab.bounded import ConfigError
from ace_lab.config import ServingOptions, load_settings
from ace_lab.llm import native, serving


def test_options_validate_and_clamp() -> None:
    with pytest.raises(ConfigError, match="backend"):
        ServingOptions(backend="vllm")
    with pytest.raises(ConfigError, match="poll"):
        ServingOptions(poll=101)  # a person's typo fails loudly
    with pytest.raises(ConfigError, match="needs flash attention"):
        ServingOptions(flash_attn="off", kv_type="q8_0")
    with pytest.raises(ConfigError, match="speculative decoding needs"):
        ServingOptions(backend="xllamacpp", prompt_lookup=True)
    with pytest.raises(ConfigError, match="ubatch"):
        ServingOptions(batch=256, ubatch=512)
    clamped, repairs = ServingOptions.clamp(
        {"batch": 10**6, "poll": -3, "priority": 9, "nice": -99}
    )
    assert (clamped.batch, clamped.poll, clamped.priority, clamped.nice) == (8192, 0, 3, -20)
    assert [r.field for r in repairs if r.reason == "clamped"] == [
        "batch",
        "poll",
        "priority",
        "nice",
    ]


def test_options_travel_to_the_server_process_unchanged() -> None:
    options = ServingOptions(
        backend="llama-server",
        flash_attn="on",
        kv_type="q8_0",
        poll=0,
        prompt_cache=True,
        draft_tier="qwen0.5b",
    )
    parser = argparse.ArgumentParser()
    serving.add_option_arguments(parser)
    assert serving.options_from_args(parser.parse_args(serving.options_argv(options))) == options
    assert serving.options_from_args(parser.parse_args([])) == ServingOptions()


def test_environment_sets_the_options(monkeypatch) -> None:
    monkeypatch.setenv("ACE_LAB_LLM_BACKEND", "xllamacpp")
    monkeypatch.setenv("ACE_LAB_LLM_FLASH_ATTN", "on")
    monkeypatch.setenv("ACE_LAB_LLM_POLL", "0")
    got = load_settings().llm.serving
    assert (got.backend, got.flash_attn, got.poll) == ("xllamacpp", "on", 0)


def test_auto_picks_the_native_binary_only_when_it_is_built(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv(serving.BINARY_ENV, raising=False)
    model_dir = tmp_path / "models"
    assert serving.resolve(ServingOptions(), model_dir).backend == "xllamacpp"
    binary = serving.native_binary_path(model_dir)
    binary.parent.mkdir(parents=True)
    binary.write_text("#!/bin/sh\n")
    assert serving.resolve(ServingOptions(), model_dir).backend == "xllamacpp"  # not executable
    os.chmod(binary, 0o755)
    assert serving.resolve(ServingOptions(), model_dir).backend == "llama-server"
    fixed = ServingOptions(backend="xllamacpp")
    assert serving.resolve(fixed, model_dir) is fixed


def test_both_backends_bind_loopback_with_the_same_settings() -> None:
    options = ServingOptions(flash_attn="on", ubatch=256, poll=0, priority=1, kv_type="q8_0")
    argv = serving.llama_server_argv(Path("/bin/ls"), "/m.gguf", 38765, 2, 4096, 2, "t", options)
    flags = dict(zip(argv[1::2], argv[2::2], strict=False))
    assert flags["--host"] == "127.0.0.1" and flags["--ctx-size"] == "8192"
    assert flags["--flash-attn"] == "on" and flags["--ubatch-size"] == "256"
    assert flags["--poll"] == "0" and flags["--cache-type-k"] == "q8_0"
    assert "--no-cache-prompt" in argv and "--model-draft" not in argv
    params = serving.xllamacpp_params("/m.gguf", 38765, 2, 4096, 2, "t", options)
    assert list(params.hostnames) == ["127.0.0.1"] and params.n_ctx == 8192
    assert params.flash_attn_type == 1 and params.n_ubatch == 256
    assert params.cpuparams.poll == params.cpuparams_batch.poll == 0
    assert params.cpuparams.priority == 1 and params.cache_prompt is False


def test_native_build_never_enables_amx() -> None:
    flags = native.cpu_flags(
        "flags\t: fpu avx2 avx512f avx512_vnni avx512_bf16 amx_tile amx_int8\n"
    )
    switches = native.cmake_switches(flags)
    assert "-DGGML_AVX512=ON" in switches and "-DGGML_AVX512_VNNI=ON" in switches
    assert "-DGGML_AVX512_VBMI=ON" not in switches  # the CPU lacks it
    assert not any("AMX" in s and s.endswith("=ON") for s in switches)
    assert not any("AVX512" in s for s in native.cmake_switches({"avx2", "fma"}))


def test_native_build_is_the_same_with_and_without_redundant_avx_vnni() -> None:
    avx512 = {"avx2", "avx512f", "avx512_vnni", "avx512_bf16", "avx512vbmi"}
    assert native.cmake_switches(avx512 | {"avx_vnni"}) == native.cmake_switches(avx512)
    assert "-DGGML_AVX_VNNI=ON" in native.cmake_switches({"avx2", "avx_vnni"})  # AVX2-only CPUs


def test_identity_keys_arithmetic_settings_not_scheduling(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv(serving.BINARY_ENV, raising=False)
    base = ServingOptions(backend="xllamacpp")
    assert serving.serving_identity(base, tmp_path) == ""  # every earlier cache entry stays valid
    speed_only = ServingOptions(backend="xllamacpp", poll=0, priority=0, nice=5)
    assert serving.serving_identity(speed_only, tmp_path) == ""
    assert serving.serving_identity(ServingOptions(backend="xllamacpp", ubatch=256), tmp_path)
    assert serving.serving_identity(base, tmp_path, threads=1) == "+threads=1"
    native_id = serving.serving_identity(ServingOptions(backend="llama-server"), tmp_path)
    assert native_id == "+llama-server:unbuilt"
    stamp = serving.native_binary_path(tmp_path).with_suffix(".json")
    stamp.parent.mkdir(parents=True)
    stamp.write_text('{"switches": ["-DGGML_AVX512=ON"]}')
    built = serving.serving_identity(ServingOptions(backend="llama-server"), tmp_path)
    assert built.startswith("+llama-server:") and built != native_id
    lookup = ServingOptions(backend="llama-server", prompt_lookup=True)
    assert serving.serving_identity(lookup, tmp_path) == built + "+prompt_lookup=True"


def test_the_llm_identity_carries_the_serving_numerics(settings) -> None:
    from ace_lab.llm import LLM

    plain = LLM(settings.with_llm(serving=ServingOptions(backend="xllamacpp")))
    assert "+" not in plain.model_identity  # the identity earlier caches were made under
    fa = LLM(settings.with_llm(serving=ServingOptions(backend="xllamacpp", flash_attn="on")))
    assert fa.model_identity == plain.model_identity + "+flash_attn=on"


def test_niceness_is_set_or_the_refusal_said(monkeypatch, capsys) -> None:
    import subprocess
    import sys

    code = "from ace_lab.llm.serving import set_niceness; import os; set_niceness(7); "
    code += "print(os.getpriority(os.PRIO_PROCESS, 0))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "7"  # raising niceness needs no privilege

    def refuse(*args):
        raise PermissionError("not permitted")

    monkeypatch.setattr(os, "setpriority", refuse)
    assert serving.set_niceness(-10) == os.getpriority(os.PRIO_PROCESS, 0)
    assert "cannot set niceness -10" in capsys.readouterr().out


def test_sigterm_ends_the_server_process_and_its_binary(tmp_path) -> None:
    """A SIGTERM from outside (``kill``, a service manager) ends the server process and the
    llama-server it runs, both reaped: the process must never stay alive beside a dead
    binary, where a client would find it and wait on a port nothing serves."""
    import signal
    import subprocess
    import sys
    import time

    fake = tmp_path / "llama-server"
    pid_file = tmp_path / "binary.pid"
    fake.write_text(
        f"#!{sys.executable}\nimport os, time\n"
        f"open({str(pid_file)!r}, 'w').write(str(os.getpid()))\ntime.sleep(120)\n"
    )
    fake.chmod(0o755)
    argv = [sys.executable, "-m", "ace_lab.llm.server", "--model", "m.gguf", "--port", "1"]
    argv += ["--model-dir", str(tmp_path / "models"), "--backend", "llama-server"]
    server = subprocess.Popen(
        argv, env=os.environ | {serving.BINARY_ENV: str(fake)}, stdout=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while not pid_file.is_file() or not pid_file.read_text():
            assert time.monotonic() < deadline, "the binary never started"
            time.sleep(0.1)
        binary = int(pid_file.read_text())
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=15) == 0
        deadline = time.monotonic() + 5
        while Path(f"/proc/{binary}").exists():  # gone, not a zombie left unreaped
            assert time.monotonic() < deadline, "the binary outlived its server process"
            time.sleep(0.1)
    finally:
        server.kill()
