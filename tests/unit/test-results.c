// SPDX-License-Identifier: MIT
/*
 * Nothing handed to the results vanishes: more notes, derived figures and
 * tables than any fixed limit the emitter ever had (64, 8, 4), and more
 * host facts than the 64 the list once held, all reach stdout, the results
 * folder and the JSON envelope.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostinfo.h"
#include "results.h"
#include "strbuf.h"
#include "tap.h"
#include "util.h"

#define NNOTES 100
#define NDERIVED 20
#define NTABLES 12
#define NFACTS 150

static const struct col cols[] = {
	COL_KEY("name", COL_STR, "", 0, "a name"),
	COL_INFO("n", COL_INT, "", 0, "a count"),
};

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	struct strbuf b = STRBUF_INIT;
	char line[4096];

	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f))
		strbuf_add(&b, line);
	fclose(f);
	return b.s ? b.s : xstrdup("");
}

/* How many of the n strings PRE i POST (i < n) are in s. */
static int count_in(const char *s, const char *pre, const char *post, int n)
{
	int found = 0;

	for (int i = 0; s && i < n; i++) {
		char *want = xasprintf("%s%d%s", pre, i, post);

		found += strstr(s, want) != NULL;
		free(want);
	}
	return found;
}

static void memstream_facts(FILE *f, void *arg)
{
	struct json j;

	json_init(&j, f);
	json_begin_object(&j, NULL);
	hostinfo_json(arg, &j, "host");
	json_end_object(&j);
}

int main(void)
{
	char dir[] = "/tmp/test-results.XXXXXX";
	struct table t, extra[NTABLES];
	const char *names[NTABLES] = { 0 };
	struct results res;
	struct opts o;
	struct hostinfo h = { 0 };
	char *outdir, *json, *out, *s, *p, *buf = NULL;
	size_t len = 0;
	int saved, fd, files = 0;
	FILE *mf;

	plan(9);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	outdir = path_join(dir, "out");
	json = path_join(dir, "run.json");
	out = path_join(dir, "stdout");

	/* Host facts past the old 64. */
	for (int i = 0; i < NFACTS; i++) {
		char *k = xasprintf("fact_%d", i);

		hostinfo_add(&h, k, "v", i % 2 ? "src" : NULL);
	}
	ok(h.n == NFACTS, "%d host facts kept (%d)", NFACTS, h.n);
	mf = open_memstream(&buf, &len);
	memstream_facts(mf, &h);
	fclose(mf);
	ok(count_in(buf, "\"fact_", "\"", NFACTS) == NFACTS, "every host fact is in the JSON");
	free(buf);
	for (int i = 0; i < NFACTS; i++)
		free((char *)h.key[i]);
	hostinfo_free(&h);

	/* A run handing over more of everything than the old limits. */
	memset(&o, 0, sizeof(o));
	o.exp = "test";
	o.placement = "compact";
	o.repeat = 1;
	o.duration_s = 1;
	o.membind = -1;
	o.format = FMT_HUMAN;
	o.outdir = outdir;
	o.json_path = json;
	if (hwloc_topology_init(&o.topo) || hwloc_topology_load(o.topo)) {
		perror("hwloc");
		return 1;
	}
	table_init(&t, cols, 2);
	table_set_str(&t, table_add_row(&t), "name", "row");
	results_begin(&res, &o, &t);
	for (int i = 0; i < NTABLES; i++) {
		char *name = xasprintf("extra%d", i);

		table_init(&extra[i], cols, 2);
		table_set_int(&extra[i], table_add_row(&extra[i]), "n", i);
		names[i] = name;
		results_add_table(&res, name, &extra[i]);
	}
	for (int i = 0; i < NDERIVED; i++)
		results_derived(&res, "k", i, "derived figure %d.", i);
	for (int i = 0; i < NNOTES; i++)
		results_note(&res, "note number %d.", i);
	/* A note longer than any fixed buffer is kept whole. */
	p = xmalloc(3001);
	memset(p, 'x', 3000);
	p[3000] = '\0';
	results_note(&res, "%s|end of the long note", p);
	free(p);

	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, STDOUT_FILENO);
	close(fd);
	results_emit(&res);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);

	s = slurp(out);
	ok(count_in(s, "# note: note number ", ".\n", NNOTES) == NNOTES, "stdout: all %d notes", NNOTES);
	ok(count_in(s, "# derived figure ", ".\n", NDERIVED) == NDERIVED, "stdout: all %d derived figures", NDERIVED);
	ok(s && strstr(s, "xxxxxxxx|end of the long note\n"), "stdout: a 3000-character note whole");
	free(s);
	s = slurp(json);
	ok(count_in(s, "\"note number ", ".\"", NNOTES) == NNOTES, "JSON: all %d notes", NNOTES);
	ok(count_in(s, "\"derived figure ", ".\"", NDERIVED) == NDERIVED &&
	   count_in(s, "\"extra", "\": [", NTABLES) == NTABLES,
	   "JSON: all %d derived figures and %d tables", NDERIVED, NTABLES);
	free(s);
	for (int i = 0; i < NTABLES; i++) {
		char *f = xasprintf("%s/test-extra%d.csv", outdir, i);

		files += access(f, R_OK) == 0;
		free(f);
	}
	ok(files == NTABLES, "folder: all %d tables' CSV files (%d)", NTABLES, files);
	p = xasprintf("%s/test.json", outdir);
	s = slurp(p);
	ok(count_in(s, "\"note number ", ".\"", NNOTES) == NNOTES, "folder: the envelope has all notes");
	free(s);
	free(p);

	for (int i = 0; i < NTABLES; i++) {
		table_free(&extra[i]);
		free((char *)names[i]);
	}
	table_free(&t);
	hwloc_topology_destroy(o.topo);
	p = xasprintf("rm -rf '%s'", dir);
	if (system(p))
		diag("could not remove %s", dir);
	free(p);
	free(outdir);
	free(json);
	free(out);
	return done_testing();
}
