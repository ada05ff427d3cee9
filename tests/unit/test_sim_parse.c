// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario files refused, each at the line it concerns (issue 13, issue 18 item 12): numbers
 * strtod() or strtol() took half of, vCPU ids out of order, events past the end, and input that
 * is not a scenario at all (empty, binary, endless, a directory).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "sched/sim.h"

/* text is refused with -EINVAL and exactly the message want. */
static void refused(const char *text, const char *want)
{
	struct sim_scenario *sc = NULL;
	struct diag d;

	diag_init(&d, NULL);
	CU_ASSERT_EQUAL(sim_parse(text, &sc, &d), -EINVAL);
	if (strcmp(d.msg, want))
		printf("\n  %s: got '%s', want '%s'\n", text, d.msg, want);
	CU_ASSERT_STRING_EQUAL(d.msg, want);
}

#define NICE_ERR	"line 1: nice must be an integer in [-20, 19]"
#define QUOTA_ERR	"the cpu.max quota is max or 1ms to 17592186s"

static void test_parse_numbers(void)
{
	/* NaN passed the range check into an undefined conversion; inf, hex, signs, exponents. */
	refused("duration nan\nvcpu 0 / hog\n", "line 1: bad time 'nan'");
	refused("duration inf\nvcpu 0 / hog\n", "line 1: bad time 'inf'");
	refused("slice nanms\nvcpu 0 / hog\n", "line 1: bad time 'nanms'");
	refused("duration 0x10s\nvcpu 0 / hog\n", "line 1: bad time '0x10s'");
	refused("duration 1e3ms\nvcpu 0 / hog\n", "line 1: bad time '1e3ms'");
	refused("duration -1s\nvcpu 0 / hog\n", "line 1: bad time '-1s'");
	refused("duration 1.s\nvcpu 0 / hog\n", "line 1: bad time '1.s'");
	refused("vcpu 0 / duty nan 10ms\n", "line 1: duty needs BUSY and PERIOD times");
	refused("vcpu 0 / sleep 3ms\n", "line 1: sleep needs BUSY and SLEEP times");
	refused("vcpu 0 / sleep 3ms 0ms\n", "line 1: sleep needs BUSY and SLEEP above 0");
	/* Each pattern's fields by their own names: bursty's are BURST and GAP. */
	refused("vcpu 0 / bursty 3ms\n", "line 1: bursty needs BURST and GAP times");
	refused("vcpu 0 / bursty 3ms 2ms\n", "line 1: bursty needs 0 < BURST <= GAP");
	refused("vcpu 0 / duty 3ms 2ms\n", "line 1: duty needs 0 < BUSY <= PERIOD");
	refused("vcpu 0 / duty 1ms 10ms phase nan\n", "line 1: bad phase");
	refused("group /a max nan 100ms\nvcpu 0 / hog\n", "line 1: bad time 'nan'");
	/* nice took what strtol() made of it. */
	refused("group /a nice abc\nvcpu 0 / hog\n", NICE_ERR);
	refused("group /a nice 5x\nvcpu 0 / hog\n", NICE_ERR);
	refused("group /a nice 1e3\nvcpu 0 / hog\n", NICE_ERR);
	refused("group /a nice -21\nvcpu 0 / hog\n", NICE_ERR);
	refused("group /a weight +5\nvcpu 0 / hog\n", "line 1: weight must be in [1, 10000]");
}

/* The duration text's scenario runs (one lane), 0 if refused. */
static uint64_t duration_of(const char *text)
{
	struct sim_scenario *sc = NULL;
	struct sim_result *r = NULL;
	uint64_t ns = 0;

	if (!sim_parse(text, &sc, NULL) && !sim_ideal_only(sc, &r, NULL))
		ns = (uint64_t)sim_capacity_ns(r);
	sim_result_free(r);
	sim_scenario_free(sc);
	return ns;
}

/*
 * Times were read through a double: "0.4ns" became 0 and "1.6ns" 2 without a word; and cpu.max,
 * a file of whole microseconds, took "1000500ns" as 1000 us and "burst 1500ns" as 1 us (branch
 * simcheck).
 */
