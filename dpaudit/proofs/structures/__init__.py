"""Mechanisms declared by their structure (:mod:`dpaudit.mechanisms.structure`): theorem rules, each checked.

A mechanism with no closed-form density may declare how it is built; each module proves one kind of
structure by a published theorem whose preconditions it checks, and chains the rules in the certificate:

* :mod:`.procedure` -- the ``structure`` procedure: the rule of the structure's kind, under the time
  budget;
* :mod:`.sequential` -- sequential composition of proved parts;
* :mod:`.chain` -- a chain of rules closed against the claim (post-processing, then the implication);
* :mod:`.admissible` -- smooth-sensitivity noise f(x) + (S(x)/alpha) Z with admissible Z (Nissim,
  Raskhodnikova & Smith 2007), and :mod:`.scale_change`, the refutation when the noise scale changes
  between neighbours;
* :mod:`.wishart` -- the Wishart mechanism, by splitting off the support (Jiang, Xie & Zhang 2016);
* :mod:`.gaussian_steps` -- DP-SGD's noisy gradient steps: dominating pairs, composition, conversion.
"""
