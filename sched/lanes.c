// SPDX-License-Identifier: GPL-2.0
/*
 * Handing out lanes. A lane runs one vCPU until its slice end: the rotation end (slice after it
 * got the lane, only while some vCPU waits) or the moment a capped ancestor's pool runs dry,
 * whichever is first. With nobody waiting and no cap there is no slice end at all, so the
 * runtime never interrupts a vCPU for nothing.
 *
 * When a vCPU starts waiting and every lane is busy, one lane may be taken: from a cpu.idle
 * sibling at once, otherwise from the vCPU the waiter is furthest behind in virtual time (by
 * more than min_run), as soon as that vCPU has run min_run on its lane (credit2's ratelimit).
 * The other lanes get a rotation end so that the waiter's turn comes within a slice.
 *
 * At a rotation end the lane is picked again, sticky (a near tie keeps the vCPU: no kick), and
 * if it goes elsewhere the subtree losing it gives up the lane of its child furthest ahead.
 * docs/scheduler.md has the reasons.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "internal.h"

static struct lane *lane_of(struct sched *s, unsigned int l)
{
	return &s->core.lanes[l];
}

/*
 * A vCPU owed a whole CPU by the fluid ideal keeps its lane while others wait: rotating it out
 * would only cost kicks and hand the lane to whoever's lag swung last (a sibling whose rate
 * just dropped when some vCPU woke). Only its caps can end its run.
 */
static bool owns_lane(const struct vcpu_core *vc)
{
	return vc->se.rate >= 1.0 - 1e-9;
}

/*
 * A holder weight-driven preemption must leave alone: one owed a whole CPU, or one that started
 * running less than min_run ago. A lane handed out at this very moment, which the runtime has
 * not been told about, costs nothing to take back: protecting it let the first of several lanes
 * re-picked at one rotation end shield itself, and the others were taken from vCPUs behind it.
 */
static bool lane_kept(const struct sched *s, const struct lane *ln)
{
	return owns_lane(ln->cur) ||
	       (ln->cur->told_lane >= 0 && s->core.now < ln->start + s->core.params.min_run_ns);
}

/*
 * A vCPU under a cpu.idle group whose level has a non-idle sibling waiting takes min_run turns,
 * not slices: its share is a few per mille, and in whole slices it arrived in lumps of a slice
 * (bench idle: 0.36 % of capacity where 0.29 % is owed, with 6 ms slices). Among idle siblings
 * only, turns stay a slice long.
 */
static bool idle_turn(const struct sched *s, const struct vcpu_core *vc)
{
	const struct sched_entity *se = &vc->se;
	const struct group_core *p;
	unsigned int i;

	if (!s->core.nr_idle_groups)
		return false;	/* every lane handed out asks: no walk up the path */
	while (se->parent && !se->idle)
		se = &se->parent->se;
	if (!se->parent)
		return false;
	p = se->parent;
	for (i = 0; i < p->queue.nr; i++)
		if (!container_of(p->queue.a[i], struct sched_entity, node)->idle)
			return true;
	return false;
}

/*
 * While others wait, a lane comes with a rotation end, prepaid at once so that the next lane
 * handed out at the same moment already sees it (fair_prepay()). A holder that ran alone for
 * longer than a slice is in its latest slice since it got the lane, as if slices had been
 * renewed all along (EEVDF renews a lone task's deadline so): its rotation ends when that slice
 * does, at least min_run from now. A whole new slice from now made every waiter that found the
 * lanes uncontended wait a full slice, e.g. a group back from throttling at its period start
 * (bench caps2: 8.1 ms in 7 of 53 periods).
 */
static void lane_set_rotation(struct sched *s, struct lane *ln)
{
	struct sched_core *c = &s->core;
	uint64_t len = idle_turn(s, ln->cur) ? c->params.min_run_ns : c->params.slice_ns;
	uint64_t end = ln->start + len;

	if (end <= c->now) {
		end = c->now + len - (c->now - ln->start) % len;
		if (end < c->now + c->params.min_run_ns)
			end = c->now + c->params.min_run_ns;
	}
	ln->rot_until = end;
	fair_prepay(s, ln->cur, ln->rot_until - c->now);
}

