#!/usr/bin/env bash
# Installs what tshape needs to build and test on Debian bookworm (root),
# skipping packages that are already present. Safe to run repeatedly.
set -euo pipefail

PKGS=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
      cmake ninja-build lld ccache g++ libgtest-dev python3)

missing=()
# make check also renders tshape advise's HTML report in a headless browser
# (test/Advise/browser.test); make demo never installs it.
if [ "${BROWSER:-0}" = 1 ]; then
  PKGS+=(chromium)
fi
# make fuzz also needs clang and its libFuzzer runtime.
if [ "${FUZZ:-0}" = 1 ]; then
  PKGS+=(clang-22 libclang-rt-22-dev)
fi
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
