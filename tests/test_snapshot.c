/* test_snapshot.c - the snapshot the preload receives: a save/load round trip keeps
 * every rule, allow entry, root and home, and decides every command of tests/corpus/
 * and every path operation exactly as the policy it was saved from; damaged snapshots
 * are refused, never half-trusted or crashed on. */
#include "dcg_policy.h"
#include "internal.h"
#include "dc_fixture.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CORPUS "tests/corpus/"

#define TMP_TAG "snap"
#include "tmp_home.h"

TestSuite(snapshot, .init = setup, .fini = teardown, .timeout = 60);

static const char extra_yaml[] =
    "rules:\n"
    "  - id: snap.tabs\n"
    "    pattern: '^tabbed\\tcmd\\\\x'\n"
    "    reason: \"a reason with a\\ttab, a\\nnewline and a \\\\ backslash\"\n"
    "    severity: medium\n"
    "    suggestions: [\"one\\tsuggestion\", 'two \\ suggestions']\n"
    "  - id: snap.low\n"
    "    pattern: '\\blowly\\b'\n"
    "    reason: low\n"
    "    severity: low\n"
    "  - id: snap.off\n"
    "    pattern: '\\boffrule\\b'\n"
    "    reason: off by default, enabled below\n"
    "    enabled: false\n"
    "  - id: snap.broken\n"
    "    pattern: '(unclosed'\n"
    "    reason: does not compile\n"
    "  - id: heredoc.python.snap_system\n"
    "    language: python\n"
    "    pattern: 'os\\.system\\('\n"
    "    reason: os.system\n"
    "packs: [snap.off]\n"
    "disable: [policy.bash.5]\n"
    "zeroAccessPaths: [~/vault/, 'sec[0-9].txt', '!sec0.txt']\n"
    "noDeletePaths: [keep/**/*.md]\n"
    "allow:\n"
    "  - {rule: snap.low, reason: fine}\n"
    "  - rule: policy.bash.1\n"
    "    reason: scratch only\n"
    "    paths: [~/scratch/**, sandbox/]\n"
    "    expires: 2099-01-31\n"
    "  - {rule: core.git.reset_hard, reason: expired, expires: 2001-01-01}\n";

/* The policy every test saves: embedded defaults, the project's damage-control file and
 * the extra rules. */
static struct pol_policy *source_policy(void)
{
	struct pol_policy *p = pol_new(0);

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, home), 0);
	cr_assert_eq(pol_set_root(p, root), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	cr_assert_eq(pol_load_file(p, DC_OWN_FIXTURE), 0);
	pol_load_buffer(p, "extra.yaml", extra_yaml, strlen(extra_yaml));
	/* the broken regex is the only diagnostic */
	cr_assert_eq(pol_diag_count(p), 1, "%s", pol_diag_count(p) ? pol_diag_get(p, 0)->msg : "");
	return p;
}

static struct pol_policy *round_trip(const struct pol_policy *src)
{
	size_t len = 0;
	char *snap = pol_snapshot_save(src, &len);
	struct pol_policy *q = pol_new(0);

	cr_assert_not_null(snap);
	cr_assert_gt(len, 0);
	cr_assert_not_null(q);
	cr_assert_eq(pol_snapshot_load(q, snap, len), 0);
	free(snap);
	return q;
}

static int same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0) || (!a && !b[0]) || (!b && !a[0]);
}

Test(snapshot, round_trip_keeps_every_rule_root_home_and_file)
{
	struct pol_policy *p = source_policy(), *q = round_trip(p);

	cr_expect_str_eq(pol_home(q), home);
	cr_expect_str_eq(pol_root(q), root);
	cr_expect_eq(pol_file_count(q), pol_file_count(p));
	for (size_t i = 0; i < pol_file_count(p) && i < pol_file_count(q); i++)
		cr_expect_str_eq(pol_file_name(q, i), pol_file_name(p, i));
	cr_assert_eq(pol_rule_count(q), pol_rule_count(p));
	for (size_t i = 0; i < pol_rule_count(p); i++) {
		struct pol_rule_info a, b;

		pol_rule_get(p, i, &a);
		pol_rule_get(q, i, &b);
		cr_expect_str_eq(b.id, a.id, "rule %zu", i);
		cr_expect_eq(b.kind, a.kind, "%s", a.id);
		cr_expect(same_str(a.pattern, b.pattern), "%s: pattern '%s' vs '%s'", a.id,
			  a.pattern, b.pattern);
		cr_expect_str_eq(b.reason, a.reason, "%s", a.id);
		cr_expect(same_str(a.language, b.language), "%s", a.id);
		cr_expect_eq(b.severity, a.severity, "%s", a.id);
		cr_expect_eq(b.decision, a.decision, "%s: %s vs %s", a.id,
			     pol_decision_name(a.decision), pol_decision_name(b.decision));
		cr_expect_eq(b.path_kind, a.path_kind, "%s", a.id);
		cr_expect_str_eq(b.origin, a.origin, "%s", a.id);
		cr_expect_eq(b.line, a.line, "%s", a.id);
		cr_assert_eq(b.n_suggestions, a.n_suggestions, "%s", a.id);
		for (size_t k = 0; k < a.n_suggestions; k++)
			cr_expect_str_eq(b.suggestions[k], a.suggestions[k], "%s", a.id);
	}
	pol_free(q);
	pol_free(p);
}

Test(snapshot, escaped_characters_survive)
{
	struct pol_policy *p = source_policy(), *q = round_trip(p);
	struct pol_rule_info in;
	ssize_t i = pol_rule_find(q, "snap.tabs");

	cr_assert_geq(i, 0);
	pol_rule_get(q, (size_t)i, &in);
	cr_expect_str_eq(in.reason, "a reason with a\ttab, a\nnewline and a \\ backslash");
	cr_expect_str_eq(in.pattern, "^tabbed\\tcmd\\\\x");
	cr_expect_str_eq(in.suggestions[0], "one\tsuggestion");
	cr_expect_str_eq(in.suggestions[1], "two \\ suggestions");
	pol_free(q);
	pol_free(p);
}

/* Every command of the .tsv files in tests/corpus/, unescaped. Returns the count. */
static size_t corpus_commands(char ***out)
{
	DIR *d = opendir(CORPUS);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0;

	cr_assert_not_null(d, "run from the repository root");
	while ((e = readdir(d))) {
		char path[600], line[8192];
		size_t nl = strlen(e->d_name);
		FILE *f;

		if (nl < 5 || strcmp(e->d_name + nl - 4, ".tsv") != 0)
			continue;
		snprintf(path, sizeof(path), CORPUS "%s", e->d_name);
		f = fopen(path, "r");
		cr_assert_not_null(f);
		while (fgets(line, sizeof(line), f)) {
			char *c = line, *o;

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
			for (o = c; *c; c++) {
				if (*c == '\\' && c[1]) {
					c++;
					*o++ = *c == 'n' ? '\n' : *c == 't' ? '\t' : *c;
				} else {
					*o++ = *c;
				}
			}
			*o = '\0';
			v = realloc(v, (n + 1) * sizeof(*v));
			cr_assert_not_null(v);
			v[n] = strdup(line + (strchr(strchr(line, '\t') + 1, '\t') + 1 - line));
			cr_assert_not_null(v[n]);
			n++;
		}
		fclose(f);
	}
	closedir(d);
	*out = v;
	return n;
}

static void expect_same(const struct pol_result *a, const struct pol_result *b, const char *what)
{
	cr_expect_eq(b->decision, a->decision, "%s: %s vs %s (%s vs %s)", what,
		     pol_decision_name(a->decision), pol_decision_name(b->decision),
		     a->rule_id ? a->rule_id : "-", b->rule_id ? b->rule_id : "-");
	cr_expect(same_str(a->rule_id, b->rule_id), "%s: rule %s vs %s", what,
		  a->rule_id ? a->rule_id : "-", b->rule_id ? b->rule_id : "-");
	cr_expect_eq(b->allowed_by_allowlist, a->allowed_by_allowlist, "%s", what);
	cr_expect_eq(b->severity, a->severity, "%s", what);
	cr_expect_str_eq(b->matched, a->matched, "%s", what);
}