/* ln's holder, inside its min_run, has its turn end when that is over (lanes_waiter_arrived()). */
static void lane_defer(struct sched *s, struct lane *ln)
{
	uint64_t end = ln->start + s->core.params.min_run_ns;

	if (ln->rot_until <= end || end <= s->core.now)
		return;
	fair_refund(s, ln->cur);
	ln->rot_until = end;
	fair_prepay(s, ln->cur, end - s->core.now);
}

static void lane_give(struct sched *s, unsigned int l, struct vcpu_core *vc)
{
	struct lane *ln = lane_of(s, l);

	ln->cur = vc;
	/*
	 * A vCPU handed a lane again before the runtime was told it lost one (a rotation end that
	 * kept it, a lane swapped at flush) has held a lane all along: it is no fresh grant that
	 * min_run protects. Counting it as one let a vCPU re-picked first at a shared rotation end
	 * shield itself, so a group's furthest-behind vCPU gave up its lane instead (issue 13).
	 */
	ln->start = vc->told_lane >= 0 ? vc->since : s->core.now;
	vc->since = ln->start;
	ln->rot_until = SCHED_TIME_NONE;
	ln->bw_until = SCHED_TIME_NONE;
	ln->pace_until = SCHED_TIME_NONE;
	ln->pace_spent = false;
	vc->lane = (int)l;
	fair_set_running(s, vc);
	if (gcore(&s->root)->queue.nr && !owns_lane(vc))
		lane_set_rotation(s, ln);
}

/* Takes vc off its lane and, if still runnable, queues it again (as a lane given back). */
void lanes_put_back(struct sched *s, struct vcpu_core *vc)
{
	struct lane *ln = lane_of(s, vc->lane);

	ln->cur = NULL;
	ln->rot_until = SCHED_TIME_NONE;
	ln->bw_until = SCHED_TIME_NONE;
	ln->pace_until = SCHED_TIME_NONE;
	ln->pace_spent = false;
	vc->lane = -1;
	fair_refund(s, vc);
	fair_clear_running(s, vc);
	if (vc->runnable)
		fair_enqueue(s, &vc->se);
}

static unsigned int se_depth(const struct sched_entity *se)
{
	unsigned int d = 0;

	for (; se->parent; se = &se->parent->se)
		d++;
	return d;
}

/* The two entities under the deepest common ancestor of a and b. */
static void common_level(struct sched_entity **a, struct sched_entity **b)
{
	unsigned int da = se_depth(*a), db = se_depth(*b);

	while (da > db) {
		*a = &(*a)->parent->se;
		da--;
	}
	while (db > da) {
		*b = &(*b)->parent->se;
		db--;
	}
	while ((*a)->parent != (*b)->parent) {
		*a = &(*a)->parent->se;
		*b = &(*b)->parent->se;
	}
}

/* e is further ahead than f: larger vt, ties by se_before() (reversed: a total order). */
static bool se_ahead(const struct sched_entity *e, const struct sched_entity *f)
{
	return e->vt > f->vt || (e->vt == f->vt && se_before(f, e));
}

/* e comes after prev in order of vt, furthest ahead first; prev NULL: first. */
static bool ahead_order_after(const struct sched_entity *e, const struct sched_entity *prev)
{
	return !prev || se_ahead(prev, e);
}

static struct vcpu_core *most_served(const struct sched *s, struct sched_entity *se);

/*
 * Among gc's running children ahead of floor (any if NULL), furthest ahead first, the first whose
 * subtree has a lane that may be taken; the vCPU holding it, or NULL.
 */
static struct vcpu_core *served_child(const struct sched *s, struct group_core *gc,
				      const struct sched_entity *floor)
{
	struct sched_entity *e, *best, *prev = NULL;
	struct vcpu_core *x;

	for (;;) {
		best = NULL;
		list_for_each_entry(e, &gc->running, run_node)
			if (ahead_order_after(e, prev) && (!floor || e->vt > floor->vt) &&
			    (!best || se_ahead(e, best)))
				best = e;
		if (!best)
			return NULL;
		x = most_served(s, best);
		if (x)
			return x;
		prev = best;
	}
}

/*
 * Below a running entity, the vCPU reached by the running child furthest ahead at each level,
 * passing over lanes that must be kept (lane_kept()); NULL if every lane below is kept.
 */
static struct vcpu_core *most_served(const struct sched *s, struct sched_entity *se)
{
	struct vcpu_core *vc;

