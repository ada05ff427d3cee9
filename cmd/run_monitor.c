// SPDX-License-Identifier: GPL-2.0
/* --stats "groups" JSON and the live group table of `vsched run`, over the public API. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run.h"
#include "sched/core.h"
#include "sched/fluid.h"
#include "sched/group.h"
#include "sched/runtime.h"
#include "util/compiler.h"
#include "util/json.h"
#include "util/strv.h"
#include "util/time.h"
#include "vsched.h"

#define MON_MAX_GROUPS	32

struct mon_names {
	unsigned int nr;
	char name[MON_MAX_GROUPS][256];
};

static int mon_collect(const char *name, mode_t mode __unused, void *arg)
{
	struct mon_names *n = arg;

	if (n->nr >= MON_MAX_GROUPS)
		return -ENOSPC;
	snprintf(n->name[n->nr++], sizeof(n->name[0]), "%s", name);
	return 0;
}

/* Paths of every group, root ("") first, parents before children. */
static unsigned int mon_paths(struct vsched *vs, char (*paths)[256], unsigned int max)
{
	unsigned int nr = 1, i, k;

	paths[0][0] = '\0';
	for (i = 0; i < nr; i++) {
		static struct mon_names kids;
		char parent[256];

		kids.nr = 0;
		memcpy(parent, paths[i], sizeof(parent));
		vsched_list_children(vs, parent, mon_collect, &kids);
		for (k = 0; k < kids.nr && nr < max; k++) {
			int n = snprintf(paths[nr], 256, "%s%s%s", parent, parent[0] ? "/" : "",
					 kids.name[k]);

			/* Deeper paths than a table line shows are left out. */
			if (n > 0 && n < 256)
				nr++;
		}
	}
	return nr;
}

static uint64_t mon_stat_field(const char *stat, const char *key)
{
	size_t len = strlen(key);
	const char *p = stat;

	while (p && *p) {
		if (!strncmp(p, key, len) && p[len] == ' ')
			return strtoull(p + len + 1, NULL, 10);
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return 0;
}

/* A one-line file without its newline; "" if unreadable. */
static void mon_read(struct vsched *vs, const char *path, const char *file, char *buf, size_t len)
{
	if (vsched_read(vs, path, file, buf, len) < 0)
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';	/* single-line files only */
}

/* A number file's value as a JSON number, null if it has none. */
static void mon_json_number(struct json *j, const char *text)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(text, &end, 10);
	if (text[0] >= '0' && text[0] <= '9' && !*end && !errno)
		json_u64(j, v);
	else
		json_null(j);
}

