"""An example method package written only against the plugin contract.

``toy-pick[:k<N>][@hierarchical]`` answers from the ``N`` passages (default 2) the hybrid passage
index ranks first, recording its pick as a typed :class:`~.steps.ToyPick` step. The package holds
what a method of its own holds — ``method.py``, ``steps.py``, ``plugin.py`` and a ``report/``
with a stepper view — and nothing outside it names it: a test registers it
(``ace_lab.plugins.register("tests.support.toy_method")``), as a new package under ``ace_lab``
joins ``ace_lab/plugins.py``'s list (the one file outside its folder, with its page in
``docs/methods.md``).
"""
