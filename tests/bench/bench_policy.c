/* bench_policy.c - `make bench-policy`: what loading and deciding cost in the policy
 * engine, in process, as figures and as ratios against a baseline measured in the same
 * run (DESIGN.md, budgets).
 *
 *   1. load + compile, median of many runs: an empty policy (baseline), the embedded
 *      defaults as the hook loads them, policy/default.yaml through libyaml with every
 *      regex compiled interpreted and JIT, the damage-control fixture interpreted and JIT;
 *   2. decisions per second over a mixed list (every command of tests/corpus/ through the
 *      shell analysis, and path checks), each run for over a second, against the same
 *      list on an empty policy;
 *   3. hostile files (10 MB of rules, aliases, paths; deep nesting): one load each.
 *
 * Usage: bench_policy [FIXTURE]  (run from the repository root) */
#include "dcg_policy.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_FIXTURE "tests/data/policy/damage-control/patterns.yaml"
#define CORPUS		"tests/corpus/"
#define MIN_SECONDS	1.0

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ---- 1. load + compile ---------------------------------------------------------------- */

enum load_what { L_EMPTY, L_EMBEDDED, L_EMBEDDED_FIRST, L_FILE };

struct load_case {
	const char *name;
	enum load_what what;
	unsigned flags;
	const char *file;
};

static int load_once(const struct load_case *c, size_t *rules, size_t *diags)
{
	struct pol_policy *p = pol_new(c->flags);
	struct pol_result r;
	int rc = 0;

	if (!p)
		return -ENOMEM;
	switch (c->what) {
	case L_EMPTY:
		break;
	case L_EMBEDDED:
		rc = pol_load_embedded(p);
		break;
	case L_EMBEDDED_FIRST:
		/* what one dcg hook call pays: the defaults and one decision */
		rc = pol_load_embedded(p);
		pol_check_command(p, "git reset --hard", 16, NULL, &r);
		pol_result_release(&r);
		break;
	case L_FILE:
		rc = pol_load_file(p, c->file);
		break;
	}
	*rules = pol_rule_count(p);
	*diags = pol_diag_count(p);
	pol_free(p);
	return rc;
}

static double median_load_ms(const struct load_case *c, int runs, size_t *rules, size_t *diags)
{
	double *t = malloc((size_t)runs * sizeof(*t)), med;

	if (!t)
		return -1;
	for (int i = 0; i < runs; i++) {
		double t0 = now_s();

		if (load_once(c, rules, diags) < 0 && i == 0)
			fprintf(stderr, "bench-policy: %s: load failed\n", c->name);
		t[i] = (now_s() - t0) * 1e3;
	}
	qsort(t, (size_t)runs, sizeof(*t), cmp_double);
	med = t[runs / 2];
	free(t);
	return med;
}

static void bench_load(const char *fixture, int runs)
{
	const struct load_case cases[] = {
	    {"baseline: empty policy (pol_new + pol_free)", L_EMPTY, 0, NULL},
	    {"embedded defaults (snapshot, lazy codes)", L_EMBEDDED, 0, NULL},
	    {"embedded defaults, lazy paths (as dcg hook)", L_EMBEDDED, POL_LOAD_LAZY, NULL},
	    {"embedded defaults + first decision", L_EMBEDDED_FIRST, 0, NULL},
	    {"embedded defaults + first decision, JIT", L_EMBEDDED_FIRST, POL_LOAD_JIT, NULL},
	    {"default.yaml via libyaml, all compiled, interp.", L_FILE, POL_LOAD_EAGER,
	     "policy/default.yaml"},
	    {"default.yaml via libyaml, all compiled, JIT", L_FILE, POL_LOAD_EAGER | POL_LOAD_JIT,
	     "policy/default.yaml"},
	    {"damage-control fixture, interpreted", L_FILE, 0, fixture},
	    {"damage-control fixture, JIT", L_FILE, POL_LOAD_JIT, fixture},
	};
	double base = 0;

	printf("load + compile, median of %d runs:\n", runs);
	printf("  %-50s %9s %8s %6s %5s\n", "", "ms", "x base", "rules", "diag");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t rules = 0, diags = 0;
		double ms = median_load_ms(&cases[i], runs, &rules, &diags);

		if (i == 0)
			base = ms;
		printf("  %-50s %9.4f %8.1f %6zu %5zu\n", cases[i].name, ms,
		       base > 0 ? ms / base : 0, rules, diags);
	}
	/* JIT against interpreted, the figure DESIGN.md's budgets talk about */
}