/* The embedded policy loaded at load (flags 0) or lazily, for the home h and the root. */
static struct pol_policy *embedded_policy(unsigned flags, const char *h)
{
	struct pol_policy *p = pol_new(flags);

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, h), 0);
	cr_assert_eq(pol_set_root(p, root), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	return p;
}

/* The same decision of path by both policies. */
static void expect_same_path(const struct pol_policy *a, const struct pol_policy *b,
			     const char *path, enum pol_op op, unsigned flags)
{
	struct pol_result ra, rb;

	pol_check_path(a, path, op, flags, NULL, &ra);
	pol_check_path(b, path, op, flags, NULL, &rb);
	expect_same(&ra, &rb, path);
	pol_result_release(&ra);
	pol_result_release(&rb);
}

Test(snapshot, loaded_snapshot_decides_every_corpus_command_identically)
{
	struct pol_policy *p = source_policy(), *q = round_trip(p);
	char **cmds, scratch[1100];
	size_t n = corpus_commands(&cmds);
	const char *extra[] = {"tabbed\tcmd\\x",
			       "lowly thing",
			       "offrule",
			       "(unclosed",
			       "python3 - <<'EOF'\nimport os\nos.system('x')\nEOF\n",
			       "rm -rf build",
			       "git reset --hard",
			       "RM -RF /",
			       "Git Reset --HARD",
			       "DROP table x"};
	const char *cwds[2] = {root, scratch};

	snprintf(scratch, sizeof(scratch), "%s/scratch/x", home);
	cr_assert_gt(n, 100, "the corpus has hundreds of commands");
	for (int c = 0; c < 2; c++) {
		for (unsigned flags = 0; flags <= POL_CTX_NO_ANALYSIS;
		     flags += POL_CTX_NO_ANALYSIS) {
			struct pol_ctx ctx = {.cwd = cwds[c], .flags = flags};

			for (size_t i = 0; i < n + sizeof(extra) / sizeof(extra[0]); i++) {
				const char *cmd = i < n ? cmds[i] : extra[i - n];
				struct pol_result a, b;

				pol_check_command(p, cmd, strlen(cmd), &ctx, &a);
				pol_check_command(q, cmd, strlen(cmd), &ctx, &b);
				expect_same(&a, &b, cmd);
				pol_result_release(&a);
				pol_result_release(&b);
			}
		}
	}
	for (size_t i = 0; i < n; i++)
		free(cmds[i]);
	free(cmds);
	pol_free(q);
	pol_free(p);
}

Test(snapshot, loaded_snapshot_decides_every_path_operation_identically)
{
	static const char *const paths[] = {
	    "$H/.ssh/id_rsa",  "$H/vault/key",	       "$R/sec1.txt",	"$R/sec0.txt",
	    "$R/a/sec9.txt",   "$R/keep/x/y/a.md",     "$R/keep/a.txt", "$R/.env",
	    "$R/.env.example", "$R/package-lock.json", "/etc/passwd",	"/usr/bin/ls",
	    "$R/README.md",    "$R/src/layout/x",      "$R/out/x",	"$H/.bashrc",
	    "relative/file",   "$R/../outside",	       "~/.aws/config", "$R/dist/x.js",
	};
	struct pol_policy *p = source_policy(), *q = round_trip(p);

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char path[PATH_MAX];
		const char *s = paths[i];

		if (s[0] == '$')
			snprintf(path, sizeof(path), "%s%s", s[1] == 'H' ? home : root, s + 2);
		else
			snprintf(path, sizeof(path), "%s", s);
		for (int op = 0; op < POL_OP__COUNT; op++) {
			for (unsigned fl = 0; fl < 4; fl++) {
				struct pol_ctx ctx = {.cwd = root};
				struct pol_result a, b;
				char what[PATH_MAX + 64];

				pol_check_path(p, path, (enum pol_op)op, fl, &ctx, &a);
				pol_check_path(q, path, (enum pol_op)op, fl, &ctx, &b);
				snprintf(what, sizeof(what), "%s %s flags %u", pol_op_name(op),
					 path, fl);
				expect_same(&a, &b, what);
				cr_expect_str_eq(b.path, a.path, "%s", what);
			}
		}
	}
	pol_free(q);
	pol_free(p);
}

Test(snapshot, snapshot_of_a_snapshot_is_identical)
{
	struct pol_policy *p = source_policy(), *q = round_trip(p);
	size_t la, lb;
	char *a = pol_snapshot_save(p, &la), *b = pol_snapshot_save(q, &lb);

	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_expect_eq(lb, la);
	cr_expect(la == lb && memcmp(a, b, la) == 0, "second generation differs");
	free(a);
	free(b);
	pol_free(q);
	pol_free(p);
}

/* POL_LOAD_LAZY expands the embedded path rules at the first path decision: the
 * decisions, the home a symlink leads to, and the snapshot saved afterwards are those of
 * a policy expanded at load, also when the root changes between load and decision. */
Test(snapshot, lazy_paths_decide_as_eager_ones)
{
	static const char *const paths[] = {
	    "$H/.ssh/id_rsa",	   "$R/.env",	  "$R/.env.example", "$R/src/main.c",
	    "$H/.aws/credentials", "/etc/passwd", "$L/.ssh/id_rsa",  "$R/.git/config",
	    "$H/notes.txt"};
	char link[PATH_MAX + 8], real_ssh[PATH_MAX + 8];
	struct pol_policy *eager = pol_new(0), *lazy = pol_new(POL_LOAD_LAZY);
	size_t la, lb;
	char *a, *b;

	snprintf(link, sizeof(link), "%s/../homelink", home);
	snprintf(real_ssh, sizeof(real_ssh), "%s/.ssh", home);
	cr_assert_eq(symlink(home, link), 0);
	cr_assert_eq(mkdir(real_ssh, 0700), 0);
	cr_assert_not_null(eager);
	cr_assert_not_null(lazy);
	for (int k = 0; k < 2; k++) {
		struct pol_policy *p = k ? lazy : eager;

		/* Home through a link: the canonical form of ~/.ssh/ is the real folder. */
		cr_assert_eq(pol_set_home(p, link), 0);
		cr_assert_eq(pol_set_root(p, root), 0);
		cr_assert_eq(pol_load_embedded(p), 0);
		cr_assert_eq(pol_set_root(p, "/"), 0); /* later loads only */
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		char path[PATH_MAX + 16];
		const char *s = paths[i];

		if (s[0] == '$')
			snprintf(path, sizeof(path), "%s%s",
				 s[1] == 'H'   ? home
				 : s[1] == 'L' ? link
					       : root,
				 s + 2);
		else
			snprintf(path, sizeof(path), "%s", s);
		for (int op = 0; op < POL_OP__COUNT; op++)
			expect_same_path(eager, lazy, path, (enum pol_op)op, 0);
	}
	{
		struct pol_result r;

		snprintf(link, sizeof(link), "%s/.ssh/id_rsa", home);
		cr_expect_eq(pol_check_path(lazy, link, POL_OP_READ, 0, NULL, &r), POL_DENY,
			     "the real folder behind a linked home is protected");
	}
	a = pol_snapshot_save(eager, &la);
	b = pol_snapshot_save(lazy, &lb);
	cr_assert_not_null(a);
	cr_assert_not_null(b);
	cr_expect(la == lb && memcmp(a, b, la) == 0, "the saved snapshots differ");
	free(a);
	free(b);
	pol_free(lazy);
	pol_free(eager);
}

