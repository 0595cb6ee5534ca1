/* test_argvidx.c - the preload's argv filter (policy/argvidx.h) against the engine:
 * whenever the filter settles an exec's argv as allowed, pol_check_argv() with the
 * runtime context, on the policy the guarded processes load (the snapshot of the same
 * policy), must allow it with nothing to log. Checked on every corpus row turned into
 * an argv (as written, and with its program named by a path), on argvs made from every
 * command of the analyser's table and from every rule's keyword, for the default
 * policy with the packs the corpus turns on and for the fixture policies. */
#include "argvidx.h"
#include "dcg_policy.h"
#include "internal.h"
#include "pathidx.h"
#include "shell_int.h"

#include "corpus_file.h"
#include "fixture_policies.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA "tests/data/policy/"
#define CWD  "/srv/dcg-corpus/proj"

TestSuite(argvidx, .timeout = 300);

struct pair {
	struct pol_policy *engine;
	struct pol_aidx ax;
	struct pol_pidx px;
	char *abuf, *pbuf;
	unsigned checked, settled;
};

static void pair_open(struct pair *pr, const struct pol_policy *p)
{
	size_t len = 0;
	char *snap = pol_snapshot_save(p, &len);

	memset(pr, 0, sizeof(*pr));
	cr_assert_not_null(snap);
	pr->engine = pol_new(0);
	cr_assert_not_null(pr->engine);
	cr_assert_eq(pol_snapshot_load(pr->engine, snap, len), 0);
	free(snap);
	pr->abuf = pol_aidx_save(p, &len);
	cr_assert_not_null(pr->abuf);
	cr_assert_eq(pol_aidx_open(&pr->ax, pr->abuf, len, malloc), 0);
	pr->pbuf = pol_pidx_save(p, &len);
	cr_assert_not_null(pr->pbuf);
	cr_assert_eq(pol_pidx_open(&pr->px, pr->pbuf, len, malloc), 0);
}

static void pair_close(struct pair *pr)
{
	free(pr->ax.block);
	free(pr->px.pats);
	free(pr->abuf);
	free(pr->pbuf);
	pol_free(pr->engine);
}

/* What the engine says of argv at runtime (preload/engine.c, check_argv). */
static enum pol_decision engine_argv(const struct pair *pr, char *const argv[], char *rule,
				     size_t size)
{
	struct pol_ctx ctx;
	struct pol_result r;
	enum pol_decision d;

	memset(&ctx, 0, sizeof(ctx));
	ctx.flags = POL_CTX_RUNTIME;
	ctx.cwd = CWD;
	d = pol_check_argv(pr->engine, argv, &ctx, &r);
	snprintf(rule, size, "%s", r.rule_id ? r.rule_id : "-");
	pol_result_release(&r);
	return d;
}

/* The claim: settled means allowed, with no rule involved. Returns whether settled. */
static int check(struct pair *pr, char *const argv[], const char *what)
{
	char rule[256], joined[1024];
	enum pol_decision d;
	size_t o = 0;

	pr->checked++;
	if (!pol_aidx_allows(&pr->ax, &pr->px, argv, NULL))
		return 0;
	pr->settled++;
	d = engine_argv(pr, argv, rule, sizeof(rule));
	if (d != POL_ALLOW || strcmp(rule, "-")) {
		for (size_t i = 0; argv[i] && o < sizeof(joined) - 1; i++)
			o += (size_t)snprintf(joined + o, sizeof(joined) - o, "%s[%s]",
					      i ? " " : "", argv[i]);
		cr_expect(0, "%s: the filter settles %s but the engine says %s (%s)", what, joined,
			  pol_decision_name(d), rule);
	}
	return 1;
}

