// SPDX-License-Identifier: MIT
/*
 * The phase matcher of anatomy: pure, an event stream in and the caller's
 * barriers out (anatomy.h). Also pure: the text form of an event (the
 * recorded captures) and the tracefs format files' fields.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "anatomy.h"
#include "util.h"

static const char *const kind_names[ANA_NKINDS] = {
	"enter", "exit", "queue", "hentry", "hexit", "ipi",
};

static const char *const status_names[ANA_NSTATUS] = {
	"complete", "no-call", "no-handler", "no-handler-exit",
};

static const char *const phase_names[PH_N] = {
	"setup", "send", "delivery", "handler", "wait", "total", "to-ipi", "after-ipi",
};

const char *ana_kind_name(enum ana_kind k)
{
	return k < ANA_NKINDS ? kind_names[k] : "?";
}

const char *ana_status_name(enum ana_status s)
{
	return s < ANA_NSTATUS ? status_names[s] : "?";
}

const char *ana_phase_name(enum ana_phase p)
{
	return p < PH_N ? phase_names[p] : "?";
}

int ana_phase_per_target(enum ana_phase p)
{
	return p == PH_DELIVERY || p == PH_HANDLER;
}

struct sorted {
	const struct ana_event *e;
	size_t idx;
};

static int by_time(const void *a, const void *b)
{
	const struct sorted *x = a, *y = b;

	if (x->e->t != y->e->t)
		return x->e->t < y->e->t ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int func_counts(const struct ana_cfg *cfg, uint64_t func)
{
	if (!cfg->nfuncs)
		return 1;
	for (int i = 0; i < cfg->nfuncs; i++)
		if (cfg->funcs[i] == func)
			return 1;
	return 0;
}

/* The first unclaimed event of kind k on cpu with csd, from position i,
 * no later than until; SIZE_MAX when none. */
static size_t find_on(const struct sorted *s, size_t n, const char *claimed, size_t i,
		      enum ana_kind k, int cpu, uint64_t csd, uint64_t until)
{
	for (; i < n && s[i].e->t <= until; i++)
		if (!claimed[i] && s[i].e->kind == k && s[i].e->cpu == cpu && s[i].e->csd == csd)
			return i;
	return SIZE_MAX;
}

/* The first position whose time is at least t. */
static size_t lower_bound(const struct sorted *s, size_t n, uint64_t t)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s[mid].e->t < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void match_targets(struct ana_barrier *b, const struct sorted *s, size_t n,
			  char *claimed, const struct ana_cfg *cfg, struct ana_result *r)
{
	uint64_t until = b->exit + cfg->tol_ns;

	b->status = ANA_COMPLETE;
	if (!b->ntargets) {
		if (!(cfg->no_csd && b->first_ipi))
			b->status = ANA_NO_CALL;
		return;
	}
	for (int k = 0; k < b->ntargets; k++) {
		struct ana_target *tg = &b->tgt[k];
		uint64_t from = tg->queue > cfg->tol_ns ? tg->queue - cfg->tol_ns : 0;
		size_t i = find_on(s, n, claimed, lower_bound(s, n, from), ANA_HENTRY,
				   tg->cpu, tg->csd, until), j;

		if (i == SIZE_MAX) {
			if (b->status == ANA_COMPLETE)
				b->status = ANA_NO_HANDLER;
			continue;
		}
		claimed[i] = 1;
		tg->entry = s[i].e->t;
		if (tg->entry < tg->queue)
			r->inversions++;
		j = find_on(s, n, claimed, i + 1, ANA_HEXIT, tg->cpu, tg->csd, until);
		if (j == SIZE_MAX) {
			if (b->status == ANA_COMPLETE)
				b->status = ANA_NO_HANDLER_EXIT;
			continue;
		}
		claimed[j] = 1;
		tg->exit = s[j].e->t;
	}
}

void ana_match(const struct ana_event *ev, size_t n, const struct ana_cfg *cfg,
	       struct ana_result *r)
{
	struct sorted *s = xcalloc(n ? n : 1, sizeof(*s));
	char *claimed = xcalloc(n ? n : 1, 1);
	size_t cap = 0;
	struct ana_barrier *open = NULL;

	memset(r, 0, sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		s[i].e = &ev[i];
		s[i].idx = i;
	}
	qsort(s, n, sizeof(*s), by_time);
	/* The windows, and what the caller queued and sent inside them. */
	for (size_t i = 0; i < n; i++) {
		const struct ana_event *e = s[i].e;
		int mine = e->tid == cfg->caller;

		switch (e->kind) {
		case ANA_ENTER:
			if (!mine) {
				r->foreign++;
				break;
			}
			if (open)
				r->unclosed++;	/* reuse the slot */
			else {
				if (r->n == cap) {
					cap = cap ? cap * 2 : 64;
					r->b = xrealloc(r->b, cap * sizeof(*r->b));
				}
				open = &r->b[r->n];
			}
			memset(open, 0, sizeof(*open));
			open->enter = e->t;
			claimed[i] = 1;
			break;
		case ANA_EXIT:
			if (!mine) {
				r->foreign++;
				break;
			}
			claimed[i] = 1;
			if (!open) {
				r->orphan_exits++;
				break;
			}
			open->exit = e->t;
			r->n++;
			open = NULL;
			break;
		case ANA_QUEUE:
			if (!mine || !open || !func_counts(cfg, e->func)) {
				r->foreign++;
				break;
			}
			claimed[i] = 1;
			if (open->ntargets == ANA_MAX_TARGETS) {
				r->extra_targets++;
				break;
			}
			open->tgt[open->ntargets++] = (struct ana_target){
				.cpu = e->target, .csd = e->csd, .func = e->func, .queue = e->t,
			};
			if (!open->first_queue)
				open->first_queue = e->t;
			break;
		case ANA_IPI:
			if (!mine || !open) {
				r->foreign++;
				break;
			}
			claimed[i] = 1;
			if (!open->first_ipi)
				open->first_ipi = e->t;
			break;
		default:
			break;
		}
	}
	if (open)
		r->unclosed++;
	/* Each queued call to its handler on the target. */
	for (size_t w = 0; w < r->n; w++) {
		match_targets(&r->b[w], s, n, claimed, cfg, r);
		r->status[r->b[w].status]++;
	}
	for (size_t i = 0; i < n; i++)
		if (!claimed[i] && (s[i].e->kind == ANA_HENTRY || s[i].e->kind == ANA_HEXIT))
			r->foreign++;
	free(s);
	free(claimed);
}

