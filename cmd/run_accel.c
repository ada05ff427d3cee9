// SPDX-License-Identifier: GPL-2.0
/*
 * Which vCPU backend `vsched run` uses: --accel, or the --domain file's type ('kvm': KVM,
 * 'qemu': the thread backend), checked against what the VM needs before anything starts.
 * "auto" falls back to the thread backend where KVM cannot run, with one line saying why.
 */
#include <stdio.h>

#include "vmm/accel.h"
#include "vmm/payload.h"
#include "cmd/run.h"

/* Why the thread backend cannot run the VM, or NULL if it can. */
static const char *run_accel_needs_cpu(const struct run_accel_req *req, char *buf, size_t len)
{
	unsigned int i;
	char kind[32];

	if (req->kernel)
		return "--kernel";
	for (i = 0; req->specs && i < req->nr_vcpus; i++)
		if (payload_kind_needs_cpu(req->specs[i].kind)) {
			payload_format(&req->specs[i], kind, sizeof(kind));
			snprintf(buf, len, "--payload %s (vCPU %u)", kind, i);
			return buf;
		}
	return NULL;
}

/* The backend the domain's type asks for, or -RUN_EXIT_USAGE if --accel contradicts it. */
static int run_accel_domain(const struct run_accel_req *req, enum vm_accel *want)
{
	enum vm_accel typed;

	if (!req->domain_type || !*req->domain_type)
		return 0;
	typed = req->domain_type[0] == 'k' ? VM_ACCEL_KVM : VM_ACCEL_THREAD;
	if (*want != VM_ACCEL_AUTO && *want != typed) {
		fprintf(stderr, "vsched run: --accel %s contradicts <domain type='%s'> in %s "
			"('kvm' runs on KVM, 'qemu' on the thread backend)\n", accel_name(*want),
			req->domain_type, req->domain);
		return -RUN_EXIT_USAGE;
	}
	*want = typed;
	return 0;
}

int run_accel_check(const struct run_accel_req *req)
{
	enum vm_accel want = req->accel;
	const char *needs;
	char what[64];
	int ret;

	ret = run_accel_domain(req, &want);
	if (ret || want != VM_ACCEL_THREAD)
		return ret;
	needs = run_accel_needs_cpu(req, what, sizeof(what));
	if (needs) {
		fprintf(stderr, "vsched run: %s needs a real CPU (KVM); the thread backend runs "
			"the payload kinds hog, duty, halt-duty, io, count and steal\n", needs);
		return -RUN_EXIT_USAGE;
	}
	return 0;
}

int run_accel_choose(const struct run_accel_req *req, enum vm_accel *out)
{
	enum vm_accel want = req->accel;
	struct diag why;
	char what[64];
	const char *needs;
	bool chosen;
	int ret;

	ret = run_accel_check(req);
	if (ret)
		return ret;
	run_accel_domain(req, &want);
	chosen = want != VM_ACCEL_AUTO;
	diag_init(&why, NULL);
	if (want == VM_ACCEL_KVM && accel_kvm_probe(&why)) {
		if (req->domain_type && *req->domain_type)
			fprintf(stderr, "vsched run: %s: <domain type='kvm'> needs KVM: %s (type "
				"'qemu' runs on the thread backend)\n", req->domain, why.msg);
		else
			fprintf(stderr, "vsched run: --accel kvm: no KVM here: %s\n", why.msg);
		return -RUN_EXIT_FAILURE;
	}
	*out = accel_resolve(want, &why);
	if (*out != VM_ACCEL_THREAD)
		return 0;
	needs = run_accel_needs_cpu(req, what, sizeof(what));
	if (needs) {
		fprintf(stderr, "vsched run: %s needs KVM, which this machine lacks: %s\n", needs,
			why.msg);
		return -RUN_EXIT_FAILURE;
	}
	if (!chosen)
		fprintf(stderr, "vsched run: no KVM here (%s); the vCPUs run as host threads "
			"(--accel thread)\n", why.msg);
	return 0;
}