/* cmd split on blanks into argv (at most max - 1 words), in buf. */
static size_t split(const char *cmd, char *buf, size_t size, char **argv, size_t max)
{
	size_t n = 0;

	snprintf(buf, size, "%s", cmd);
	for (char *s = buf; *s && n + 1 < max;) {
		while (*s == ' ' || *s == '\t' || *s == '\n')
			*s++ = '\0';
		if (!*s)
			break;
		argv[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n')
			s++;
	}
	argv[n] = NULL;
	return n;
}

/* cmd as an argv, and with its program named by the usual paths. */
static void check_command(struct pair *pr, const char *cmd, const char *what)
{
	static const char *const dirs[] = {
	    "",	     "/usr/bin/", "/bin/", "/usr/local/bin/", "/home/agent/.ssh/",
	    "/etc/", "/tmp/x/../"};
	char buf[8192], prog[PATH_MAX], *argv[256];
	size_t n = split(cmd, buf, sizeof(buf), argv, 256);
	const char *name;

	if (!n)
		return;
	name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(prog, sizeof(prog), "%s%s", dirs[i], i ? name : argv[0]);
		argv[0] = prog;
		check(pr, argv, what);
	}
	/* every word as the program */
	for (size_t i = 1; i < n; i++)
		check(pr, argv + i, what);
}

/* Argvs from the analyser's table, the names it knows, and each rule's keyword. */
static void check_generated(struct pair *pr, const struct pol_policy *p)
{
	static const char *const tails[] = {
	    "",	     " -c x",	  " -rf /",	   " --hard",	    " -delete", " . -delete",
	    " -e 1", " rm -rf x", " reset --hard", " x=1 rm -rf /", " -f x",	" install"};
	static const char *const names[] = {
	    "python3.11", "python3",  "pypy3",	"node18",  "nodejs", "perl5.36", "ruby3.2",
	    "php8",	  "Python3",  "then",	"do",	   "if",     "for",	 "time",
	    "coproc",	  "function", "A=1",	"env",	   "sudo",   "nice",	 "xargs",
	    "find",	  "make",     "git",	"bash",	   "sh",     "zsh",	 "busybox",
	    "eval",	  "exec",     "source", "command", "nohup",  "timeout",	 "watch",
	    "true",	  "false",    "gcc",	"cc",	   "ld",     "ls",	 "cat",
	    "rm",	  "dd",	      "shred",	"mkfs",	   "chmod",  "kubectl",	 "terraform"};
	char cmd[1100];

	for (size_t i = 0; i < sh_ncmds; i++)
		for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
			snprintf(cmd, sizeof(cmd), "%s%s", sh_cmds[i].name, tails[t]);
			check_command(pr, cmd, "table");
		}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++) {
			snprintf(cmd, sizeof(cmd), "%s%s", names[i], tails[t]);
			check_command(pr, cmd, "names");
		}
	/* each command rule's keyword, alone, after a plain program, and its alternatives */
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct pol_rule *r = &pol_rules(p)[i];
		char kw[512];

		if (r->kind != POL_RULE_COMMAND || !r->keyword)
			continue;
		snprintf(kw, sizeof(kw), "%s", r->keyword);
		for (char *c = kw; *c; c++)
			if (*c == '\n')
				*c = ' ';
		check_command(pr, kw, r->id);
		snprintf(cmd, sizeof(cmd), "tool %s", kw);
		check_command(pr, cmd, r->id);
		snprintf(cmd, sizeof(cmd), "tool x%sy", kw);
		check_command(pr, cmd, r->id);
		for (char *c = cmd; *c; c++)
			if (*c >= 'a' && *c <= 'z')
				*c = (char)(*c - 'a' + 'A');
		check_command(pr, cmd, r->id);
	}
}

/* Every corpus row, for p with the packs the corpus turns on (kept on, as
 * test_ruleindex does). Returns the rows. */
