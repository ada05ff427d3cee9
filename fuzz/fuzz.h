/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the fuzz targets (docs/fuzzing.md). Each target defines LLVMFuzzerTestOneInput(); it
 * is linked either with libFuzzer (clang, `make fuzz`) or with fuzz/replay.c, a plain main() that
 * feeds it the committed corpus (gcc, ASan+UBSan, `make check`).
 *
 * A target checks its invariants itself: a broken one is a finding like a crash, so FUZZ_CHECK
 * prints what broke and aborts, and libFuzzer keeps the input.
 */
#ifndef VSCHED_FUZZ_H
#define VSCHED_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/compiler.h"

struct vsched;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond, ...)                                                                   \
	do {                                                                                   \
		if (!(cond))                                                                   \
			fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                     \
	} while (0)

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
	__printf(4, 5) __attribute__((noreturn));

/* The input as a malloc'ed NUL-terminated string (an embedded NUL ends it early). */
char *fuzz_string(const uint8_t *data, size_t size);

/*
 * Everything the public API shows of a VM's group tree: every group (depth first) and the read
 * result (errno or content) of every interface file name in each, as one comparable text. The
 * VM's clock must stand still between two snapshots that are compared (cpu.stat).
 */
struct fuzz_snap {
	char *buf;
	size_t len, cap;
};

void fuzz_snapshot(struct vsched *vs, struct fuzz_snap *s);
void fuzz_snap_free(struct fuzz_snap *s);
/* NULL if equal, else the first line that differs, before and after (static buffer). */
const char *fuzz_snap_diff(const struct fuzz_snap *a, const struct fuzz_snap *b);

/* A clock that stands still at 1 s (vsched_set_clock()), so snapshots compare. */
uint64_t fuzz_clock(void *arg);

#endif
