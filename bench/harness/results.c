// SPDX-License-Identifier: MIT
/* stdout, results folder and JSON envelope for every experiment. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outpath.h"
#include "results.h"
#include "strbuf.h"
#include "util.h"

void results_begin(struct results *r, const struct opts *o, struct table *points)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->points = points;
	utc_now(r->start, sizeof(r->start));
	/* Every option checked, nothing measured yet: the folder is taken now. */
	if (o->outdir)
		lock_output_dir("--output", o->outdir, o->exp);
}

/* Room for one more element in *arr (of n, *cap allocated). */
static void *grow(void *arr, int n, int *cap, size_t size)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? *cap * 2 : 8;
	return xrealloc(arr, (size_t)*cap * size);
}

void results_add_table(struct results *r, const char *name, struct table *t)
{
	r->extra = grow(r->extra, r->nextra, &r->cap_extra, sizeof(*r->extra));
	r->extra[r->nextra].name = name;
	r->extra[r->nextra++].t = t;
}

void results_derived(struct results *r, const char *key, double v, const char *fmt, ...)
{
	struct results_derived *d;
	va_list ap;

	r->derived = grow(r->derived, r->nderived, &r->cap_derived, sizeof(*r->derived));
	d = &r->derived[r->nderived++];
	d->key = key;
	d->val = v;
	va_start(ap, fmt);
	d->text = xvasprintf(fmt, ap);
	va_end(ap);
}

void results_note(struct results *r, const char *fmt, ...)
{
	va_list ap;

	r->notes = grow(r->notes, r->nnotes, &r->cap_notes, sizeof(*r->notes));
	va_start(ap, fmt);
	r->notes[r->nnotes++] = xvasprintf(fmt, ap);
	va_end(ap);
}

static void params_json(const struct opts *o, struct json *j)
{
	json_begin_object(j, "params");
	json_begin_array(j, "mechanisms");
	for (int i = 0; i < o->nmechs; i++)
		json_str(j, NULL, o->mechs[i]->name);
	json_end_array(j);
	json_begin_array(j, "threads");
	for (int i = 0; i < o->nthreads; i++)
		json_int(j, NULL, o->threads[i]);
	json_end_array(j);
	json_str(j, "placement", o->placement);
	json_str(j, "behaviour", behaviour_name(o->beh));
	json_bool(j, "other_process", o->other_process);
	if (o->iterations)
		json_int(j, "iterations", (long long)o->iterations);
	else
		json_num(j, "duration_s", o->duration_s);
	json_int(j, "repeat", o->repeat);
	if (o->membind >= 0)
		json_int(j, "membind", o->membind);
	/* A planted kernel regression is never a plain result. */
	if (membarrier_planted_ns())
		json_int(j, "plant_syscall_ns", (long long)membarrier_planted_ns());
	json_end_object(j);
}

static void write_envelope(struct results *r, FILE *f, const struct hostinfo *h)
{
	struct json j;

	json_init(&j, f);
	json_begin_object(&j, NULL);
	json_int(&j, "format_version", RESULTS_FORMAT_VERSION);
	json_str(&j, "tool", "mbbench");
	json_str(&j, "version", PACKAGE_VERSION);
	json_str(&j, "experiment", r->o->exp);
	json_begin_array(&j, "cmdline");
	for (int i = 0; i < r->o->argc; i++)
		json_str(&j, NULL, r->o->argv[i]);
	json_end_array(&j);
	json_str(&j, "start", r->start);
	json_str(&j, "end", r->end);
	hostinfo_json(h, &j, "host");
	params_json(r->o, &j);
	json_table(&j, "points", r->points);
	for (int i = 0; i < r->nextra; i++)
		json_table(&j, r->extra[i].name, r->extra[i].t);
	json_begin_object(&j, "derived");
	for (int i = 0; i < r->nderived; i++)
		json_num(&j, r->derived[i].key, r->derived[i].val);
	json_end_object(&j);
	json_begin_array(&j, "notes");
	for (int i = 0; i < r->nnotes; i++)
		json_str(&j, NULL, r->notes[i]);
	for (int i = 0; i < r->nderived; i++)
		json_str(&j, NULL, r->derived[i].text);
	json_end_array(&j);
	json_end_object(&j);
}

/*
 * The files of one run are committed all or none: each is written and
 * synced under its temporary name first, and renamed only when every one
 * was; on a failure (a full disk) every temporary name is removed.
 */
struct out_set {
	struct atomic_file *af;	/* grows: one per table, and the JSON files */
	int n, cap;
	int replace;		/* --force */
	const char *made_dir;	/* the folder this run created, removed on a failure */
};

static void out_fail(struct out_set *s, const char *path)
{
	int e = errno;

	for (int i = 0; i < s->n; i++)
		atomic_abort(&s->af[i]);
	if (s->made_dir)
		rmdir(s->made_dir);
	errno = e;
	fail("cannot write %s: %m (no file of this run was written)", path);
}

