// SPDX-License-Identifier: GPL-2.0
/* A growable array of strings; see include/util/strv.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/strv.h"

int strv_push(struct strv *sv, const char *s)
{
	char **v = realloc(sv->v, (sv->nr + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	sv->v = v;
	v[sv->nr] = strdup(s);
	if (!v[sv->nr])
		return -ENOMEM;
	sv->nr++;
	return 0;
}

void strv_free(struct strv *sv)
{
	size_t i;

	for (i = 0; i < sv->nr; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->nr = 0;
}