static unsigned check_corpus(struct pol_policy *p, struct pair *pr, int with_packs)
{
	glob_t g;
	unsigned rows = 0;

	cr_assert_eq(glob("tests/corpus/*.tsv", 0, NULL, &g), 0, "no corpus found");
	for (size_t fi = 0; fi < g.gl_pathc; fi++) {
		FILE *f = fopen(g.gl_pathv[fi], "r");
		char line[8192];

		cr_assert(f, "cannot open %s", g.gl_pathv[fi]);
		while (fgets(line, sizeof(line), f)) {
			char *t1, *t2, yaml[512];
			size_t n;

			line[strcspn(line, "\n")] = '\0';
			n = corpus_packs_yaml(line, yaml, sizeof(yaml));
			if (n) {
				if (!with_packs)
					continue;
				cr_assert(n != (size_t)-1);
				cr_assert_eq(pol_load_buffer(p, "packs", yaml, n), 0);
				pair_close(pr);
				pair_open(pr, p);
				continue;
			}
			if (!line[0] || line[0] == '#' || !(t1 = strchr(line, '\t')) ||
			    !(t2 = strchr(t1 + 1, '\t')))
				continue;
			corpus_unescape(t2 + 1);
			check_command(pr, t2 + 1, g.gl_pathv[fi]);
			rows++;
		}
		fclose(f);
	}
	globfree(&g);
	return rows;
}

static struct pol_policy *policy_new(void)
{
	struct pol_policy *p = pol_new(0);

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, "/home/agent"), 0);
	cr_assert_eq(pol_set_root(p, CWD), 0);
	return p;
}

Test(argvidx, default_policy_agrees_with_the_engine)
{
	struct pol_policy *p = policy_new();
	struct pair pr;
	unsigned rows;

	cr_assert_eq(pol_load_embedded(p), 0);
	pair_open(&pr, p);
	check_generated(&pr, p);
	rows = check_corpus(p, &pr, 1);
	check_generated(&pr, p); /* with every pack on */
	cr_log_info("default policy: %u rows, %u argvs, %u settled", rows, pr.checked, pr.settled);
	cr_expect_gt(rows, 1000);
	cr_expect_gt(pr.settled, 1000, "the filter settles %u of %u", pr.settled, pr.checked);
	pair_close(&pr);
	pol_free(p);
}

static void fixture_check(struct pol_policy *p, const char *file, void *ctx)
{
	struct pair pr;

	(void)file;
	(void)ctx;
	pair_open(&pr, p);
	check_generated(&pr, p);
	check_corpus(p, &pr, 0);
	pair_close(&pr);
}

/* The fixture policies that load (some are there to fail). */
Test(argvidx, fixture_policies_agree_with_the_engine)
{
	unsigned files = fixture_policies_each(policy_new, fixture_check, NULL);

	cr_expect_geq(files, 5, "only %u fixture policies loaded", files);
}

/* What the shell loop and a build run is settled; what the analyser reads, what a
 * rule may match and a protected program are not. */
Test(argvidx, settles_plain_programs_only)
{
	static const char *const yes[] = {"/bin/true", "true", "/usr/bin/gcc -c x.c -o x.o",
					  "/bin/echo done", "cc -O2 -Wall -o prog main.c"};
	static const char *const no[] = {"rm -rf /",
					 "git reset --hard",
					 "bash -c x",
					 "python3 -c x",
					 "make clean",
					 "env X=1 true",
					 "ls -la",
					 "find . -delete",
					 "xargs rm",
					 "sudo true",
					 "nice true",
					 "./configure",
					 "true 'a b'",
					 "true $HOME",
					 "true ~/x",
					 "X=1 true",
					 "/opt/secret/tool",
					 "python3.12 x",
					 "true a;rm",
					 "",
					 "t"};
	struct pol_policy *p = policy_new();
	char buf[512], *argv[32];
	struct pair pr;

	cr_assert_eq(pol_load_embedded(p), 0);
	cr_assert_eq(pol_load_buffer(p, "y", "zeroAccessPaths: [/opt/secret/]\n", 32), 0);
	pair_open(&pr, p);
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		split(yes[i], buf, sizeof(buf), argv, 32);
		cr_expect(check(&pr, argv, "yes"), "not settled: %s", yes[i]);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		split(no[i], buf, sizeof(buf), argv, 32);
		if (!strcmp(no[i], "true 'a b'")) {
			argv[1] = "a b";
			argv[2] = NULL;
		}
		cr_expect(!check(&pr, argv, "no"), "settled: %s", no[i]);
	}
	pair_close(&pr);
	pol_free(p);
}

