"""``python -m ace_lab.data.write_slices [--check] [SLICE_ID ...]``: (re)write the committed slice
files under ``data/slices`` from the full sets (:mod:`ace_lab.data.committed`).

Without slice ids it writes every slice of :data:`~ace_lab.data.committed.COMMITTED_SLICES`;
``--check`` writes nothing and exits 1 when a file is not what its full set gives. Each named set
must be present in full (``ace-lab data fetch NAME``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ace_lab.data.committed import write_slices
from ace_lab.data.records import DataError


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ace_lab.data.write_slices",
        description="(Re)write the committed slice files from the full benchmark sets.",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is out of date")
    parser.add_argument("slices", nargs="*", help="slice ids (default: every committed slice)")
    args = parser.parse_args(argv)
    try:
        changed = write_slices(args.slices, check=args.check)
    except DataError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    verb = "out of date" if args.check else "written"
    for path in changed:
        print(f"{verb}: {path}")
    if not changed:
        print("every committed slice file is what its full set gives")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
