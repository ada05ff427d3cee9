/* SPDX-License-Identifier: GPL-2.0 */
/* Small files the kernel serves (cgroupfs, procfs): one read or one write, errors as -errno. */
#ifndef VSCHED_UTIL_FILE_H
#define VSCHED_UTIL_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Reads at most size - 1 bytes of path into buf and terminates it. 0 or -errno. */
int file_read(const char *path, char *buf, size_t size);
/*
 * Writes buf[0..len) to path in one write(2), as cgroupfs wants a value. 0, -errno, or -EIO
 * for a short write.
 */
int file_write(const char *path, const char *buf, size_t len);
/*
 * mkdir -p: 0 or -errno; *made (if given) counts the directories it made (the last ones of the
 * path), also when it failed part way.
 */
int file_mkdir_p(const char *dir, mode_t mode, unsigned int *made);
/*
 * The state of a /proc/.../stat text (R, S, D, T, Z...): the field after the name's last ')',
 * since the name may hold spaces and parentheses; '?' if the text has none.
 */
char file_proc_state(const char *stat);
/* Removes what file_mkdir_p() made: dir and its parents, made in all; stops at one not empty. */
void file_rmdir_made(const char *dir, unsigned int made);

#endif