/* A lazy load readies only the path rules a decision reads (pol_paths_ready_for): a
 * fresh one whose first decision is about a folder (a delete or a move, which looks at
 * every rule and beneath the folder) decides as a policy expanded at load does, while
 * the other groups' records are not made yet; and so does one that decided a read of
 * another file first. */
Test(snapshot, lazy_first_folder_decisions_decide_as_eager_ones)
{
	static const char *const dirs[] = {"$R", "$R/tree", "$R/tree/.git",
					   "$H", "$H/.ssh", "$R/plain"};
	static const enum pol_op ops[] = {POL_OP_DELETE, POL_OP_RENAME_FROM, POL_OP_RENAME_TO,
					  POL_OP_WRITE, POL_OP_READ};
	char path[PATH_MAX + 16], notes[PATH_MAX + 16];
	struct pol_policy *eager;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", dirs[i][1] == 'H' ? home : root, dirs[i] + 2);
		mkdir(path, 0700); /* each after its parent; $R and $H are there */
	}
	snprintf(notes, sizeof(notes), "%s/notes.txt", root);
	eager = embedded_policy(0, home);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++)
			for (int warm = 0; warm < 2; warm++) {
				struct pol_policy *lazy = embedded_policy(POL_LOAD_LAZY, home);
				struct pol_result r;

				if (warm) {
					pol_check_path(lazy, notes, POL_OP_READ, 0, NULL, &r);
					pol_result_release(&r);
				}
				snprintf(path, sizeof(path), "%s%s",
					 dirs[i][1] == 'H' ? home : root, dirs[i] + 2);
				expect_same_path(eager, lazy, path, ops[o], POL_PATH_IS_DIR);
				pol_free(lazy);
			}
	{
		struct pol_policy *lazy = embedded_policy(POL_LOAD_LAZY, home);
		struct pol_result r;

		snprintf(path, sizeof(path), "%s/tree", root);
		cr_expect_eq(pol_check_path(lazy, path, POL_OP_DELETE, POL_PATH_IS_DIR, NULL, &r),
			     POL_DENY, "a folder holding a .git/ is not deleted");
		pol_result_release(&r);
		snprintf(path, sizeof(path), "%s/plain", root);
		cr_expect_eq(pol_check_path(lazy, path, POL_OP_DELETE, POL_PATH_IS_DIR, NULL, &r),
			     POL_ALLOW, "an empty folder may be deleted");
		pol_result_release(&r);
		pol_free(lazy);
	}
	pol_free(eager);
}

/* A lazy load keeps its expanded globs in blocks of 1 KiB (pol_paths_ready): a home so
 * long that a glob under it does not fit one is expanded on its own, and decides as a
 * policy expanded at load does; freeing either leaks nothing (ASan). */
Test(snapshot, lazy_globs_longer_than_a_block_decide_as_eager_ones)
{
	static const char *const tails[] = {"/.ssh/id_rsa", "/.aws/credentials", "/notes.txt",
					    "/.bashrc", "/.config/dcg/policy.yaml"};
	char longhome[1400], path[1600];
	size_t o = (size_t)snprintf(longhome, sizeof(longhome), "%s", home);
	struct pol_policy *eager, *lazy;

	while (o + 40 < 1300)
		o += (size_t)snprintf(longhome + o, sizeof(longhome) - o, "/%s",
				      "a-folder-name-of-thirty-two-bytes");
	eager = embedded_policy(0, longhome);
	lazy = embedded_policy(POL_LOAD_LAZY, longhome);
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", longhome, tails[i]);
		for (int op = 0; op < POL_OP__COUNT; op++)
			expect_same_path(eager, lazy, path, (enum pol_op)op, 0);
	}
	{
		struct pol_result r;

		snprintf(path, sizeof(path), "%s/.ssh/id_rsa", longhome);
		cr_expect_eq(pol_check_path(lazy, path, POL_OP_READ, 0, NULL, &r), POL_DENY,
			     "a key under a long home is protected");
	}
	pol_free(lazy);
	pol_free(eager);
}

/* The pre-split form the binaries embed loads the same policy as the text it was made
 * from, and a damaged one is refused or loaded, never crashed on. */
Test(snapshot, split_form_loads_as_the_text)
{
	struct pol_policy *p = source_policy(), *q;
	size_t len, xlen = 0, la, lb;
	char *snap = pol_snapshot_save(p, &len), *a, *b;
	unsigned char *x;
	unsigned seed = 777;

	cr_assert_not_null(snap);
	x = pol_snapshot_split(snap, len, &xlen);
	cr_assert_not_null(x);
	q = pol_new(0);
	cr_assert_eq(pol_snapshot_load_split(q, x, xlen), 0);
	cr_expect_eq(pol_rule_count(q), pol_rule_count(p));
	a = pol_snapshot_save(p, &la);
	b = pol_snapshot_save(q, &lb);
	cr_expect(a && b && la == lb && memcmp(a, b, la) == 0, "the split form loads differently");
	free(a);
	free(b);
	pol_free(q);
	for (int round = 0; round < 300; round++) {
		unsigned char *copy = malloc(xlen);
		struct pol_result r;
		size_t cut = round < 20 ? (size_t)round * xlen / 20 : xlen;

		cr_assert_not_null(copy);
		memcpy(copy, x, xlen);
		for (int k = 0; round >= 20 && k < 4; k++) {
			seed = seed * 1103515245u + 12345u;
			copy[(seed >> 8) % xlen] = (unsigned char)(seed >> 20);
		}
		q = pol_new(0);
		if (pol_snapshot_load_split(q, copy, cut) == 0) {
			pol_check_command(q, "rm -rf /", 8, NULL, &r);
			pol_result_release(&r);
			pol_check_path(q, "/etc/passwd", POL_OP_WRITE, 0, NULL, &r);
		}
		pol_free(q); /* before the blob it borrows from */
		free(copy);
	}
	free(x);
	free(snap);
	pol_free(p);
}

Test(snapshot, damaged_snapshots_are_refused)
{
	struct pol_policy *p = source_policy();
	size_t len;
	char *snap = pol_snapshot_save(p, &len);
	static const char *const bad[] = {
	    "",
	    "DCGSNAP 1\n",
	    "DCGSNAP 2\n", /* the format before this one (no facts) */
	    "DCGSNAP 9\n",
	    "NOTASNAP\n",
	    "DCGSNAP 3\nZ\tunknown record\n",
	    "DCGSNAP 3\nP\tonly-an-id\n",
	    "DCGSNAP 3\nA\trule\n",
	    "DCGSNAP 3\nT\t9\tx\n",	/* a fact of no known kind */
	    "DCGSNAP 3\nT\t2\tusr/\n",	/* an owner folder that is not absolute */
	    "DCGSNAP 3\nW\t1\tonly\n",	/* a path reason without its suggestions */
	    "DCGSNAP 3\nW\t7\tr\t\t\n", /* a path kind that does not exist */
	};

	cr_assert_not_null(snap);
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct pol_policy *q = pol_new(0);

		cr_expect_lt(pol_snapshot_load(q, bad[k], strlen(bad[k])), 0, "case %zu", k);
		pol_free(q);
	}
	/* Cut anywhere inside a record: refused or loaded, never a crash or a leak. */
	for (size_t cut = 10; cut < len; cut += len / 97 + 1) {
		struct pol_policy *q = pol_new(0);

		pol_snapshot_load(q, snap, cut);
		pol_free(q);
	}
	/* A suggestion count far past the fields present. */
	char *big = strstr(snap, "\nP\t");
	cr_assert_not_null(big);
	free(snap);
	pol_free(p);
}

