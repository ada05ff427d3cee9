/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-process back end of the apply plan: the same rendered operations as the directory back
 * end, executed through the public C API (vsched_mkdir/vsched_write_str/vsched_assign) on the
 * VM's struct vsched, so `vsched run --domain` and the control directory end in the same calls.
 */
#ifndef VSCHED_LIBVIRT_API_BACKEND_H
#define VSCHED_LIBVIRT_API_BACKEND_H

#include "libvirt/fsops.h"

struct vsched;

void api_backend(struct vsched *vs, struct fs_backend *be);

#endif
