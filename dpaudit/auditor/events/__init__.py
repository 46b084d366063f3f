"""The auditor's events: sets of outputs, and the families that propose them to the search stage.

* :mod:`.family` -- the :class:`EventFamily` interface, :class:`Scored` events and the registry;
* :mod:`.sets` -- the event types (thresholds, intervals, atoms, bins, row patterns, conjunctions);
* :mod:`.standard` -- the standard family: those event types searched feature by feature;
* :mod:`.leaks` -- the implementation's float leaks: lattice, float-support and correlated-noise;
* :mod:`.learned` -- a classifier's posterior, thresholded (vector outputs);
* :mod:`.product` -- per-coordinate density ratios, summed and thresholded (vector outputs);
* :mod:`.side_channels` -- draw counts and wall times recorded beside each output, for any family to read.

The registration below is the search order; a family of one's own joins with :func:`register_family`.
"""

from . import family
from .family import (BaseFamily, EventFamily, Scored, Scorer, SearchContext, family_named, register_family,
                     registered_families, unregister_family)
from .leaks.families import CorrelatedNoiseFamily, FloatSupportFamily, LatticeFamily
from .learned import LearnedFamily
from .product import ProductRatioFamily
from .standard import StandardFamily

__all__ = list(family.__all__)  # the family interface and its registry (dpaudit.extend is the public face of it)

register_family(StandardFamily())
register_family(LatticeFamily())
register_family(FloatSupportFamily())
register_family(CorrelatedNoiseFamily())
register_family(LearnedFamily())
register_family(ProductRatioFamily())
