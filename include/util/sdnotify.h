/* SPDX-License-Identifier: GPL-2.0 */
/*
 * systemd's readiness protocol without libsystemd: a datagram of "KEY=VALUE" lines to the Unix
 * socket $NOTIFY_SOCKET names (a path, or "@name" in the abstract namespace), as sd_notify(3)
 * sends it. `vsched host` says READY=1 once its socket listens, so a Type=notify unit is started
 * only when `vsched run --host` can join.
 */
#ifndef VSCHED_UTIL_SDNOTIFY_H
#define VSCHED_UTIL_SDNOTIFY_H

/* Sends msg to $NOTIFY_SOCKET: 1 if sent, 0 if the variable is unset or empty, or -errno. */
int sdnotify(const char *msg);

#endif
