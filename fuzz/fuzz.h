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
#include <sys/types.h>

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

/*
 * The binary targets' input (host_msgs, vmm_peer; their seeds: fuzz/fuzz_seeds.py): fields
 * little endian, a byte past the end reads 0; a u64 is a count n, then min(n, 8) bytes (n 0xff:
 * UINT64_MAX, no bytes), so every byte string is some input and a short count a small value.
 */
struct fuzz_in {
	const uint8_t *p, *end;
};

bool fuzz_more(const struct fuzz_in *in);
uint8_t fuzz_u8(struct fuzz_in *in);
uint16_t fuzz_u16(struct fuzz_in *in);
uint32_t fuzz_u32(struct fuzz_in *in);
uint64_t fuzz_u64(struct fuzz_in *in);

/*
 * The tid of a thread of this process that stands in for a vCPU thread: the daemon's or the
 * runtime's kicks (VCPU_KICK_SIGNAL, an empty handler here) and pins reach it, not the fuzzer.
 * Started at the first call.
 */
pid_t fuzz_stand_in(void);

#endif
