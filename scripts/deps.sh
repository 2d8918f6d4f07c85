#!/usr/bin/env bash
# Install the Debian packages sbt-bpf needs to build, test and benchmark.
# Idempotent: only missing packages are installed; a no-op on a ready machine.
set -euo pipefail

BUILD_PKGS="make gcc clang llvm pkg-config libbpf-dev bpftool libelf-dev libdw-dev zlib1g-dev
	libopen-trace-format2-dev"
RUN_PKGS="libomp-dev"
TEST_PKGS="bats procps util-linux libcap2-bin python3 time chromium otf2-tools tmux libclang-rt-dev
	openmpi-bin libopenmpi-dev mpich libmpich-dev gfortran g++"
BENCH_PKGS="bpftrace"

want="$BUILD_PKGS $RUN_PKGS"
case "${1:-build}" in
build) ;;
test) want="$want $TEST_PKGS" ;;
all) want="$want $TEST_PKGS $BENCH_PKGS" ;;
*) echo "usage: $0 [build|test|all]" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run as root (sudo make deps) to install them" >&2
	exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
