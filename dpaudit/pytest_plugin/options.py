"""Options, settings and seeds of the dpaudit pytest plugin (standard library and pytest only).

Options live under one ``--dp-`` prefix and are mirrored as ini keys (``dp_samples``, ``dp_confidence``,
``dp_seed``, ``dp_report``, ``dp_skip_audits``, ``dp_store``, ``dp_fresh``); each has a typed parser that raises
``argparse.ArgumentTypeError`` so pytest reports a usage error naming the option and the rule.
The report folder is checked when the run starts (:mod:`dpaudit._paths`, standard library only), so a
bad ``--dp-report`` stops the run before any audit instead of failing after it.
"""

from __future__ import annotations

import argparse
import hashlib
from typing import Any

import pytest

SAMPLES_OPTION = "--dp-samples"
CONFIDENCE_OPTION = "--dp-confidence"
SEED_OPTION = "--dp-seed"
REPORT_OPTION = "--dp-report"
SKIP_AUDITS_OPTION = "--dp-skip-audits"
STORE_OPTION = "--dp-store"
FRESH_OPTION = "--dp-fresh"

DEFAULT_CONFIDENCE = 1 - 1e-6
DEFAULT_SEED = 20260101
MARKER_KEYWORDS = ("claim", "epsilon", "delta", "samples", "confidence", "pair", "neighbours", "data", "d_in", "randomness")
CACHE_KEY = "dpaudit/failed-seeds"
STORE_CACHE_DIR = "dpaudit-evidence"  # the evidence store's folder inside pytest's cache (.pytest_cache/d/...)
PROPERTY = "dpaudit"


def seed_type(text: str) -> int | str:
    """A run seed: a non-negative integer, ``random`` or ``last`` (the previous run's seed)."""
    if text in ("random", "last"):
        return text
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{SEED_OPTION}={text!r} must be a non-negative integer, 'random' or 'last'")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{SEED_OPTION}={text!r} must be a non-negative integer")
    return value


def samples_type(text: str) -> int:
    """A per-side sample budget: a positive integer (``1e6`` accepted)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{SAMPLES_OPTION}={text!r} must be a positive integer")
    if not value.is_integer() or value <= 0:
        raise argparse.ArgumentTypeError(f"{SAMPLES_OPTION}={text!r} must be a positive integer")
    from ..auditor import MAX_SAMPLES, MIN_SAMPLES  # only when the option is given: numpy is loaded then

    if not MIN_SAMPLES <= value <= MAX_SAMPLES:
        raise argparse.ArgumentTypeError(f"{SAMPLES_OPTION}={text!r} must be at least {MIN_SAMPLES} and at most "
                                         f"{MAX_SAMPLES:g}")
    return int(value)


def confidence_type(text: str) -> float:
    """A confidence level strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{CONFIDENCE_OPTION}={text!r} must be a number in (0, 1)")
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{CONFIDENCE_OPTION}={text!r} must be a number in (0, 1)")
    return value


_OPTIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    (SAMPLES_OPTION, {"type": samples_type, "help": "samples per side for every audit (default: the auditor's)"}),
    (CONFIDENCE_OPTION, {"type": confidence_type, "help": f"confidence of every audit's bound and verdict (default "
                                                          f"{DEFAULT_CONFIDENCE}; the verdict is never taken below "
                                                          "the auditor's 0.999)"}),
    (SEED_OPTION, {"type": seed_type, "help": f"the run's seed: integer, 'random' or 'last' (default {DEFAULT_SEED})"}),
    (REPORT_OPTION, {"type": str, "metavar": "DIR", "help": "write a JSON and an HTML report of every audit into DIR"}),
    (SKIP_AUDITS_OPTION, {"action": "store_true", "help": "skip Monte Carlo audits (proofs and sensitivity checks still run)"}),
    (STORE_OPTION, {"type": str, "metavar": "DIR", "help": "keep audit results in DIR and read back those whose key "
                                                          "(code, claim, pair, budget, seed, versions) is unchanged "
                                                          f"(default: pytest's cache, .pytest_cache/d/{STORE_CACHE_DIR})"}),
    (FRESH_OPTION, {"action": "store_true", "help": "recompute every audit, reading nothing from the evidence store "
                                                    "(the fresh results are kept in it)"}),
)


def add_options(parser: pytest.Parser) -> None:
    """Register every ``--dp-`` option and its ini twin."""
    group = parser.getgroup("dpaudit", "differential-privacy audits (dpaudit)")
    for flag, spec in _OPTIONS:
        dest = "dp_" + flag[len("--dp-") :].replace("-", "_")
        group.addoption(flag, dest=dest, default=None, **spec)
        ini_type = "bool" if spec.get("action") == "store_true" else "string"
        parser.addini(dest, spec["help"], type=ini_type, default=None)


