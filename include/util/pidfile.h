/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A daemon's pid file (`vsched host --pidfile FILE`): "PID\n", held with flock() for the life
 * of the process, so that a second daemon is refused while the first lives and a file left by
 * one that died is taken over. The content appears at once (written aside, then linked or
 * renamed into place): a reader sees the old file or the whole new one, never a partial pid.
 * One pid file per process; the lock is not inherited across exec (O_CLOEXEC), but a fork()ed
 * child shares it until it exits or execs.
 */
#ifndef VSCHED_UTIL_PIDFILE_H
#define VSCHED_UTIL_PIDFILE_H

/*
 * Writes this process's pid to path and holds it. 0, -EEXIST if a live process holds it,
 * -EALREADY if this process holds a pid file already, -ELOOP if path is a symbolic link, or
 * another -errno (the directory must exist).
 */
int pidfile_write(const char *path);
/* Removes path if it is still this process's pid file, and lets it go. */
void pidfile_remove(const char *path);

#endif
