#!/bin/bash
# Horizon with the KeyVRM plugin against the demo: a real Keystone, keyvrm-demo serving two
# simulated regions (RegionOne, RegionTwo) behind it, Horizon's runserver; prints the URL and
# the credentials, Ctrl-C stops everything. The same code the browser tests start
# (tests/browser/cloud.py). Needs `tox -e py3,browser --notest` once (the two environments).
set -euo pipefail
cd "$(dirname "$0")/.."
export KEYVRM_SERVER_PYTHON="${KEYVRM_SERVER_PYTHON:-$PWD/.tox/py3/bin/python}"
exec .tox/browser/bin/python -m tests.browser.cloud
