"""What the tests share: plain helpers (scripted models, small graphs, synthetic records, data
sets), imported by the test modules. Fixtures live in the ``conftest.py`` files, which no module
imports; no test module imports another."""
