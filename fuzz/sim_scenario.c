// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a scenario file of `vsched sim` (sim_parse(), include/sched/sim.h).
 *
 * Input: the file. Invariants: no crash, leak or undefined behaviour; a refused file gives
 * -EINVAL and one message "line N: ..." with N a line of the file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "sched/sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), *err, *end;
	struct sim_scenario *sc = NULL;
	unsigned long line, lines = 1;
	struct diag d;
	size_t i;
	int ret;

	for (i = 0; text[i]; i++)
		lines += text[i] == '\n';
	diag_init(&d, NULL);
	err = d.msg;
	ret = sim_parse(text, &sc, &d);
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL && !sc, "refused with %d", ret);
		FUZZ_CHECK(!strncmp(err, "line ", 5), "refused without a line: '%s'", err);
		line = strtoul(err + 5, &end, 10);
		FUZZ_CHECK(line >= 1 && line <= lines && !strncmp(end, ": ", 2) && end[2],
			   "no line of the file (1-%lu) in '%s'", lines, err);
	} else {
		FUZZ_CHECK(sc, "accepted, no scenario");
		sim_scenario_free(sc);
	}
	free(text);
	return 0;
}
