// SPDX-License-Identifier: GPL-2.0
/*
 * Running the VM `vsched run` composed: start it and wait for the first of: the guest ending,
 * --duration, SIGINT, SIGTERM or SIGHUP (its terminal closed: killed by it, the VMM would leave
 * its control directory mounted). The main thread blocks those signals before any vCPU thread
 * exists (so they inherit the mask) and takes them only inside ppoll(). Not a signalfd: every
 * signal sent to any thread of the process (each vCPU slice timer) wakes a signalfd's pollers,
 * which cost a host context switch per slice.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "cmd/run.h"
#include "util/registry.h"
#include "util/time.h"
#include "vmm/linux.h"
#include "vmm/vm.h"

static void run_progress(struct vm *vm)
{
	unsigned int i;

	fprintf(stderr, "vsched: units");
	for (i = 0; i < vm->nr_vcpus; i++)
		fprintf(stderr, " vcpu%u=%llu", i,
			(unsigned long long)run_stats_units(&vm->vcpus[i]));
	fprintf(stderr, "\n");
}

static volatile sig_atomic_t run_signal;

static void run_on_signal(int sig)
{
	run_signal = sig;
}

/*
 * Waits for the VM to stop; returns the signal that stopped it, or 0. SIGINT, SIGTERM and
 * SIGHUP are blocked except inside ppoll() (waitmask), so they interrupt it and nothing else.
 */
