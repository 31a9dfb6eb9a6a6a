#!/bin/sh
# Installs the Debian packages warpsparse builds with, when missing (apt only; nothing else is
# downloaded). Safe to run again: it does nothing when everything is present.
set -eu
pkgs="cmake ninja-build g++ libeigen3-dev catch2 librapidcheck-dev nlohmann-json3-dev libcli11-dev libfmt-dev libboost-math-dev"
missing=""
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
if [ "$(id -u)" -ne 0 ]; then sudo=sudo; else sudo=; fi
$sudo apt-get update
$sudo apt-get install -y --no-install-recommends $missing