/* ---- 2. decisions per second ------------------------------------------------------------ */

struct item {
	char *cmd; /* a command, or NULL for a path check */
	const char *path;
	enum pol_op op;
};

static const char *const bench_paths[] = {
    "/home/agent/.ssh/id_rsa",
    "/home/agent/.aws/credentials",
    "/srv/dcg-corpus/proj/src/main.c",
    "/srv/dcg-corpus/proj/src/layout/view.c",
    "/srv/dcg-corpus/proj/package-lock.json",
    "/srv/dcg-corpus/proj/dist/app.min.js",
    "/srv/dcg-corpus/proj/.env",
    "/srv/dcg-corpus/proj/.env.example",
    "/srv/dcg-corpus/proj/README.md",
    "/srv/dcg-corpus/proj/.git/HEAD",
    "/srv/dcg-corpus/proj/node_modules/x/y/z/index.js",
    "/etc/passwd",
    "/usr/lib/x86_64-linux-gnu/libc.so.6",
    "/tmp/build/out/obj/a/b/c/d/e/f/g.o",
    "src/relative/file.txt",
    "../../escape/attempt/../../etc/shadow",
};

static const enum pol_op bench_ops[] = {POL_OP_READ, POL_OP_WRITE, POL_OP_DELETE,
					POL_OP_RENAME_FROM};

