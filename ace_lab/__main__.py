import sys

from ace_lab.cli import main

sys.exit(main())