static void test_parse_exact_times(void)
{
	CU_ASSERT_EQUAL(duration_of("duration 1.5us\nvcpu 0 / hog\n"), 1500);
	CU_ASSERT_EQUAL(duration_of("duration 2.000000001s\nvcpu 0 / hog\n"), 2000000001ULL);
	CU_ASSERT_EQUAL(duration_of("duration 1.0ns\nvcpu 0 / hog\n"), 1);
	CU_ASSERT_EQUAL(duration_of("duration 2.5\nvcpu 0 / hog\n"), 2500);
	CU_ASSERT_EQUAL(duration_of("duration 1000000000s\nvcpu 0 / hog\n"),
			1000000000000000000ULL);
	refused("duration 1000000000000000001ns\nvcpu 0 / hog\n",
		"line 1: bad time '1000000000000000001ns'");
	refused("duration 0.4ns\nvcpu 0 / hog\n",
		"line 1: time '0.4ns' is finer than a nanosecond");
	refused("duration 1.0005us\nvcpu 0 / hog\n",
		"line 1: time '1.0005us' is finer than a nanosecond");
	refused("vcpu 0 / hog\nat 0.5ns move 0 /\n",
		"line 2: time '0.5ns' is finer than a nanosecond");
	refused("vcpu 0 / duty 1.6ns 2ns\n", "line 1: time '1.6ns' is finer than a nanosecond");
	refused("vcpu 0 / duty 1ms 2ms phase 0.1ns\n",
		"line 1: time '0.1ns' is finer than a nanosecond");
	refused("group /a max 1000500ns 1s\nvcpu 0 / hog\n",
		"line 1: cpu.max and cpu.max.burst are whole microseconds, not '1000500ns'");
	refused("group /a max 10ms 100.0005ms\nvcpu 0 / hog\n",
		"line 1: cpu.max and cpu.max.burst are whole microseconds, not '100.0005ms'");
	refused("group /a burst 1500ns\nvcpu 0 / hog\n",
		"line 1: cpu.max and cpu.max.burst are whole microseconds, not '1500ns'");
	CU_ASSERT_EQUAL(duration_of("group /a max 1.5ms 10.5ms burst 0.5ms\nvcpu 0 / hog\n"),
			1000000000ULL);
}

static void test_parse_structure(void)
{
	struct sim_scenario *sc = NULL;

	refused("vcpu 0 / hog\nvcpu 0 /a hog\n", "line 2: vcpu 0 already defined at line 1");
	refused("vcpu 0 / hog\n\nvcpu 2 / hog\n",
		"line 3: vcpu 1 is missing: ids run from 0, no gaps");
	/* The empty piece after the final newline was named: "lanes 2\n" has no line 2. */
	refused("lanes 2\n", "line 1: no vcpu line: not a scenario");
	refused("lanes 2\n\n# end\n", "line 3: no vcpu line: not a scenario");
	refused("lanes 2", "line 1: no vcpu line: not a scenario");
	refused("", "line 1: no vcpu line: not a scenario");
	refused("duration 1s\nvcpu 0 / hog\nat 2s weight / 5\n",
		"line 3: event at 2 s is not before the end (duration 1 s)");
	refused("vcpu 0 / hog\nat 1s move 0 /\n",
		"line 2: event at 1 s is not before the end (duration 1 s)");
	refused("vcpu 0 / hog\nat 1ms move 3 /\n", "line 2: vcpu 3 does not exist");
	refused("vcpu 0 / hog\nat 1ms move 0 /b\n", "line 2: group /b is not defined");
	refused("vcpu 0 /b hog\n", "line 1: group /b is not defined");
	refused("vcpu 0 / hog\nat 1ms weight / 5\n",
		"line 2: the root group takes no settings here");
	refused("group /a/b\nvcpu 0 / hog\n", "line 1: parent /a of a group is not defined above");
	refused("group /a\ngroup /a\nvcpu 0 / hog\n", "line 2: group /a already defined at line 1");
	refused("group /a/\nvcpu 0 / hog\n", "line 1: bad group path '/a/'");
	refused("group //a\nvcpu 0 / hog\n", "line 1: bad group path '//a'");
	refused("vcpu 0 / hog\n\x01\n", "line 2: control character 0x01: not a scenario");
	/* Order does not matter otherwise: a vCPU may name a group defined below it. */
	CU_ASSERT_EQUAL(sim_parse("vcpu 1 /a hog\ngroup /a\nvcpu 0 / hog\n", &sc, NULL), 0);
	sim_scenario_free(sc);
}

