"""Shared pytest configuration: the ``slow`` marker.

Tests marked ``slow`` (e.g. default-size workload runs) are part of the full suite; deselect
them for a quick run with ``pytest -m "not slow"``.
"""


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: long-running test (default-size workload runs); "
                   "deselect with -m 'not slow'")
