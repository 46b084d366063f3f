"""The implementation's float leaks as event families (Mironov 2012; Jin et al. 2022).

:mod:`.lattice` (outputs off the ulp lattice a query value's floats can reach), :mod:`.float_support`
(outputs an exact replay of the float noise cannot produce), :mod:`.correlation` (one noise draw added
to several coordinates), :mod:`.events` (those events, the check names and the findings they yield),
:mod:`.finding` (a leak check's result and the bound that states it), :mod:`.families` (the three as
:class:`..family.EventFamily` implementations).
"""
