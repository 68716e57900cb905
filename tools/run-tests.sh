#!/usr/bin/env bash
# Install what KeyVRM's tests need on a Debian machine, then run them: tox -e nova,browser,functional,py3,dashboard,docs,pep8,
# every environment at once (the real-cloud, browser and functional suites mostly wait on timers and
# services while the unit tests and scenarios use the CPU). Each environment's output is printed
# whole when it ends, with its slowest tests; tox ends with each environment's time.
# Debian packages come from .ci/apt-packages.txt (installed only when missing), Python packages
# from requirements.txt/test-requirements.txt pinned by constraints.txt.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -s .ci/apt-packages.txt ]; then
    missing=""
    for package in $(grep -v '^\s*#' .ci/apt-packages.txt | sort -u); do
        dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
    done
    if [ -n "$missing" ]; then
        sudo=""
        [ "$(id -u)" = 0 ] || sudo=sudo
        echo "installing Debian packages:$missing"
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
    fi
fi

python3 -m pip install -q -c constraints.txt tox
envs=nova,browser,functional,py3,dashboard,docs,pep8  # longest first
python3 -m tox run-parallel --parallel all --notest -e "$envs"  # build (or check) every environment
# the package was just installed in each: the test pass does not build and reinstall it again
exec python3 -m tox run-parallel --parallel all --skip-pkg-install -e "$envs" "$@"