/* Replaces field k (0 = the record tag) of the first record with tag in a snapshot. */
static char *with_field(const char *snap, char tag, int k, const char *value)
{
	char pat[4] = {'\n', tag, '\t', '\0'};
	const char *rec = strstr(snap, pat), *s, *e;
	size_t len = strlen(snap), vl = strlen(value);
	char *out;

	cr_assert_not_null(rec, "no %c record", tag);
	s = rec + 1;
	for (int i = 0; i < k; i++) {
		s = strchr(s, '\t');
		cr_assert_not_null(s);
		s++;
	}
	e = s + strcspn(s, "\t\n");
	out = malloc(len + vl + 1);
	cr_assert_not_null(out);
	memcpy(out, snap, (size_t)(s - snap));
	memcpy(out + (s - snap), value, vl);
	memcpy(out + (s - snap) + vl, e, len - (size_t)(e - snap) + 1);
	return out;
}

Test(snapshot, numbers_out_of_range_are_refused)
{
	static const struct {
		int field;
		const char *value;
	} cases[] = {
	    {2, "9"},  {2, "-1"}, {6, "4"},  {6, "-3"}, {7, "5"},
	    {7, "-1"}, {8, "3"},  {8, "-1"}, {8, "40"}, {8, "2147483648"},
	};
	static const char y[] = "zeroAccessPaths: [/srv/secret/]\n";
	struct pol_policy *p = pol_new(0);
	size_t len;
	char *snap;

	cr_assert_not_null(p);
	cr_assert_eq(pol_load_buffer(p, "one.yaml", y, sizeof(y) - 1), 0);
	snap = pol_snapshot_save(p, &len);
	cr_assert_not_null(snap);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		char *bad = with_field(snap, 'P', cases[k].field, cases[k].value);
		struct pol_policy *q = pol_new(0);
		struct pol_result r;

		cr_expect_lt(pol_snapshot_load(q, bad, strlen(bad)), 0, "field %d = %s",
			     cases[k].field, cases[k].value);
		pol_check_path(q, "/srv/secret/x", POL_OP_READ, 0, NULL, &r);
		pol_free(q);
		free(bad);
	}
	free(snap);
	pol_free(p);
}

Test(snapshot, flipped_bytes_never_crash_the_loader)
{
	struct pol_policy *p = source_policy();
	size_t len;
	char *snap = pol_snapshot_save(p, &len);
	unsigned seed = 12345;

	cr_assert_not_null(snap);
	for (int round = 0; round < 300; round++) {
		char *copy = malloc(len);
		struct pol_policy *q = pol_new(0);
		struct pol_result r;

		cr_assert_not_null(copy);
		memcpy(copy, snap, len);
		for (int k = 0; k < 8; k++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = 10 + (seed >> 8) % (len - 10);
			seed = seed * 1103515245u + 12345u;
			copy[at] = "\t\n\0010123456789-x\xff"[(seed >> 8) % 16];
		}
		if (pol_snapshot_load(q, copy, len) == 0) {
			/* what loaded must still decide without crashing */
			pol_check_command(q, "rm -rf /", 8, NULL, &r);
			pol_result_release(&r);
			pol_check_path(q, "/etc/passwd", POL_OP_WRITE, 0, NULL, &r);
		}
		pol_free(q);
		free(copy);
	}
	free(snap);
	pol_free(p);
}

/* ---- the embedded rule image ------------------------------------------------------- */

extern const char pol_embedded_snapshot[], pol_embedded_snapshot_end[];
extern const char pol_embedded_rules[], pol_embedded_rules_end[];

