// SPDX-License-Identifier: MIT
/*
 * The sweep's time model and its fit into a budget (plan.h). Seconds per
 * point come from each experiment's cost function, with per-point,
 * per-repeat and per-thread overheads, plus a fixed part; over the budget,
 * durations are scaled down first (to a floor), then repeats cut, then the
 * counts that are only powers of two dropped.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiment.h"
#include "mech.h"
#include "plan.h"
#include "util.h"

int mech_picked(const struct mechanism *m, const struct mech_pick *p)
{
	if (!mech_has(m, p->all, p->none))
		return 0;
	if (p->cmd == PICK_ANY)
		return 1;
	if (p->cmd == PICK_SOME_CMD)
		return m->membarrier_cmd != 0;
	return m->membarrier_cmd == p->cmd;
}

/* A whole number of at most 9 digits at *s, or -1. */
static long count_at(const char **s)
{
	long v = 0;
	int k = 0;

	while (**s >= '0' && **s <= '9') {
		if (++k > 9)
			return -1;
		v = v * 10 + (*(*s)++ - '0');
	}
	return k ? v : -1;
}

int *plan_counts(const char *list, int *n)
{
	int *out = NULL, cap = 0;
	const char *s = list;

	*n = 0;
	while (s && *s) {
		long a = count_at(&s), b = a;

		if (*s == '-') {
			s++;
			b = count_at(&s);
		}
		for (long v = a; v <= b && v >= 0; v++) {
			if (*n == cap) {
				cap = cap ? 2 * cap : 16;
				out = realloc(out, cap * sizeof(*out));
				if (!out)
					fail("out of memory");
			}
			out[(*n)++] = (int)v;
		}
		if (*s != ',')
			break;
		s++;
	}
	return out;
}

int plan_counts_check(const char *list, int most)
{
	const char *s = list;

	for (;;) {
		long a = count_at(&s), b = a;

		if (*s == '-') {
			s++;
			b = count_at(&s);
		}
		if (a < 1 || b < a || b > most)
			return -1;
		if (!*s)
			return 0;
		if (*s++ != ',')
			return -1;
	}
}

int plan_budget_parse(const char *s)
{
	const char *p = s;
	double v;

	while (*p >= '0' && *p <= '9')
		p++;
	if (p == s || p - s > 12)
		return -1;
	if (*p == '.') {
		const char *q = ++p;

		while (*p >= '0' && *p <= '9')
			p++;
		if (p == q)
			return -1;
	}
	if (*p && (strchr("smh", *p) == NULL || p[1]))
		return -1;
	v = strtod(s, NULL);
	if (*p == 'm')
		v *= 60;
	else if (*p == 'h')
		v *= 3600;
	if (v < 10 || v > 8640000)
		return -1;
	return (int)(v + 0.5);
}

double plan_g(double v)
{
	char b[64];

	snprintf(b, sizeof(b), "%g", v);
	return strtod(b, NULL);
}

int plan_point_processes(const struct plan *p, int i)
{
	const struct plan_point *pt = &p->pts[i];
	int most = p->presets[pt->exp].processes;

	if (p->replicates <= 1 || pt->e->first)
		return 1;
	return most > 0 && most < p->replicates ? most : p->replicates;
}

double plan_point_s(const struct plan *p, int i)
{
	const struct plan_point *pt = &p->pts[i];
	const struct experiment *e = pt->e;
	int k = plan_point_processes(p, i);

	if (pt->m && !p->host.available(&p->host, pt->m))
		return k * (e->skipped_s > 0 ? e->skipped_s : PLAN_SKIPPED_S);
	if (k == 1)
		return e->cost(&p->presets[pt->exp], &p->host, pt->m);
	return k * (e->cost(&p->presets[pt->exp], &p->host, pt->m) + PLAN_PROCESS_S);
}

double plan_total(const struct plan *p)
{
	double s = PLAN_FIXED_S;

	for (int i = 0; i < p->n; i++)
		s += plan_point_s(p, i);
	return s;
}

/* list without the counts that are only in ladder (a comma list of them). */
static char *thin(const char *list, const char *ladder)
{
	int n, nl, *v = plan_counts(list, &n), *l = plan_counts(ladder, &nl);
	char *out = xmalloc((size_t)n * 11 + 1);
	size_t len = 0;

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		int drop = 0;

		for (int j = 0; j < nl; j++)
			drop |= l[j] == v[i];
		if (!drop)
			len += sprintf(out + len, "%s%d", len ? "," : "", v[i]);
	}
	free(v);
	free(l);
	return out;
}

