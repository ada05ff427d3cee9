// SPDX-License-Identifier: GPL-2.0
/*
 * The rows `vsched top` shows, the same in batch and interactive mode: per VM its group tree
 * (siblings in the chosen order, collapsed subtrees left out), vCPU rows on demand, each row as
 * fixed-width text columns so scripts can cut them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/top.h"
#include "util/word.h"

#define LABEL_W	30
/* The one row layout: the label, then one word per column (top_rows_header() names them). */
#define ROW_FMT	"%-*.*s %6s %7s %6s %13s %5s %5s %10s %-9s %4s %7s %6s"

static const char *const sort_names[] = {
	[TOP_SORT_CPU] = "cpu", [TOP_SORT_NAME] = "name", [TOP_SORT_WEIGHT] = "weight",
};

const char *top_sort_name(enum top_sort s)
{
	return sort_names[s];
}

const char *top_rows_header(void)
{
	static char hdr[160];

	if (!hdr[0])
		snprintf(hdr, sizeof(hdr), ROW_FMT, LABEL_W, LABEL_W, "PATH", "CPU%", "FLUID%",
			 "WEIGHT", "CPU.MAX", "THR%", "NTHR", "BURST", "STATE", "LANE", "WAIT99",
			 "STEAL%");
	return hdr;
}

int top_view_build(struct top_view *view, struct top_snap *prev, struct top_snap *cur)
{
	unsigned int i;

	memset(view, 0, sizeof(*view));
	view->prev = prev;
	view->cur = cur;
	view->seconds = prev ? (double)(cur->t_ns - prev->t_ns) / 1e9 : 0;
	view->nr = cur->nr_vms;
	view->vms = calloc(cur->nr_vms ? cur->nr_vms : 1, sizeof(*view->vms));
	if (!view->vms)
		return -ENOMEM;
	for (i = 0; i < cur->nr_vms; i++) {
		const struct top_vm *vm = &cur->vms[i], *pvm = NULL;
		struct top_vmview *vv = &view->vms[i];
		unsigned int j;

		vv->vm = vm;
		for (j = 0; prev && j < prev->nr_vms; j++)
			if (!strcmp(prev->vms[j].name, vm->name) && prev->vms[j].pid == vm->pid &&
			    prev->vms[j].dev == vm->dev)
				pvm = &prev->vms[j];
		if (!pvm || view->seconds <= 0)
			continue;
		vv->g = calloc(vm->nr_groups ? vm->nr_groups : 1, sizeof(*vv->g));
		vv->v = calloc(vm->nr_vcpus ? vm->nr_vcpus : 1, sizeof(*vv->v));
		if (!vv->g || !vv->v) {
			top_view_free(view);
			return -ENOMEM;
		}
		/* A VM's rates over the time between its own reads, not the snapshots' starts. */
		top_vm_delta(pvm, vm, pvm->t_ns && vm->t_ns > pvm->t_ns ?
			     (double)(vm->t_ns - pvm->t_ns) / 1e9 : view->seconds, vv->g, vv->v);
	}
	return 0;
}

unsigned int top_view_vms(const struct top_view *view)
{
	return view->nr - (view->cur && view->cur->host);
}

void top_view_free(struct top_view *view)
{
	unsigned int i;

	for (i = 0; view->vms && i < view->nr; i++) {
		free(view->vms[i].g);
		free(view->vms[i].v);
	}
	free(view->vms);
	view->vms = NULL;
}

static int prefs_find(const struct top_prefs *p, const char *vm, const char *path)
{
	size_t vl = strlen(vm);
	unsigned int i;

	for (i = 0; i < p->nr_collapsed; i++)
		if (!strncmp(p->collapsed[i], vm, vl) && p->collapsed[i][vl] == '\t' &&
		    !strcmp(p->collapsed[i] + vl + 1, path))
			return (int)i;
	return -1;
}

bool top_prefs_collapsed(const struct top_prefs *p, const char *vm, const char *path)
{
	return prefs_find(p, vm, path) >= 0;
}

int top_prefs_toggle(struct top_prefs *p, const char *vm, const char *path)
{
	int i = prefs_find(p, vm, path);
	char **nc, *key;

	if (i >= 0) {
		free(p->collapsed[i]);
		p->collapsed[i] = p->collapsed[--p->nr_collapsed];
		return 0;
	}
	nc = realloc(p->collapsed, (p->nr_collapsed + 1) * sizeof(*nc));
	if (!nc || asprintf(&key, "%s\t%s", vm, path) < 0)
		return -ENOMEM;
	p->collapsed = nc;
	p->collapsed[p->nr_collapsed++] = key;
	return 0;
}

void top_prefs_free(struct top_prefs *p)
{
	unsigned int i;

	for (i = 0; i < p->nr_collapsed; i++)
		free(p->collapsed[i]);
	free(p->collapsed);
	p->collapsed = NULL;
	p->nr_collapsed = 0;
}

struct rows {
	const struct top_view *view;
	const struct top_prefs *prefs;
	struct top_row *r;
	unsigned int n, cap;
	int err;
};

