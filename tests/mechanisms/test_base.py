"""Mechanism: validation of what the code under test returns, and wrapping of plain callables."""

from __future__ import annotations

import numpy as np
import pytest

from dpaudit import AddRemove, InvalidArgument, Mechanism, MechanismError, PureDP, QueryDistance


def make(sampler, **fields):
    return Mechanism(name="under-test", claim=PureDP(1.0), neighbours=QueryDistance(1.0), sampler=sampler, **fields)


def test_sample_returns_n_rows():
    m = make(lambda q, n, rng: q + rng.laplace(0, 1, n))
    out = m.sample(0.0, 7, np.random.default_rng(0))
    assert out.shape == (7,)


@pytest.mark.parametrize(
    "sampler, message",
    [
        (lambda q, n, rng: 1 / 0, r"raised ZeroDivisionError: division by zero \(data=0.0, n=5\)"),
        (lambda q, n, rng: np.full(n, np.nan), "returned NaN"),
        (lambda q, n, rng: np.full(n, np.inf), "returned an infinite output"),
        (lambda q, n, rng: np.zeros(n + 1), "returned 6 rows for n=5"),
        (lambda q, n, rng: [[0.0], [1.0, 2.0]] * n, r"varying shapes: \[0.0\] and \[1.0, 2.0\]"),
        (lambda q, n, rng: 3.0, "returned float 3.0 where 5 outputs were expected"),
        (lambda q, n, rng: [object()] * n, r"returned an output of type object \(<object object at"),
        (lambda q, n, rng: [{1, 2}] * n, r"returned an output of type set \(\{1, 2\}\), which is not hashable"),
    ],
)
def test_misbehaving_samplers_get_a_clear_error(sampler, message):
    with pytest.raises(MechanismError, match=message) as info:
        make(sampler).sample(0.0, 5, np.random.default_rng(0))
    assert "'under-test'" in str(info.value)


def test_the_cause_of_a_raising_sampler_is_kept():
    with pytest.raises(MechanismError) as info:
        make(lambda q, n, rng: 1 / 0).sample(0.0, 5, np.random.default_rng(0))
    assert isinstance(info.value.__cause__, ZeroDivisionError)


def test_one_run_callables_are_batched():
    def one_run(data, rng):
        return sum(data) + rng.laplace(0, 1.0)

    m = Mechanism.from_callable(one_run, claim=PureDP(1.0), neighbours=AddRemove())
    assert m.name == "one_run"
    a = m.sample([1, 2], 4, np.random.default_rng(3))
    b = m.sample([1, 2], 4, np.random.default_rng(3))
    assert a.shape == (4,) and np.array_equal(a, b)


def test_vectorised_callables_are_called_once():
    calls = []

    def many(q, n, rng):
        calls.append(n)
        return q + rng.normal(size=(n, 2))

    m = Mechanism.from_callable(many, claim=PureDP(1.0))
    assert m.sample(0.0, 10, np.random.default_rng(0)).shape == (10, 2)
    assert calls == [10]


@pytest.mark.parametrize(
    "one_run, message",
    [
        (lambda data, rng: np.zeros(int(rng.integers(1, 3))), "varying shapes"),
        (lambda data, rng: {"a": 1.0} if rng.random() < 0.5 else {"b": 1.0}, r"dicts with keys \['[ab]'\] and \['[ab]'\]"),
        (lambda data, rng: ("yes", [1.0]), r"an output of type list \(\[1.0\]\), which is not hashable"),
        (lambda data, rng: float("nan"), "returned NaN"),
    ],
)
def test_one_run_callables_that_misbehave(one_run, message):
    m = Mechanism.from_callable(one_run, claim=PureDP(1.0), name="odd")
    with pytest.raises(MechanismError, match=message):
        m.sample(0.0, 50, np.random.default_rng(1))