	if (se->is_group)
		return served_child(s, se_group(se), NULL);
	vc = se_vcpu(se);
	return lane_kept(s, &s->core.lanes[vc->lane]) ? NULL : vc;
}

/*
 * r's lane is going to v, so the subtree under their common ancestor on r's side loses a lane.
 * Inside it the lane should come from the child furthest ahead at each level, which need not be
 * r: when a lane's slice ends says nothing about who is ahead. Returns the vCPU that should give
 * its lane up: r, or one ahead of r's side whose lane may be taken (a child whose lanes are all
 * kept is passed over for the next one ahead, not given up for r: the vCPUs behind would pay).
 */
static struct vcpu_core *lane_victim(struct sched *s, struct vcpu_core *r, struct vcpu_core *v)
{
	struct sched_entity *ev = &v->se, *er = &r->se, *path[SE_PATH_MAX], *e;
	unsigned int n = 0;

	common_level(&ev, &er);
	for (e = &r->se; e != er; e = &e->parent->se)
		path[n++] = e;
	/* path[n - 1] is r's entity just inside er, path[0] is r itself. */
	while (er->is_group && n) {
		struct sched_entity *c = path[--n];
		struct vcpu_core *x = served_child(s, se_group(er), c);

		if (x)
			return x;
		er = c;
	}
	return r;
}

void lanes_repick(struct sched *s, unsigned int l)
{
	struct lane *ln = lane_of(s, l);
	struct vcpu_core *r = ln->cur, *v, *x;

	if (r)
		lanes_put_back(s, r);
	v = r ? fair_pick_sticky(s, r, (double)s->core.params.min_run_ns) : fair_pick(s);
	if (!v)
		return;
	if (r && v != r && (x = lane_victim(s, r, v)) != r) {
		/* r keeps its lane; x gives up its own to whoever is first now. */
		unsigned int lx = (unsigned int)x->lane;

		lane_give(s, l, r);
		lanes_put_back(s, x);
		v = fair_pick(s);
		if (v)
			lane_give(s, lx, v);
		return;
	}
	lane_give(s, l, v);
}

static bool path_throttled(const struct sched_entity *se)
{
	const struct group_core *gc;

	for (gc = se->is_group ? se_group((struct sched_entity *)se) : se->parent; gc;
	     gc = gc->se.parent)
		if (gc->throttled)
			return true;
	return false;
}

/*
 * The waiter's side (ew) holds a whole lane less than its rate and the holder's side (er) a
 * whole lane more: the lanes are wrong by a lane, not by turns of one shared lane, and GPS would
 * move it at once. The vt test alone made a waker that blocked level (its last wake served at
 * once, as GPS serves it) wait for the holder's rotation end, up to a slice: on the runtime a
 * halted vCPU's wall-clock work is lost meanwhile (docs/scheduler.md §10, halt-duty).
 */
static bool lane_misplaced(const struct sched_entity *ew, const struct sched_entity *er)
{
	return (double)ew->nr_running + 1.0 <= ew->rate + 1e-9 &&
	       (double)er->nr_running >= er->rate + 1.0 - 1e-9;
}

void lanes_waiter_arrived(struct sched *s, struct sched_entity *se)
{
	double min_run = (double)s->core.params.min_run_ns, best_key = 0, kept_key = 0;
	struct sched_entity *best_ew = NULL;
	struct vcpu_core *vc;
	int best = -1, kept = -1;
	unsigned int l;

	if (path_throttled(se))
		return;
	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);
		struct sched_entity *ew = se, *er;
		double key;

		if (!ln->cur)
			return;		/* a free lane: lanes_settle() fills it */
		er = &ln->cur->se;
		if (er == se)
			continue;
		common_level(&ew, &er);
		if (er->idle && !ew->idle) {
			best = (int)l;
			best_ew = ew;
			break;
		}
		if (owns_lane(ln->cur))
			continue;
		/*
		 * How far behind the waiter is, in time, past what is worth a kick: min_run (a near
		 * tie is not), or, for a misplaced lane, the holder's side being owed min_run.
		 */
		key = er->vt - ew->vt - (lane_misplaced(ew, er) ? -min_run : min_run);
		if (lane_kept(s, ln)) {
			/* Its slice paid up front and not run yet is no service it had. */
			key -= (double)ln->cur->resv / er->rate;
			if (key > kept_key) {
				kept_key = key;
				kept = (int)l;
			}
		} else if (key > 0 && key > best_key) {
			best_key = key;
			best = (int)l;
			best_ew = ew;
		}
	}
	/*
	 * The waiter is furthest behind a holder inside its min_run: that holder's turn ends when
	 * it has (credit2's ratelimit delays a preemption, it does not send it elsewhere). Taking
	 * the lane of the next holder instead, often a sibling in the waiter's own group, gave the
	 * group no lane back while the holder it was behind ran its whole slice (issue 13).
	 */
	if (kept >= 0 && kept_key > best_key) {
		lane_defer(s, lane_of(s, kept));
		return;
	}
	if (best < 0)
		return;
	/*
	 * The lane goes to the side that is behind, and inside it to whoever is first there:
	 * not necessarily the waiter that arrived (handing it the lane gave a vCPU moved or woken
	 * into a group a turn its siblings were owed first; issue 13, random hog trees).
	 */
	lanes_put_back(s, lane_of(s, best)->cur);
	vc = fair_pick_below(s, best_ew);
	lane_give(s, (unsigned int)best, vc ? vc : fair_pick(s));
}