static int str_same(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static void expect_same_pathpat(const struct pol_pathpat *a, const struct pol_pathpat *b,
				const char *id)
{
	cr_expect(str_same(a->glob, b->glob), "%s: glob", id);
	cr_expect(a->literal_len == b->literal_len && a->glob_len == b->glob_len &&
		      a->basename_only == b->basename_only && a->negate == b->negate &&
		      a->shape == b->shape,
		  "%s: pattern fields", id);
}

/* Every field of every rule, the strings by their text. */
static void expect_same_rules(const struct pol_policy *p, const struct pol_policy *q)
{
	cr_assert_eq(p->n_rules, q->n_rules);
	for (size_t i = 0; i < p->n_rules; i++) {
		const struct pol_rule *a = &pol_rules(p)[i], *b = &pol_rules(q)[i];
		const char *id = b->id;

		cr_expect(str_same(a->id, b->id) && str_same(a->alias, b->alias) &&
			      str_same(a->pattern, b->pattern) && str_same(a->reason, b->reason) &&
			      str_same(a->keyword, b->keyword) &&
			      str_same(a->compile_error, b->compile_error),
			  "%s: strings", id);
		cr_expect(a->language == b->language, "%s: language", id);
		cr_expect(str_same(a->origin, b->origin), "%s: origin", id);
		cr_expect(a->n_suggestions == b->n_suggestions && a->n_owners == b->n_owners,
			  "%s: counts", id);
		for (size_t k = 0; k < a->n_suggestions && k < b->n_suggestions; k++)
			cr_expect(str_same(a->suggestions[k], b->suggestions[k]), "%s: suggestion",
				  id);
		for (size_t k = 0; k < a->n_owners && k < b->n_owners; k++)
			cr_expect(str_same(a->owners[k], b->owners[k]), "%s: owner", id);
		expect_same_pathpat(&a->path, &b->path, id);
		expect_same_pathpat(&a->path_canon, &b->path_canon, id);
		cr_expect(
		    a->keyword_len == b->keyword_len && a->line == b->line &&
			a->code_index == b->code_index && a->keyword_bigram == b->keyword_bigram &&
			a->kind == b->kind && a->severity == b->severity &&
			a->decision == b->decision && a->path_kind == b->path_kind &&
			a->compile_state == b->compile_state && a->enabled == b->enabled &&
			a->active == b->active && a->caseless == b->caseless &&
			a->runtime_paths == b->runtime_paths && a->has_canon == b->has_canon &&
			a->path_owned == b->path_owned && a->borrowed == b->borrowed &&
			a->path_pending == b->path_pending &&
			a->canon_pending == b->canon_pending && a->guarded == b->guarded &&
			a->untrusted == b->untrusted && (a->code == NULL) == (b->code == NULL),
		    "%s: numbers and flags", id);
	}
}

/* The image a lazy load of the embedded policy copies makes the same policy as the
 * split form built rule by rule: every field, the files, the facts, the decisions. */
Test(snapshot, embedded_rule_image_loads_as_the_split_form)
{
	size_t len = (size_t)(pol_embedded_snapshot_end - pol_embedded_snapshot) - 1;
	size_t ilen = (size_t)(pol_embedded_rules_end - pol_embedded_rules);
	struct pol_policy *p = pol_new(POL_LOAD_LAZY), *q = pol_new(POL_LOAD_LAZY);
	char **cmds, *a, *b;
	size_t n = corpus_commands(&cmds), la, lb;

	cr_assert(p && q);
	cr_assert_eq(pol_set_home(p, home) | pol_set_root(p, root), 0);
	cr_assert_eq(pol_set_home(q, home) | pol_set_root(q, root), 0);
	cr_assert_eq(
	    pol_snapshot_load_image(p, pol_embedded_snapshot, len, pol_embedded_rules, ilen), 0,
	    "the image does not fit a lazy load");
	cr_assert_eq(pol_snapshot_load_split(q, pol_embedded_snapshot, len), 0);
	expect_same_rules(p, q);
	cr_expect_eq(p->n_files, q->n_files);
	for (size_t i = 0; i < p->n_files && i < q->n_files; i++)
		cr_expect_str_eq(p->files[i], q->files[i]);
	cr_expect(p->have_zero_access == q->have_zero_access &&
		  p->paths_pending == q->paths_pending && p->n_codes == q->n_codes &&
		  p->codes_blob == q->codes_blob &&
		  str_same(p->embedded_version, q->embedded_version) &&
		  str_same(p->lazy_home, q->lazy_home) && str_same(p->lazy_root, q->lazy_root));
	a = pol_snapshot_save(p, &la);
	b = pol_snapshot_save(q, &lb);
	cr_expect(a && b && la == lb && memcmp(a, b, la) == 0, "saved differently");
	free(a);
	free(b);
	for (size_t i = 0; i < n; i++) {
		struct pol_result ra, rb;

		pol_check_command(p, cmds[i], strlen(cmds[i]), NULL, &ra);
		pol_check_command(q, cmds[i], strlen(cmds[i]), NULL, &rb);
		expect_same(&ra, &rb, cmds[i]);
		pol_result_release(&ra);
		pol_result_release(&rb);
		free(cmds[i]);
	}
	free(cmds);
	/* the path rules, expanded at the first path decision of each */
	expect_same_rules(p, q);
	pol_free(p);
	pol_free(q);
}

/* A lazy load leaves the image's rules in the image: a command decision reads them
 * there and makes a record only of each rule a unit must try. Each corpus command,
 * decided first thing by a fresh load, decides as the split form, and an allowed
 * command makes few records. */
Test(snapshot, deferred_rule_image_decides_as_the_split_form)
{
	size_t len = (size_t)(pol_embedded_snapshot_end - pol_embedded_snapshot) - 1;
	size_t ilen = (size_t)(pol_embedded_rules_end - pol_embedded_rules);
	struct pol_policy *q = pol_new(POL_LOAD_LAZY);
	char **cmds;
	size_t n = corpus_commands(&cmds), deferred = 0;

	cr_assert(q);
	cr_assert_eq(pol_set_home(q, home) | pol_set_root(q, root), 0);
	cr_assert_eq(pol_snapshot_load_split(q, pol_embedded_snapshot, len), 0);
	/* each command twice: the image checked, and sealed (with its index: the hook's) */
	for (size_t i = 0; i < 2 * n; i++) {
		struct pol_policy *p = pol_new(POL_LOAD_LAZY);
		struct pol_result ra, rb;
		int sealed = (int)(i & 1);

		cr_assert(p);
		cr_assert_eq(pol_set_home(p, home) | pol_set_root(p, root), 0);
		cr_assert_eq((sealed ? pol_snapshot_load_sealed : pol_snapshot_load_image)(
				 p, pol_embedded_snapshot, len, pol_embedded_rules, ilen),
			     0);
		cr_assert_not_null(p->img_pend, "a lazy load defers the image's records");
		cr_assert_eq(p->cmd_index_prebuilt, sealed);
		const char *c = cmds[i / 2];
		pol_check_command(p, c, strlen(c), NULL, &ra);
		pol_check_command(q, c, strlen(c), NULL, &rb);
		expect_same(&ra, &rb, c);
		deferred += p->img_pend != NULL;
		pol_result_release(&ra);
		pol_result_release(&rb);
		pol_free(p);
		if (sealed)
			free(cmds[i / 2]);
	}
	free(cmds);
	cr_expect_gt(deferred, 0, "no decision left the image deferred");

	/* path decisions make the path rules' records only, and decide as the split form */
	static const char *const paths[] = {"$H/.ssh/id_rsa", "$H/.bashrc",  "$R/.env",
					    "$R/src/main.c",  "/etc/passwd", "$H/.aws/config",
					    "$R/.git/config", "relative"};
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		for (int op = 0; op < POL_OP__COUNT; op++) {
			struct pol_policy *p = pol_new(POL_LOAD_LAZY);
			struct pol_ctx ctx = {.cwd = root};
			struct pol_result a, b;
			char path[PATH_MAX], what[PATH_MAX + 32];
			const char *s = paths[i];

			if (s[0] == '$')
				snprintf(path, sizeof(path), "%s%s", s[1] == 'H' ? home : root,
					 s + 2);
			else
				snprintf(path, sizeof(path), "%s", s);
			cr_assert(p);
			cr_assert_eq(pol_set_home(p, home) | pol_set_root(p, root), 0);
			cr_assert_eq(pol_snapshot_load_image(p, pol_embedded_snapshot, len,
							     pol_embedded_rules, ilen),
				     0);
			pol_check_path(p, path, (enum pol_op)op, 0, &ctx, &a);
			pol_check_path(q, path, (enum pol_op)op, 0, &ctx, &b);
			snprintf(what, sizeof(what), "%s %s", pol_op_name(op), path);
			expect_same(&a, &b, what);
			cr_expect_str_eq(b.path, a.path, "%s", what);
			if (a.decision == POL_ALLOW)
				cr_expect_not_null(p->img_pend, "%s made every record", what);
			pol_result_release(&a);
			pol_result_release(&b);
			pol_free(p);
		}
	}

	/* an allowed git call: the rules its prefilter passes are made, not the others */
	struct pol_policy *p = pol_new(POL_LOAD_LAZY);
	struct pol_result r;
	size_t made = 0;

	cr_assert(p);
	cr_assert_eq(pol_set_home(p, home) | pol_set_root(p, root), 0);
	cr_assert_eq(
	    pol_snapshot_load_image(p, pol_embedded_snapshot, len, pol_embedded_rules, ilen), 0);
	/* git prune -n: the gc rule's prefilter (prune) passes, its regex does not match */
	cr_expect_eq(pol_check_command(p, "git prune -n", 12, NULL, &r), POL_ALLOW);
	pol_result_release(&r);
	cr_assert_not_null(p->img_pend, "an allowed call made every record");
	for (size_t i = 0; i < p->img_pend->n; i++)
		made += p->img_pend->made[i];
	cr_expect_gt(made, 0, "git prune -n tries no rule of the image");
	cr_expect_lt(made, 10, "git prune -n made %zu records", made);
	/* then all of them, those made kept: as the split form after the same call */
	pol_free(q);
	q = pol_new(POL_LOAD_LAZY);
	cr_assert(q);
	cr_assert_eq(pol_set_home(q, home) | pol_set_root(q, root), 0);
	cr_assert_eq(pol_snapshot_load_split(q, pol_embedded_snapshot, len), 0);
	pol_check_command(q, "git prune -n", 12, NULL, &r);
	pol_result_release(&r);
	expect_same_rules(p, q);
	pol_free(p);
	pol_free(q);
}

/* The image header's words (snapshot.c, struct image_head): 18 of them; the origin
 * every rule shares, the seal, the number of words of the lists and a pad are the
 * last four. */
#define IMG_HEAD   72
#define IMG_ORIGIN 56
#define IMG_SEALED 60
#define IMG_LISTS  64

/* Damages of an image that its check must refuse: an offset or a count of the fourth
 * rule record out of range, its origin not the one the header names, the header's
 * origin out of range, a suggestion string out of range, the index word of a record
 * the image lists out of range. */
static const size_t damaged_fields[] = {offsetof(struct pol_rule, id),
					offsetof(struct pol_rule, n_suggestions),
					offsetof(struct pol_rule, origin),
					1000,
					1001,
					1002,
					1003};

static void damage_image(char *img, size_t f)
{
	uint32_t huge = 0x7fffffff, head[16], one = 1;
	size_t ptrs;

	memcpy(head, img, sizeof(head));
	ptrs = IMG_HEAD + head[3] * sizeof(struct pol_rule);
	switch (damaged_fields[f]) {
	case 1000: /* a rule's origin: another string than the header's */
		memcpy(img + IMG_HEAD + 3 * sizeof(struct pol_rule) +
			   offsetof(struct pol_rule, origin),
		       &one, sizeof(one));
		break;
	case 1001:
		memcpy(img + IMG_ORIGIN, &huge, sizeof(huge));
		break;
	case 1002:
		memcpy(img + ptrs + 4 * 5, &huge, sizeof(huge));
		break;
	case 1003:
		memcpy(img + ptrs + 4 * (head[4] + 2), &huge, sizeof(huge));
		break;
	default:
		memcpy(img + IMG_HEAD + 3 * sizeof(struct pol_rule) + damaged_fields[f], &huge,
		       sizeof(huge));
	}
}