/* Reads every command of the .tsv files in tests/corpus/ (third field, unescaped). */
static size_t read_corpus(struct item **items, size_t n)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;

	if (!d) {
		fprintf(stderr, "bench-policy: %s: %s (run from the repository root)\n", CORPUS,
			strerror(errno));
		return n;
	}
	while ((e = readdir(d))) {
		char path[600], line[16384];
		size_t nl = strlen(e->d_name);
		FILE *f;

		if (nl < 5 || strcmp(e->d_name + nl - 4, ".tsv") != 0)
			continue;
		snprintf(path, sizeof(path), CORPUS "%s", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			char *c = line, *o, *start;

			line[strcspn(line, "\n")] = '\0';
			if (line[0] == '#' || !line[0])
				continue;
			for (int tab = 0; tab < 2 && c; tab++) {
				c = strchr(c, '\t');
				if (c)
					c++;
			}
			if (!c)
				continue;
			for (start = o = c; *c; c++) {
				if (*c == '\\' && c[1]) {
					c++;
					*o++ = *c == 'n' ? '\n' : *c == 't' ? '\t' : *c;
				} else {
					*o++ = *c;
				}
			}
			*o = '\0';
			struct item *ni = realloc(*items, (n + 1) * sizeof(*ni));
			if (!ni)
				break;
			*items = ni;
			ni[n].cmd = strdup(start);
			ni[n].path = NULL;
			ni[n].op = POL_OP_READ;
			if (ni[n].cmd)
				n++;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

/* Interleaves path checks among the commands: one path check per two commands. */
static size_t build_items(struct item **out, size_t *n_cmds, size_t *n_paths)
{
	struct item *cmds = NULL, *all;
	size_t nc = read_corpus(&cmds, 0), np = 0, n = 0;
	size_t paths_total = sizeof(bench_paths) / sizeof(bench_paths[0]) *
			     (sizeof(bench_ops) / sizeof(bench_ops[0]));
	size_t want_paths = nc / 2 > paths_total ? nc / 2 : paths_total;

	all = calloc(nc + want_paths + 1, sizeof(*all));
	if (!all)
		return 0;
	for (size_t i = 0; i < nc || np < want_paths; i++) {
		if (i < nc)
			all[n++] = cmds[i];
		if ((i % 2 == 1 || i >= nc) && np < want_paths) {
			size_t k = np % paths_total;

			all[n].cmd = NULL;
			all[n].path = bench_paths[k / (sizeof(bench_ops) / sizeof(bench_ops[0]))];
			all[n].op = bench_ops[k % (sizeof(bench_ops) / sizeof(bench_ops[0]))];
			n++;
			np++;
		}
	}
	free(cmds);
	*out = all;
	*n_cmds = nc;
	*n_paths = np;
	return n;
}

struct rate {
	double per_s, seconds;
	size_t decisions, denied;
};

static struct rate run_decisions(const struct pol_policy *p, const struct item *items, size_t n,
				 unsigned ctx_flags, int only_cmds)
{
	struct pol_ctx ctx = {.cwd = "/srv/dcg-corpus/proj", .flags = ctx_flags};
	struct rate rt = {0};
	double t0 = now_s(), t;

	do {
		for (size_t i = 0; i < n; i++) {
			struct pol_result r;
			enum pol_decision d;

			if (items[i].cmd)
				d = pol_check_command(p, items[i].cmd, strlen(items[i].cmd), &ctx,
						      &r);
			else if (only_cmds)
				continue;
			else
				d = pol_check_path(p, items[i].path, items[i].op, 0, &ctx, &r);
			pol_result_release(&r);
			rt.decisions++;
			rt.denied += d == POL_DENY;
		}
		t = now_s() - t0;
	} while (t < MIN_SECONDS);
	rt.seconds = t;
	rt.per_s = (double)rt.decisions / t;
	return rt;
}

static struct pol_policy *full_policy(unsigned flags, const char *fixture)
{
	struct pol_policy *p = pol_new(flags);

	if (!p)
		return NULL;
	pol_set_home(p, "/home/agent");
	pol_set_root(p, "/srv/dcg-corpus/proj");
	pol_load_embedded(p);
	if (pol_load_file(p, fixture) < 0 || pol_diag_count(p))
		fprintf(stderr, "bench-policy: %s: %zu diagnostics\n", fixture, pol_diag_count(p));
	return p;
}

static void bench_decisions(const char *fixture)
{
	struct item *items = NULL;
	size_t nc = 0, np = 0, n = build_items(&items, &nc, &np);
	struct pol_policy *empty = pol_new(0), *interp = full_policy(0, fixture),
			  *jit = full_policy(POL_LOAD_JIT, fixture);
	struct {
		const char *name;
		const struct pol_policy *p;
		unsigned flags;
		int only_cmds;
	} runs[] = {
	    {"baseline: empty policy, mixed list", empty, 0, 0},
	    {"defaults + fixture, mixed list, interpreted", interp, 0, 0},
	    {"defaults + fixture, mixed list, JIT", jit, 0, 0},
	    {"baseline: empty policy, commands only", empty, 0, 1},
	    {"defaults + fixture, commands only, interpreted", interp, 0, 1},
	    {"defaults + fixture, commands only, JIT", jit, 0, 1},
	    {"defaults + fixture, raw regex only (no analysis)", interp, POL_CTX_NO_ANALYSIS, 1},
	};
	double base = 0;

	if (!n || !empty || !interp || !jit) {
		fprintf(stderr, "bench-policy: cannot set up the decision runs\n");
		goto out;
	}
	pol_set_home(empty, "/home/agent");
	pol_set_root(empty, "/srv/dcg-corpus/proj");
	printf("\ndecisions per second (%zu commands from %s and %zu path checks, "
	       "each run >= %.0f s):\n",
	       nc, CORPUS, np, MIN_SECONDS);
	printf("  %-50s %12s %8s %9s %7s\n", "", "decisions/s", "x base", "us/dec", "denied");
	for (size_t i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		struct rate rt =
		    run_decisions(runs[i].p, items, n, runs[i].flags, runs[i].only_cmds);

		if (i == 0 || i == 3)
			base = rt.per_s;
		printf("  %-50s %12.0f %8.3f %9.2f %6.1f%%\n", runs[i].name, rt.per_s,
		       base > 0 ? rt.per_s / base : 0, 1e6 / rt.per_s,
		       100.0 * (double)rt.denied / (double)rt.decisions);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(items[i].cmd);
	free(items);
	pol_free(empty);
	pol_free(interp);
	pol_free(jit);
}

/* ---- 3. hostile files -------------------------------------------------------------------- */

static int gen(const char *path, const char *head, const char *a, const char *b, const char *c,
	       size_t size)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fputs(head, f);
	for (size_t i = 0; (size_t)ftell(f) < size; i++)
		fprintf(f, "%s%07zu%s%zu%s", a, i, b, i, c);
	return fclose(f) == 0 ? 0 : -EIO;
}

static void bench_hostile(void)
{
	char dir[] = "/tmp/dcg-bench-policy.XXXXXX", path[128];
	const size_t mb10 = 10u * 1024 * 1024;
	const struct {
		const char *name, *head, *a, *b, *c;
	} files[] = {
	    {"10 MB of damage-control patterns", "bashToolPatterns:\n", "  - pattern: '\\bcmd",
	     "\\s+--danger\\b'\n    reason: generated ", "\n"},
	    {"10 MB of dcg rules with IDs", "rules:\n", "  - {id: gen.r", ", pattern: 'cmd",
	     " --danger', reason: generated}\n"},
	    {"10 MB of path patterns", "zeroAccessPaths:\n", "  - '/data/p", "/**/*.k", "'\n"},
	    {"10 MB of aliases to one rule",
	     "base: &r {pattern: '\\bshred\\b', reason: shred}\nbashToolPatterns:\n", "  - *r  # ",
	     " ", "\n"},
	    {"10 MB of allow entries", "allow:\n", "  - {rule: gen.r", ", reason: generated ",
	     "}\n"},
	};

	if (!mkdtemp(dir)) {
		perror("bench-policy: mkdtemp");
		return;
	}
	printf(
	    "\nhostile files, one load each (the issue asks: loads or is refused within 1 s):\n");
	printf("  %-50s %9s %8s %6s %5s\n", "", "ms", "rc", "rules", "diag");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct pol_policy *p = pol_new(0);
		double t0;
		int rc;

		snprintf(path, sizeof(path), "%s/f%zu.yaml", dir, i);
		if (!p || gen(path, files[i].head, files[i].a, files[i].b, files[i].c, mb10) < 0) {
			pol_free(p);
			continue;
		}
		t0 = now_s();
		rc = pol_load_file(p, path);
		printf("  %-50s %9.1f %8d %6zu %5zu\n", files[i].name, (now_s() - t0) * 1e3, rc,
		       pol_rule_count(p), pol_diag_count(p));
		pol_free(p);
		unlink(path);
	}
	/* deep flow nesting: quadratic in libyaml without the loader's depth check */
	snprintf(path, sizeof(path), "%s/deep.yaml", dir);
	FILE *f = fopen(path, "w");
	if (f) {
		struct pol_policy *p = pol_new(0);
		double t0;
		int rc;

		fputs("bashToolPatterns: ", f);
		for (int i = 0; i < 1000000; i++)
			fputc('[', f);
		for (int i = 0; i < 1000000; i++)
			fputc(']', f);
		fclose(f);
		t0 = now_s();
		rc = pol_load_file(p, path);
		printf("  %-50s %9.1f %8d %6zu %5zu\n", "2 MB of [[[...]]] (1,000,000 deep)",
		       (now_s() - t0) * 1e3, rc, pol_rule_count(p), pol_diag_count(p));
		pol_free(p);
		unlink(path);
	}
	rmdir(dir);
}

int main(int argc, char **argv)
{
	const char *fixture = argc > 1 ? argv[1] : DEFAULT_FIXTURE;
	const char *runs_env = getenv("BENCH_POLICY_RUNS");
	long runs = runs_env ? strtol(runs_env, NULL, 10) : 301;

	if (runs < 1)
		runs = 301;
	printf("bench-policy: policy engine in process (%s)\n", fixture);
	bench_load(fixture, (int)runs);
	bench_decisions(fixture);
	if (!getenv("BENCH_POLICY_NO_HOSTILE"))
		bench_hostile();
	return 0;
}