/* cpu.stat's "key value" lines as an object of numbers. */
static void mon_json_stat(struct json *j, struct vsched *vs, const char *path)
{
	char stat[1024], *line, *save = NULL;

	if (vsched_read(vs, path, "cpu.stat", stat, sizeof(stat)) < 0)
		stat[0] = '\0';
	json_object_begin(j, JSON_INLINE);
	for (line = strtok_r(stat, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(line, ' ');

		if (!sp)
			continue;
		*sp = '\0';
		json_key(j, line);
		mon_json_number(j, sp + 1);
	}
	json_object_end(j);
}

static int mon_kid(const char *name, mode_t mode __unused, void *arg)
{
	return strv_push(arg, name);
}

/* One group's object, then its children's, depth first. path: "/" for the root, "/a/b". */
static void mon_json_group(struct json *j, struct vsched *vs, const char *path)
{
	struct strv kids = { 0 };
	char val[256];
	size_t i;

	json_object_begin(j, JSON_INLINE);
	json_kv_str(j, "path", path);
	if (path[1]) {
		mon_read(vs, path, "cpu.weight", val, sizeof(val));
		json_key(j, "cpu.weight");
		mon_json_number(j, val);
		mon_read(vs, path, "cpu.max", val, sizeof(val));
		json_kv_str(j, "cpu.max", val);
		mon_read(vs, path, "cpu.idle", val, sizeof(val));
		json_key(j, "cpu.idle");
		mon_json_number(j, val);
	}
	json_key(j, "cpu.stat");
	mon_json_stat(j, vs, path);
	json_object_end(j);
	/* Heap, not stack, for child paths: a tree may be thousands of levels deep. */
	vsched_list_children(vs, path, mon_kid, &kids);
	for (i = 0; i < kids.nr; i++) {
		char *child = NULL;

		if (asprintf(&child, "%s/%s", path[1] ? path : "", kids.v[i]) >= 0)
			mon_json_group(j, vs, child);
		free(child);
	}
	strv_free(&kids);
}

/* Offers standing that a waking vCPU did not take, by the condition that refused (rt_offer.c). */
static void mon_json_refused(struct json *j, const struct runtime_stats *st)
{
	static const char *const name[RT_OFFER_R_NR] = {
		[RT_OFFER_R_ABSENT] = "absent",		[RT_OFFER_R_OTHER] = "other",
		[RT_OFFER_R_HANDS_OFF] = "hands_off",	[RT_OFFER_R_TOOK_DUE] = "took_due",
		[RT_OFFER_R_SENT] = "sent",		[RT_OFFER_R_INELIGIBLE] = "ineligible",
		[RT_OFFER_R_BAD] = "bad",		[RT_OFFER_R_NO_HELD] = "no_held",
		[RT_OFFER_R_HOLDER_STATE] = "holder_state",
		[RT_OFFER_R_HOLDER_SEQ] = "holder_seq",	[RT_OFFER_R_NOT_BEFORE] = "not_before",
		[RT_OFFER_R_CAS] = "cas",
	};
	unsigned int i;

	json_key(j, "offer_refused");
	json_object_begin(j, JSON_INLINE);
	for (i = 0; i < RT_OFFER_R_NR; i++)
		json_kv_u64(j, name[i], st->offer_refused[i]);
	json_object_end(j);
}

void run_monitor_json(struct json *j, void *arg)
{
	struct run_monitor_ctx *ctx = arg;
	struct runtime_stats st;
	double cpu, held;

	json_key(j, "groups");
	json_array_begin(j, 0);
	mon_json_group(j, ctx->vs, "/");
	json_array_end(j);
	if (!ctx->rt)
		return;
	runtime_get_stats(ctx->rt, &st);
	json_key(j, "runtime");
	json_object_begin(j, JSON_INLINE);
	json_kv_u64(j, "grants", st.grants);
	json_kv_u64(j, "grant_msgs", st.grant_msgs);
	json_kv_u64(j, "host_pins", st.host_pins);
	json_kv_u64(j, "offers", st.offers);
	json_kv_u64(j, "held_offers", st.held_offers);
	mon_json_refused(j, &st);
	json_kv_u64(j, "handoffs", st.handoffs);
	json_kv_u64(j, "xhandoffs_out", st.xhandoffs_out);
	json_kv_u64(j, "xhandoffs", st.xhandoffs);
	json_kv_u64(j, "xhandoffs_parked", st.xhandoffs_parked);
	json_kv_u64(j, "xw_wakes", st.xw_wakes);
	json_kv_u64(j, "page_exits", st.page_exits);
	json_kv_u64(j, "ahead_preempts", st.ahead_preempts);
	json_kv_u64(j, "kicks", st.kicks);
	json_kv_u64(j, "timer_arms", st.timer_arms);
	json_kv_u64(j, "retimes", st.retimes);
	json_kv_u64(j, "retimes_peak_per_s", st.retimes_peak);
	json_kv_u64(j, "lends", st.lends);
	json_kv_u64(j, "reclaims", st.reclaims);
	json_kv_u64(j, "watch_events", st.watch_events);
	json_kv_u64(j, "watchdog_trips", st.watchdog_trips);
	json_kv_u64(j, "backstops", st.backstops);
	json_kv_bool(j, "fallback", st.fallback);
	json_kv_u64(j, "wakes", st.nr_wake);
	json_kv_u64(j, "wake_p50_ns", runtime_wake_quantile(&st, 0.5));
	json_kv_u64(j, "wake_p99_ns", runtime_wake_quantile(&st, 0.99));
	json_kv_u64(j, "halt_wakes", st.nr_halt_wake);
	json_kv_u64(j, "halt_wake_p50_ns",
		    runtime_hist_quantile(st.halt_wake_hist, st.nr_halt_wake, 0.5));
	json_kv_u64(j, "halt_wake_p90_ns",
		    runtime_hist_quantile(st.halt_wake_hist, st.nr_halt_wake, 0.9));
	json_kv_u64(j, "halt_wake_p99_ns",
		    runtime_hist_quantile(st.halt_wake_hist, st.nr_halt_wake, 0.99));
	json_kv_u64(j, "ahead_grants", st.nr_ahead_grant);
	json_kv_u64(j, "ahead_grant_p50_ns",
		    runtime_hist_quantile(st.ahead_grant_hist, st.nr_ahead_grant, 0.5));
	json_kv_u64(j, "ahead_grant_p90_ns",
		    runtime_hist_quantile(st.ahead_grant_hist, st.nr_ahead_grant, 0.9));
	json_kv_u64(j, "slice_ns", st.slice_ns);
	json_kv_u64(j, "helper_wakes", st.helper_wakes);
	json_kv_u64(j, "helper_cpu_ns", st.helper_cpu_ns);
	/* What the host gave the lanes: CPU over time held (a test tells a starved host by it). */
	sched_delivery_totals(vsched_sched(ctx->vs), &cpu, &held);
	json_kv_u64(j, "lane_cpu_ns", (uint64_t)cpu);
	json_kv_u64(j, "lane_held_ns", (uint64_t)held);
	json_object_end(j);
}

void run_monitor_snapshot(struct vsched *vs, struct run_monitor_snap *snap)
{
	char stat[1024];
	unsigned int i;

	snap->nr = mon_paths(vs, snap->path, MON_MAX_GROUPS);
	for (i = 0; i < snap->nr; i++) {
		if (vsched_read(vs, snap->path[i], "cpu.stat", stat, sizeof(stat)) < 0)
			stat[0] = '\0';
		snap->usage_usec[i] = mon_stat_field(stat, "usage_usec");
		snap->nr_throttled[i] = mon_stat_field(stat, "nr_throttled");
	}
	vsched_lock(vs);
	sched_delivery_totals(vsched_sched(vs), &snap->lane_cpu_ns, &snap->lane_held_ns);
	vsched_unlock(vs);
}

/*
 * The fluid ideal of each path in snap, in % of lanes, at deliver CPU per lane (1: the lanes are
 * whole CPUs); false if it cannot be had.
 */
static bool mon_ideal(struct vsched *vs, const struct run_monitor_snap *snap, const double *demand,
		     unsigned int lanes, double deliver, double *pct)
{
	struct sched *s = vsched_sched(vs);
	double *rate;
	unsigned int i;
	bool ok;

	vsched_lock(vs);
	rate = calloc(sched_nr_vcpus(s), sizeof(*rate));
	ok = rate && !fluid_solve_delivered(s, demand, rate, deliver);
	for (i = 0; ok && i < snap->nr; i++) {
		struct group *g = group_lookup(s, snap->path[i]);

		pct[i] = g ? 100.0 * fluid_group_rate(s, g, rate) / lanes : 0;
	}
	vsched_unlock(vs);
	free(rate);
	return ok;
}

void run_monitor_table(FILE *f, struct vsched *vs, const struct run_monitor_snap *before,
			  const struct run_monitor_snap *after, double seconds, unsigned int lanes,
			  const double *demand)
{
	double ideal[MON_MAX_GROUPS], at_host[MON_MAX_GROUPS], deliver;
	bool have_ideal, have_host;
	unsigned int i, k;

	/* CPU per ns of lane held over this interval, as the scheduler measured it. */
	deliver = after->lane_held_ns > before->lane_held_ns ?
			  (after->lane_cpu_ns - before->lane_cpu_ns) /
				  (after->lane_held_ns - before->lane_held_ns) : 1.0;
	deliver = deliver > 1.0 ? 1.0 : deliver < 0.01 ? 0.01 : deliver;
	have_ideal = demand && mon_ideal(vs, after, demand, lanes, 1.0, ideal);
	/* What the ideal is on the CPU the host actually gives the lanes (caps stay absolute). */
	have_host = have_ideal && deliver < 0.995 &&
		    mon_ideal(vs, after, demand, lanes, deliver, at_host);
	if (have_host)
		fprintf(f, "lanes delivered %.2f CPU per second held (measured by the scheduler); "
			"'at host %%': the ideal on that capacity\n", deliver);
	fprintf(f, "%-16s %7s %-16s %5s %8s %9s%s%s\n", "group", "weight", "cpu.max", "idle",
		"cpu %", "throttled", have_ideal ? "  ideal %" : "",
		have_host ? "  at host %" : "");
	for (i = 0; i < after->nr; i++) {
		uint64_t u0 = 0, t0 = 0;
		char w[32] = "", m[64] = "", idle[8] = "";

		for (k = 0; k < before->nr; k++)
			if (!strcmp(before->path[k], after->path[i])) {
				u0 = before->usage_usec[k];
				t0 = before->nr_throttled[k];
			}
		if (i) {
			mon_read(vs, after->path[i], "cpu.weight", w, sizeof(w));
			mon_read(vs, after->path[i], "cpu.max", m, sizeof(m));
			mon_read(vs, after->path[i], "cpu.idle", idle, sizeof(idle));
		}
		fprintf(f, "/%-15s %7s %-16s %5s %7.1f%% %9" PRIu64, after->path[i], w, m, idle,
			100.0 * (double)(after->usage_usec[i] - u0) / (seconds * 1e6 * lanes),
			after->nr_throttled[i] - t0);
		if (have_ideal)
			fprintf(f, "  %6.1f%%", ideal[i]);
		if (have_host)
			fprintf(f, "  %9.1f%%", at_host[i]);
		fputc('\n', f);
	}
}

struct run_monitor {
	FILE *f;
	struct vsched *vs;
	unsigned int lanes;
	uint64_t interval_ns;
	const double *demand;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
	uint64_t start_ns;
	struct run_monitor_snap first, prev, cur;
};

static void *mon_monitor(void *arg)
{
	struct run_monitor *m = arg;
	uint64_t last = m->start_ns, next = m->start_ns + m->interval_ns;
	struct timespec ts;

	pthread_setname_np(pthread_self(), "vsched-mon");
	pthread_mutex_lock(&m->lock);
	while (!m->stop) {
		ts.tv_sec = next / 1000000000ULL;
		ts.tv_nsec = next % 1000000000ULL;
		if (pthread_cond_timedwait(&m->cond, &m->lock, &ts) != ETIMEDOUT)
			continue;
		run_monitor_snapshot(m->vs, &m->cur);
		fprintf(m->f, "-- %.1f s\n", (double)(next - m->start_ns) / 1e9);
		run_monitor_table(m->f, m->vs, &m->prev, &m->cur, (double)(next - last) / 1e9,
				     m->lanes, m->demand);
		fflush(m->f);
		m->prev = m->cur;
		last = next;
		next += m->interval_ns;
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

int run_monitor_start(FILE *f, struct vsched *vs, unsigned int lanes, uint64_t interval_ns,
			   const double *demand, struct run_monitor **out)
{
	struct run_monitor *m = calloc(1, sizeof(*m));
	pthread_condattr_t ca;
	int err;

	if (!m)
		return -ENOMEM;
	m->f = f;
	m->vs = vs;
	m->lanes = lanes;
	m->interval_ns = interval_ns;
	m->demand = demand;
	pthread_mutex_init(&m->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&m->cond, &ca);
	pthread_condattr_destroy(&ca);
	run_monitor_snapshot(vs, &m->first);
	m->prev = m->first;
	m->start_ns = time_mono_ns();
	err = pthread_create(&m->thread, NULL, mon_monitor, m);
	if (err) {
		pthread_cond_destroy(&m->cond);
		pthread_mutex_destroy(&m->lock);
		free(m);
		return -err;
	}
	*out = m;
	return 0;
}

void run_monitor_stop(struct run_monitor *m)
{
	double secs;

	if (!m)
		return;
	pthread_mutex_lock(&m->lock);
	m->stop = true;
	pthread_cond_signal(&m->cond);
	pthread_mutex_unlock(&m->lock);
	pthread_join(m->thread, NULL);
	secs = (double)(time_mono_ns() - m->start_ns) / 1e9;
	run_monitor_snapshot(m->vs, &m->cur);
	fprintf(m->f, "== whole run, %.1f s on %u lanes\n", secs, m->lanes);
	run_monitor_table(m->f, m->vs, &m->first, &m->cur, secs, m->lanes, m->demand);
	fflush(m->f);
	pthread_cond_destroy(&m->cond);
	pthread_mutex_destroy(&m->lock);
	free(m);
}
