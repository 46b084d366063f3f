"""noisy_stats: differentially private counts (an example library audited by dpaudit in its CI)."""

from .counts import buggy_count, private_count

__all__ = ["buggy_count", "private_count"]
