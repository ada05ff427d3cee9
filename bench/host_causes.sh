#!/usr/bin/env bash
# Which preemptions still cost the daemon's round trip, by cause (docs/host.md, "Latency: which
# preemptions go through the daemon"): a `vsched host` with VSCHED_HOST_PRE_STATS=1, the VMs of
# one scenario for SECONDS, then the daemon's count per VM as each leaves (host_pre_log()), and
# each VMM's offers standing that it did not take, by why (runtime offer_refused in --stats).
#   bench/host_causes.sh [vsched] [thread|kvm] [SCENARIO] [SECONDS]
# Scenarios (2 lanes unless said):
#   weights  two VMs of four hogs, weights 200:100 (bench-host's first scenario)
#   part     three VMs of two hogs in /capped (weight 200, "100000 100000") beside `free`
#            (two hogs, /machine): bench-host's partition scenario
#   duty     two VMs of four duty:1000/2000 vCPUs, weights 200:100
#   mix      VM a of two hogs beside VM b of three duty:200/2000 vCPUs, equal weights
#   held2    one VM as t-host-held2.sh: a cpu.idle hog, a hog capped at half a CPU, a
#            duty:200/2000 vCPU
#   xhand    1 lane, two VMs of one duty:1000/500 vCPU (t-host-xhand.sh)
# Run it under the machine lock (flock /tmp/vsched-machine.lock ...).
V=${1:-build/vsched} ACCEL=${2:-thread} SC=${3:-mix} S=${4:-3}
T=$(mktemp -d /tmp/vsched-causes.XXXXXX)
export VSCHED_RUN_DIR=$T/run
mkdir -p "$VSCHED_RUN_DIR"
LANES=2
[ "$SC" = xhand ] && LANES=1
VSCHED_HOST_PRE_STATS=1 "$V" host --cpus $LANES >"$T/host.log" 2>&1 &
HP=$!
trap 'kill -9 $HP $P 2>/dev/null; rm -rf "$T"' EXIT
H=$VSCHED_RUN_DIR/host
for i in $(seq 500); do
	[ -S "$VSCHED_RUN_DIR/host.sock" ] && [ -e "$H/cgroup.procs" ] && break
	sleep 0.01
done
P=""
run() {
	local n=$RANDOM
	"$V" run --host --accel "$ACCEL" --no-ctl --duration "${S}s" --stats "$T/vm.$n.json" "$@" \
		>"$T/vm.$n.log" 2>&1 &
	P="$P $!"
}
case $SC in
weights)
	run --name a --weight 200 --vcpus 4 --payload hog
	run --name b --weight 100 --vcpus 4 --payload hog;;
part)
	mkdir "$H/capped"
	echo 200 >"$H/capped/cpu.weight"
	echo "100000 100000" >"$H/capped/cpu.max"
	for v in c1 c2 c3; do
		run --name $v --partition /capped --weight 100 --vcpus 2 --payload hog
	done
	run --name free --weight 100 --vcpus 2 --payload hog;;
duty)
	run --name a --weight 200 --vcpus 4 --payload duty:1000/2000
	run --name b --weight 100 --vcpus 4 --payload duty:1000/2000;;
mix)
	run --name a --vcpus 2 --payload hog
	run --name b --vcpus 3 --payload duty:200/2000;;
held2)
	run --name h --vcpus 3 --payload 0=hog,1=hog,2=duty:200/2000 --group bg:idle=1 \
		--assign 0=bg --group "half:max=50000 100000" --assign 1=half;;
xhand)
	run --name a --vcpus 1 --payload duty:1000/500
	run --name b --vcpus 1 --payload duty:1000/500;;
*)
	echo "unknown scenario $SC" >&2
	exit 2;;
esac
wait $P
P=""
kill -TERM $HP
wait $HP
grep -a "preempted:" "$T/host.log" | sed "s/^vsched host: /$ACCEL $SC /"
# The VMMs' side: offers standing that a waking vCPU did not take, by why (rt_offer.c).
for j in "$T"/vm.*.json; do
	[ -e "$j" ] || continue
	sed -nE 's/.*("held_offers": [0-9]+), ("offer_refused": \{[^}]*\}).*/\1 \2/p' "$j" |
		sed "s/^/$ACCEL $SC VMM: /"
done