/*
 * What a new user's scenarios (branch audit7) found taken silently or refused unclearly: a
 * keyword or vcpu option given twice (the last won), an option where it does nothing, an
 * unknown keyword called a bad time, cpu.max out of range as "Invalid argument" at run time,
 * a path past the depth limit as EAGAIN cut off inside its own text.
 */
static void test_parse_audit(void)
{
	struct sim_scenario *sc = NULL;
	char deep[1024] = "group /d";
	size_t i;
	char *text;

	refused("lanes 2\nlanes 4\nvcpu 0 / hog\n", "line 2: 'lanes' already given at line 1");
	refused("duration 1s\nvcpu 0 / hog\nduration 2s\n",
		"line 3: 'duration' already given at line 1");
	refused("deliver 50\ndeliver 60%\nvcpu 0 / hog\n", "line 2: 'deliver' already given at line 1");
	refused("slice 3ms\nslice 4ms\nvcpu 0 / hog\n", "line 2: 'slice' already given at line 1");
	refused("Name: vsched\nvcpu 0 / hog\n", "line 1: unknown keyword 'Name:'");
	refused("foo 1 2\nvcpu 0 / hog\n", "line 1: unknown keyword 'foo'");
	refused("vcpu 0 / duty 1ms 10ms phase 1ms phase 2ms\n", "line 1: 'phase' given twice");
	refused("vcpu 0 / hog sys 10 sys 20\n", "line 1: 'sys' given twice");
	refused("vcpu 0 / bursty 1ms 2ms seed 1 seed 2\n", "line 1: 'seed' given twice");
	refused("vcpu 0 / hog phase 3ms\n", "line 1: phase is for duty, bursty and sleep vcpus");
	refused("vcpu 0 / idle phase 3ms\n", "line 1: phase is for duty, bursty and sleep vcpus");
	refused("vcpu 0 / duty 1ms 2ms seed 4\n", "line 1: seed is for bursty vcpus");
	refused("group /a max 0 100ms\nvcpu 0 / hog\n", "line 1: " QUOTA_ERR);
	refused("group /a max 999us\nvcpu 0 / hog\n", "line 1: " QUOTA_ERR);
	refused("vcpu 0 / hog\ngroup /a\nat 1ms max /a 100000000s 1s\n", "line 3: " QUOTA_ERR);
	refused("group /a max 10ms 0\nvcpu 0 / hog\n", "line 1: the cpu.max period is 1ms to 1s");
	refused("group /a max max 1001ms\nvcpu 0 / hog\n", "line 1: the cpu.max period is 1ms to 1s");
	refused("group /a max 10ms 100ms burst 11ms\nvcpu 0 / hog\n",
		"line 1: the burst may not exceed the cpu.max quota");
	for (i = 1; i < GROUP_DEPTH_MAX; i++)
		strcat(deep, "/d");
	text = malloc(GROUP_DEPTH_MAX * 4 * GROUP_DEPTH_MAX);
	CU_ASSERT_FATAL(text != NULL);
	text[0] = '\0';
	for (i = 1; i <= GROUP_DEPTH_MAX; i++)	/* group /d, /d/d, ... 256 deep */
		sprintf(text + strlen(text), "%.*s\n", (int)(6 + 2 * i), deep);
	strcat(text, "vcpu 0 / hog\n");
	CU_ASSERT_EQUAL(sim_parse(text, &sc, NULL), 0);	/* the limit itself is fine */
	sim_scenario_free(sc);
	sprintf(text + strlen(text), "%s/d\n", deep);
	refused(text, "line 258: group path deeper than 256 levels");
	free(text);
	/* Allowed: a burst beside max, a bursty phase, seed 0, events in any order (sorted). */
	CU_ASSERT_EQUAL(sim_parse("group /a max max burst 5ms\nvcpu 0 /a bursty 1ms 2ms "
				  "phase 1ms seed 0\nat 5ms move 0 /\nat 1ms move 0 /a\n",
				  &sc, NULL), 0);
	sim_scenario_free(sc);
}

