"""``python -m ace_lab.config --markdown``: print the generated ``docs/configuration.md``."""

from __future__ import annotations

import argparse

from ace_lab.config.docs import markdown

parser = argparse.ArgumentParser(prog="python -m ace_lab.config", description=__doc__)
parser.add_argument("--markdown", action="store_true", help="print docs/configuration.md")
if parser.parse_args().markdown:
    print(markdown(), end="")
else:
    parser.print_help()
