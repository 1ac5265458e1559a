"""``python -m ace_lab.mosaic.report``: remake MOSAIC's committed tables (see ``regenerate``)."""

from ace_lab.mosaic.report.regenerate import main

main()
