// SPDX-License-Identifier: GPL-2.0
/* Quick check of the host side alone: bench-host [SECONDS [SCENARIO]]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2.0;
	static struct bench_result r;
	const char *why;
	unsigned int i, g;

	if (host_probe(&why)) {
		printf("bench-host: skipped: %s\n", why);
		return 0;
	}
	for (i = 0; i < nr_scenarios; i++) {
		const struct scenario *s = &scenarios[i];
		int err;

		if (argc > 2 && strcmp(argv[2], s->name))
			continue;
		err = host_run(s, 2, secs, &r);
		if (err) {
			printf("%s: error %d\n", s->name, err);
			continue;
		}
		printf("%-12s", s->name);
		for (g = 0; g < scn_nr_groups(s); g++)
			printf(" %s=%.1f%%", s->groups[g].path, result_pct(&r, r.group_ns[g]));
		printf("  wakes=%u thr=%llu\n", r.nr_wake, (unsigned long long)r.nr_throttled[0]);
	}
	return 0;
}
