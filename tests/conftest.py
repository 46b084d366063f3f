"""Suite-wide test configuration.

Hypothesis runs derandomized (examples are a function of the test alone), with no example database
and no deadline, so every property test is deterministic and no timing jitter can fail it; pass
``--hypothesis-profile=explore`` to search with fresh randomness locally.
"""

from hypothesis import HealthCheck, settings

pytest_plugins = ["pytester"]

settings.register_profile(
    "deterministic",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", max_examples=500, deadline=None)
settings.load_profile("deterministic")