static void fit_note(struct plan *p, const char *what)
{
	size_t n = strlen(p->fit);

	snprintf(p->fit + n, sizeof(p->fit) - n, "%s%s", n ? ", " : "", what);
}

void plan_fit(struct plan *p)
{
	int step;

	p->fit[0] = '\0';
	p->unscaled = plan_total(p);
	for (step = 0; step < 12 && plan_total(p) > p->budget; step++) {
		double f = (p->budget - PLAN_FIXED_S) / (plan_total(p) - PLAN_FIXED_S);

		if (f < 0.3)
			f = 0.3;
		if (f > 0.95)
			f = 0.95;
		for (int k = 0; k < p->nexps; k++) {
			struct preset *r = &p->presets[k];

			if (r->duration > 0 && p->exps[k]->floor > 0) {
				r->duration *= f;
				if (r->duration < p->exps[k]->floor)
					r->duration = p->exps[k]->floor;
			}
		}
		if (!step)
			fit_note(p, "durations scaled");
	}
	if (plan_total(p) > p->budget) {
		for (int k = 0; k < p->nexps; k++) {
			struct preset *r = &p->presets[k];

			if (p->exps[k]->cut == CUT_MAX) {
				r->max_repeat = r->repeat;
			} else if (p->exps[k]->cut == CUT_HALVE) {
				r->repeat = r->repeat / 2 < 2 ? 2 : r->repeat / 2;
				r->max_repeat = r->repeat;
			}
		}
		fit_note(p, "repeats cut");
	}
	if (plan_total(p) > p->budget) {
		char *t = thin(p->host.threads, p->host.ladder_threads);
		char *c = thin(p->host.callers, p->host.ladder_callers);

		free(p->threads);
		free(p->callers);
		p->host.threads = p->threads = t;
		p->host.callers = p->callers = c;
		fit_note(p, "powers of two between topology points dropped");
	}
	/*
	 * Last: fewer processes per point. Two give a CI from their spread
	 * (a wide one); one leaves only the repeats inside one process, which
	 * cannot see what changes between runs: the fit says so.
	 */
	while (p->replicates > 1 && plan_total(p) > p->budget) {
		char what[96];

		p->replicates--;
		snprintf(what, sizeof(what), p->replicates > 1 ? "replicates cut to %d" :
			 "replicates cut to %d (CIs from one process only)", p->replicates);
		if (p->replicates == 1 || plan_total(p) <= p->budget)
			fit_note(p, what);
	}
	if (!p->fit[0])
		strcpy(p->fit, "-");
	for (int i = 0; i < p->n; i++)
		p->pts[i].s = plan_point_s(p, i);
	p->total = plan_total(p);
}

void plan_options(FILE *f, const struct plan *p, int i)
{
	const struct plan_point *pt = &p->pts[i];
	struct preset r = p->presets[pt->exp];

	/* The options say the durations as printed: the run reads those. */
	r.duration = plan_g(r.duration);
	pt->e->options(f, &r, &p->host);
}

void plan_free(struct plan *p)
{
	free(p->pts);
	free(p->presets);
	free(p->threads);
	free(p->callers);
}

void plan_repeat_options(FILE *f, const struct preset *p, int ci)
{
	fprintf(f, " --duration %g --repeat %d", p->duration, p->repeat);
	if (ci)
		fprintf(f, " --ci-target %d --max-repeat %d", p->ci_target, p->max_repeat);
}

/* splitmix64: the same order from the same seed on every host. */
static uint64_t next_key(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static int run_cmp(const void *a, const void *b)
{
	const struct plan_run *x = a, *y = b;

	if (x->round != y->round)
		return x->round < y->round ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

int plan_runs(const struct plan *p, unsigned long seed, struct plan_run **out)
{
	int reps = p->replicates > 1 ? p->replicates : 1, n = 0;
	struct plan_run *r = xcalloc((size_t)p->n * reps + 1, sizeof(*r));
	uint64_t x = seed;

	for (int i = 0; i < p->n; i++) {
		int k = plan_point_processes(p, i);
		long t = (long)(p->pts[i].s * 10 + 0.5) / k;

		if (p->pts[i].e->first)
			r[n++] = (struct plan_run){ .i = i, .tenths = t, .key = (uint64_t)i };
		else
			for (int j = 1; j <= k; j++)
				r[n++] = (struct plan_run){ i, j, (j - 1) * reps / k + 1, t, next_key(&x) };
	}
	qsort(r, n, sizeof(*r), run_cmp);
	*out = r;
	return n;
}