static int run_wait(struct vm *vm, const struct run_cfg *cfg, const sigset_t *waitmask)
{
	struct pollfd pfd[2] = {
		{ .fd = vm->stop_fd, .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	struct timespec progress = { 1, 0 };
	int tfd = -1, sig = 0;

	if (cfg->duration_ns) {
		struct itimerspec its = {
			.it_value = { cfg->duration_ns / 1000000000ULL,
				      cfg->duration_ns % 1000000000ULL },
		};

		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (tfd >= 0 && !timerfd_settime(tfd, 0, &its, NULL))
			pfd[1].fd = tfd;
	}
	while (!vm_stopping(vm)) {
		int n = ppoll(pfd, 2, cfg->verbose ? &progress : NULL, waitmask);

		if (run_signal) {
			sig = run_signal;
			vm->exit_signal = sig;
			vm_stop(vm, VM_EXIT_STOPPED);
			break;
		}
		if (n < 0 && errno != EINTR)
			break;
		if (n == 0) {
			run_progress(vm);
			continue;
		}
		if (n > 0 && (pfd[1].revents & POLLIN))
			vm_stop(vm, VM_EXIT_STOPPED);
	}
	if (tfd >= 0)
		close(tfd);
	return vm->exit_reason == VM_EXIT_STOPPED ? sig : 0;
}

static int run_exit_status(const struct vm *vm, int sig)
{
	switch (vm->exit_reason) {
	case VM_EXIT_POWEROFF:
		return RUN_EXIT_OK;
	case VM_EXIT_STOPPED:
		return sig ? 128 + sig : RUN_EXIT_OK;
	case VM_EXIT_RESET:
		return RUN_EXIT_RESET;
	default:
		return RUN_EXIT_GUEST_ERROR;
	}
}

static int run_write_stats(const struct run_cfg *cfg, FILE *f, struct vm *vm,
			   const struct run_stats *sr)
{
	int ret = run_out_begin(f);

	if (!ret)
		ret = run_stats_json(f, vm, sr);
	if (fclose(f) && !ret)
		ret = errno ? -errno : -EIO;
	if (ret)
		fprintf(stderr, "vsched run: --stats %s: write failed: %s\n", cfg->stats,
			strerror(-ret));
	return ret;
}

int run_vm(const struct run_cfg *cfg, struct vm *vm, struct run_sched *rs, FILE *stats,
	   uint64_t start_ns)
{
	struct run_stats sr = { .cmd_start_ns = start_ns };
	struct run_ctl rc = { 0 };
	struct sigaction sa = { .sa_handler = run_on_signal }, old_int, old_term, old_hup;
	sigset_t set, old, waitmask;
	int ret, sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	waitmask = old;
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGHUP);
	run_signal = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	/*
	 * A reader of stdout that goes away (`vsched run | head`) ends the output, not the VMM:
	 * killed by SIGPIPE it would leave its control directory mounted and its record behind.
	 * Not restored: stdout's buffer is flushed at exit, after this returns.
	 */
	signal(SIGPIPE, SIG_IGN);
	ret = vm_create(vm);
	if (ret) {
		if (vm->boot == &linux_boot_ops && diag_failed(&cfg->kernel.diag))
			fprintf(stderr, "vsched run: cannot set up the VM: %s\n",
				cfg->kernel.diag.msg);
		else
			fprintf(stderr, "vsched run: cannot set up the VM: %s\n", strerror(-ret));
		if (vm->accel == VM_ACCEL_KVM && access("/dev/kvm", R_OK | W_OK))
			fprintf(stderr, "vsched run: /dev/kvm: %s\n", strerror(errno));
		sr.exit_status = RUN_EXIT_FAILURE;
		goto out;
	}
	rs->no_pin = cfg->no_pin;
	ret = run_sched_attach(rs, vm, cfg->monitor);
	if (ret && rs->host.sock) {
		run_host_join_failed(cfg, rs->host.sock, ret);
		sr.exit_status = RUN_EXIT_FAILURE;
		goto out;
	} else if (ret) {
		fprintf(stderr, "vsched run: cannot start the vCPU scheduler: %s\n",
			strerror(-ret));
		sr.exit_status = RUN_EXIT_FAILURE;
		goto out;
	}
	if (rs->host.sock && cfg->verbose)
		fprintf(stderr, "vsched: joined the host scheduler as %s\n",
			runtime_host_group(rs->rt));
	ret = vm_start(vm);
	if (ret)
		fprintf(stderr, "vsched run: cannot start vCPU threads: %s\n", strerror(-ret));
	else
		ret = run_ctl_start(cfg, vm, rs->vs, &rc);
	/* `vsched list` marks a VM of the host scheduler with its group there. */
	if (!ret && rc.started && rs->host.sock)
		registry_set_host(rc.name, runtime_host_group(rs->rt));
	sig = ret ? 0 : run_wait(vm, cfg, &waitmask);
	vm_stop(vm, VM_EXIT_STOPPED);
	run_ctl_stop(&rc);
	vm_join(vm);
	if (run_sched_finish(rs) && !ret)
		ret = -EIO;
	run_sched_stats(rs, &sr);
	sr.end_ns = time_mono_ns();
	sr.exit_status = ret ? RUN_EXIT_FAILURE : run_exit_status(vm, sig);
	if (vm->exit_reason == VM_EXIT_STOPPED && sig)
		fprintf(stderr, "vsched run: %s: stopping the VM\n", strsignal(sig));
	if (stats && run_write_stats(cfg, stats, vm, &sr) && !sr.exit_status)
		sr.exit_status = RUN_EXIT_FAILURE;
	stats = NULL;
	run_stats_summary(stdout, vm, &sr);
out:
	run_sched_destroy(rs);
	if (stats) {
		/* No VM ran: leave no empty statistics file behind, and one that was there as it was. */
		fclose(stats);
		if (cfg->stats_created)
			unlink(cfg->stats);
	}
	vm_destroy(vm);
	/*
	 * A stop asked again during the teardown (`timeout -s INT` signals the process and its
	 * group: two SIGINTs) is the stop already done: taken here, it would kill the process by
	 * the old action as the mask is restored, before stdout's summary is flushed.
	 */
	fflush(stdout);
	while (sigtimedwait(&set, NULL, &(struct timespec){ 0, 0 }) > 0)
		;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return sr.exit_status;
}
