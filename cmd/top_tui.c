// SPDX-License-Identifier: GPL-2.0
/*
 * The interactive `vsched top` (ncurses): a new snapshot every interval, the rows of top_rows.c
 * with a cursor ('>' in the first column, so a captured pane shows it too), and keys that
 * re-draw at once from the snapshot in hand. Keys are declared in one table, which ? shows.
 */
#include <errno.h>
#include <limits.h>
#include <ncurses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/top.h"
#include "util/registry.h"
#include "util/compiler.h"

#define HEAD_LINES	3	/* title, status, column header */

struct tui {
	struct top_opts o;
	struct top_prefs p;
	struct top_snap snaps[2];
	struct top_snap *prev, *cur;
	struct top_view view;
	struct top_row *rows;
	unsigned int nr_rows, cursor, top;
	long nr_snaps;			/* taken so far, for -n */
	bool help, quit, view_ok;
	char msg[160];
};

static volatile sig_atomic_t tui_stop;

static void tui_on_signal(int sig)
{
	(void)sig;
	tui_stop = 1;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The row under the cursor, as "vm\tkind\tpath-or-id", so it survives a new snapshot. */
static void row_key(const struct tui *t, const struct top_row *r, char *buf, size_t len)
{
	const struct top_vm *vm = t->view.vms[r->vm].vm;

	if (r->kind == TOP_ROW_VCPU)
		snprintf(buf, len, "%s\tv\t%u", vm->name, vm->vcpus[r->idx].id);
	else if (vm->nr_groups)
		snprintf(buf, len, "%s\tg\t%s", vm->name, vm->groups[r->idx].path);
	else
		snprintf(buf, len, "%s\tg\t/", vm->name);
}

/*
 * The key of the row under the cursor, from the view its rows were made of: a new snapshot
 * takes it before it frees that view, as its VM and group indices mean nothing in the next.
 */
static void tui_cursor_key(const struct tui *t, char *buf, size_t len)
{
	*buf = '\0';
	if (t->view_ok && t->rows && t->cursor < t->nr_rows)
		row_key(t, &t->rows[t->cursor], buf, len);
}

/* Rows of the view in hand; the cursor goes to the row of key want if there is one. */
static void tui_rows(struct tui *t, const char *want)
{
	char key[PATH_MAX + 200];
	unsigned int i;

	free(t->rows);
	t->rows = NULL;
	t->nr_rows = 0;
	if (!t->view_ok || top_rows(&t->view, &t->p, &t->rows, &t->nr_rows)) {
		snprintf(t->msg, sizeof(t->msg), "out of memory");
		return;
	}
	for (i = 0; *want && i < t->nr_rows; i++) {
		row_key(t, &t->rows[i], key, sizeof(key));
		if (!strcmp(key, want)) {
			t->cursor = i;
			return;
		}
	}
	if (t->cursor >= t->nr_rows)
		t->cursor = t->nr_rows ? t->nr_rows - 1 : 0;
}

static void tui_snapshot(struct tui *t)
{
	struct top_snap *next = t->cur == &t->snaps[0] ? &t->snaps[1] : &t->snaps[0];
	char want[PATH_MAX + 200], host[PATH_MAX];
	int ret;

	tui_cursor_key(t, want, sizeof(want));
	if (t->view_ok)
		top_view_free(&t->view);
	t->view_ok = false;
	if (t->prev)
		top_snap_free(t->prev);
	ret = top_snap_take(next, t->o.vm, top_host_dir(host, sizeof(host)));
	if (ret) {
		snprintf(t->msg, sizeof(t->msg), "registry %s: %s", registry_run_dir(),
			 strerror(-ret));
		memset(next, 0, sizeof(*next));
		next->t_ns = mono_ns();
	}
	t->prev = t->cur;
	t->cur = next;
	t->view_ok = !top_view_build(&t->view, t->prev, t->cur);
	t->nr_snaps++;
	tui_rows(t, want);
}

static const double intervals[] = { 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 300, 3600 };

/* Key handlers: arg is the table's. */
static void key_interval(struct tui *t, int dir)
{
	unsigned int i, n = sizeof(intervals) / sizeof(intervals[0]);

	if (dir > 0) {
		for (i = 0; i < n && intervals[i] <= t->o.interval; i++)
			;
		t->o.interval = intervals[i < n ? i : n - 1];
	} else {
		for (i = n; i > 0 && intervals[i - 1] >= t->o.interval; i--)
			;
		t->o.interval = intervals[i > 0 ? i - 1 : 0];
	}
	snprintf(t->msg, sizeof(t->msg), "interval %.1f s", t->o.interval);
}

static void key_quit(struct tui *t, int arg __unused)
{
	t->quit = true;
}

static void key_help(struct tui *t, int arg __unused)
{
	t->help = !t->help;
}

/* -1 up, 1 down, INT_MIN first row, INT_MAX last row */
static void key_move(struct tui *t, int arg)
{
	if (arg == INT_MIN)
		t->cursor = 0;
	else if (arg == INT_MAX)
		t->cursor = t->nr_rows ? t->nr_rows - 1 : 0;
	else if (arg < 0)
		t->cursor -= t->cursor > 0;
	else
		t->cursor += t->cursor + 1 < t->nr_rows;
}

static void key_sort(struct tui *t, int arg)
{
	t->p.sort = (enum top_sort)arg;
	snprintf(t->msg, sizeof(t->msg), "sorted by %s", top_sort_name(t->p.sort));
}

static void key_vcpus(struct tui *t, int arg __unused)
{
	t->p.vcpus = !t->p.vcpus;
	snprintf(t->msg, sizeof(t->msg), "vCPU rows %s", t->p.vcpus ? "on" : "off");
}

static void key_toggle(struct tui *t, int arg __unused)
{
	const struct top_row *r = t->cursor < t->nr_rows ? &t->rows[t->cursor] : NULL;
	const struct top_vm *vm;

	if (!r || r->kind == TOP_ROW_VCPU || !r->has_children) {
		snprintf(t->msg, sizeof(t->msg), "nothing to expand or collapse here");
		return;
	}
	vm = t->view.vms[r->vm].vm;
	if (top_prefs_toggle(&t->p, vm->name, vm->groups[r->idx].path))
		snprintf(t->msg, sizeof(t->msg), "out of memory");
}

static const struct tui_key {
	int key, key2;
	void (*fn)(struct tui *t, int arg);
	int arg;
	const char *help;
} tui_keys[] = {
	{ 'q', 'Q', key_quit, 0, "q        quit" },
	{ '?', 'h', key_help, 0, "?        this help (any key closes it)" },
	{ KEY_UP, 'k', key_move, -1, "up, k    move up" },
	{ KEY_DOWN, 'j', key_move, 1, "down, j  move down" },
	{ KEY_HOME, 'g', key_move, INT_MIN, "home, g  first row" },
	{ KEY_END, 'G', key_move, INT_MAX, "end, G   last row" },
	{ '\n', ' ', key_toggle, 0, "enter    expand or collapse the VM or group (also space)" },
	{ KEY_ENTER, '\r', key_toggle, 0, NULL },
	{ 'v', 'V', key_vcpus, 0, "v        vCPU rows on or off" },
	{ 'c', 'P', key_sort, TOP_SORT_CPU, "c        sort siblings by CPU %" },
	{ 'n', 'N', key_sort, TOP_SORT_NAME, "n        sort siblings by name" },
	{ 'w', 'W', key_sort, TOP_SORT_WEIGHT, "w        sort siblings by weight" },
	{ '+', '=', key_interval, 1, "+        longer interval" },
	{ '-', '_', key_interval, -1, "-        shorter interval" },
};

static void draw_help(void)
{
	unsigned int i, y = HEAD_LINES;
	int w = 62;

	attron(A_REVERSE);
	mvprintw((int)y++, 2, "%-*s", w, " vsched top: keys");
	for (i = 0; i < sizeof(tui_keys) / sizeof(tui_keys[0]); i++)
		if (tui_keys[i].help)
			mvprintw((int)y++, 2, " %-*s", w - 1, tui_keys[i].help);
	mvprintw((int)y, 2, " %-*s", w - 1, "columns and formulas: docs/top.md");
	attroff(A_REVERSE);
}

static void tui_draw(struct tui *t)
{
	int lines = LINES - HEAD_LINES, y;
	char title[512];
	unsigned int i;

	erase();
	top_title(title, sizeof(title), &t->view, &t->o);
	mvaddnstr(0, 0, title, COLS);
	mvprintw(1, 0, "sort %s  vCPU rows %s  ? help  q quit%s%s", top_sort_name(t->p.sort),
		 t->p.vcpus ? "on" : "off", *t->msg ? "  | " : "", t->msg);
	attron(A_REVERSE);
	mvprintw(2, 0, "%-*.*s", COLS, COLS, top_rows_header());
	attroff(A_REVERSE);
	if (t->help) {		/* in place of the rows: a table's columns beside it read as part of it */
		draw_help();
		refresh();
		return;
	}
	if (!t->nr_rows)
		mvprintw(HEAD_LINES, 1, "(no vsched VM running%s%s)", t->o.vm ? " named " : "",
			 t->o.vm ? t->o.vm : "");
	if (lines > 0) {
		if (t->cursor < t->top)
			t->top = t->cursor;
		if (t->cursor >= t->top + (unsigned int)lines)
			t->top = t->cursor - (unsigned int)lines + 1;
	}
	for (i = t->top, y = HEAD_LINES; i < t->nr_rows && y < LINES; i++, y++) {
		if (i == t->cursor)
			attron(A_BOLD);
		mvaddch(y, 0, i == t->cursor ? '>' : ' ');
		addnstr(t->rows[i].text, COLS > 1 ? COLS - 1 : 0);
		if (i == t->cursor)
			attroff(A_BOLD);
	}
	refresh();
}

static void tui_key(struct tui *t, int ch)
{
	char want[PATH_MAX + 200];
	unsigned int i;

	/* A resize is no key typed: it re-draws, and the help stays open. */
	if (ch == KEY_RESIZE)
		return;
	if (t->help && ch != '?' && ch != 'h') {
		t->help = false;	/* any key closes the help */
		if (ch != 'q' && ch != 'Q')
			return;
	}
	t->msg[0] = '\0';
	for (i = 0; i < sizeof(tui_keys) / sizeof(tui_keys[0]); i++)
		if (ch == tui_keys[i].key || ch == tui_keys[i].key2) {
			tui_keys[i].fn(t, tui_keys[i].arg);
			tui_cursor_key(t, want, sizeof(want));
			tui_rows(t, want);
			return;
		}
	snprintf(t->msg, sizeof(t->msg), "unknown key (? for help)");
}

/*
 * The screen, on a terminal ncurses can draw on: initscr() exits by itself where TERM names no
 * terminal ("Error opening terminal: unknown.", status 1), and on TERM=dumb, which cannot move
 * the cursor, every screen came out as one long line. Both are the no-terminal case: status 2.
 */
static SCREEN *tui_screen(void)
{
	const char *term = getenv("TERM");
	SCREEN *scr = newterm(NULL, stdout, stdin);
	const char *why = "is unknown to ncurses";
	char *cup;

	if (scr) {
		cup = tigetstr("cup");
		if (cup && cup != (char *)-1)
			return scr;
		endwin();
		delscreen(scr);
		why = "cannot move the cursor";
	}
	fprintf(stderr, "vsched top: the terminal type '%s' (TERM) %s; use -b for plain text\n",
		term ? term : "", why);
	return NULL;
}

int top_tui(const struct top_opts *o)
{
	struct sigaction sa = { .sa_handler = tui_on_signal };
	struct tui *t;
	SCREEN *scr = tui_screen();
	uint64_t next;
	int ch;

	if (!scr)
		return 2;
	t = calloc(1, sizeof(*t));
	if (!t) {
		endwin();
		delscreen(scr);
		fprintf(stderr, "vsched top: %s\n", strerror(ENOMEM));
		return 1;
	}
	t->o = *o;
	t->p.sort = o->sort;
	t->p.vcpus = o->vcpus;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	tui_snapshot(t);
	next = mono_ns() + (uint64_t)(t->o.interval * 1e9);
	while (!t->quit && !tui_stop) {
		uint64_t now = mono_ns();

		if (now >= next) {
			/* -n N: the Nth snapshot stays on screen for an interval, then top ends */
			if (t->o.iterations && t->nr_snaps >= t->o.iterations)
				break;
			tui_snapshot(t);
			next = now + (uint64_t)(t->o.interval * 1e9);
			/*
			 * No `continue`: a snapshot slower than the interval (64 vCPUs in 55
			 * groups under load took 0.5-2 s) was followed by the next at once,
			 * never drawn, and q was never read.
			 */
			now = mono_ns();
		}
		tui_draw(t);
		timeout(next > now ? (int)((next - now) / 1000000ULL) + 1 : 0);
		/* Every key typed meanwhile, not one a snapshot: a q queued behind others quits. */
		while (!t->quit && (ch = getch()) != ERR) {
			tui_key(t, ch);
			timeout(0);
		}
		/* A shorter interval acts now, not after the old one ran out. */
		if (t->prev && next > t->cur->t_ns + (uint64_t)(t->o.interval * 1e9))
			next = t->cur->t_ns + (uint64_t)(t->o.interval * 1e9);
	}
	endwin();
	delscreen(scr);
	if (t->view_ok)
		top_view_free(&t->view);
	if (t->prev)
		top_snap_free(t->prev);
	if (t->cur)
		top_snap_free(t->cur);
	free(t->rows);
	top_prefs_free(&t->p);
	free(t);
	return 0;
}