def read_option(config: pytest.Config, flag: str) -> Any:
    """Command line first, then the ini file (parsed with the option's own type)."""
    dest = "dp_" + flag[len("--dp-") :].replace("-", "_")
    value = config.getoption(dest)
    if value is not None and value is not False:
        return value
    ini = config.getini(dest)
    if ini in (None, "", False):
        return None
    spec = dict(_OPTIONS)[flag]
    if "type" in spec and isinstance(ini, str):
        try:
            return spec["type"](ini)
        except argparse.ArgumentTypeError as exc:
            raise pytest.UsageError(f"ini option {dest}: {exc}") from None
    return ini


class Settings:
    """The run's dpaudit settings, resolved once in pytest_configure."""

    def __init__(self, config: pytest.Config) -> None:
        self.samples: int | None = read_option(config, SAMPLES_OPTION)
        self.confidence: float = read_option(config, CONFIDENCE_OPTION) or DEFAULT_CONFIDENCE
        self.report_dir: str | None = read_option(config, REPORT_OPTION)
        if self.report_dir is not None:
            from .._paths import check_output_folder
            from ..errors import InvalidArgument

            try:
                check_output_folder(REPORT_OPTION, self.report_dir)
            except InvalidArgument as exc:
                raise pytest.UsageError(str(exc)) from None
        self.skip_audits: bool = bool(read_option(config, SKIP_AUDITS_OPTION))
        self.fresh: bool = bool(read_option(config, FRESH_OPTION))
        seed = read_option(config, SEED_OPTION)
        cache = getattr(config, "cache", None)
        worker_input = getattr(config, "workerinput", None)
        if worker_input is not None and "dpaudit_seed" in worker_input:
            # an xdist worker: the controller decided the seed, the store and the run's stamp
            self.store_dir: str | None = worker_input["dpaudit_store"]
            self.run_id, self.run_at = worker_input["dpaudit_run"]
            seed, cache = worker_input["dpaudit_seed"], None
        else:
            self.store_dir = _store_dir(config, cache)
            from ..evidence import RunStamp  # the standard library only, like this module

            stamp = RunStamp.now()
            self.run_id, self.run_at = stamp.id, stamp.at
        if seed == "last":
            seed = cache.get("dpaudit/last-seed", None) if cache else None
            if seed is None:
                raise pytest.UsageError(f"{SEED_OPTION}=last: no previous run recorded a seed")
        elif seed == "random":
            import secrets

            seed = secrets.randbelow(2**32)
        self.seed: int = DEFAULT_SEED if seed is None else int(seed)
        if cache is not None:
            cache.set("dpaudit/last-seed", self.seed)

    def run_options(self) -> str:
        """The run's options that change an audit, besides the seed, as a pytest command line gives them."""
        options = [f"{SAMPLES_OPTION}={self.samples}"] if self.samples is not None else []
        if self.confidence != DEFAULT_CONFIDENCE:
            options.append(f"{CONFIDENCE_OPTION}={self.confidence:g}")
        return " ".join(options)


def _store_dir(config: pytest.Config, cache: Any) -> str | None:
    """The evidence store's folder: ``--dp-store DIR`` (created with its parents), else a folder of pytest's
    cache; None when there is neither (``-p no:cacheprovider``)."""
    from pathlib import Path

    given = read_option(config, STORE_OPTION)
    if given is not None:
        try:
            Path(given).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise pytest.UsageError(f"{STORE_OPTION}={given!r}: cannot create the folder ({exc.strerror or exc})") from None
        if not Path(given).is_dir():
            raise pytest.UsageError(f"{STORE_OPTION}={given!r} is not a folder")
        return str(Path(given).resolve())
    if cache is None:
        return None
    try:
        return str(cache.mkdir(STORE_CACHE_DIR))
    except OSError:
        return None  # a read-only checkout: no store, audits run as without one



def test_seed(run_seed: int, nodeid: str) -> int:
    """The seed of one test: SHA-256 of the run seed and the node id, first 8 bytes (independent of
    which other tests run, and of their order, so serial and xdist runs agree)."""
    digest = hashlib.sha256(f"{run_seed}:{nodeid}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


test_seed.__test__ = False  # type: ignore[attr-defined]  # not a test, despite its name


SETTINGS = pytest.StashKey["Settings"]()
