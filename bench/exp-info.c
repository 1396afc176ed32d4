/*
 * list: every mechanism with its flags, available here or the reason it is
 * not; or every rcu scheme, or every litmus pairing (--what).
 * info: the host facts recorded with every result.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"
#include "experiment.h"
#include "litmus.h"
#include "rcu.h"
#include "results.h"
#include "util.h"

/* The first four columns are what scripts read by position: keep them first. */
static const struct col list_cols[] = {
	COL_KEY("mechanism", COL_STR, "", COL_REQ, "stable name"),
	{ .name = "available", .type = COL_INT, .role = ROLE_STATUS, .unit = "",
	  .desc = "1 when it can run here, else 0" },
	COL_STATUS("reason", 0, "why not; empty when available"),
	COL_INFO("summary", COL_STR, "", 0, "what it does"),
	COL_INFO("membarrier_cmd", COL_STR, "", 0,
		 "the membarrier command one barrier issues (MEMBARRIER_CMD_...); empty for none"),
	COL_INFO("doctor", COL_STR, "", 0,
		 "with `--doctor`: the `mbbench doctor` probes that found this mechanism's command affected on this host (e.g. `lazy-mm`); empty otherwise"),
	/* One per flag (enum mech_cap): mech_cap_name with '_' for '-'. */
	COL_INFO("process_wide", COL_INT, "", 0, "1: orders the memory of every thread of the process (a heavy barrier)"),
	COL_INFO("ipi", COL_INT, "", 0, "1: interrupts other CPUs to do it (IPIs, a TLB shootdown, a signal)"),
	COL_INFO("grace_period", COL_INT, "", 0, "1: waits for an RCU grace period or for every CPU to schedule"),
	COL_INFO("register", COL_INT, "", 0, "1: the process registers once before the first barrier"),
	COL_INFO("patched_kernel", COL_INT, "", 0, "1: exists only on the patched kernel (kernel-patch/)"),
	COL_INFO("fence_like", COL_INT, "", 0, "1: a local instruction or nothing: a control, not a heavy barrier"),
};

const struct table_schema list_table = {
	.name = "list", .experiment = "list",
	.rows = "One row per mechanism (`mbbench list --format csv`).",
	.cols = list_cols, .ncols = NCOLS(list_cols),
};
_Static_assert(sizeof(list_cols) / sizeof(list_cols[0]) == 6 + MC_COUNT,
	       "list has one column per mechanism flag");

static const struct col rcu_scheme_cols[] = {
	COL_KEY("scheme", COL_STR, "", COL_REQ, "stable name (`mbbench rcu --scheme`)"),
	COL_INFO("available", COL_INT, "", 0, "1 when it can run here, else 0"),
	COL_STATUS("reason", 0, "why not; empty when available"),
	COL_INFO("summary", COL_STR, "", 0, "what it does"),
	COL_INFO("family", COL_STR, "", 0, "the scheme's family (ours, liburcu, ...)"),
	COL_INFO("mechanism", COL_STR, "", 0, "the mechanism its writer uses, if any"),
};

static const struct col pairing_cols[] = {
	COL_KEY("pairing", COL_STR, "", COL_REQ, "stable name (`mbbench litmus --pairing`)"),
	COL_INFO("available", COL_INT, "", 0, "1 when it can run here, else 0"),
	COL_STATUS("reason", 0, "why not; empty when available"),
	COL_INFO("a_side", COL_STR, "", 0, "`compiler`, `fence` or the mechanism"),
	COL_INFO("b_side", COL_STR, "", 0, "`compiler`, `fence` or the mechanism"),
	COL_INFO("expect", COL_STR, "", 0, "`forbidden` or `allowed`"),
};

enum list_what { LW_MECHANISMS, LW_RCU_SCHEMES, LW_LITMUS_PAIRINGS };
static const char *const list_whats[] = { "mechanisms", "rcu-schemes", "litmus-pairings", NULL };
enum list_format { LF_HUMAN, LF_CSV, LF_JSON };
static const char *const list_formats[] = { "human", "csv", "json", NULL };

/* rcu_expedited=1 turns MEMBARRIER_CMD_GLOBAL into an expedited grace period. */
static int rcu_expedited_here(void)
{
	char p[512], v[8] = "";
	FILE *f = fopen(host_path("/sys/kernel/rcu_expedited", p, sizeof(p)), "r");

	if (!f)
		return 0;
	if (!fgets(v, sizeof(v), f))
		v[0] = '\0';
	fclose(f);
	return v[0] == '1';
}

