// SPDX-License-Identifier: GPL-2.0
/*
 * Test harness for the control directory: a struct vsched with N "vCPUs" backed by idle
 * threads named vcpuN (so cgroup.threads lists real TIDs of this process), its directory
 * mounted as a VMM would mount it, served until SIGINT or SIGTERM. No KVM involved: the
 * integration tests use it to drive the directory fast and deterministically.
 *
 * usage: vsched-ctl-harness [--name NAME] [--vcpus N] [--ctl-dir DIR]  (--ctl-dir "": none)
 * Prints "ready DIR" on stdout once mounted.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "vsched.h"

#define MAX_VCPUS 64

struct idle_vcpu {
	unsigned int id;
	pid_t tid;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool started;
};

static void *idle_thread(void *arg)
{
	struct idle_vcpu *v = arg;
	char name[16];

	snprintf(name, sizeof(name), "vcpu%u", v->id);
	prctl(PR_SET_NAME, name);
	pthread_mutex_lock(&v->lock);
	v->tid = gettid();
	v->started = true;
	pthread_cond_signal(&v->cond);
	pthread_mutex_unlock(&v->lock);
	for (;;)
		pause();
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: vsched-ctl-harness [--name NAME] [--vcpus N] [--ctl-dir DIR]\n"
		   "--ctl-dir \"\" registers the VM without a directory (as --no-ctl)\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "name", required_argument, NULL, 'n' },
		{ "vcpus", required_argument, NULL, 'c' },
		{ "ctl-dir", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct idle_vcpu vcpus[MAX_VCPUS];
	const char *name = "harness", *dir = NULL;
	unsigned int nr = 4, i;
	struct vsched *vs;
	struct ctl *c;
	sigset_t set;
	int opt, sig, ret;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'n':
			name = optarg;
			break;
		case 'c':
			nr = strtoul(optarg, NULL, 0);
			if (!nr || nr > MAX_VCPUS) {
				fprintf(stderr, "harness: --vcpus must be 1..%d\n", MAX_VCPUS);
				return 2;
			}
			break;
		case 'd':
			dir = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}

	/* Signals are taken by sigwait() below, in this thread only. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	vs = vsched_create(nr < 2 ? nr : 2, nr);
	if (!vs) {
		fprintf(stderr, "harness: cannot create the group tree\n");
		return 1;
	}
	vsched_set_pid(vs, getpid());
	for (i = 0; i < nr; i++) {
		struct idle_vcpu *v = &vcpus[i];

		v->id = i;
		pthread_mutex_init(&v->lock, NULL);
		pthread_cond_init(&v->cond, NULL);
		if (pthread_create(&v->thread, NULL, idle_thread, v)) {
			fprintf(stderr, "harness: cannot start thread %u\n", i);
			return 1;
		}
		pthread_mutex_lock(&v->lock);
		while (!v->started)
			pthread_cond_wait(&v->cond, &v->lock);
		pthread_mutex_unlock(&v->lock);
		vsched_set_vcpu_tid(vs, i, v->tid);
	}

	ret = ctl_vm_start(vs, name, dir, &c);
	if (ret) {
		fprintf(stderr, "harness: control directory for '%s': %s\n", name, strerror(-ret));
		vsched_destroy(vs);
		return 1;
	}
	printf("ready %s\n", c ? ctl_dir(c) : "-");
	fflush(stdout);

	sigwait(&set, &sig);
	ctl_vm_stop(name, c);
	vsched_destroy(vs);
	return 0;
}