void lanes_expire(struct sched *s)
{
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);
		bool pace;

		if (!ln->cur || (ln->rot_until > s->core.now && ln->pace_until > s->core.now))
			continue;
		pace = ln->rot_until > s->core.now;
		lanes_repick(s, l);
		/*
		 * A pace end hands the lane out once: if nobody outside the paced group could
		 * take it, it went back inside, and another end now would repeat that forever.
		 */
		if (pace)
			ln->pace_spent = true;
	}
}

/* Fill free lanes, then give every busy lane the slice end the situation calls for. */
void lanes_settle(struct sched *s)
{
	/* Every event runs this over every lane: what no lane changes is read once. */
	struct sched_core *c = &s->core;
	struct lane *lanes = c->lanes;
	unsigned int l, nr = s->nr_lanes;
	uint64_t now = c->now, min_run = c->params.min_run_ns;
	bool capped = c->nr_bw_groups > 0, waiters;
	struct vcpu_core *vc;

	for (l = 0; l < nr; l++) {
		if (lanes[l].cur)
			continue;
		vc = fair_pick(s);
		if (!vc)
			break;
		lane_give(s, l, vc);
	}
	waiters = gcore(&s->root)->queue.nr > 0;
	for (l = 0; l < nr; l++) {
		struct lane *ln = &lanes[l];

		if (!ln->cur)
			continue;
		if (!waiters || owns_lane(ln->cur)) {
			ln->rot_until = SCHED_TIME_NONE;
			fair_refund(s, ln->cur);
		} else if (ln->rot_until == SCHED_TIME_NONE) {
			lane_set_rotation(s, ln);
		}
		/* Its bandwidth end passed and the pool is not dry: the lanes deliver less. */
		if (ln->bw_until <= now)
			rates_delivery_missed(s);
		ln->bw_until = capped ? bw_lane_until(s, ln->cur) : SCHED_TIME_NONE;
		ln->pace_until = capped && waiters && !ln->pace_spent ?
				 bw_lane_pace(s, ln->cur) : SCHED_TIME_NONE;
		if (ln->pace_until < ln->start + min_run)
			ln->pace_until = ln->start + min_run;
	}
}

static uint64_t lane_until(const struct lane *ln)
{
	uint64_t t = ln->rot_until < ln->bw_until ? ln->rot_until : ln->bw_until;

	return ln->pace_until < t ? ln->pace_until : t;
}

static void emit_lane(struct sched *s, enum sched_decision_type type, unsigned int l,
		      struct vcpu_core *vc, uint64_t until)
{
	struct sched_core *c = &s->core;

	c->dec[c->nr_dec++] = (struct sched_decision){
		.type = type, .lane = l, .vcpu = vc->v->id, .until = until,
	};
}

/*
 * Tell the runtime what changed since it was last told. Lanes are interchangeable permits, so a
 * vCPU that was re-granted a lane is first moved back to the lane it was told about: no kick for
 * a vCPU that keeps running.
 */