struct sort_ctx {
	const struct top_vmview *vv;
	enum top_sort sort;
};

static double cpu_of(const struct top_vmview *vv, unsigned int g)
{
	return vv->g && vv->g[g].valid ? vv->g[g].cpu_pct : -1;
}

static int group_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	const struct top_group *gx = &c->vv->vm->groups[x], *gy = &c->vv->vm->groups[y];
	double cx = cpu_of(c->vv, x), cy = cpu_of(c->vv, y);

	if (c->sort == TOP_SORT_CPU && cx != cy)
		return cx < cy ? 1 : -1;
	if (c->sort == TOP_SORT_WEIGHT && gx->weight != gy->weight)
		return gx->weight < gy->weight ? 1 : -1;
	return strcmp(gx->path, gy->path);
}

static int vcpu_cmp(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;
	const struct top_vstat *v = c->vv->v;
	double cx = v && v[x].valid ? v[x].cpu_pct : -1, cy = v && v[y].valid ? v[y].cpu_pct : -1;

	if (c->sort == TOP_SORT_CPU && cx != cy)
		return cx < cy ? 1 : -1;
	return (int)c->vv->vm->vcpus[x].id - (int)c->vv->vm->vcpus[y].id;
}

static struct top_row *row_add(struct rows *rs)
{
	struct top_row *nr;

	if (rs->err)
		return NULL;
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? 2 * rs->cap : 64;
		nr = realloc(rs->r, rs->cap * sizeof(*nr));
		if (!nr) {
			rs->err = -ENOMEM;
			return NULL;
		}
		rs->r = nr;
	}
	nr = &rs->r[rs->n++];
	memset(nr, 0, sizeof(*nr));
	return nr;
}

/*
 * A group's name may hold any byte but '/' and a newline: word_escape() shows control bytes,
 * spaces and backslashes as \xNN, so a name reaches no terminal as an escape sequence (`vsched
 * top -b` prints rows as they are) and the label stays one word for awk.
 */
static void fmt_label(char *buf, size_t len, unsigned int depth, char mark, const char *name)
{
	size_t n = (size_t)snprintf(buf, len, "%*s%c", (int)(2 * depth), "", mark);

	word_escape(buf, len, &n, name);
}

static void fmt_group(struct top_row *row, const struct top_vmview *vv, unsigned int gi,
		      char mark)
{
	const struct top_group *grp = &vv->vm->groups[gi];
	const struct top_gstat *g = vv->g && vv->g[gi].valid ? &vv->g[gi] : NULL;
	char label[PATH_MAX + 200], max[32] = "max", w[16] = "-", cpu[16] = "-", fl[16] = "-";
	char thr[16] = "-", nthr[16] = "-", burst[24] = "-";

	fmt_label(label, sizeof(label), grp->depth, mark, gi ? grp->path : vv->vm->name);
	if (grp->quota_us != TOP_QUOTA_MAX)
		snprintf(max, sizeof(max), "%llu/%llu", (unsigned long long)grp->quota_us,
			 (unsigned long long)grp->period_us);
	else if (!gi)
		snprintf(max, sizeof(max), "-");
	if (grp->weight)
		snprintf(w, sizeof(w), "%u", grp->weight);
	if (g) {
		snprintf(cpu, sizeof(cpu), "%.1f", g->cpu_pct);
		snprintf(fl, sizeof(fl), "%.1f", g->fluid_pct);
		snprintf(thr, sizeof(thr), "%.1f", g->throttled_pct);
		snprintf(nthr, sizeof(nthr), "%llu", (unsigned long long)g->d_throttled);
		snprintf(burst, sizeof(burst), "%llu/%.1fms", (unsigned long long)g->d_bursts,
			 g->burst_ms);
	}
	snprintf(row->text, sizeof(row->text), ROW_FMT, LABEL_W, LABEL_W, label, cpu, fl, w, max,
		 thr, nthr, burst, "-", "-", "-", "-");
}