static void out_add(struct out_set *s, const char *path, void (*fn)(FILE *, void *), void *arg)
{
	struct atomic_file *af;

	s->af = grow(s->af, s->n, &s->cap, sizeof(*s->af));
	af = &s->af[s->n];
	if (atomic_open(af, path, s->replace))
		out_fail(s, path);
	s->n++;
	fn(af->f, arg);
	if (atomic_close(af))
		out_fail(s, path);
}

static void out_commit(struct out_set *s)
{
	for (int i = 0; i < s->n; i++) {
		/* A failed rename frees the path: the error names a copy. */
		char *path = xstrdup(s->af[i].path);

		if (atomic_rename(&s->af[i])) {
			int e = errno;

			for (int k = i + 1; k < s->n; k++)
				atomic_abort(&s->af[k]);
			errno = e;
			if (e == EEXIST)
				fail("cannot rename into %s: it appeared during the run and is kept (give --force to replace a regular file)",
				    path);
			fail("cannot rename into %s: %m", path);
		}
		free(path);
	}
	s->n = 0;
}

struct env_arg {
	struct results *r;
	const struct hostinfo *h;
};

static void env_fn(FILE *f, void *a)
{
	struct env_arg *e = a;

	write_envelope(e->r, f, e->h);
}

static void csv_fn(FILE *f, void *a)
{
	table_write_csv(a, f);
}

void results_emit(struct results *r)
{
	const struct opts *o = r->o;
	struct hostinfo h;
	struct env_arg ea = { r, &h };
	struct out_set set = { .n = 0 };

	utc_now(r->end, sizeof(r->end));
	hostinfo_collect(&h, o->topo);
	if (r->files_only) {
		/* stdout already written by the experiment */
	} else if (o->format == FMT_CSV) {
		table_write_csv(r->points, stdout);
	} else {
		printf("# mbbench %s %s, %s, kernel %s, %s\n", o->exp, PACKAGE_VERSION,
		       hostinfo_get(&h, "hostname"), hostinfo_get(&h, "kernel_release"),
		       r->end);
		printf("# cpu: %s; %s; virtualization: %s\n",
		       hostinfo_get(&h, "cpu_model"), hostinfo_get(&h, "topology"),
		       hostinfo_get(&h, "virtualization"));
		table_write_human(r->points, stdout);
		for (int i = 0; i < r->nderived; i++)
			printf("# %s\n", r->derived[i].text);
		for (int i = 0; i < r->nnotes; i++)
			printf("# note: %s\n", r->notes[i]);
	}
	/* What stdout lost is a failed run: no file is committed after it. */
	fail_stdout();
	/* The folder's files and the --json file: all or none. */
	set.replace = o->force;
	if (o->outdir) {
		char *name, *p;

		if (make_output_dir(o->outdir))
			set.made_dir = o->outdir;
		for (int i = -1; i <= r->nextra; i++) {
			/* EXP.csv, then EXP-NAME.csv for each table, then EXP.json */
			if (i < 0)
				name = xasprintf("%s.csv", o->exp);
			else if (i < r->nextra)
				name = xasprintf("%s-%s.csv", o->exp, r->extra[i].name);
			else
				name = xasprintf("%s.json", o->exp);
			p = path_join(o->outdir, name);
			if (i < r->nextra)
				out_add(&set, p, csv_fn, i < 0 ? r->points : r->extra[i].t);
			else
				out_add(&set, p, env_fn, &ea);
			free(p);
			free(name);
		}
	}
	if (o->json_path && strcmp(o->json_path, "-"))
		out_add(&set, o->json_path, env_fn, &ea);
	out_commit(&set);
	if (o->json_path && !strcmp(o->json_path, "-")) {
		FILE *f = fdopen(o->json_fd, "w");

		if (!f)
			fail("--json -: %m");
		env_fn(f, &ea);
		if (ferror(f) | fclose(f))
			fail("--json -: cannot write stdout: %m");
	}
	hostinfo_free(&h);
	for (int i = 0; i < r->nderived; i++)
		free(r->derived[i].text);
	for (int i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->derived);
	free(r->notes);
	free(r->extra);
	free(set.af);
	r->derived = NULL;
	r->notes = NULL;
	r->extra = NULL;
	r->nderived = r->nnotes = r->nextra = 0;
}

void progress(const char *exp, int i, int n, const char *what)
{
	if (!isatty(STDERR_FILENO))
		return;
	fprintf(stderr, "\r\033[K# %s %d/%d %s", exp, i, n, what);
	if (i == n)
		fputc('\n', stderr);
	fflush(stderr);
}

void row_skip(struct table *t, int r, const char *reason)
{
	table_set_str(t, r, "status", "skipped");
	table_set_str(t, r, "skip_reason", reason);
}
