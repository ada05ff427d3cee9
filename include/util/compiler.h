/* SPDX-License-Identifier: GPL-2.0 */
#ifndef VSCHED_UTIL_COMPILER_H
#define VSCHED_UTIL_COMPILER_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define __unused __attribute__((unused))
#define __noinline __attribute__((noinline))
#ifndef __always_inline		/* glibc's <sys/cdefs.h> has the same */
#define __always_inline inline __attribute__((always_inline))
#endif
#define __printf(a, b) __attribute__((format(printf, a, b)))
#define min_t(t, a, b) ((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b) ((t)(a) > (t)(b) ? (t)(a) : (t)(b))

#endif
