"""The run order of test modules from recorded times (tests/module_order.py)."""

from __future__ import annotations

from module_order import TIMES, longest_first, module_of, read_times


def test_longest_module_first_unknown_at_the_mean_and_order_kept_inside() -> None:
    times = {"tests/a.py": 10.0, "tests/b.py": 300.0, "tests/c.py": 20.0}  # mean 110
    ids = [
        "tests/a.py::t1",
        "tests/a.py::t2",
        "tests/b.py::t1",
        "tests/new.py::t1",
        "tests/c.py::t1",
        "tests/b.py::t2",
    ]
    order = [ids[i] for i in longest_first(ids, times)]
    assert order == [
        "tests/b.py::t1",
        "tests/b.py::t2",
        "tests/new.py::t1",
        "tests/c.py::t1",
        "tests/a.py::t1",
        "tests/a.py::t2",
    ]


def test_reading_the_times_file() -> None:
    assert read_times("# seconds\tmodule\n\n12.5\ttests/x.py\n3\ttests/y.py\n") == {
        "tests/x.py": 12.5,
        "tests/y.py": 3.0,
    }
    assert module_of("tests/a/test_b.py::test_c[x::y]") == "tests/a/test_b.py"
    # with the CPU-seconds between (tests/cpu_accounting.py), or none counted
    assert read_times("9.5\t12.0\ttests/x.py\n2\t-\ttests/y.py\n") == {
        "tests/x.py": 9.5,
        "tests/y.py": 2.0,
    }


def test_the_shipped_times_name_modules_that_exist() -> None:
    root = TIMES.parent.parent
    for path in read_times(TIMES.read_text()):
        assert (root / path).is_file(), path
