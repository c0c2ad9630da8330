#!/usr/bin/env bash
# Sets up a Strata checkout on Debian 12: system packages (only those missing), npm
# dependencies, the native addon, C++ tests and benchmark driver, and the TypeScript build.
# Safe to run again: every step is skipped when already done.
#
# Before it installs or builds anything it checks what it cannot provide itself — Node.js 20
# or later with npm, and apt-get plus root or sudo when Debian packages are missing — and stops
# with exit code 1 and a "setup: ..." line naming each missing piece and its fix.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE_MIN=20
CMAKE_MIN_MAJOR=3
CMAKE_MIN_MINOR=16
NODE_FIX="install Node.js ${NODE_MIN} or later (with npm) from https://nodejs.org or the NodeSource packages (https://github.com/nodesource/distributions); Debian 12's own nodejs package is 18, which is too old"

problems=()
problem() { problems+=("setup: $*"); }
# Prints every problem found and exits 1; $1 says what was not done.
stop_if_problems() {
  if ((${#problems[@]})); then
    printf '%s\n' "${problems[@]}" >&2
    echo "setup: $1; fix the above and run this script again" >&2
    exit 1
  fi
}

# --- Prerequisites this script does not install ---------------------------------------------

if ! command -v node >/dev/null 2>&1; then
  problem "Node.js ${NODE_MIN} or later is required, but 'node' is not on PATH: ${NODE_FIX}"
else
  node_version=$(node --version 2>/dev/null || true)
  if [[ "$node_version" =~ ^v?([0-9]+)\. ]]; then
    if ((BASH_REMATCH[1] < NODE_MIN)); then
      problem "Node.js ${NODE_MIN} or later is required, found ${node_version} ($(command -v node)): ${NODE_FIX}"
    fi
  else
    problem "Node.js ${NODE_MIN} or later is required, but '$(command -v node) --version' printed '${node_version}': ${NODE_FIX}"
  fi
fi

if ! command -v npm >/dev/null 2>&1; then
  problem "npm is required, but 'npm' is not on PATH: install the npm that comes with Node.js ${NODE_MIN}+ (the nodejs.org and NodeSource packages include it)"
fi

# --- Debian packages: which are missing, and can they be installed? ---------------------------

packages=(build-essential cmake pkg-config librocksdb-dev libgtest-dev zlib1g-dev libsecp256k1-dev)
missing=()
if command -v dpkg-query >/dev/null 2>&1; then
  for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$pkg")
  done
else
  # Not a Debian system (or dpkg is gone): accept the tools and headers if they are there.
  command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || missing+=(build-essential)
  command -v cmake >/dev/null 2>&1 || missing+=(cmake)
  [ -f /usr/include/rocksdb/db.h ] || missing+=(librocksdb-dev)
  [ -f /usr/include/gtest/gtest.h ] || missing+=(libgtest-dev)
  [ -f /usr/include/zlib.h ] || missing+=(zlib1g-dev)
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
  [ -f /usr/include/secp256k1_recovery.h ] || missing+=(libsecp256k1-dev)
  if ((${#missing[@]})); then
    problem "dpkg-query and apt-get are not available, so ${missing[*]} cannot be installed: run this on Debian 12 (x86-64), or install the equivalents of those Debian packages yourself"
    missing=()
  fi
fi

sudo=""
if ((${#missing[@]})); then
  if ! command -v apt-get >/dev/null 2>&1; then
    problem "apt-get is required to install ${missing[*]}, but it is not on PATH: run this on Debian 12 (x86-64), or install those packages yourself"
  fi
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=sudo
    else
      problem "installing ${missing[*]} needs root: run this script as root, or install sudo and give this user sudo rights"
    fi
  fi
fi

stop_if_problems "nothing was installed or built"

# --- Install and build -------------------------------------------------------------------------

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The build's tools, which the packages above provide.
if ! command -v g++ >/dev/null 2>&1; then
  problem "g++ is required to build the native core, but it is not on PATH: install it with 'apt-get install build-essential'"
fi
if ! command -v cmake >/dev/null 2>&1; then
  problem "cmake ${CMAKE_MIN_MAJOR}.${CMAKE_MIN_MINOR} or later is required, but 'cmake' is not on PATH: install it with 'apt-get install cmake'"
else
  cmake_version=$(cmake --version 2>/dev/null | head -n 1 || true)
  if [[ "$cmake_version" =~ ([0-9]+)\.([0-9]+) ]]; then
    major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
    if ((major < CMAKE_MIN_MAJOR || (major == CMAKE_MIN_MAJOR && minor < CMAKE_MIN_MINOR))); then
      problem "cmake ${CMAKE_MIN_MAJOR}.${CMAKE_MIN_MINOR} or later is required, found ${major}.${minor} ($(command -v cmake)): install Debian 12's cmake (3.25) with 'apt-get install cmake', or a newer one from https://cmake.org"
    fi
  else
    problem "cmake ${CMAKE_MIN_MAJOR}.${CMAKE_MIN_MINOR} or later is required, but '$(command -v cmake) --version' printed '${cmake_version}': reinstall it with 'apt-get install --reinstall cmake'"
  fi
fi
stop_if_problems "nothing was built"

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies"
  npm ci --no-audit --no-fund --loglevel=error
fi

echo "setup: building the native core and TypeScript"
npm run --silent build
