"""Process workers from every way of running Python: a script read from standard input, ``python -c``,
an interactive session, a script file with or without a main guard; the audit never prints a
worker's traceback and says in ``run`` where its chunks ran when process workers could not be used.

Each test runs a real Python subprocess from the project root, as a user would, with a small budget.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import dpaudit
from dpaudit.auditor.run.shipping import ship

ROOT = Path(dpaudit.__file__).resolve().parents[1]

# A plain function defined in __main__, audited on the process pool: the case workers cannot import.
AUDIT = """
import numpy as np
import dpaudit

def noisy(q, n, rng):
    return np.rint((q + rng.laplace(0.0, 1.0, size=n)) * 2**16) / 2**16

pooled = dpaudit.audit(noisy, epsilon=1.0, samples=4_000, seed=3, executor={executor!r}, workers=2)
local = dpaudit.audit(noisy, epsilon=1.0, samples=4_000, seed=3, executor="in-process")
print("same:", pooled.epsilon_lower_bound == local.epsilon_lower_bound and pooled.hits == local.hits)
print("note:", pooled.run.note)
"""


def _python(*args: str, stdin: str | None = None, block_cloudpickle: bool = False, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="error::DeprecationWarning:dpaudit")
    prelude = "import sys; sys.modules['cloudpickle'] = None\n" if block_cloudpickle else ""
    if stdin is not None:
        stdin = prelude + stdin
    elif args[0] == "-c":
        args = (args[0], prelude + args[1])
    return subprocess.run([sys.executable, *args], input=stdin, capture_output=True, text=True, cwd=cwd, env=env,
                          timeout=300)


def _lines(run: subprocess.CompletedProcess) -> dict[str, str]:
    assert run.returncode == 0, run.stderr
    assert "Traceback" not in run.stderr and "Error" not in run.stderr, run.stderr
    return dict(line.split(": ", 1) for line in run.stdout.splitlines() if ": " in line)


def test_a_script_read_from_stdin_falls_back_and_says_so():
    # python - <<EOF: spawned workers would run '<stdin>' again and die; the chunks run here instead.
    out = _lines(_python("-", stdin=AUDIT.format(executor="process-pool")))
    assert out["same"] == "True"
    assert out["note"] == "Python read __main__ from '<stdin>', which spawned worker processes cannot run again; the chunks ran in process"


def test_dask_local_from_stdin_falls_back_to_threads_for_a_thread_safe_entry():
    script = textwrap.dedent("""
        import dpaudit
        result = dpaudit.audit("laplace", samples=4_000, seed=3, executor="dask-local", workers=2)
        print("note:", result.run.note)
    """)
    out = _lines(_python("-", stdin=script))
    assert out["note"].endswith("cannot run again; the chunks ran in threads")


def test_auto_from_stdin_prints_nothing_extra_for_a_short_audit():
    out = _lines(_python("-", stdin=AUDIT.format(executor="auto")))
    assert out == {"same": "True", "note": "None"}


def test_python_c_ships_main_functions_by_value_to_the_pool():
    # python -c: __main__ has no file; workers start but cannot import `noisy`, so it travels by value.
    out = _lines(_python("-c", AUDIT.format(executor="process-pool")))
    assert out == {"same": "True", "note": "None"}


def test_python_c_without_cloudpickle_runs_in_process_with_a_note():
    out = _lines(_python("-c", AUDIT.format(executor="process-pool"), block_cloudpickle=True))
    assert out["same"] == "True"
    assert "cannot be shipped to worker processes" in out["note"] and out["note"].endswith("the chunks ran in process")


def test_a_guarded_script_uses_the_pool(tmp_path):
    body = AUDIT.format(executor="process-pool").split("pooled =")
    guarded = body[0] + "if __name__ == '__main__':\n" + textwrap.indent("pooled =" + body[1], "    ")
    (tmp_path / "audit_me.py").write_text(guarded)
    out = _lines(_python("audit_me.py", cwd=tmp_path))
    assert out == {"same": "True", "note": "None"}


def test_an_unguarded_script_is_not_run_again_by_the_workers(tmp_path):
    # Each spawned worker runs the script's top level again, audit included; it leaves with one line
    # instead, and the audit finishes in the main process with the same result.
    (tmp_path / "audit_me.py").write_text(AUDIT.format(executor="process-pool"))
    run = _python("audit_me.py", cwd=tmp_path)
    out = _lines(run)
    assert out["same"] == "True" and "guard ends them); the remaining chunks ran in process" in out["note"]
    assert set(run.stderr.splitlines()) == {
        'dpaudit: a worker process ran this script\'s audit again (it has no `if __name__ == "__main__":` guard); '
        "the worker leaves, the audit goes on in the main process"
    }


def test_functions_of_an_interactive_main_travel_by_value(monkeypatch):
    # A notebook's or REPL's __main__: a module without a file.  Its functions pickle by name, which a
    # worker cannot resolve; ship() sends them by value instead, and the copy samples the same.
    pytest.importorskip("cloudpickle")
    import types

    import numpy as np

    main = types.ModuleType("__main__")
    exec("def noisy(q, n, rng):\n    return q + rng.laplace(0.0, 1.0, size=n)\n", main.__dict__)
    monkeypatch.setitem(sys.modules, "__main__", main)
    mechanism = dpaudit.Mechanism.from_callable(main.noisy, claim=dpaudit.PureDP(1.0))
    ref, note = ship(mechanism, main.noisy)
    assert note is None and ref.kind == "pickle"
    monkeypatch.delitem(sys.modules, "__main__")  # as in a worker: nothing named __main__.noisy exists
    monkeypatch.setitem(sys.modules, "__main__", types.ModuleType("__main__"))
    rebuilt = ref.build()
    draws = [m.sample(0.0, 5, np.random.default_rng(1)) for m in (rebuilt, mechanism)]
    assert np.array_equal(*draws)
