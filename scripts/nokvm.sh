#!/bin/sh
# Runs a command as on a machine without KVM, to test that path where KVM exists: in a private
# mount namespace whose /dev is a copy of the real one without kvm (a tmpfs with the same
# device nodes, the real /dev/pts, /dev/shm, ... moved onto it). Needs root (unshare -m).
#   scripts/nokvm.sh make check
set -eu
[ $# -gt 0 ] || { echo "usage: scripts/nokvm.sh COMMAND [ARGS...]" >&2; exit 2; }
exec unshare --mount --propagation private sh -c '
	set -e
	real=$(mktemp -d /tmp/vsched-nokvm.XXXXXX)
	mount --rbind /dev "$real"
	umount -l /dev
	mount -t tmpfs -o mode=0755,nosuid nokvm-dev /dev
	cp -ax "$real"/. /dev/
	rm -f /dev/kvm
	# What was mounted under /dev (pts, shm, mqueue, ...), deepest last.
	awk -v r="$real/" "index(\$5, r) == 1 { print substr(\$5, length(r) + 1) }" \
		/proc/self/mountinfo | sort | while read -r m; do
		[ -d "/dev/$m" ] && mount --move "$real/$m" "/dev/$m"
	done
	umount -l "$real"
	rmdir "$real"
	exec "$@"' nokvm "$@"