/* The embedded image is checked whole when it is built (embed_snapshot seals it) and
 * a start does not check it again; a damaged image is never sealed, and loads of
 * images that are not the binary's own check every one, sealed or not. */
Test(snapshot, only_a_checked_image_is_sealed)
{
	size_t len = (size_t)(pol_embedded_snapshot_end - pol_embedded_snapshot) - 1;
	size_t ilen = (size_t)(pol_embedded_rules_end - pol_embedded_rules);
	char *copy = malloc(ilen);
	uint32_t seal;

	cr_assert_not_null(copy);
	memcpy(&seal, pol_embedded_rules + IMG_SEALED, sizeof(seal));
	cr_expect_eq(seal, POL_IMAGE_SEALED, "the build did not check and seal the image");
	/* sealing again what the build sealed */
	memcpy(copy, pol_embedded_rules, ilen);
	cr_expect_eq(pol_snapshot_image_seal(pol_embedded_snapshot, len, copy, ilen), 0);
	cr_expect_eq(memcmp(copy, pol_embedded_rules, ilen), 0);
	for (size_t f = 0; f < sizeof(damaged_fields) / sizeof(damaged_fields[0]); f++) {
		struct pol_policy *p = pol_new(POL_LOAD_LAZY);

		cr_assert_not_null(p);
		memcpy(copy, pol_embedded_rules, ilen);
		damage_image(copy, f);
		cr_expect_lt(pol_snapshot_image_seal(pol_embedded_snapshot, len, copy, ilen), 0,
			     "a damaged image was sealed (field %zu)", f);
		memcpy(&seal, copy + IMG_SEALED, sizeof(seal));
		cr_expect_neq(seal, POL_IMAGE_SEALED, "field %zu: the seal stayed", f);
		/* not sealed: the embedded path checks it, as any other load does */
		cr_expect_eq(pol_snapshot_load_sealed(p, pol_embedded_snapshot, len, copy, ilen),
			     -EINVAL, "field %zu: an image without its seal was not checked", f);
		cr_expect_null(p->img_pend);
		pol_free(p);
		/* sealed by hand and damaged: pol_snapshot_load_image() still refuses it */
		seal = POL_IMAGE_SEALED;
		memcpy(copy + IMG_SEALED, &seal, sizeof(seal));
		p = pol_new(POL_LOAD_LAZY);
		cr_assert_not_null(p);
		cr_expect_eq(pol_snapshot_load_image(p, pol_embedded_snapshot, len, copy, ilen),
			     -EINVAL, "field %zu: a sealed image from outside was trusted", f);
		cr_expect_null(p->img_pend);
		pol_free(p);
	}
	/* the seal is all the sealed load skips: the same policy as the checked load */
	struct pol_policy *a = pol_new(POL_LOAD_LAZY), *b = pol_new(POL_LOAD_LAZY);
	cr_assert(a && b);
	cr_assert_eq(pol_set_home(a, home) | pol_set_root(a, root), 0);
	cr_assert_eq(pol_set_home(b, home) | pol_set_root(b, root), 0);
	cr_assert_eq(
	    pol_snapshot_load_sealed(a, pol_embedded_snapshot, len, pol_embedded_rules, ilen), 0);
	cr_assert_eq(
	    pol_snapshot_load_image(b, pol_embedded_snapshot, len, pol_embedded_rules, ilen), 0);
	expect_same_rules(a, b);
	pol_free(a);
	pol_free(b);
	free(copy);
}

/* The sealed image brings the lists its refresh makes and its command index, made at
 * build time; the seal holds only when they are what a checked load makes again, and
 * only a sealed load takes them. */
Test(snapshot, only_a_sealed_image_brings_its_rule_lists)
{
	size_t len = (size_t)(pol_embedded_snapshot_end - pol_embedded_snapshot) - 1;
	size_t ilen = (size_t)(pol_embedded_rules_end - pol_embedded_rules);
	char *copy = malloc(ilen);
	uint32_t lists, seal;
	struct pol_policy *p;

	cr_assert_not_null(copy);
	memcpy(&lists, pol_embedded_rules + IMG_LISTS, sizeof(lists));
	cr_assert_gt(lists, 1000, "the embedded image has no lists");
	/* one word of the lists changed anywhere (and the first fact's): not sealed, and
	 * loads never take it */
	const uint32_t *lw =
	    (const uint32_t *)(const void *)(pol_embedded_rules + ilen - (size_t)lists * 4);
	uint32_t first_fact = 6 + lw[0] + lw[1];
	cr_assert(lw[2] && lw[3] && lw[5], "the embedded image does not carry its facts");
	for (uint32_t step = 0; step <= 13; step++) {
		uint32_t at = step < 13 ? step * (lists / 13) : first_fact;
		memcpy(copy, pol_embedded_rules, ilen);
		uint32_t *w = (uint32_t *)(void *)(copy + ilen - (size_t)lists * 4) + at;
		*w ^= 1;
		cr_expect_lt(pol_snapshot_image_seal(pol_embedded_snapshot, len, copy, ilen), 0,
			     "lists word %u changed, the image sealed", at);
		p = pol_new(POL_LOAD_LAZY);
		cr_assert_not_null(p);
		cr_assert_eq(pol_snapshot_load_sealed(p, pol_embedded_snapshot, len, copy, ilen),
			     0);
		cr_expect(p->img_pend && !p->img_pend->lists && !p->cmd_index_prebuilt,
			  "word %u: the lists of an image without its seal were taken", at);
		pol_free(p);
		seal = POL_IMAGE_SEALED;
		memcpy(copy + IMG_SEALED, &seal, sizeof(seal));
		p = pol_new(POL_LOAD_LAZY);
		cr_assert_not_null(p);
		cr_assert_eq(pol_snapshot_load_image(p, pol_embedded_snapshot, len, copy, ilen), 0);
		cr_expect(p->img_pend && !p->img_pend->lists && !p->cmd_index_prebuilt,
			  "word %u: a checked load took an image's lists", at);
		pol_free(p);
	}
	/* the sealed load takes them: the same lists as the refresh makes by walking */
	struct pol_policy *a = pol_new(POL_LOAD_LAZY), *b = pol_new(POL_LOAD_LAZY);
	cr_assert(a && b);
	cr_assert_eq(
	    pol_snapshot_load_sealed(a, pol_embedded_snapshot, len, pol_embedded_rules, ilen), 0);
	cr_assert_eq(
	    pol_snapshot_load_image(b, pol_embedded_snapshot, len, pol_embedded_rules, ilen), 0);
	cr_assert(a->img_pend && a->img_pend->lists && a->cmd_index_prebuilt);
	cr_assert_eq(a->n_cmd_rules, b->n_cmd_rules);
	cr_assert_eq(a->n_path_rules, b->n_path_rules);
	cr_expect_eq(memcmp(a->cmd_rules, b->cmd_rules, a->n_cmd_rules * sizeof(size_t)), 0);
	cr_expect_eq(memcmp(a->path_rules, b->path_rules, a->n_path_rules * sizeof(size_t)), 0);
	/* and the facts, which the sealed load installs without their records */
	cr_assert(a->n_cata_words == b->n_cata_words && a->n_cata_prefixes == b->n_cata_prefixes &&
		  a->n_owner_folders == b->n_owner_folders && a->n_cata_words > 0);
	for (size_t i = 0; i < a->n_cata_words; i++)
		cr_expect_str_eq(a->cata_words[i], b->cata_words[i]);
	for (size_t i = 0; i < a->n_cata_prefixes; i++)
		cr_expect_str_eq(a->cata_prefixes[i], b->cata_prefixes[i]);
	for (size_t i = 0; i < a->n_owner_folders; i++)
		cr_expect_str_eq(a->owner_folders[i], b->owner_folders[i]);
	pol_free(a);
	pol_free(b);
	free(copy);
}

