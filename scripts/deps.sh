#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs, with apt-get, whichever of the packages throng needs to build,
# run and test are missing on this Debian 12 machine.  Sourced by
# scripts/test.sh, scripts/demo.sh and .ci/run; run it directly to do only
# the installation.  Needs root (or sudo) only when something is missing.
#
# Package services stay stopped: nginx is installed for the tests, which
# start their own nginx on ephemeral ports, so the package must not start
# a system-wide one on port 80.  chromium is for the html report's browser
# test (headless, from disk); zsh and fish for the completions' test;
# debhelper and fakeroot for the Debian package (scripts/build-deb.sh).

THRONG_PACKAGES=(
    meson ninja-build pkg-config gcc
    libglib2.0-dev libsoup-3.0-dev glib-networking
    libgnutls28-dev gnutls-bin libyaml-dev libjson-glib-dev libnghttp2-dev
    zlib1g-dev libbrotli-dev libzstd-dev
    nginx-light python3
    chromium
    clang libclang-rt-14-dev
    zsh fish debhelper fakeroot
)

throng_missing_packages () {
    local pkg
    for pkg in "${THRONG_PACKAGES[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
            printf '%s\n' "$pkg"
        fi
    done
}

throng_install_deps () {
    local missing sudo=() policy_made=0
    mapfile -t missing < <(throng_missing_packages)
    if [ "${#missing[@]}" -eq 0 ]; then
        return 0
    fi
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then
            sudo=(sudo)
        else
            echo "throng: missing packages (${missing[*]}); run as root to install them" >&2
            return 1
        fi
    fi
    echo "throng: installing ${missing[*]}" >&2
    # Keep invoke-rc.d from starting the packages' services (exit 101 = "not allowed").
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee /usr/sbin/policy-rc.d >/dev/null
        "${sudo[@]}" chmod 755 /usr/sbin/policy-rc.d
        policy_made=1
    fi
    local status=0
    "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null &&
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
            "${missing[@]}" </dev/null || status=$?
    if [ "$policy_made" -eq 1 ]; then
        "${sudo[@]}" rm -f /usr/sbin/policy-rc.d
    fi
    return "$status"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    throng_install_deps
fi

# The reporters' integration tests talk to the real programs (issue 18):
# Prometheus and InfluxDB 1.x, started by the tests on loopback ports (their
# services stay stopped, as above), and xmllint for the JUnit schema.
THRONG_PACKAGES+=(prometheus influxdb libxml2-utils)
# The remote_write reporter: snappy and protobuf-c to build it.
THRONG_PACKAGES+=(libsnappy-dev libprotobuf-c-dev protobuf-c-compiler)
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    throng_install_deps
fi