/* The list column of flag bit cap. */
static const char *cap_col(unsigned cap)
{
	static char buf[32];
	char *c;

	snprintf(buf, sizeof(buf), "%s", mech_cap_name(cap));
	for (c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
	return buf;
}

static int list_doctor;
static hwloc_topology_t list_topo;

/* doctor_affected's mark: the probe's name on each mechanism it concerns. */
static void mark_doctor(const char *probe, int cmds, void *arg)
{
	struct table *t = arg;

	for (size_t i = 0; i < nr_mechanisms; i++) {
		const char *old = table_get(t, (int)i, "doctor");
		char v[128];

		if (!(mechanisms[i]->membarrier_cmd & cmds))
			continue;
		snprintf(v, sizeof(v), "%s%s%s", old ? old : "", old ? "," : "", probe);
		table_set_str(t, (int)i, "doctor", v);
	}
}

/*
 * One CSV field from *p (RFC 4180: quoted fields may hold commas, newlines
 * and doubled quotes) into out; *p moves past it and its separator. 1 when
 * the field ended its line, 0 when more follow, -1 at the end of the text.
 */
static int csv_field(const char **p, char *out, size_t size)
{
	const char *s = *p;
	size_t n = 0;
	int quoted = *s == '"';

	if (!*s)
		return -1;
	s += quoted;
	for (; *s; s++) {
		if (quoted && *s == '"') {
			if (s[1] != '"') {
				quoted = 0;
				continue;
			}
			s++;
		} else if (!quoted && (*s == ',' || *s == '\n' || *s == '\r')) {
			break;
		}
		if (n + 1 < size)
			out[n++] = *s;
	}
	out[n] = '\0';
	if (*s == '\r')
		s++;
	*p = *s ? s + 1 : s;
	return *s == ',' ? 0 : 1;
}

/* A whole small text file (at most 1 MB), or NULL with errno set. */
static char *read_small_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	size_t n;

	if (!f)
		return NULL;
	buf = xmalloc((1 << 20) + 1);
	n = fread(buf, 1, 1 << 20, f);
	if (ferror(f) || !feof(f)) {
		int e = ferror(f) ? EIO : EFBIG;

		fclose(f);
		free(buf);
		errno = e;
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* --doctor-csv FILE: the probes a doctor.csv found affected, marked. */
static void mark_from_csv(struct table *t, const char *path)
{
	char *text = read_small_file(path), field[1024];
	const char *p = text;
	int col = 0, pcol = -1, rcol = -1, line = 0, end;
	char probe[64] = "";

	if (!text)
		die("--doctor-csv %s: cannot read it: %s (give a doctor.csv, e.g. a results folder's)",
		    path, strerror(errno));
	while ((end = csv_field(&p, field, sizeof(field))) >= 0) {
		if (!line) {
			if (!strcmp(field, "probe"))
				pcol = col;
			else if (!strcmp(field, "result"))
				rcol = col;
		} else if (col == pcol) {
			snprintf(probe, sizeof(probe), "%.63s", field);
		} else if (col == rcol && !strcmp(field, "affected")) {
			int cmds = doctor_probe_cmds(probe);

			if (cmds < 0)
				die("--doctor-csv %s: unknown probe '%s' on line %d (a doctor.csv of another version?)",
				    path, probe, line + 1);
			if (cmds)
				mark_doctor(probe, cmds, t);
		}
		if (!line && end && (pcol < 0 || rcol < 0 || pcol > rcol))
			die("--doctor-csv %s: not a doctor.csv (no probe and result columns; give the doctor.csv of a results folder)",
			    path);
		col = end ? 0 : col + 1;
		line += end;
	}
	free(text);
}

static const char *list_doctor_csv;

static void list_mechanisms(struct table *t)
{
	for (size_t i = 0; i < nr_mechanisms; i++) {
		const struct mechanism *m = mechanisms[i];
		const char *cmd = membarrier_cmd_name(m->membarrier_cmd);
		char reason[256], name[64];
		int r = table_add_row(t), ok = !mech_probe(m, reason, sizeof(reason));

		table_set_str(t, r, "mechanism", m->name);
		table_set_int(t, r, "available", ok);
		table_set_str(t, r, "reason", ok ? NULL : reason);
		table_set_str(t, r, "summary", m->summary);
		if (ok && !strcmp(m->name, "membarrier-global") && rcu_expedited_here())
			table_set_str(t, r, "summary",
				      "GLOBAL: expedited on this host (rcu_expedited=1): IPIs to every CPU running a task, microseconds, not a grace period");
		snprintf(name, sizeof(name), "MEMBARRIER_CMD_%s", cmd ? cmd : "");
		table_set_str(t, r, "membarrier_cmd", cmd ? name : NULL);
		for (int b = 0; b < MC_COUNT; b++)
			table_set_int(t, r, cap_col(1u << b), !!(m->caps & (1u << b)));
	}
	if (list_doctor_csv)
		mark_from_csv(t, list_doctor_csv);
	else if (list_doctor)
		doctor_affected(list_topo, mark_doctor, t);
}

static void list_rcu_schemes(struct table *t)
{
	for (size_t i = 0; i < nr_rcu_schemes; i++) {
		const struct rcu_scheme *s = rcu_schemes[i];
		char reason[256];
		int r = table_add_row(t), ok = !rcu_scheme_probe(s, reason, sizeof(reason));

		table_set_str(t, r, "scheme", s->name);
		table_set_int(t, r, "available", ok);
		table_set_str(t, r, "reason", ok ? NULL : reason);
		table_set_str(t, r, "summary", s->summary);
		table_set_str(t, r, "family", s->family);
		table_set_str(t, r, "mechanism", s->mech);
	}
}

static void list_pairings(struct table *t)
{
	struct litmus_pairing *p = xcalloc(LITMUS_MAX_PAIRINGS, sizeof(*p));
	size_t n = litmus_pairings(p);

	for (size_t i = 0; i < n; i++) {
		char reason[256] = "";
		int r = table_add_row(t);
		int ok = p[i].a != LS_MECH || !mech_probe(p[i].mech, reason, sizeof(reason));

		table_set_str(t, r, "pairing", p[i].name);
		table_set_int(t, r, "available", ok);
		table_set_str(t, r, "reason", ok ? NULL : reason);
		table_set_str(t, r, "a_side", litmus_side_name(p[i].a, p[i].mech));
		table_set_str(t, r, "b_side", litmus_side_name(p[i].b, p[i].mech));
		table_set_str(t, r, "expect", p[i].forbidden ? "forbidden" : "allowed");
	}
	free(p);
}

/* A list reads better as a list than as a data table. */
static void list_human(const struct table *t, enum list_what what)
{
	for (int r = 0; r < t->nrows; r++) {
		const char *why = table_get(t, r, "reason");

		const char *doc = what == LW_MECHANISMS ? table_get(t, r, "doctor") : NULL;

		printf("%-40s %s%s%s\n", table_get(t, r, t->cols[0].name),
		       why ? "unavailable" : "available", doc && !why ? ", but see mbbench doctor: " : "",
		       doc && !why ? doc : "");
		if (what == LW_LITMUS_PAIRINGS)
			printf("    A: %s; B: %s; r1 = r2 = 0 %s\n", table_get(t, r, "a_side"),
			       table_get(t, r, "b_side"), table_get(t, r, "expect"));
		else
			printf("    %s\n", table_get(t, r, "summary"));
		if (why)
			printf("    reason: %s\n", why);
		if (what == LW_MECHANISMS) {
			int any = 0;

			printf("    flags:");
			for (int b = 0; b < MC_COUNT; b++)
				if (!strcmp(table_get(t, r, cap_col(1u << b)), "1")) {
					printf("%s %s", any ? "," : "", mech_cap_name(1u << b));
					any = 1;
				}
			printf("%s\n", any ? "" : " none");
		} else if (what == LW_RCU_SCHEMES) {
			const char *m = table_get(t, r, "mechanism");

			printf("    family: %s; write side: %s\n", table_get(t, r, "family"),
			       m ? m : "none");
		}
	}
}

static int exp_list_main(int argc, char **argv)
{
	int what = LW_MECHANISMS, format = LF_HUMAN;
	const struct exp_opt list_opts[] = {
		OPT_CHOICE("what", "mechanisms|rcu-schemes|litmus-pairings",
			   "what to list (default mechanisms)", &what, list_whats,
			   "(use mechanisms, rcu-schemes or litmus-pairings)"),
		OPT_CHOICE("format", "human|csv|json", "stdout format (default human)",
			   &format, list_formats, "(use human, csv or json)"),
		OPT_FLAG("doctor", "also run mbbench doctor's probes (a few seconds) and mark the mechanisms they found affected here", &list_doctor),
		OPT_STRING("doctor-csv", "FILE", "mark them from a doctor.csv instead (a results folder's)", &list_doctor_csv),
		OPT_END(),
	};
	struct exp_spec spec = {
		.name = "list",
		.synopsis = "Every mechanism with its flags (or every rcu scheme or litmus pairing):\n"
			    "available on this host, or why not.",
		.common = CO_JSON,
		.opts = list_opts,
	};
	static const struct {
		const struct col *cols;
		int ncols;
		void (*fill)(struct table *t);
	} lists[] = {
		[LW_MECHANISMS] = { list_cols, (int)(sizeof(list_cols) / sizeof(list_cols[0])),
				    list_mechanisms },
		[LW_RCU_SCHEMES] = { rcu_scheme_cols,
				     (int)(sizeof(rcu_scheme_cols) / sizeof(rcu_scheme_cols[0])),
				     list_rcu_schemes },
		[LW_LITMUS_PAIRINGS] = { pairing_cols,
					 (int)(sizeof(pairing_cols) / sizeof(pairing_cols[0])),
					 list_pairings },
	};
	struct opts o;
	struct table t;
	struct results res;

	opts_parse(argc, argv, &spec, &o);
	if (list_doctor && list_doctor_csv)
		die("--doctor and --doctor-csv: choose one (run the probes, or read their results)");
	if ((list_doctor || list_doctor_csv) && what != LW_MECHANISMS)
		die("--doctor and --doctor-csv mark mechanisms: use them without --what (or with --what mechanisms)");
	list_topo = o.topo;
	o.format = format == LF_CSV ? FMT_CSV : FMT_HUMAN;
	table_init(&t, lists[what].cols, lists[what].ncols);
	results_begin(&res, &o, &t);
	lists[what].fill(&t);
	if (format == LF_HUMAN) {
		list_human(&t, what);
		res.files_only = 1;
	} else if (format == LF_JSON) {
		struct json j;

		json_init(&j, stdout);
		json_begin_object(&j, NULL);
		json_table(&j, list_whats[what], &t);
		json_end_object(&j);
		res.files_only = 1;
	}
	results_emit(&res);
	table_free(&t);
	opts_free(&o);
	return 0;
}

static const struct col info_cols[] = {
	COL_KEY("key", COL_STR, "", COL_REQ, "a host fact (see the JSON envelope's `host`)"),
	COL_INFO("value", COL_STR, "", 0, "its value; `unknown` when it could not be read"),
};

const struct table_schema info_table = {
	.name = "info", .experiment = "info",
	.rows = "One row per host fact (`mbbench info --format csv`).",
	.cols = info_cols, .ncols = NCOLS(info_cols),
};

static int exp_info_main(int argc, char **argv)
{
	struct exp_spec spec = {
		.name = "info",
		.synopsis = "Host facts: kernel, command line, CPU, topology, membarrier commands, virtualization, privileges.",
		.common = CO_FORMAT | CO_JSON,
	};
	struct opts o;
	struct table t;
	struct results res;
	struct hostinfo h;

	opts_parse(argc, argv, &spec, &o);
	table_init(&t, info_cols, 2);
	hostinfo_collect(&h, o.topo);
	for (int i = 0; i < h.n; i++) {
		int r = table_add_row(&t);

		table_set_str(&t, r, "key", h.key[i]);
		table_set_str(&t, r, "value", h.val[i]);
	}
	results_begin(&res, &o, &t);
	if (o.format == FMT_HUMAN) {
		hostinfo_human(&h, stdout, "");
		res.files_only = 1;
	}
	results_emit(&res);
	hostinfo_free(&h);
	table_free(&t);
	opts_free(&o);
	return 0;
}

const struct experiment exp_info = {
	.tables = (const struct table_schema *const[]){ &info_table, NULL },
	.name = "info",
	.summary = "host facts recorded with every result",
	.main = exp_info_main,
};

const struct experiment exp_list = {
	.tables = (const struct table_schema *const[]){ &list_table, NULL },
	.name = "list",
	.summary = "every mechanism, available here or why not",
	.main = exp_list_main,
};