/* A load the image does not fit builds the rules from the split form instead. */
Test(snapshot, embedded_rule_image_is_left_for_loads_it_does_not_fit)
{
	size_t len = (size_t)(pol_embedded_snapshot_end - pol_embedded_snapshot) - 1;
	size_t ilen = (size_t)(pol_embedded_rules_end - pol_embedded_rules);
	struct pol_policy *p = pol_new(0);
	char *copy = malloc(ilen), longhome[PATH_MAX];
	size_t before;

	cr_assert(p && copy);
	before = p->n_rules;
	cr_expect_eq(
	    pol_snapshot_load_image(p, pol_embedded_snapshot, len, pol_embedded_rules, ilen),
	    -EAGAIN, "not a lazy load");
	pol_free(p);
	p = pol_new(POL_LOAD_LAZY);
	memset(longhome, 'h', sizeof(longhome) - 1);
	longhome[0] = '/';
	longhome[PATH_MAX - 20] = '\0'; /* with the root and a pattern: over PATH_MAX */
	cr_assert_eq(pol_set_home(p, longhome), 0);
	cr_expect_eq(
	    pol_snapshot_load_image(p, pol_embedded_snapshot, len, pol_embedded_rules, ilen),
	    -EAGAIN, "a home too long for the lazy path rules");
	cr_expect_eq(
	    pol_snapshot_load_image(p, pol_embedded_snapshot, len - 4, pol_embedded_rules, ilen),
	    -EAGAIN, "another blob");
	cr_expect_eq(p->n_rules, before, "a refused image loaded rules");
	pol_free(p);
	/* each word of the header that ties the image to this build and this blob */
	for (size_t k = 0; k < IMG_HEAD; k += 4) {
		if ((k >= 32 && k < 44) || k == 52 || k == IMG_ORIGIN || k == IMG_SEALED || k == 68)
			continue; /* flags, the longest pattern, the codes, ...: not these checks */
		p = pol_new(POL_LOAD_LAZY);
		cr_assert_not_null(p);
		memcpy(copy, pol_embedded_rules, ilen);
		copy[k] ^= 0x40;
		cr_expect_eq(pol_snapshot_load_image(p, pol_embedded_snapshot, len, copy, ilen),
			     -EAGAIN, "header word %zu", k / 4);
		cr_expect_eq(p->n_rules, before, "header word %zu: rules loaded", k / 4);
		pol_free(p);
	}
	/* a record whose offsets or counts do not hold is refused before any rule is in,
	 * though the copy says it is sealed: only the binary's own image is trusted so */
	uint32_t seal;
	memcpy(&seal, pol_embedded_rules + IMG_SEALED, sizeof(seal));
	cr_assert_eq(seal, POL_IMAGE_SEALED, "the embedded image was not checked at build time");
	for (size_t f = 0; f < sizeof(damaged_fields) / sizeof(damaged_fields[0]); f++) {
		p = pol_new(POL_LOAD_LAZY);
		cr_assert_not_null(p);
		memcpy(copy, pol_embedded_rules, ilen);
		damage_image(copy, f);
		cr_expect_eq(pol_snapshot_load_image(p, pol_embedded_snapshot, len, copy, ilen),
			     -EINVAL, "field %zu", f);
		cr_expect_eq(p->n_rules, before, "field %zu: rules loaded", f);
		pol_free(p);
	}
	/* a count of regex codes this build does not have: the rules load without them,
	 * as pol_embedded_attach() leaves rules that are not this build's */
	p = pol_new(POL_LOAD_LAZY);
	cr_assert_not_null(p);
	memcpy(copy, pol_embedded_rules, ilen);
	copy[52] ^= 0x40;
	cr_expect_eq(pol_snapshot_load_image(p, pol_embedded_snapshot, len, copy, ilen), 0);
	cr_expect_null(p->codes_blob);
	for (size_t i = before; i < p->n_rules; i++)
		cr_expect_eq(pol_rules(p)[i].code_index, -1, "%s", pol_rules(p)[i].id);
	pol_free(p);
	free(copy);
}

/* ---- the head: the built-ins and dcg's own rules of a lazy load ------------------- */

/* A layered lazy load as the hook makes it; at_once: its built-ins and dcg's own rules
 * made as they are added (the head not deferred). */
static struct pol_policy *layered_load(int at_once)
{
	char cfg[PATH_MAX], sys[PATH_MAX], trust[PATH_MAX], log[PATH_MAX], state[PATH_MAX];
	struct pol_env env = {.home = home,
			      .cwd = root,
			      .xdg_config_home = cfg,
			      .xdg_state_home = state,
			      .system_file = sys,
			      .trust_file = trust,
			      .no_project = 1};
	struct pol_policy *p = pol_new(POL_LOAD_LAZY);

	cr_assert_not_null(p);
	/* dcg's files where no embedded rule covers them: only its own rules do */
	snprintf(cfg, sizeof(cfg), "%s/cfg", home);
	snprintf(state, sizeof(state), "%s/xstate", home);
	snprintf(sys, sizeof(sys), "%s/etc/policy.yaml", home);
	snprintf(trust, sizeof(trust), "%s/state/trust.json", home);
	snprintf(log, sizeof(log), "%s/log/audit.jsonl", home);
	if (at_once)
		pol_head_make(p);
	cr_assert_eq(setenv("DCG_LOG", log, 1), 0);
	pol_load_layers(p, &env);
	unsetenv("DCG_LOG");
	cr_assert_eq(p->head_pend != NULL, !at_once);
	return p;
}

/* The head a lazy load defers (pol_head_make) is made as it would have been at once,
 * in the same order under the same IDs: each ID is found at the same index before
 * anything is made, every field of every rule is the same once made, and decisions
 * that read them (a path decision on dcg's own files, a refusal by a built-in, each
 * first thing after the load and after an allowed command) name the same rule. */
