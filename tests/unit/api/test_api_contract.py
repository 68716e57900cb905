"""The API contract, declared in gabbits/*.yaml (gabbi): statuses, bodies, errors, pagination."""

import os

from gabbi import driver
from gabbi.driver import test_pytest  # noqa: F401  (the test function gabbi parametrizes)

from tests.unit.api import gabbi_fixtures

GABBITS = os.path.join(os.path.dirname(__file__), "gabbits")


def pytest_generate_tests(metafunc):
    driver.py_test_generator(GABBITS, intercept=gabbi_fixtures.app, fixture_module=gabbi_fixtures,
                             test_loader_name=__name__, metafunc=metafunc)