/* A file with these len bytes; its path in path (PATH_MAX). */
/*
 * An outsider's corpus (branch simcorpus, 73 malformed files): a misspelt word named the wrong
 * fault ("'x' needs a value" for an unknown option, event or setting), "." and ".." passed as
 * group names into the tree's "File exists", a fractional percentage was "not in [1, 100]".
 */
static void test_parse_corpus(void)
{
	refused("vcpu 0 / hog\nat 1ms frob /\n",
		"line 2: unknown event 'frob' (move, weight, nice, max, burst, idle)");
	refused("vcpu 0 / hog\nat 1ms frob / 5\n",
		"line 2: unknown event 'frob' (move, weight, nice, max, burst, idle)");
	refused("vcpu 0 / hog x\n", "line 1: unknown vcpu option 'x'");
	refused("vcpu 0 / duty 1ms 2ms phse 1ms seed\n", "line 1: unknown vcpu option 'phse'");
	refused("group /a b\nvcpu 0 / hog\n", "line 1: unknown setting 'b'");
	refused("group /a weight 5 colour\nvcpu 0 / hog\n", "line 1: unknown setting 'colour'");
	refused("group /a weight\nvcpu 0 / hog\n", "line 1: 'weight' needs a value");
	refused("group /a\ngroup /a/..\nvcpu 0 / hog\n",
		"line 2: bad group path '/a/..': '.' and '..' name no group");
	refused("group /.\nvcpu 0 / hog\n",
		"line 1: bad group path '/.': '.' and '..' name no group");
	refused("vcpu 0 /.. hog\n", "line 1: bad group path '/..': '.' and '..' name no group");
	refused("deliver 33.3%\nvcpu 0 / hog\n",
		"line 1: deliver is a whole percentage, 1% to 100%");
	refused("deliver 0%\nvcpu 0 / hog\n", "line 1: deliver is a whole percentage, 1% to 100%");
	refused("lanes 0x2\nvcpu 0 / hog\n", "line 1: lanes is a whole number, 1 to 1024");
}

/*
 * A long word is cut in its middle: a 600-byte path filled the 512-byte message, and the reason
 * after it ("is not defined") was lost.
 */
static void test_parse_long_words(void)
{
	char text[1024], want[256], x[601];

	memset(x, 'x', 600);
	x[600] = '\0';
	snprintf(text, sizeof(text), "vcpu 0 /%s hog\n", x);
	snprintf(want, sizeof(want), "line 1: group /%.47s...%.28s is not defined", x, x);
	refused(text, want);
	snprintf(text, sizeof(text), "%s 2\nvcpu 0 / hog\n", x);
	snprintf(want, sizeof(want), "line 1: unknown keyword '%.48s...%.28s'", x, x);
	refused(text, want);
	snprintf(text, sizeof(text), "vcpu 0 / hog %s\n", x);
	snprintf(want, sizeof(want), "line 1: unknown vcpu option '%.48s...%.28s'", x, x);
	refused(text, want);
	snprintf(text, sizeof(text), "group /a/%s\nvcpu 0 / hog\n", x);
	snprintf(want, sizeof(want), "line 1: parent /a of a group is not defined above");
	refused(text, want);
	/* 79 bytes are shown whole. */
	x[79] = '\0';
	snprintf(text, sizeof(text), "%s 2\nvcpu 0 / hog\n", x);
	snprintf(want, sizeof(want), "line 1: unknown keyword '%.79s'", x);
	refused(text, want);
}

