// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: a process with N threads named like vsched's vCPU threads ("vcpu0", ...), or
 * like QEMU's with an accelerator name as the second argument ("CPU 0/TCG", ...), each printing
 * nothing and sleeping until the process is killed. Stands in for a VMM when a test needs vCPU
 * threads to move between real cgroups.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char *accel;

static void *vcpu(void *arg)
{
	char name[16];

	if (accel)
		snprintf(name, sizeof(name), "CPU %ld/%s", (long)arg, accel);
	else
		snprintf(name, sizeof(name), "vcpu%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long i, n = argc > 1 ? atol(argv[1]) : 2;
	pthread_t t;

	accel = argc > 2 ? argv[2] : NULL;
	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, vcpu, (void *)i))
			return 1;
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