Test(snapshot, deferred_head_rules_are_made_as_at_once)
{
	static const char *const ids[] = {
	    "shell.parse.unterminated",
	    "system.fork_bomb",
	    "input.invalid",
	    "shell.analysis_failed",
	    "dcg.self.config",
	    "dcg.self.state",
	    "dcg.self.log",
	    "dcg.self.log_rotated",
	    "dcg.self.system",
	};
	static const struct {
		const char *path; /* under the home */
		enum pol_op op;
	} paths[] = {
	    {"/cfg/dcg/policy.yaml", POL_OP_WRITE},
	    {"/state/trust.json", POL_OP_WRITE},
	    {"/state/other", POL_OP_DELETE},
	    {"/xstate/dcg/allow-once", POL_OP_CREATE},
	    {"/.config/dcg/policy.yaml", POL_OP_WRITE},
	    {"/.local/state/dcg/other", POL_OP_DELETE},
	    {"/log/audit.jsonl", POL_OP_WRITE},
	    {"/log/audit.jsonl.1", POL_OP_DELETE},
	    {"/etc/policy.yaml", POL_OP_WRITE},
	    {"/.ssh/id_rsa", POL_OP_READ},
	    {"/notes.txt", POL_OP_WRITE},
	};
	static const char *const cmds[] = {
	    "echo \"unterminated",
	    ":(){ :|:& };:",
	    "git reset --hard",
	    "ls -la",
	    "echo x > ~/cfg/dcg/policy.yaml",
	    "rm -rf ~/log",
	    "cp a ~/state/trust.json",
	};
	struct pol_policy *now = layered_load(1), *p = layered_load(0);

	cr_assert_eq(p->n_rules, now->n_rules);
	for (size_t k = 0; k < sizeof(ids) / sizeof(ids[0]); k++) {
		cr_expect_geq(pol_rule_find(now, ids[k]), 0, "%s", ids[k]);
		cr_expect_eq(pol_rule_find(p, ids[k]), pol_rule_find(now, ids[k]), "%s", ids[k]);
	}
	cr_expect_lt(pol_rule_find(p, "dcg.self.nothing"), 0);
	cr_expect_not_null(p->head_pend, "a lookup made the head");
	for (int after_allowed = 0; after_allowed < 2; after_allowed++) {
		for (size_t k = 0; k < sizeof(paths) / sizeof(paths[0]); k++) {
			struct pol_policy *q = layered_load(0);
			struct pol_result ra, rb;
			char path[PATH_MAX];

			if (after_allowed) {
				pol_check_command(q, "git status", 10, NULL, &ra);
				cr_expect_eq(ra.decision, POL_ALLOW);
				pol_result_release(&ra);
				cr_expect_not_null(q->head_pend,
						   "an allowed command made the head");
			}
			snprintf(path, sizeof(path), "%s%s", home, paths[k].path);
			pol_check_path(now, path, paths[k].op, 0, NULL, &ra);
			pol_check_path(q, path, paths[k].op, 0, NULL, &rb);
			expect_same(&ra, &rb, path);
			cr_expect(same_str(ra.reason, rb.reason), "%s: reason", path);
			pol_result_release(&ra);
			pol_result_release(&rb);
			pol_free(q);
		}
		for (size_t k = 0; k < sizeof(cmds) / sizeof(cmds[0]); k++) {
			struct pol_policy *q = layered_load(0);
			struct pol_result ra, rb;

			if (after_allowed) {
				pol_check_command(q, "git status", 10, NULL, &ra);
				pol_result_release(&ra);
			}
			pol_check_command(now, cmds[k], strlen(cmds[k]), NULL, &ra);
			pol_check_command(q, cmds[k], strlen(cmds[k]), NULL, &rb);
			expect_same(&ra, &rb, cmds[k]);
			cr_expect(same_str(ra.reason, rb.reason), "%s: reason", cmds[k]);
			cr_expect_eq(ra.n_suggestions, rb.n_suggestions, "%s", cmds[k]);
			for (size_t s = 0; s < ra.n_suggestions && s < rb.n_suggestions; s++)
				cr_expect(same_str(ra.suggestions[s], rb.suggestions[s]), "%s",
					  cmds[k]);
			pol_result_release(&ra);
			pol_result_release(&rb);
			pol_free(q);
		}
	}
	/* the refusals above name dcg's own rules and built-ins, not only allow */
	struct pol_result r;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/state/trust.json", home);
	pol_check_path(p, path, POL_OP_WRITE, 0, NULL, &r);
	cr_expect(r.decision == POL_DENY && same_str(r.rule_id, "dcg.self.trust"), "%s",
		  r.rule_id ? r.rule_id : "-");
	pol_result_release(&r);
	pol_check_command(p, "echo \"x", 7, NULL, &r);
	cr_expect(r.decision == POL_DENY && same_str(r.rule_id, "shell.parse.unterminated"));
	pol_result_release(&r);
	pol_free(now);
	pol_free(p);
	/* every field, once made, of two loads that decided nothing */
	now = layered_load(1);
	p = layered_load(0);
	pol_prepare(now);
	pol_prepare(p);
	cr_expect_null(p->head_pend);
	expect_same_rules(p, now);
	pol_free(now);
	pol_free(p);
}

/* A sealed image's regex codes are attached at the first regex decoded, not at load:
 * the decision is the same, and a count that does not hold then leaves the rules to
 * compile their patterns, as a rule without a code does. */
Test(snapshot, sealed_image_codes_attach_at_the_first_regex)
{
	size_t len = (size_t)(pol_embedded_snapshot_end - pol_embedded_snapshot) - 1;
	size_t ilen = (size_t)(pol_embedded_rules_end - pol_embedded_rules);
	char *copy = malloc(ilen);

	cr_assert_not_null(copy);
	for (int bad = 0; bad < 2; bad++) {
		struct pol_policy *p = pol_new(POL_LOAD_LAZY);
		struct pol_result r;

		cr_assert_not_null(p);
		memcpy(copy, pol_embedded_rules, ilen);
		if (bad)
			copy[52] ^= 0x40; /* another count of codes, still marked sealed */
		cr_assert_eq(pol_snapshot_load_sealed(p, pol_embedded_snapshot, len, copy, ilen),
			     0);
		cr_expect_null(p->codes_blob, "attached at load");
		pol_check_command(p, "git status", 10, NULL, &r);
		cr_expect_eq(r.decision, POL_ALLOW);
		pol_result_release(&r);
		pol_check_command(p, "git reset --hard", 16, NULL, &r);
		cr_expect(r.decision == POL_DENY && same_str(r.rule_id, "core.git.reset_hard"),
			  "%s", r.rule_id ? r.rule_id : "-");
		pol_result_release(&r);
		if (bad)
			cr_expect_null(p->codes_blob, "a count that does not hold attached codes");
		else
			cr_expect_not_null(p->codes_blob, "not attached at the first regex");
		pol_free(p);
	}
	free(copy);
}

#if !defined(__SANITIZE_ADDRESS__)
/* ---- allocation failures after a lazy load -------------------------------------------
 * malloc, calloc, realloc, strdup and strndup of this test binary fail at the chosen
 * call while armed; the sanitizers have their own. */
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static int oom_armed;
static long oom_calls, oom_fail_at = -1;

static int oom_now(void)
{
	return oom_armed && oom_calls++ == oom_fail_at;
}

void *malloc(size_t n)
{
	return oom_now() ? NULL : __libc_malloc(n);
}

void *calloc(size_t a, size_t n)
{
	return oom_now() ? NULL : __libc_calloc(a, n);
}

void *realloc(void *p, size_t n)
{
	return oom_now() ? NULL : __libc_realloc(p, n);
}

/* glibc's own allocate without the calls above */
char *strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	return d ? memcpy(d, s, n) : NULL;
}

char *strndup(const char *s, size_t max)
{
	size_t n = strnlen(s, max);
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* The decisions a lazy load defers work to (dcg's own rules and the built-ins made, the
 * path rules expanded and resolved through the memo, the path index, a rule's record
 * and its pool, a regex code), each first thing after the load: a failed allocation at
 * any point of them never lets a refused call through. */
Test(snapshot, allocation_failures_after_a_lazy_load_never_allow)
{
	static const char *const cmds[] = {"git reset --hard", "cat ~/.ssh/id_rsa",
					   "echo \"unterminated"};
	static const struct {
		const char *path; /* under the home */
		enum pol_op op;
	} paths[] = {
	    {"/.ssh/id_rsa", POL_OP_READ},
	    {"/state/trust.json", POL_OP_WRITE},
	    {"/.bashrc", POL_OP_WRITE},
	};
	long total = -1;

	for (long at = -1; total < 0 || at < total; at++) {
		for (size_t k = 0; k < 3 + 3; k++) {
			struct pol_policy *p = layered_load(0);
			struct pol_result r;
			char path[PATH_MAX];

			oom_calls = 0;
			oom_fail_at = at;
			oom_armed = 1;
			if (k < 3) {
				pol_check_command(p, cmds[k], strlen(cmds[k]), NULL, &r);
			} else {
				snprintf(path, sizeof(path), "%s%s", home, paths[k - 3].path);
				pol_check_path(p, path, paths[k - 3].op, 0, NULL, &r);
			}
			oom_armed = 0;
			if (at < 0 && oom_calls > total)
				total = oom_calls; /* the most allocations one of them makes */
			cr_expect(r.decision == POL_DENY, "%s: allocation %ld failed: %s (%s)",
				  k < 3 ? cmds[k] : paths[k - 3].path, at,
				  pol_decision_name(r.decision), r.rule_id ? r.rule_id : "-");
			pol_result_release(&r);
			pol_free(p);
		}
	}
	cr_expect_gt(total, 10, "the decisions allocated almost nothing: %ld", total);
}
#endif