void lanes_flush(struct sched *s)
{
	/* As in lanes_settle(): run by every event, what no lane changes is read once. */
	struct lane *lanes = s->core.lanes;
	unsigned int l, nr = s->nr_lanes;
	uint64_t now = s->core.now;

	for (l = 0; l < nr; l++) {
		struct lane *ln = &lanes[l];

		while (ln->cur && ln->cur->told_lane >= 0 && ln->cur->told_lane != (int)l) {
			struct lane *other = &lanes[ln->cur->told_lane], tmp;

			tmp = *other;
			other->cur = ln->cur;
			other->start = ln->start;
			other->rot_until = ln->rot_until;
			other->bw_until = ln->bw_until;
			other->pace_until = ln->pace_until;
			other->pace_spent = ln->pace_spent;
			ln->cur = tmp.cur;
			ln->start = tmp.start;
			ln->rot_until = tmp.rot_until;
			ln->bw_until = tmp.bw_until;
			ln->pace_until = tmp.pace_until;
			ln->pace_spent = tmp.pace_spent;
			other->cur->lane = (int)(other - lanes);
			if (ln->cur)
				ln->cur->lane = (int)l;
		}
	}
	for (l = 0; l < nr; l++) {
		struct lane *ln = &lanes[l];
		uint64_t until = lane_until(ln);

		if (!core_dec_reserve(&s->core, 2))
			return;
		if (ln->told_cur != ln->cur) {
			if (ln->told_cur) {
				if (ln->told_cur->runnable) {
					emit_lane(s, SCHED_PREEMPT, l, ln->told_cur, 0);
					core_wait_begin(ln->told_cur, now);
				}
				ln->told_cur->told_lane = -1;
			}
			if (ln->cur) {
				emit_lane(s, SCHED_RUN, l, ln->cur, until);
				core_wait_end(ln->cur, now);
				ln->cur->told_lane = (int)l;
				s->core.nr_switches++;
			}
			ln->told_cur = ln->cur;
			ln->told_until = until;
		} else if (ln->cur && until != ln->told_until) {
			emit_lane(s, SCHED_RETIME, l, ln->cur, until);
			ln->told_until = until;
		}
	}
}

/* Whether id or a group above it is cpu.idle: only such a holder is taken by that rule. */
bool sched_vcpu_idle_path(const struct sched *s, unsigned int id)
{
	const struct sched_entity *se;

	if (id >= s->nr_vcpus)
		return false;
	for (se = &s->core.vcpus[id].se; se; se = se->parent ? &se->parent->se : NULL)
		if (se->idle)
			return true;
	return false;
}

/*
 * The lane vCPU id would take at once if it became runnable at any moment from *from until the
 * core's next event, by the cpu.idle rule of lanes_waiter_arrived() (a holder idle at the level
 * where the two meet, against a waker that is not). Read only, for host mode's offers of a held
 * lane, which must be conservative: every lane held, none by id itself, the first such lane,
 * and every lane before it one that cannot defer the preemption. Such a lane can only defer it
 * while kept (lane_kept()), and whether its holder owns its lane is known only after the wake's
 * new rates (a holder at rate 1 may drop below it as the waker takes its share, then, kept
 * inside its min_run and far enough ahead, it deferred the preemption:
 * tests/unit/test_core_wake_lane.c). So the rule holds from the moment every lane before it is
 * past its holder's min_run: kept by time no lane becomes again without an event, and owned or
 * not, the core then skips it or only weighs it, and the cpu.idle lane comes first. -1: none.
 */
int sched_wake_takes_lane(const struct sched *s, unsigned int id, uint64_t *from)
{
	const struct vcpu_core *vc;
	uint64_t t = s->core.now;
	unsigned int l;

	if (id >= s->nr_vcpus)
		return -1;
	vc = &s->core.vcpus[id];
	if (vc->runnable || path_throttled(&vc->se))
		return -1;
	for (l = 0; l < s->nr_lanes; l++) {
		const struct lane *ln = &s->core.lanes[l];
		struct sched_entity *ew = (struct sched_entity *)&vc->se, *er;

		if (!ln->cur || ln->cur == vc || ln->cur->told_lane < 0)
			return -1;
		er = &ln->cur->se;
		common_level(&ew, &er);
		if (er->idle && !ew->idle) {
			*from = t;
			return (int)l;
		}
		if (ln->start + s->core.params.min_run_ns > t)
			t = ln->start + s->core.params.min_run_ns;
	}
	return -1;
}