@pytest.mark.parametrize(
    "fields, message",
    [
        ({"name": ""}, "name='' must be a non-empty string"),
        ({"claim": 1.0}, "claim=1.0 must be PureDP"),
        ({"neighbours": "add"}, "neighbours='add' must be"),
        ({"sampler": 3}, "sampler=3 must be callable"),
        ({"sensitivity": 0}, "sensitivity=0 must be a positive finite number"),
        ({"true_epsilon": -1}, "true_epsilon=-1 must be >= 0"),
    ],
)
def test_invalid_descriptions_are_refused(fields, message):
    base = dict(name="m", claim=PureDP(1.0), neighbours=QueryDistance(1.0), sampler=lambda q, n, rng: np.zeros(n))
    base.update(fields)
    with pytest.raises(InvalidArgument, match=message):
        Mechanism(**base)


def test_sample_checks_its_own_arguments():
    m = make(lambda q, n, rng: np.zeros(n))
    with pytest.raises(InvalidArgument, match="n=-1 must be a non-negative integer"):
        m.sample(0.0, -1, np.random.default_rng(0))
    with pytest.raises(InvalidArgument, match="must be a numpy.random.Generator"):
        m.sample(0.0, 3, np.random.RandomState(0))


def test_as_dict_is_json_ready():
    import json

    m = make(lambda q, n, rng: np.zeros(n), flaw="broken", true_epsilon=float("inf"))
    doc = m.as_dict()
    assert doc["flawed"] is True and doc["true_epsilon"] == "inf"
    json.dumps(doc)


# --- outputs of any type, from the user's side ---------------------------------------------------


def _coded(function, n=6, seed=0):
    return Mechanism.from_callable(function, claim=PureDP(1.0)).draw(0.0, n, np.random.default_rng(seed))


def test_string_labels_become_codes_that_read_back():
    drawn = _coded(lambda q, rng: "yes" if rng.random() < 0.5 else "no", n=50)
    assert drawn.values.shape == (50,) and drawn.values.dtype.kind == "i"
    assert drawn.coding.kinds == ("label",) and drawn.coding.categorical == {0}
    assert sorted(drawn.coding.text(0, v) for v in set(drawn.values.tolist())) == ["'no'", "'yes'"]


def test_booleans_stay_booleans_and_read_as_true_false():
    drawn = _coded(lambda q, rng: bool(rng.random() < 0.5), n=50)
    assert drawn.values.dtype == bool and drawn.coding.kinds == ("bool",)
    assert drawn.coding.text(0, 1) == "True" and drawn.coding.text(0, 0) == "False"


def test_tuples_and_lists_of_numbers_are_vectors():
    tuples = _coded(lambda q, rng: (q + rng.normal(), int(rng.integers(3))))
    lists = _coded(lambda q, rng: [q + rng.normal(), q - rng.normal(), 1.0])
    assert tuples.values.shape == (6, 2) and lists.values.shape == (6, 3)
    assert tuples.coding.kinds == ("number", "number") and tuples.coding.keys is None


def test_dicts_are_vectors_in_sorted_key_order_and_name_their_keys():
    drawn = _coded(lambda q, rng: {"sum": q + rng.normal(), "count": 3, "band": "high"})
    assert drawn.coding.keys == ("'band'", "'count'", "'sum'")
    assert drawn.coding.kinds == ("label", "number", "number")
    assert np.all(drawn.values[:, 1] == 3)


def test_a_vectorised_sampler_may_return_strings_or_a_dict_of_columns():
    strings = _coded(lambda q, n, rng: np.where(rng.random(n) < 0.5, "a", "b"))
    columns = _coded(lambda q, n, rng: {"x": rng.normal(size=n), "ok": rng.random(n) < 0.5})
    assert strings.coding.kinds == ("label",) and set(strings.coding.labels.values()) <= {"'a'", "'b'"}
    assert columns.values.shape == (6, 2) and columns.coding.keys == ("'ok'", "'x'")


def test_label_codes_depend_on_the_label_only():
    from dpaudit.mechanisms.outputs import label_code

    # The same label in a separate batch, as a numpy string, in another position: the same code.
    a = _coded(lambda q, rng: "yes", n=1).values[0]
    b = _coded(lambda q, n, rng: np.array(["no", "yes"] * n)[:n], n=2).values[1]
    assert a == b == label_code("yes") == label_code(np.str_("yes"))
    assert label_code("yes") != label_code(b"yes") and label_code(None) != label_code("None")
    assert label_code(frozenset({"a", "b", "c"})) == label_code(frozenset({"c", "b", "a"}))
    assert 0 <= label_code("yes") < 2**53  # exact in a double