static void write_file(char *path, const void *buf, size_t len)
{
	int fd;

	strcpy(path, "/tmp/vsched-test-sim-XXXXXX");
	fd = mkstemp(path);
	CU_ASSERT_TRUE_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

static void load_refused(const char *path, int ret, const char *want)
{
	struct sim_scenario *sc = NULL;
	struct diag d;

	diag_init(&d, NULL);
	CU_ASSERT_EQUAL(sim_load(path, &sc, &d), ret);
	if (strcmp(d.msg, want))
		printf("\n  %s: got '%s', want '%s'\n", path, d.msg, want);
	CU_ASSERT_STRING_EQUAL(d.msg, want);
}

static void test_load_not_a_scenario(void)
{
	static const char nul[] = "lanes 1\nvcpu 0 / hog\0vcpu 1 / hog\n";
	static const unsigned char binary[] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, '\n' };
	char path[64], *big = malloc((1 << 20) + 10);

	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	/* An empty file: getdelim() returned -1 with the buffer unterminated (ASan: overflow). */
	write_file(path, "", 0);
	load_refused(path, -EINVAL, "line 1: no vcpu line: not a scenario");
	unlink(path);
	/* What followed a NUL byte was dropped silently. */
	write_file(path, nul, sizeof(nul) - 1);
	load_refused(path, -EINVAL, "line 2: a NUL byte: not a scenario");
	unlink(path);
	write_file(path, binary, sizeof(binary));
	load_refused(path, -EINVAL, "line 1: control character 0x7f: not a scenario");
	unlink(path);
	/* Input was unbounded: a pipe reached 480 MB. */
	memset(big, '\n', (1 << 20) + 10);
	write_file(path, big, (1 << 20) + 10);
	load_refused(path, -EFBIG, "line 1048577: longer than 1048576 bytes: not a scenario");
	unlink(path);
	load_refused("/dev/null", -EINVAL, "line 1: no vcpu line: not a scenario");
	load_refused("/dev/zero", -EFBIG, "line 1: longer than 1048576 bytes: not a scenario");
	/* A directory printed "X: X: read error" and lost EISDIR. */
	load_refused("/tmp", -EISDIR, "Is a directory");
	load_refused("/nonexistent/x.sim", -ENOENT, "No such file or directory");
	free(big);
}

/*
 * A run records every wake and every capped group's period: "duty 1ns 1ns" for 1 s grew to 6 GB
 * before it was stopped. Refused at the line that crosses the bound; just under it parses.
 */
static void test_parse_samples(void)
{
	struct sim_scenario *sc = NULL;
	struct diag d;

	refused("duration 1s\nvcpu 0 / hog\nvcpu 1 / duty 1ns 1ns\n",
		"line 3: vcpu 1: 1000000002 wakes and periods in 1 s so far, above the 67108864 a "
		"run records (make its period longer or the duration shorter)");
	refused("duration 100000s\ngroup /a max 1ms 1ms\nvcpu 0 /a hog\n",
		"line 2: group /a: 100000002 wakes and periods in 100000 s so far, above the "
		"67108864 a run records (make its period longer or the duration shorter)");
	/* A cap set by an event counts at its period; a bursty gap at half its mean. */
	refused("duration 70000s\ngroup /a\nvcpu 0 /a hog\nat 1s max /a 1ms 1ms\n",
		"line 2: group /a: 70000002 wakes and periods in 70000 s so far, above the "
		"67108864 a run records (make its period longer or the duration shorter)");
	diag_init(&d, NULL);
	CU_ASSERT_EQUAL(sim_parse("duration 60s\nvcpu 0 / duty 1us 1us\n", &sc, &d), 0);
	sim_scenario_free(sc);
}