/* argv as "cc -Daaa... -Daaa..." whose text is len bytes (at least 5), in buf. */
static void long_argv(size_t len, char *buf, char **argv, size_t max)
{
	size_t left = len - 2, n = 1, o = 0;

	argv[0] = "cc";
	while (left > 0 && n + 1 < max) {
		size_t w = left - 1 > 60 ? 60 : left - 1; /* the word, after its space */

		if (left - 1 - w > 0 && left - 1 - w < 4) /* no word shorter than "-Da" */
			w -= 4;
		argv[n++] = buf + o;
		memcpy(buf + o, "-D", 2);
		memset(buf + o + 2, 'a', w - 2);
		buf[o + w] = '\0';
		o += w + 1;
		left -= w + 1;
	}
	argv[n] = NULL;
	for (size_t i = 1; i < n; i++)
		left += 1 + strlen(argv[i]);
	cr_assert_eq(left + 2, len, "the argv's text is not %zu bytes", len);
}

/* The guest judges a text that fits its short buffer there and a longer one in a
 * buffer of its own, up to POL_AIDX_TEXT_MAX - 1 bytes: the same answer on each side
 * of both limits, and a rule's keyword found past the short buffer's end. */
Test(argvidx, long_texts_are_judged_whole)
{
	static const size_t settled[] = {200, 255, 256, 257, 300, 1000, POL_AIDX_TEXT_MAX - 1};
	static const size_t engine[] = {POL_AIDX_TEXT_MAX, POL_AIDX_TEXT_MAX + 1, 5000};
	struct pol_policy *p = policy_new();
	char *buf = malloc(8192), *argv[200];
	const char *kw;
	struct pair pr;

	cr_assert_not_null(buf);
	cr_assert_eq(pol_load_embedded(p), 0);
	pair_open(&pr, p);
	for (size_t i = 0; i < sizeof(settled) / sizeof(settled[0]); i++) {
		long_argv(settled[i], buf, argv, 200);
		cr_expect(check(&pr, argv, "long"), "a text of %zu bytes not settled", settled[i]);
	}
	for (size_t i = 0; i < sizeof(engine) / sizeof(engine[0]); i++) {
		long_argv(engine[i], buf, argv, 200);
		cr_expect(!check(&pr, argv, "long"), "a text of %zu bytes settled", engine[i]);
	}
	/* a floating rule's keyword as the last word */
	cr_assert_gt(pr.ax.n_floating, 0, "no rule without a start key in the default policy");
	kw = pr.ax.kwstr + pr.ax.kw[2 * pr.ax.floating[0]];
	cr_assert(kw[0] && kw[0] != '\n' && !strchr(kw, ' '), "keyword [%s]", kw);
	for (size_t i = 0; i < sizeof(settled) / sizeof(settled[0]); i++) {
		size_t n = 0, kl = strlen(kw);

		if (settled[i] < 100 + kl)
			continue;
		long_argv(settled[i] - kl - 1, buf, argv, 199);
		while (argv[n])
			n++;
		argv[n] = (char *)kw;
		argv[n + 1] = NULL;
		cr_expect(!check(&pr, argv, "long"), "keyword %s at byte %zu not seen", kw,
			  settled[i] - kl);
	}
	pair_close(&pr);
	pol_free(p);
	free(buf);
}

/* A damaged filter is refused, never half-read. */
Test(argvidx, malformed_filter_is_refused)
{
	struct pol_policy *p = policy_new();
	struct pol_aidx x;
	size_t len = 0;
	char *buf;

	cr_assert_eq(pol_load_embedded(p), 0);
	buf = pol_aidx_save(p, &len);
	cr_assert_not_null(buf);
	cr_assert_eq(pol_aidx_open(&x, buf, len, malloc), 0);
	free(x.block);
	cr_expect_eq(pol_aidx_open(&x, buf, len - 1, malloc), -EINVAL);
	buf[len - 1] = 'x'; /* the last keyword loses its NUL */
	cr_expect_eq(pol_aidx_open(&x, buf, len, malloc), -EINVAL);
	buf[len - 1] = '\0';
	buf[0] = 'X';
	cr_expect_eq(pol_aidx_open(&x, buf, len, malloc), -EINVAL);
	free(buf);
	pol_free(p);
}
