#!/bin/sh
# Install the Debian packages that build, test and demo need. Idempotent; silent when all are present.
set -e
PKGS="gcc make pkg-config libxml2-dev libxml2-utils libfuse3-dev fuse3 libcunit1-dev binutils lz4 xz-utils zstd bzip2"
# Tests: jq checks that every JSON document vsched writes parses; python3 runs the tests'
# helpers and the docs' link check.
PKGS="$PKGS jq python3"
# vsched top: ncurses; its tests drive it in tmux. Bench plots: gnuplot.
PKGS="$PKGS libncurses-dev tmux gnuplot-nox"
# libvirt hook tests: a real libvirtd running a real QEMU/KVM domain.
PKGS="$PKGS libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients qemu-system-x86"
[ -n "$VSCHED_EXTRA_PKGS" ] && PKGS="$PKGS $VSCHED_EXTRA_PKGS"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
