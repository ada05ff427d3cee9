# The vCPU backends of the integration tests (sourced, not run: no t- prefix). A test that runs
# VMs runs them under every backend in $(test_accels), with the same assertions: kvm where KVM
# works, thread always. run.sh finds the list once and exports it; VSCHED_TEST_ACCEL set by hand
# narrows it (VSCHED_TEST_ACCEL=thread: as on a machine without KVM; scripts/nokvm.sh hides
# /dev/kvm for real).

# Whether vsched can run a KVM VM here (its own probe: /dev/kvm may exist and not be KVM).
kvm_usable() {
	"$VSCHED" run --accel kvm --payload count:1 --no-sched --no-ctl --duration 10 \
		>/dev/null 2>&1
}

test_accels() {
	if [ -z "${VSCHED_TEST_ACCEL:-}" ]; then
		VSCHED_TEST_ACCEL=thread
		kvm_usable && VSCHED_TEST_ACCEL="kvm thread"
		export VSCHED_TEST_ACCEL
	fi
	echo "$VSCHED_TEST_ACCEL"
}

# Tests of KVM itself skip (exit 77) unless kvm is among the backends.
require_kvm() {
	case " $(test_accels) " in
	*" kvm "*) ;;
	*) echo "skip: no usable KVM (backends: $(test_accels))"; exit 77 ;;
	esac
}

# The libvirt domain type of a backend: KVM is type 'kvm', the thread backend type 'qemu'.
domain_type() {
	if [ "$1" = kvm ]; then echo kvm; else echo qemu; fi
}