static void fmt_vcpu(struct top_row *row, const struct top_vmview *vv, unsigned int vi)
{
	const struct top_vcpu *vc = &vv->vm->vcpus[vi];
	const struct top_vstat *v = vv->v && vv->v[vi].valid ? &vv->v[vi] : NULL;
	char label[PATH_MAX], name[16], cpu[16] = "-", p99[16] = "-", steal[16] = "-";
	char lane[16] = "-";

	/* The daemon's tree numbers slots, not a VM's vCPUs (docs/host.md). */
	snprintf(name, sizeof(name), "%s%u", vv->vm->host ? "slot" : "vcpu", vc->id);
	fmt_label(label, sizeof(label), vv->vm->groups[vc->group].depth + 1, ' ', name);
	if (vc->lane >= 0)
		snprintf(lane, sizeof(lane), "%d", vc->lane);
	if (v) {
		snprintf(cpu, sizeof(cpu), "%.1f", v->cpu_pct);
		snprintf(steal, sizeof(steal), "%.1f", v->steal_pct);
		/*
		 * 7 columns: waits of a second and more in seconds ("2097.2ms" pushed STEAL% out
		 * of a 120-column line); the last bucket has no upper edge, only a lower one.
		 */
		if (v->wait_p99_ns >= sched_wait_bucket_ceil_ns(SCHED_WAIT_BUCKETS - 1))
			snprintf(p99, sizeof(p99), ">%.1fs",
				 (double)sched_wait_bucket_ceil_ns(SCHED_WAIT_BUCKETS - 2) / 1e9);
		else if (v->wait_p99_ns >= 1000000000)
			snprintf(p99, sizeof(p99), "%.2fs", (double)v->wait_p99_ns / 1e9);
		else if (v->wait_p99_ns >= 1000000)
			snprintf(p99, sizeof(p99), "%.1fms", (double)v->wait_p99_ns / 1e6);
		else if (v->wait_p99_ns)
			snprintf(p99, sizeof(p99), "%lluus",
				 (unsigned long long)(v->wait_p99_ns / 1000));
	}
	snprintf(row->text, sizeof(row->text), ROW_FMT, LABEL_W, LABEL_W, label, cpu, "-", "-",
		 "-", "-", "-", "-", vc->state[0] ? vc->state : "-", lane, p99, steal);
}

static void emit_group(struct rows *rs, unsigned int vmi, unsigned int gi)
{
	const struct top_vmview *vv = &rs->view->vms[vmi];
	const struct top_vm *vm = vv->vm;
	struct sort_ctx c = { vv, rs->prefs->sort };
	unsigned int i, n = 0, *idx;
	bool collapsed = top_prefs_collapsed(rs->prefs, vm->name, vm->groups[gi].path);
	bool kids = false;
	struct top_row *row;

	for (i = gi + 1; i < vm->nr_groups && !kids; i++)
		kids = vm->groups[i].parent == (int)gi;
	for (i = 0; i < vm->nr_vcpus && !kids; i++)
		kids = rs->prefs->vcpus && vm->vcpus[i].group == gi;
	row = row_add(rs);
	if (!row)
		return;
	row->kind = gi ? TOP_ROW_GROUP : TOP_ROW_VM;
	row->vm = vmi;
	row->idx = gi;
	row->has_children = kids;
	fmt_group(row, vv, gi, !kids ? ' ' : collapsed ? '+' : '-');
	if (collapsed)
		return;
	idx = malloc((vm->nr_groups + vm->nr_vcpus + 1) * sizeof(*idx));
	if (!idx) {
		rs->err = -ENOMEM;
		return;
	}
	for (i = 0; rs->prefs->vcpus && i < vm->nr_vcpus; i++)
		if (vm->vcpus[i].group == gi)
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), vcpu_cmp, &c);
	for (i = 0; i < n && (row = row_add(rs)); i++) {
		row->kind = TOP_ROW_VCPU;
		row->vm = vmi;
		row->idx = idx[i];
		fmt_vcpu(row, vv, idx[i]);
	}
	n = 0;
	for (i = gi + 1; i < vm->nr_groups; i++)
		if (vm->groups[i].parent == (int)gi)
			idx[n++] = i;
	qsort_r(idx, n, sizeof(*idx), group_cmp, &c);
	for (i = 0; i < n; i++)
		emit_group(rs, vmi, idx[i]);
	free(idx);
}

int top_rows(const struct top_view *view, const struct top_prefs *p, struct top_row **out,
	     unsigned int *n)
{
	struct rows rs = { view, p, NULL, 0, 0, 0 };
	unsigned int i;

	for (i = 0; i < view->nr && !rs.err; i++) {
		const struct top_vm *vm = view->vms[i].vm;
		struct top_row *row;

		if (!vm->err && vm->nr_groups) {
			emit_group(&rs, i, 0);
			continue;
		}
		row = row_add(&rs);
		if (!row)
			break;
		row->kind = TOP_ROW_VM;
		row->vm = i;
		/* The path is in `vsched list`; the reason is what fits here. */
		if (vm->host)
			snprintf(row->text, sizeof(row->text), " %-*.*s (host scheduler) control "
				 "directory unreadable: %s", LABEL_W - 1, LABEL_W - 1, vm->name,
				 strerror(-vm->err));
		else if (vm->stopped)
			snprintf(row->text, sizeof(row->text), " %-*.*s (pid %d) stopped (SIGSTOP or "
				 "a debugger): not read", LABEL_W - 1, LABEL_W - 1, vm->name,
				 vm->pid);
		else
			snprintf(row->text, sizeof(row->text), " %-*.*s (pid %d) %s%s", LABEL_W - 1,
				 LABEL_W - 1, vm->name, vm->pid,
				 vm->ctl[0] ? "control directory unreadable: " :
				 "no control directory", vm->ctl[0] ? strerror(-vm->err) : "");
	}
	if (rs.err) {
		free(rs.r);
		return rs.err;
	}
	*out = rs.r;
	*n = rs.n;
	return 0;
}
