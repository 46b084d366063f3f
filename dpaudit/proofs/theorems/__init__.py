"""Theorems of differential privacy as checked proof steps.

* :mod:`.rules` -- composition (sequential, parallel, advanced), group privacy, post-processing and the
  implications between claims, each returning the resulting claim with the step that records it;
* :mod:`.composition` -- :class:`~.composition.Composition`, a mechanism declared as a composition of
  parts, and the ``composition`` procedure that proves each part and applies the rule.
"""
