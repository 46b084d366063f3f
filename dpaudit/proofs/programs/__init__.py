"""Mechanisms declared as programs (:mod:`dpaudit.mechanisms.programs`): randomness alignment and exact probabilities.

* :mod:`.procedure` -- the ``program`` procedure: :mod:`.decide` under the time budget, and the result;
* :mod:`.decide` -- a program's claim decided: an alignment proof, else a checked counterexample, else
  unknown;
* :mod:`.alignment` -- randomness alignment: shift each noise draw so the path and output stay the same on
  the neighbour, and sum the cost (LightDP, ShadowDP);
* :mod:`.probabilities` -- exact output probabilities of small programs, nested Laplace / exponential
  integrals in closed form;
* :mod:`.counterexamples` -- the search for a neighbouring pair and an output whose probability ratio
  exceeds e^epsilon, with both probabilities from :mod:`.probabilities`.
"""
