/* SPDX-License-Identifier: GPL-2.0 */
/* The simulator's scenario and result, shared by sim_parse.c, sim.c and sim_report.c. */
#ifndef VSCHED_SCHED_SIM_TYPES_H
#define VSCHED_SCHED_SIM_TYPES_H

#include "sched/core.h"
#include "sched/sim.h"

/* SIM_SLEEP: BUSY of work, then the next BUSY comes PERIOD after it is done (closed loop). */
enum sim_pattern { SIM_IDLE, SIM_HOG, SIM_DUTY, SIM_BURSTY, SIM_SLEEP };

struct sim_settings {
	bool has_weight, has_nice, has_max, has_period, has_burst, has_idle;
	unsigned long weight;
	int nice;
	uint64_t quota_us, period_us;	/* without has_period: keep the current period */
	uint64_t burst_us;
	bool idle;
};

struct sim_group_cfg {
	char path[GROUP_PATH_MAX];
	struct sim_settings set;
	unsigned int line;
};

struct sim_vcpu_cfg {
	char path[GROUP_PATH_MAX];
	enum sim_pattern kind;
	uint64_t busy, period, phase;	/* duty: work per period; bursty: mean work, mean gap */
	uint64_t seed;
	unsigned int sys_pct;
	unsigned int line;		/* 0: not declared */
};

enum sim_event_type { SIM_EV_MOVE, SIM_EV_SET };

struct sim_event {
	uint64_t at;
	enum sim_event_type type;
	unsigned int vcpu;
	char path[GROUP_PATH_MAX];
	struct sim_settings set;
	unsigned int line;
};

struct sim_scenario {
	unsigned int lanes;
	unsigned int deliver_pct;	/* CPU a lane delivers, % of wall time (host steal) */
	uint64_t duration;
	struct sched_params params;
	bool has_params;
	unsigned int params_line;	/* the last of slice, min_run, lag */
	struct sim_group_cfg *groups;
	unsigned int nr_groups;
	struct sim_vcpu_cfg *vcpus;
	unsigned int nr_vcpus;
	struct sim_event *events;
	unsigned int nr_events;
};

struct sim_group_result {
	char path[GROUP_PATH_MAX];
	double usage, ideal;		/* ns */
	struct cpu_stat stat;
	unsigned long weight;
	uint64_t quota_us, period_us, burst_us;
	bool idle;
	double *period_usage;
	size_t nr_periods, cap_periods;
};

struct sim_vcpu_result {
	char path[GROUP_PATH_MAX];	/* group at the end */
	enum sim_pattern kind;
	double usage, ideal;
};

struct sim_result {
	unsigned int lanes;
	unsigned int deliver_pct;
	uint64_t duration;
	struct sim_group_result *groups;	/* [0] is the root */
	unsigned int nr_groups;
	struct sim_vcpu_result *vcpus;
	unsigned int nr_vcpus;
	unsigned long preemptions, timer_wakeups, switches, min_run_violations, decisions;
	uint64_t *wake_ns;		/* wake-to-run delay of every wake, in order */
	size_t nr_wake, cap_wake;
};

/* xorshift64*: deterministic and good enough for arrival jitter. */
static inline uint64_t sim_rng_next(uint64_t *x)
{
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

static inline uint64_t sim_rng_seed(uint64_t seed)
{
	return seed * 0x9E3779B97F4A7C15ULL + 1;
}

/*
 * Uniform in [0.5, 1.5] x mean, and at least 1 ns: a mean of 1 ns gave 0 every time, so
 * "bursty 1ns 1ns" had gaps of 0 (the run never left its first instant) and no work.
 */
static inline uint64_t sim_rng_around(uint64_t *x, uint64_t mean)
{
	uint64_t v = mean / 2 +
		     (uint64_t)((double)(sim_rng_next(x) >> 11) / (double)(1ULL << 53) * mean);

	return v ? v : 1;
}

/* sim_load.c: the group declared with path (NULL for "/" or none); whole-file checks. */
const struct sim_group_cfg *sim_find_group(const struct sim_scenario *sc, const char *path);
int sim_check(const struct sim_scenario *sc, unsigned int nr_lines, struct diag *d);

/* The ideal the simulator measures against (sim_ideal.c); it adds to r's ideal fields. */
struct sim_ideal;
int sim_ideal_create(const struct sim_scenario *sc, struct sched *s, struct group **groups,
		     struct sim_result *r, struct sim_ideal **out);
int sim_ideal_advance(struct sim_ideal *id, uint64_t to);
int sim_ideal_event(struct sim_ideal *id, const struct sim_event *ev);
void sim_ideal_free(struct sim_ideal *id);

/* sim_tree.c: a refusal at the scenario line that asked (0: none), "line N: what path: errno". */
int sim_fail(struct diag *d, int ret, unsigned int line, const char *what, const char *path);
/* The scenario's tree in s. */
int sim_build_tree(const struct sim_scenario *sc, struct sched *s, struct group **groups,
		   struct diag *d);
/*
 * Applies the settings to g with the group.h setters, in the order cgroupfs would need; on an
 * error *why names the file refused ("cpu.weight while cpu.idle is 1": EINVAL alone said nothing).
 */
int sim_apply_settings(struct sched *s, struct group *g, const struct sim_settings *set,
		       const char **why);
const char *sim_pattern_name(enum sim_pattern p);
/*
 * A word of the file as an error shows it (sim_parse_value.c): one over SIM_WORD_MAX - 1 bytes
 * cut in its middle, so the reason after it fits the message (a 600-byte path filled it, and
 * "is not defined" was lost). SIM_WORD(w) is valid to the end of the enclosing block.
 */
#define SIM_WORD_MAX	80
const char *sim_word(const char *w, char *buf);
#define SIM_WORD(w)	sim_word((w), (char[SIM_WORD_MAX]){ 0 })

#endif