void ana_result_free(struct ana_result *r)
{
	free(r->b);
	memset(r, 0, sizeof(*r));
}

static double diff(uint64_t a, uint64_t b)
{
	return a > b ? (double)(a - b) : 0;
}

int ana_phase_value(const struct ana_barrier *b, enum ana_phase p, int k, double *v)
{
	uint64_t last = 0;

	if (b->status != ANA_COMPLETE)
		return -1;
	switch (p) {
	case PH_SETUP:
		if (!b->first_queue)
			return -1;
		*v = diff(b->first_queue, b->enter);
		return 0;
	case PH_SEND:
		if (!b->first_queue || !b->first_ipi)
			return -1;
		*v = diff(b->first_ipi, b->first_queue);
		return 0;
	case PH_DELIVERY:
	case PH_HANDLER:
		if (k < 0 || k >= b->ntargets)
			return -1;
		*v = p == PH_DELIVERY ? diff(b->tgt[k].entry, b->tgt[k].queue) :
			diff(b->tgt[k].exit, b->tgt[k].entry);
		return 0;
	case PH_WAIT:
		if (!b->ntargets)
			return -1;
		for (int i = 0; i < b->ntargets; i++)
			if (b->tgt[i].exit > last)
				last = b->tgt[i].exit;
		*v = diff(b->exit, last);
		return 0;
	case PH_TOTAL:
		*v = diff(b->exit, b->enter);
		return 0;
	case PH_TO_IPI:
	case PH_AFTER_IPI:
		if (!b->first_ipi)
			return -1;
		*v = p == PH_TO_IPI ? diff(b->first_ipi, b->enter) : diff(b->exit, b->first_ipi);
		return 0;
	default:
		return -1;
	}
}

void ana_event_print(FILE *f, const struct ana_event *e)
{
	fprintf(f, "%" PRIu64 " %d %d %s %d %" PRIx64 " %" PRIx64 "\n", e->t, e->cpu, e->tid,
		ana_kind_name(e->kind), e->target, e->csd, e->func);
}

int ana_event_parse(const char *line, struct ana_event *e)
{
	char kind[16];
	unsigned long long t, csd, func;
	int k, used = 0;

	memset(e, 0, sizeof(*e));
	if (sscanf(line, "%llu %d %d %15s %d %llx %llx%n", &t, &e->cpu, &e->tid, kind,
		   &e->target, &csd, &func, &used) != 7)
		return -1;
	for (const char *p = line + used; *p; p++)
		if (*p != ' ' && *p != '\n' && *p != '\t')
			return -1;
	for (k = 0; k < ANA_NKINDS; k++)
		if (!strcmp(kind, kind_names[k]))
			break;
	if (k == ANA_NKINDS || e->cpu < 0)
		return -1;
	e->kind = (enum ana_kind)k;
	e->t = t;
	e->csd = csd;
	e->func = func;
	return 0;
}

/*
 * A line of a format file: "\tfield:TYPE NAME;\toffset:N;\tsize:N;\tsigned:N;"
 * where NAME may carry an array suffix ("[16]") and TYPE may be
 * "__data_loc cpumask_t".
 */
int ana_format_field(const char *text, const char *name, int *offset, int *size)
{
	size_t nl = strlen(name);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *f = strstr(p, "field:"), *semi, *end = strchr(p, '\n'), *q;

		if (!f || (end && f > end))
			continue;
		semi = strchr(f, ';');
		if (!semi || (end && semi > end))
			continue;
		/* The name is the last word before ';' (or before '['). */
		q = semi;
		for (const char *b = f; b < semi; b++)
			if (*b == '[') {
				q = b;
				break;
			}
		if ((size_t)(q - f) < nl + 1 || strncmp(q - nl, name, nl) ||
		    (q[-(long)nl - 1] != ' ' && q[-(long)nl - 1] != '\t' && q[-(long)nl - 1] != '*'))
			continue;
		/* A blank in a scanf format takes any white space, tabs too. */
		if (sscanf(semi, "; offset:%d; size:%d;", offset, size) == 2)
			return *offset >= 0 && *size > 0 ? 0 : -1;
		return -1;
	}
	return -1;
}

long ana_format_id(const char *text)
{
	const char *p = strstr(text, "\nID:");
	long id;

	if (!strncmp(text, "ID:", 3))
		p = text - 1;
	if (!p || sscanf(p + 4, "%ld", &id) != 1)
		return -1;
	return id;
}