def test_label_codes_are_the_same_in_another_process():
    # Python's own str hash is salted per process; the codes must not be.
    import subprocess
    import sys

    from dpaudit.mechanisms.outputs import label_code

    labels = ["yes", "no", None, ("a", 1), frozenset({"x", "y", "z"})]
    script = ("from dpaudit.mechanisms.outputs import label_code; "
              f"print([label_code(v) for v in {labels!r}])")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         env={**__import__("os").environ, "PYTHONHASHSEED": "12345"})
    assert out.stdout.strip() == str([label_code(v) for v in labels])


def test_unsupported_outputs_are_refused_in_one_line_naming_type_and_value():
    class Opaque:
        pass

    for function, words in [
        (lambda q, rng: {1, 2}, "an output of type set ({1, 2}), which is not hashable"),
        (lambda q, rng: Opaque(), "an output of type Opaque (<"),
        (lambda q, rng: {"a": [1, 2]}, "an output of type list ([1, 2])"),
    ]:
        with pytest.raises(MechanismError) as info:
            _coded(function)
        message = str(info.value)
        assert words in message and "\n" not in message, message


# --- any randomness ------------------------------------------------------------------------------


def test_randomness_is_read_from_annotations_names_and_parameter_counts():
    import random

    def gen(data, rng: np.random.Generator): ...
    def state(data, n, rs: np.random.RandomState): ...
    def python(data, r: "random.Random"): ...
    def sklearn_style(data, random_state): ...
    def own_one(data): ...
    def own_many(data, n): ...
    def plain(data, rng): ...
    def plain_many(data, n, rng): ...
    def defaulted(data, rng=None): ...
    def defaulted_state(data, n, random_state=None): ...

    expected = {gen: ("generator", False), state: ("random-state", True), python: ("python-random", False),
                sklearn_style: ("random-state", False), own_one: ("own", False), own_many: ("own", True),
                plain: ("generator", False), plain_many: ("generator", True), defaulted: ("generator", False),
                defaulted_state: ("random-state", True)}
    for function, (kind, vectorised) in expected.items():
        m = Mechanism.from_callable(function, claim=PureDP(1.0))
        assert (m.randomness, not hasattr(m.sampler, "one_run")) == (kind, vectorised), function.__name__
        assert m.reproducible == (kind != "own")
    assert random  # the string annotation above names random.Random


def test_an_explicit_randomness_wins_and_is_checked():
    def f(data, source):
        return data + source.random()

    m = Mechanism.from_callable(f, claim=PureDP(1.0), randomness="python-random")
    assert m.randomness == "python-random" and m.sample(0.0, 3, np.random.default_rng(0)).shape == (3,)
    with pytest.raises(InvalidArgument, match="randomness='numpy' must be one of"):
        Mechanism.from_callable(f, claim=PureDP(1.0), randomness="numpy")


@pytest.mark.parametrize("kind", ["random-state", "python-random"])
def test_seedable_randomness_is_seeded_from_the_generator(kind):
    import random

    seen = []

    def one_run(data, source):
        seen.append(type(source))
        return data + (source.uniform(0, 1) if kind == "python-random" else source.laplace(0, 1))

    m = Mechanism.from_callable(one_run, claim=PureDP(1.0), randomness=kind)
    first, again = (m.sample(0.0, 20, np.random.default_rng(7)) for _ in range(2))
    other = m.sample(0.0, 20, np.random.default_rng(8))
    assert np.array_equal(first, again) and not np.array_equal(first, other)
    assert len(set(first.tolist())) == 20  # the one source advances from run to run
    assert set(seen) == {random.Random if kind == "python-random" else np.random.RandomState}


def test_own_randomness_gets_no_randomness_argument():
    calls = []

    def own(data):
        calls.append(data)
        return data + np.random.random()

    m = Mechanism.from_callable(own, claim=PureDP(1.0))
    assert m.sample(1.0, 4, np.random.default_rng(0)).shape == (4,) and calls == [1.0] * 4
    assert not m.reproducible and m.as_dict()["randomness"] == "own"
