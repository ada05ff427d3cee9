/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host-kernel side of the benchmark: a scenario's vCPUs as plain threads doing the same work
 * in the host's cgroup cpu controller (cgroup v1 "cpu" where mounted, else cgroup v2).
 */
#ifndef VSCHED_BENCH_HOST_H
#define VSCHED_BENCH_HOST_H

#include "result.h"
#include "scenario.h"

/* 0 when the host has a usable cpu controller, else -errno with why in *reason. */
int host_probe(const char **reason);
/* Runs s on CPUs 0..lanes-1 for warmup + seconds; fills r. 0 or -errno. */
int host_run(const struct scenario *s, unsigned int lanes, double seconds, struct bench_result *r);

#endif