static void test_sim_scenario_errors(void)
{
	static const char *const bad[] = {
		"lanes 0\n", "lanes x\n", "duration 0\n", "duration 5parsecs\n", "bogus 1\n",
		"group a\n", "group /a weight 0\n", "group /a weight 10001\n", "group /a nice 20\n",
		"group /a idle 2\n", "group /a frobs 3\n", "vcpu 0 /a\n", "vcpu 0 /a spin\n",
		"vcpu 0 /a duty 5ms\n", "vcpu 0 /a duty 5ms 1ms\n", "at 1s move 0\n",
		"at 1s weight /a\n", "vcpu 9999 / hog\n", "deliver 0\n", "deliver 101%\n",
		"deliver 60%x\n", "deliver 60 %\n",
		/* settings that would be dropped without a word */
		"group /a weight 5 weight 6\n", "group /a idle 1 weight 5\n", "group /a nice 3 idle 1\n",
		"group /a weight 5 nice 3\n", "group /a max 1ms max 2ms\n", "at 1s idle /a 1 weight 5\n",
	};
	struct sim_scenario *sc;
	struct sim_result *r;
	struct diag d;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		diag_init(&d, NULL);
		CU_ASSERT_EQUAL(sim_parse(bad[i], &sc, &d), -EINVAL);
		CU_ASSERT_TRUE(!strncmp(d.msg, "line 1: ", 8));
	}
	/* Errors that only the group tree can see come back from sim_run() with the errno. */
	diag_init(&d, NULL);
	CU_ASSERT_EQUAL(sim_parse("group /a burst 5ms\nvcpu 0 / hog\n", &sc, &d), 0);
	CU_ASSERT_EQUAL(sim_run(sc, &r, &d), 0);	/* a burst beside "max" is taken */
	sim_result_free(r);
	sim_scenario_free(sc);
	/* A burst over a quota set on an earlier line (out of range alone: sim_parse()). */
	diag_init(&d, NULL);
	CU_ASSERT_EQUAL(sim_parse("vcpu 0 / hog\ngroup /a max 10ms\nat 1ms burst /a 20ms\n", &sc,
				  &d), 0);
	CU_ASSERT_EQUAL(sim_run(sc, &r, &d), -EINVAL);
	CU_ASSERT_STRING_EQUAL(d.msg,
			       "line 3: event on /a: cpu.max.burst above the quota: Invalid argument");
	sim_scenario_free(sc);
	/* A period of 0 is the kernel's "1000 0", EINVAL; it was taken as "period unchanged". */
	diag_init(&d, NULL);
	CU_ASSERT_EQUAL(sim_parse("vcpu 0 / hog\ngroup /a\nat 1ms max /a 10ms 0\n", &sc, &d),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(d.msg, "line 3: the cpu.max period is 1ms to 1s");
	/* cpu.weight of an idle group is EINVAL (sched_group_set_shares()). */
	diag_init(&d, NULL);
	CU_ASSERT_EQUAL(sim_parse("group /a idle 1\nvcpu 0 / hog\nat 1ms weight /a 5\n", &sc, &d),
			0);
	CU_ASSERT_EQUAL(sim_run(sc, &r, &d), -EINVAL);
	CU_ASSERT_STRING_EQUAL(d.msg,
			       "line 3: event on /a: cpu.weight while cpu.idle is 1: Invalid argument");
	sim_scenario_free(sc);
	/* Parameters: the values and the rule, not "Invalid argument" (audit7). */
	diag_init(&d, NULL);
	CU_ASSERT_EQUAL(sim_parse("vcpu 0 / hog\nslice 10ms\n", &sc, &d), 0);
	CU_ASSERT_EQUAL(sim_run(sc, &r, &d), -EINVAL);
	CU_ASSERT_STRING_EQUAL(d.msg, "line 2: slice 10 ms, min_run 1 ms, lag 6 ms: need 1 ms <= "
			       "min_run <= slice <= lag");
	sim_scenario_free(sc);
	/* Whole milliseconds, not "1e+06 ms". */
	diag_init(&d, NULL);
	CU_ASSERT_EQUAL(sim_parse("vcpu 0 / hog\nslice 1000s\n", &sc, &d), 0);
	CU_ASSERT_EQUAL(sim_run(sc, &r, &d), -EINVAL);
	CU_ASSERT_STRING_EQUAL(d.msg, "line 2: slice 1000000 ms, min_run 1 ms, lag 6 ms: need 1 ms "
			       "<= min_run <= slice <= lag");
	sim_scenario_free(sc);
	diag_init(&d, NULL);
	CU_ASSERT_EQUAL(sim_load("/nonexistent/x.sim", &sc, &d), -ENOENT);
	CU_ASSERT_STRING_EQUAL(d.msg, "No such file or directory");
}

static CU_TestInfo parse_tests[] = {
	{ "numbers are whole words", test_parse_numbers },
	{ "times to the nanosecond, cpu.max to the microsecond", test_parse_exact_times },
	{ "what only the whole file shows", test_parse_structure },
	{ "what a new user's scenarios found", test_parse_audit },
	{ "files that are no scenario", test_load_not_a_scenario },
	{ "runs that would record without bound", test_parse_samples },
	{ "scenario errors", test_sim_scenario_errors },
	{ "what an outsider's corpus found", test_parse_corpus },
	{ "long words cut, the reason kept", test_parse_long_words },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/sim parse", parse_tests)
