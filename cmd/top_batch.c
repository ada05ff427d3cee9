// SPDX-License-Identifier: GPL-2.0
/*
 * `vsched top -b`: snapshots as plain text, one block per interval (a title line, the column
 * header, the rows, an empty line), for scripts and tests. The first block has no interval
 * behind it: its rates are "-", as systemd-cgtop's first iteration.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/top.h"
#include "util/registry.h"

void top_title(char *buf, size_t len, const struct top_view *view, const struct top_opts *o)
{
	char interval[32] = "-", clock[16] = "";
	time_t now = time(NULL);
	struct tm tm;

	if (localtime_r(&now, &tm))
		strftime(clock, sizeof(clock), "%H:%M:%S", &tm);
	if (view->seconds > 0)
		snprintf(interval, sizeof(interval), "%.2f s", view->seconds);
	snprintf(buf, len, "vsched top - %s  interval %s (every %.2f s)  VMs %u%s%s%s", clock,
		 interval, o->interval, top_view_vms(view),
		 view->cur->host ? "  host scheduler" : "", o->vm ? "  focus " : "",
		 o->vm ? o->vm : "");
}

static int print_snapshot(FILE *out, const struct top_view *view, const struct top_opts *o,
			  const struct top_prefs *p)
{
	struct top_row *rows;
	unsigned int n, i;
	char title[512];
	int ret;

	ret = top_rows(view, p, &rows, &n);
	if (ret)
		return ret;
	top_title(title, sizeof(title), view, o);
	fprintf(out, "%s\n%s\n", title, top_rows_header());
	for (i = 0; i < n; i++)
		fprintf(out, "%s\n", rows[i].text);
	if (!top_view_vms(view))
		fprintf(out, "(no vsched VM running%s%s)\n", o->vm ? " named " : "",
			o->vm ? o->vm : "");
	fprintf(out, "\n");
	free(rows);
	/* Without -n batch mode runs until killed: a full disk ended nothing, silently. */
	errno = 0;
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { (time_t)(t_ns / 1000000000ULL), (long)(t_ns % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int top_batch(const struct top_opts *o, FILE *out)
{
	struct top_prefs p = { .sort = o->sort, .vcpus = o->vcpus };
	struct top_snap snaps[2], *prev = NULL, *cur;
	struct top_view view;
	char host[PATH_MAX];
	uint64_t start = 0;
	long it;
	int ret = 0;

	for (it = 0; !o->iterations || it < o->iterations; it++) {
		cur = &snaps[it & 1];
		if (it)
			sleep_until(start + (uint64_t)((double)it * o->interval * 1e9));
		ret = top_snap_take(cur, o->vm, top_host_dir(host, sizeof(host)));
		if (ret) {
			fprintf(stderr, "vsched top: registry of running VMs %s: %s\n",
				registry_run_dir(), strerror(-ret));
			break;
		}
		if (!it)
			start = cur->t_ns;
		ret = top_view_build(&view, prev, cur);
		if (!ret) {
			ret = print_snapshot(out, &view, o, &p);
			top_view_free(&view);
		}
		if (prev)
			top_snap_free(prev);
		prev = cur;
		if (ret) {
			fprintf(stderr, "vsched top: %s%s\n", ret == -ENOMEM ? "" :
				"writing standard output: ", strerror(-ret));
			break;
		}
	}
	if (prev)
		top_snap_free(prev);
	return ret ? 1 : 0;
}
