/* test_paths.c - path rules: the glob and path tables (tests/data/policy/globs.tsv and
 * paths.tsv), then the tricks that need a real file system: symlinks in the middle of
 * a path, symlinks into a protected tree, dangling links, missing tails, directory file
 * descriptors. Every case runs in a fresh temporary folder holding home/ and proj/. */
#include "dcg_policy.h"
#include "internal.h" /* pol_path_resolve_memo */

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA "tests/data/policy/"

#define TMP_TAG "paths"
#include "tmp_home.h"

TestSuite(paths, .init = setup, .fini = teardown, .timeout = 60);

/* ---- helpers --------------------------------------------------------------------- */

static const char *const list_keys[] = {"zeroAccessPaths", "readOnlyPaths", "noDeletePaths"};

static int list_index(const char *s, size_t n)
{
	static const char *const short_names[] = {"za", "ro", "nd"};

	for (int i = 0; i < 3; i++)
		if (strlen(short_names[i]) == n && strncmp(s, short_names[i], n) == 0)
			return i;
	return -1;
}

/* A policy with home and root set, loaded from a YAML text. */
static struct pol_policy *policy_from(const char *yaml)
{
	struct pol_policy *p = pol_new(0);

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, home), 0);
	cr_assert_eq(pol_set_root(p, root), 0);
	cr_assert_eq(pol_load_buffer(p, "paths-test", yaml, strlen(yaml)), 0, "%s", yaml);
	cr_assert_eq(pol_diag_count(p), 0, "%s: %s", yaml,
		     pol_diag_count(p) ? pol_diag_get(p, 0)->msg : "");
	return p;
}

static enum pol_decision check(const struct pol_policy *p, const char *path, enum pol_op op,
			       unsigned flags, struct pol_result *r)
{
	struct pol_ctx ctx = {.cwd = root};

	return pol_check_path(p, path, op, flags, &ctx, r);
}

static int op_parse(const char *s, enum pol_op *op)
{
	static const char *const names[] = {"read",   "write",	     "create",	  "truncate",
					    "delete", "rename_from", "rename_to", "chmod",
					    "exec",   "list",	     "link_from"};

	for (int i = 0; i < POL_OP__COUNT; i++)
		if (strcmp(s, names[i]) == 0) {
			*op = (enum pol_op)i;
			return 0;
		}
	return -1;
}

/* Splits a line at runs of tabs; returns the field count. */
static size_t split_tabs(char *line, char **f, size_t max)
{
	size_t n = 0;
	char *s = line;

	while (*s && n < max) {
		f[n++] = s;
		while (*s && *s != '\t')
			s++;
		if (!*s)
			break;
		while (*s == '\t')
			*s++ = '\0';
	}
	return n;
}

static FILE *open_table(const char *name)
{
	FILE *f = fopen(name, "r");

	cr_assert_not_null(f, "%s: %s (tests run from the repository root)", name, strerror(errno));
	return f;
}

/* ---- the tables -------------------------------------------------------------------- */

Test(paths, glob_table)
{
	FILE *f = open_table(DATA "globs.tsv");
	char line[1024];
	unsigned lineno = 0, cases = 0;

	while (fgets(line, sizeof(line), f)) {
		char *fld[4];

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		cr_assert_eq(split_tabs(line, fld, 4), 3, "globs.tsv:%u: three fields", lineno);
		int want = fld[2][0] == '1';
		int got = pol_glob_match(fld[0], fld[1]);
		cr_expect_eq(got, want, "globs.tsv:%u: '%s' vs '%s': %d, want %d", lineno, fld[0],
			     fld[1], got, want);
		cases++;
	}
	fclose(f);
	cr_log_info("globs.tsv: %u cases", cases);
	cr_expect_geq(cases, 30);
}

static void mkpath(const char *fmt_dir)
{
	char cmd[PATH_MAX + 32];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", fmt_dir);
	cr_assert_eq(system(cmd), 0);
}

Test(paths, path_rule_table)
{
	FILE *f = open_table(DATA "paths.tsv");
	char line[2048], keep[PATH_MAX];
	unsigned lineno = 0, cases = 0;

	/* a protected folder that is there: deleting what holds it deletes it */
	snprintf(keep, sizeof(keep), "%s/keep/data", root);
	mkpath(keep);
	while (fgets(line, sizeof(line), f)) {
		char *fld[7], yaml[8192], pats[2048], path[PATH_MAX];
		enum pol_op op;
		unsigned flags = 0;
		int list;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		cr_assert_eq(split_tabs(line, fld, 7), 6, "paths.tsv:%u: six fields", lineno);
		list = list_index(fld[0], strlen(fld[0]));
		cr_assert_geq(list, 0, "paths.tsv:%u: list '%s'", lineno, fld[0]);
		cr_assert_eq(op_parse(fld[2], &op), 0, "paths.tsv:%u: op '%s'", lineno, fld[2]);
		if (strstr(fld[3], "nofollow"))
			flags |= POL_PATH_NOFOLLOW;
		if (strstr(fld[3], "dir"))
			flags |= POL_PATH_IS_DIR;
		if (strstr(fld[3], "excl"))
			flags |= POL_PATH_CREATE_EXCL;
		if (strstr(fld[3], "session"))
			flags |= POL_PATH_SESSION_NEW;

		/* One YAML list per kind; within a list the patterns keep their order. */
		char items[3][2048] = {"", "", ""};
		size_t il[3] = {0, 0, 0}, y = 0;
		tmp_expand(fld[1], pats, sizeof(pats));
		for (char *tok = pats, *end; *tok; tok = end) {
			int l = list;
			while (*tok == ' ')
				tok++;
			if (!*tok)
				break;
			end = tok + strcspn(tok, " ");
			if (end - tok > 3 && tok[2] == ':' && list_index(tok, 2) >= 0) {
				l = list_index(tok, 2);
				tok += 3;
			}
			il[l] += (size_t)snprintf(items[l] + il[l], sizeof(items[l]) - il[l],
						  "  - '%.*s'\n", (int)(end - tok), tok);
			cr_assert_lt(il[l], sizeof(items[l]));
		}
		for (int l = 0; l < 3; l++)
			if (il[l])
				y += (size_t)snprintf(yaml + y, sizeof(yaml) - y, "%s:\n%s",
						      list_keys[l], items[l]);
		cr_assert_lt(y, sizeof(yaml));
		struct pol_policy *p = pol_new(0);
		cr_assert_not_null(p);
		pol_set_home(p, home);
		pol_set_root(p, root);
		cr_assert_eq(pol_load_buffer(p, "paths.tsv", yaml, y), 0);
		cr_expect_eq(pol_diag_count(p), 0, "paths.tsv:%u: %s", lineno,
			     pol_diag_count(p) ? pol_diag_get(p, 0)->msg : "");

		struct pol_result r;
		enum pol_decision want = strcmp(fld[5], "deny") == 0 ? POL_DENY : POL_ALLOW;
		tmp_expand(fld[4], path, sizeof(path));
		enum pol_decision got = check(p, path, op, flags, &r);
		cr_expect_eq(got, want, "paths.tsv:%u: %s [%s] %s %s: %s, want %s (rule %s)",
			     lineno, fld[0], fld[1], fld[2], fld[4], pol_decision_name(got),
			     pol_decision_name(want), r.rule_id ? r.rule_id : "none");
		if (got == POL_DENY) {
			cr_expect_eq(r.detection, POL_DET_PATH, "paths.tsv:%u", lineno);
			cr_expect_eq(r.op, op, "paths.tsv:%u", lineno);
			cr_expect_not_null(r.rule_id, "paths.tsv:%u", lineno);
		}
		pol_result_release(&r);
		pol_free(p);
		cases++;
	}
	fclose(f);
	cr_log_info("paths.tsv: %u cases", cases);
	cr_expect_geq(cases, 80);
}

/* ---- real symlinks ------------------------------------------------------------------ */

static void touch(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT, 0600);

	cr_assert_geq(fd, 0, "%s: %s", path, strerror(errno));
	close(fd);
}

static void link_to(const char *target, const char *linkpath)
{
	cr_assert_eq(symlink(target, linkpath), 0, "%s -> %s: %s", linkpath, target,
		     strerror(errno));
}

/* $H/.ssh/id_rsa exists, ~/.ssh/ is zero-access. */
static struct pol_policy *ssh_policy(void)
{
	char b[PATH_MAX];

	snprintf(b, sizeof(b), "%s/.ssh", home);
	mkpath(b);
	snprintf(b, sizeof(b), "%s/.ssh/id_rsa", home);
	touch(b);
	return policy_from("zeroAccessPaths: [~/.ssh/]\n");
}

/* The decision on path (reported with its rule when DCG_TEST_VERBOSE is set). */
static enum pol_decision path_decision(const struct pol_policy *p, const char *path, enum pol_op op,
				       unsigned flags)
{
	struct pol_result r;
	enum pol_decision got = check(p, path, op, flags, &r);

	if (getenv("DCG_TEST_VERBOSE"))
		cr_log_info("%s %s: %s (rule %s, path %s)", pol_op_name(op), path,
			    pol_decision_name(got), r.rule_id ? r.rule_id : "none", r.path);
	pol_result_release(&r);
	return got;
}

Test(paths, symlink_in_the_middle_of_a_path_is_resolved)
{
	struct pol_policy *p = ssh_policy();
	char ln[PATH_MAX], b[PATH_MAX];

	snprintf(ln, sizeof(ln), "%s/keys", root);
	snprintf(b, sizeof(b), "%s/.ssh", home);
	link_to(b, ln);
	snprintf(b, sizeof(b), "%s/keys/id_rsa", root);
	cr_expect_eq(path_decision(p, b, POL_OP_READ, 0), POL_DENY, "%s", b);
	cr_expect_eq(path_decision(p, "keys/id_rsa", POL_OP_READ, 0), POL_DENY, "%s",
		     "keys/id_rsa");
	pol_free(p);
}

Test(paths, symlink_pointing_into_a_protected_tree_is_refused)
{
	struct pol_policy *p = ssh_policy();
	char ln[PATH_MAX], b[PATH_MAX];
	struct pol_result r;

	snprintf(ln, sizeof(ln), "%s/innocent.txt", root);
	snprintf(b, sizeof(b), "%s/.ssh/id_rsa", home);
	link_to(b, ln);
	cr_expect_eq(check(p, ln, POL_OP_READ, 0, &r), POL_DENY);
	cr_expect_str_eq(r.path, b, "the result names the resolved path");
	cr_expect_eq(r.path_kind, POL_PATH_ZERO_ACCESS);
	pol_result_release(&r);
	/* Removing the link itself does not touch the target. */
	cr_expect_eq(path_decision(p, ln, POL_OP_DELETE, POL_PATH_NOFOLLOW), POL_ALLOW, "%s", ln);
	pol_free(p);
}

Test(paths, relative_symlink_into_a_protected_tree_is_refused)
{
	struct pol_policy *p = ssh_policy();
	char ln[PATH_MAX];

	snprintf(ln, sizeof(ln), "%s/rel", root);
	link_to("../home/.ssh", ln);
	cr_expect_eq(path_decision(p, "rel/id_rsa", POL_OP_READ, 0), POL_DENY, "%s", "rel/id_rsa");
	cr_expect_eq(path_decision(p, "rel/new_key", POL_OP_CREATE, 0), POL_DENY, "%s",
		     "rel/new_key");
	pol_free(p);
}

Test(paths, chain_of_symlinks_is_followed)
{
	struct pol_policy *p = ssh_policy();
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX];

	snprintf(a, sizeof(a), "%s/a", root);
	snprintf(b, sizeof(b), "%s/b", root);
	snprintf(c, sizeof(c), "%s/.ssh", home);
	link_to(c, b);
	link_to("b", a);
	snprintf(c, sizeof(c), "%s/a/id_rsa", root);
	cr_expect_eq(path_decision(p, c, POL_OP_READ, 0), POL_DENY, "%s", c);
	pol_free(p);
}

Test(paths, dotdot_after_a_symlink_walks_the_real_parent)
{
	/* $R/ln -> $T/deep/a; $R/ln/../secret is $T/deep/secret for the kernel, not $R/secret */
	char b[PATH_MAX], ln[PATH_MAX], y[PATH_MAX + 64];
	struct pol_policy *p;

	snprintf(b, sizeof(b), "%s/../deep/a", root);
	mkpath(b);
	snprintf(y, sizeof(y), "zeroAccessPaths: ['%s/../deep/secret']\n", root);
	p = policy_from(y);
	snprintf(ln, sizeof(ln), "%s/ln", root);
	link_to(b, ln);
	snprintf(b, sizeof(b), "%s/ln/../secret", root);
	cr_expect_eq(path_decision(p, b, POL_OP_READ, 0), POL_DENY, "%s", b);
	pol_free(p);
}

Test(paths, missing_tail_resolves_through_its_nearest_existing_parent)
{
	struct pol_policy *p = ssh_policy();
	char ln[PATH_MAX], b[PATH_MAX];

	snprintf(ln, sizeof(ln), "%s/l2", root);
	snprintf(b, sizeof(b), "%s/.ssh", home);
	link_to(b, ln);
	snprintf(b, sizeof(b), "%s/l2/not/yet/there", root);
	cr_expect_eq(path_decision(p, b, POL_OP_CREATE, 0), POL_DENY, "%s", b);
	snprintf(b, sizeof(b), "%s/l2/new_key", root);
	cr_expect_eq(path_decision(p, b, POL_OP_CREATE, 0), POL_DENY, "%s", b);
	pol_free(p);
}

Test(paths, dangling_symlink_into_a_protected_tree_is_refused_for_create)
{
	struct pol_policy *p = ssh_policy();
	char ln[PATH_MAX], b[PATH_MAX];

	snprintf(ln, sizeof(ln), "%s/dangling", root);
	snprintf(b, sizeof(b), "%s/.ssh/authorized_keys", home);
	link_to(b, ln);
	/* open(O_CREAT) follows the link and creates the target. */
	cr_expect_eq(path_decision(p, ln, POL_OP_CREATE, 0), POL_DENY, "%s", ln);
	cr_expect_eq(path_decision(p, ln, POL_OP_WRITE, 0), POL_DENY, "%s", ln);
	pol_free(p);
}

Test(paths, rule_naming_a_symlink_covers_the_real_folder)
{
	char real[1100], ln[1100], b[PATH_MAX];
	struct pol_policy *p;

	snprintf(real, sizeof(real), "%s/real-secrets", root);
	mkpath(real);
	snprintf(ln, sizeof(ln), "%s/secrets", home);
	link_to(real, ln);
	p = policy_from("zeroAccessPaths: [~/secrets/]\n");
	snprintf(b, sizeof(b), "%s/token", real);
	cr_expect_eq(path_decision(p, b, POL_OP_READ, 0), POL_DENY, "%s", b);
	snprintf(b, sizeof(b), "%s/token", ln);
	cr_expect_eq(path_decision(p, b, POL_OP_READ, 0), POL_DENY, "%s", b);
	pol_free(p);
}

Test(paths, wildcard_rule_under_a_symlinked_folder_covers_the_real_folder)
{
	char real[1100], ln[1100], b[PATH_MAX];
	struct pol_policy *p;

	snprintf(real, sizeof(real), "%s/vault-real/sub", root);
	mkpath(real);
	snprintf(real, sizeof(real), "%s/vault-real", root);
	snprintf(ln, sizeof(ln), "%s/vault", home);
	link_to(real, ln);
	p = policy_from("zeroAccessPaths: ['~/vault/*.key', '~/vault/**/*.pem']\n"
			"noDeletePaths: ['~/vault/keep.txt']\n");
	snprintf(b, sizeof(b), "%s/a.key", real);
	cr_expect_eq(path_decision(p, b, POL_OP_READ, 0), POL_DENY, "%s", b);
	snprintf(b, sizeof(b), "%s/sub/a.key", real);
	cr_expect_eq(path_decision(p, b, POL_OP_READ, 0), POL_ALLOW, "%s", b);
	snprintf(b, sizeof(b), "%s/sub/deep/c.pem", real);
	cr_expect_eq(path_decision(p, b, POL_OP_READ, 0), POL_DENY, "%s", b);
	snprintf(b, sizeof(b), "%s/keep.txt", real);
	cr_expect_eq(path_decision(p, b, POL_OP_DELETE, 0), POL_DENY, "%s", b);
	snprintf(b, sizeof(b), "%s/keep.txt", ln);
	cr_expect_eq(path_decision(p, b, POL_OP_DELETE, POL_PATH_NOFOLLOW), POL_DENY, "%s", b);
	pol_free(p);
}

Test(paths, symlink_loop_does_not_hang_or_crash)
{
	struct pol_policy *p = ssh_policy();
	char a[PATH_MAX], b[PATH_MAX];
	struct pol_result r;

	snprintf(a, sizeof(a), "%s/loop-a", root);
	snprintf(b, sizeof(b), "%s/loop-b", root);
	link_to(b, a);
	link_to(a, b);
	snprintf(b, sizeof(b), "%s/loop-a/x", root);
	enum pol_decision d = check(p, b, POL_OP_READ, 0, &r);
	/* The kernel answers ELOOP to such a path; the policy, which cannot resolve it,
	 * fails closed with an input rule rather than guessing. */
	cr_expect_eq(d, POL_DENY);
	cr_expect(r.rule_id && strncmp(r.rule_id, "input.", 6) == 0, "rule %s",
		  r.rule_id ? r.rule_id : "none");
	pol_result_release(&r);
	pol_free(p);
}

Test(paths, nofollow_leaves_the_last_component_unresolved_but_not_the_middle)
{
	struct pol_policy *p = ssh_policy();
	char ln[PATH_MAX], b[PATH_MAX];

	snprintf(ln, sizeof(ln), "%s/mid", root);
	snprintf(b, sizeof(b), "%s/.ssh", home);
	link_to(b, ln);
	snprintf(b, sizeof(b), "%s/mid/id_rsa", root);
	cr_expect_eq(path_decision(p, b, POL_OP_DELETE, POL_PATH_NOFOLLOW), POL_DENY, "%s", b);
	pol_free(p);
}

Test(paths, symlinked_working_directory_is_resolved)
{
	struct pol_policy *p = ssh_policy();
	char ln[PATH_MAX], b[PATH_MAX];
	struct pol_ctx ctx = {0};
	struct pol_result r;

	snprintf(ln, sizeof(ln), "%s/cwdlink", root);
	snprintf(b, sizeof(b), "%s/.ssh", home);
	link_to(b, ln);
	ctx.cwd = ln;
	cr_expect_eq(pol_check_path(p, "id_rsa", POL_OP_READ, 0, &ctx, &r), POL_DENY);
	pol_result_release(&r);
	pol_free(p);
}

Test(paths, pol_path_resolve_on_real_links)
{
	char ln[PATH_MAX], b[PATH_MAX], out[PATH_MAX], want[PATH_MAX];

	snprintf(b, sizeof(b), "%s/d1/d2", root);
	mkpath(b);
	snprintf(ln, sizeof(ln), "%s/l", home);
	link_to("../proj/d1", ln);
	snprintf(b, sizeof(b), "%s/l/d2/missing/file", home);
	cr_assert_eq(pol_path_resolve(b, 0, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/d1/d2/missing/file", root);
	cr_expect_str_eq(out, want);
	/* nofollow on the link itself */
	cr_assert_eq(pol_path_resolve(ln, 1, out, sizeof(out)), 0);
	cr_expect_str_eq(out, ln);
	cr_assert_eq(pol_path_resolve(ln, 0, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/d1", root);
	cr_expect_str_eq(out, want);
	cr_expect_eq(pol_path_resolve("relative", 0, out, sizeof(out)), -EINVAL);
	cr_expect_lt(pol_path_resolve(b, 0, out, 8), 0, "too small a buffer is an error");
}

/* The links both walks below are asked about: root/d1/d2; in the home, abs (absolute,
 * to root/d1), l (relative, to ../proj/d1), loop (to itself) and f (a file). */
static void link_tree(void)
{
	char b[PATH_MAX], ln[PATH_MAX];

	snprintf(b, sizeof(b), "%s/d1/d2", root);
	mkpath(b);
	snprintf(ln, sizeof(ln), "%s/d1", root);
	snprintf(b, sizeof(b), "%s/abs", home);
	link_to(ln, b);
	snprintf(b, sizeof(b), "%s/l", home);
	link_to("../proj/d1", b);
	snprintf(b, sizeof(b), "%s/loop", home);
	link_to("loop", b);
	snprintf(b, sizeof(b), "%s/f", home);
	touch(b);
}

/* One pass's memo (pol_paths_ready) answers as readlink() would: links in the middle,
 * relative and absolute, a missing tail, a file where a folder should be, "..", each
 * asked again after others, before and after it lists the home, and more folders than
 * the memo holds. */
Test(paths, resolve_memo_answers_as_readlink_does)
{
	static const char *const tails[] = {
	    "/l/d2/x",	     "/l/d2/x/y/z", "/abs/d2/x", "/f/inside", "/missing/a/b",
	    "/l/d2/../d2/x", "/l/d2/x",	    "/f/inside", "/abs/d2",   "/d1/d2",
	    "/missing/a",    "/l",	    "/loop/a/b", "/abs/d2/x", "/l/d2/x/y",
	};
	char b[PATH_MAX], want[PATH_MAX], got[PATH_MAX];
	struct pol_resolve_memo *m = pol_resolve_memo_new(), *m1 = pol_resolve_memo_new();

	cr_assert(m && m1);
	/* m1 lists the home at the first of its entries asked about */
	pol_resolve_memo_list_first(m1, home);
	link_tree();
	/* more of the home's entries asked about than the memo asks one by one: it lists
	 * the home (folders, files, the links above, names it does not hold) */
	for (int k = 0; k < 12; k++) {
		snprintf(b, sizeof(b), "%s/e%d/sub", home, k);
		if (k % 3 == 0)
			mkpath(b);
		else if (k % 3 == 1) {
			snprintf(b, sizeof(b), "%s/e%d", home, k);
			touch(b);
		}
	}
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]) + 12; i++) {
			char tail[32];

			if (i >= sizeof(tails) / sizeof(tails[0]))
				snprintf(tail, sizeof(tail), "/e%zu/sub/x",
					 i - sizeof(tails) / sizeof(tails[0]));
			else
				snprintf(tail, sizeof(tail), "%s", tails[i]);
			int rw, rg;

			snprintf(b, sizeof(b), "%s%s", home, tail);
			rw = pol_path_resolve(b, 0, want, sizeof(want));
			rg = pol_path_resolve_memo(b, 0, got, sizeof(got), m);
			cr_expect_eq(rg, rw, "%s: %d, not %d", b, rg, rw);
			if (rw == 0 && rg == 0)
				cr_expect_str_eq(got, want, "%s", b);
			rg = pol_path_resolve_memo(b, 0, got, sizeof(got), m1);
			cr_expect_eq(rg, rw, "%s (listed first): %d, not %d", b, rg, rw);
			if (rw == 0 && rg == 0)
				cr_expect_str_eq(got, want, "%s (listed first)", b);
		}
	/* a full memo asks readlink() again: the same answers */
	for (int k = 0; k < 600; k++) {
		snprintf(b, sizeof(b), "%s/d1/d2/n%d/x", root, k);
		cr_assert_eq(pol_path_resolve_memo(b, 0, got, sizeof(got), m), 0);
		cr_expect_str_eq(got, b);
	}
	snprintf(b, sizeof(b), "%s/l/d2/x", home);
	snprintf(want, sizeof(want), "%s/d1/d2/x", root);
	cr_assert_eq(pol_path_resolve_memo(b, 0, got, sizeof(got), m), 0);
	cr_expect_str_eq(got, want);
	pol_resolve_memo_free(m);
	pol_resolve_memo_free(m1);
	pol_resolve_memo_free(NULL);
}

/* The walk reads its input in place and a link's target into the room past what it has
 * resolved, then goes on from the first link with buffers of its own (glob.c); a walk
 * whose input is its output copies the input first. Both answer alike: links first,
 * in the middle and last, relative and absolute, chains, "..", missing tails, a loop,
 * targets that fill or overflow the room, with and without nofollow, for outputs of
 * every size from too small to PATH_MAX, and through a memo. */
Test(paths, walk_in_place_answers_as_a_walk_of_a_copy)
{
	static const char *const tails[] = {
	    "/l/d2/x",	 "/abs/d2/x", "/chain/x",  "/l/d2/../d2/x", "/l/..",  "/missing/a/b",
	    "/f/inside", "/loop/a",   "/l",	   "/abs",	    "/d1/d2", "/big/x",
	    "/huge/x",	 "/rel/./d2", "/viabig/x", "/viahuge/x",
	};
	char b[PATH_MAX], tgt[PATH_MAX], want[PATH_MAX], got[PATH_MAX + 16];
	size_t o = 0;

	link_tree();
	snprintf(b, sizeof(b), "%s/chain", home);
	link_to("l/d2", b);
	snprintf(b, sizeof(b), "%s/rel", home);
	link_to("./l", b);
	/* a link to each long one: its target read after a first link */
	snprintf(b, sizeof(b), "%s/viabig", home);
	link_to("big", b);
	snprintf(b, sizeof(b), "%s/viahuge", home);
	link_to("huge", b);
	/* targets of about 3,000 and 4,090 bytes, ending in d2: the first fits the room, the
	 * second not */
	for (size_t want_len = 3000; want_len <= 4090; want_len += 1090) {
		o = (size_t)snprintf(tgt, sizeof(tgt), "%s/d1", root);
		while (o + 5 < want_len) {
			tgt[o++] = '/';
			tgt[o++] = '.';
		}
		memcpy(tgt + o, "/d2", 4); /* a target cut short leads elsewhere */
		snprintf(b, sizeof(b), "%s/%s", home, want_len == 3000 ? "big" : "huge");
		link_to(tgt, b);
	}
	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++)
		for (int nofollow = 0; nofollow < 2; nofollow++)
			for (size_t size = 8; size <= PATH_MAX; size += size < 256 ? 7 : 977) {
				struct pol_resolve_memo *m = pol_resolve_memo_new();
				int rw, rg, rm;
				size_t sz = size > PATH_MAX - 2 ? PATH_MAX : size;

				snprintf(b, sizeof(b), "%s%s", home, tails[i]);
				memcpy(want, b, strlen(b) + 1);
				/* its input as its output: the walk of a copy */
				rw = pol_path_resolve(want, nofollow, want, sz);
				memset(got, 'x', sizeof(got));
				rg = pol_path_resolve(b, nofollow, got, sz);
				cr_expect_eq(rg, rw, "%s (%zu, %d): %d, not %d", b, sz, nofollow,
					     rg, rw);
				if (rw == 0 && rg == 0)
					cr_expect_str_eq(got, want, "%s (%zu)", b, sz);
				cr_expect_eq(got[sz], 'x', "%s: nothing past %zu bytes", b, sz);
				rm = pol_path_resolve_memo(b, nofollow, got, sz, m);
				cr_expect_eq(rm, rw, "%s (%zu, memo): %d, not %d", b, sz, rm, rw);
				if (rw == 0 && rm == 0)
					cr_expect_str_eq(got, want, "%s (%zu, memo)", b, sz);
				pol_resolve_memo_free(m);
			}
	/* and where they lead is right: the long targets read whole, not cut short */
	static const char *const longs[] = {"/big/x", "/huge/x", "/viabig/x", "/viahuge/x"};
	snprintf(want, sizeof(want), "%s/d1/d2/x", root);
	for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); i++)
		for (int copy = 0; copy < 2; copy++) {
			snprintf(b, sizeof(b), "%s%s", home, longs[i]);
			cr_assert_eq(pol_path_resolve(b, 0, copy ? b : got, PATH_MAX), 0, "%s", b);
			cr_expect_str_eq(copy ? b : got, want, "%s (%d)", longs[i], copy);
		}
}

/* The path index (only the filled buckets, by rank) decides as trying every rule: for
 * paths made from each embedded path rule's own pattern, each operation. */
Test(paths, path_index_decides_as_every_rule)
{
	static const enum pol_op ops[] = {POL_OP_READ, POL_OP_WRITE, POL_OP_DELETE};
	static const char *const tails[] = {"", "x", "/x", "/a/b.pem", ".env", "/.git/config"};
	struct pol_policy *p = pol_new(POL_LOAD_LAZY);
	size_t tried = 0, refused = 0;

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, home) | pol_set_root(p, root), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	pol_paths_ready(p);
	cr_assert_not_null(p->buckets);
	for (size_t i = 0; i < p->n_path_rules; i++) {
		const struct pol_rule *r = &p->rule_tab[p->path_rules[i]];
		char base[PATH_MAX];

		if (!r->path.glob)
			continue;
		if (r->path.basename_only)
			snprintf(base, sizeof(base), "%s/proj/%.*s", home, (int)r->path.literal_len,
				 r->path.glob);
		else
			snprintf(base, sizeof(base), "%.*s", (int)r->path.literal_len,
				 r->path.glob);
		for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++)
			for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
				struct pol_path_buckets *x = p->buckets;
				struct pol_result ra, rb;
				char path[PATH_MAX];

				snprintf(path, sizeof(path), "%s%s", base, tails[t]);
				if (path[0] != '/')
					continue;
				pol_check_path(p, path, ops[o], 0, NULL, &ra);
				p->buckets = NULL; /* every rule tried */
				pol_check_path(p, path, ops[o], 0, NULL, &rb);
				p->buckets = x;
				cr_expect_eq(ra.decision, rb.decision, "%s %s", pol_op_name(ops[o]),
					     path);
				cr_expect(!ra.rule_id == !rb.rule_id &&
					      (!ra.rule_id || !strcmp(ra.rule_id, rb.rule_id)),
					  "%s %s: %s vs %s", pol_op_name(ops[o]), path,
					  ra.rule_id ? ra.rule_id : "-",
					  rb.rule_id ? rb.rule_id : "-");
				tried++;
				refused += ra.decision == POL_DENY;
				pol_result_release(&ra);
				pol_result_release(&rb);
			}
	}
	cr_expect_gt(tried, 300);
	cr_expect_gt(refused, 100, "the paths must reach the rules");
	pol_free(p);
}

/* An operation on a path under root (the embedded default's exceptions are names and
 * relative patterns, wherever they lie) and the decision the embedded default gives. */
struct default_path {
	const char *tail;
	enum pol_op op;
	enum pol_decision want;
};

/* Returns how many of the n cases decided as wanted (each other one said). */
static size_t expect_default_paths(const struct default_path *cases, size_t n)
{
	struct pol_policy *p = pol_new(POL_LOAD_LAZY);
	size_t good = 0;

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, home) | pol_set_root(p, root), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	for (size_t i = 0; i < n; i++) {
		char path[PATH_MAX];
		struct pol_result r;

		snprintf(path, sizeof(path), "%s%s", root, cases[i].tail);
		if (pol_check_path(p, path, cases[i].op, 0, NULL, &r) == cases[i].want)
			good++;
		else
			cr_log_error("%s %s: %s, not the decision wanted", pol_op_name(cases[i].op),
				     path, r.rule_id ? r.rule_id : "allowed");
		pol_result_release(&r);
	}
	pol_free(p);
	return good;
}

/* The embedded default's *.pem and *.key stay secret, but public CA bundles do not: the
 * copy of certifi's cacert.pem that importlib.resources makes in the temporary folder
 * when pip runs from its wheel (python -m venv, ensurepip), named tmp + 8 characters +
 * the bundle's name, is read as the bundle itself is; so are gRPC's root certificates.
 * A Python virtual environment named .env runs; .env files stay secret. */
Test(paths, default_policy_lets_tls_clients_read_public_ca_bundles_and_venvs_run)
{
	static const struct default_path cases[] = {
	    {"/tmp/tmpk2x_9q1dcacert.pem", POL_OP_READ, POL_ALLOW},
	    {"/tmp/tmpk2x_9q1dcacert.pem", POL_OP_WRITE, POL_ALLOW},
	    {"/venv/lib/python3.11/site-packages/certifi/cacert.pem", POL_OP_READ, POL_ALLOW},
	    {"/certs/ca-bundle.pem", POL_OP_READ, POL_ALLOW},
	    {"/tmp/tmpk2x_9q1d.pem", POL_OP_READ, POL_DENY},
	    {"/tmp/tmpk2x_9q1dserver.pem", POL_OP_READ, POL_DENY},
	    {"/certs/cacert.pem.key", POL_OP_READ, POL_DENY},
	    {"/certs/server.pem", POL_OP_READ, POL_DENY},
	    {"/certs/cacert-and-key.pem", POL_OP_READ, POL_DENY},
	    {"/venv/lib/python3.11/site-packages/grpc/_cython/_credentials/roots.pem", POL_OP_READ,
	     POL_ALLOW},
	    {"/certs/roots.pem", POL_OP_READ, POL_DENY},
	    /* a virtual environment named .env: usable; a .env file or folder of secrets: not */
	    {"/.env/bin/python3", POL_OP_EXEC, POL_ALLOW},
	    {"/.env/bin/activate", POL_OP_READ, POL_ALLOW},
	    {"/.env/lib/python3.11/site-packages/x.py", POL_OP_WRITE, POL_ALLOW},
	    {"/.env/pyvenv.cfg", POL_OP_READ, POL_ALLOW},
	    {"/.env", POL_OP_READ, POL_DENY},
	    {"/.env/production", POL_OP_READ, POL_DENY},
	    {"/.env/secrets/bin", POL_OP_READ, POL_DENY},
	    {"/app/.env.production", POL_OP_READ, POL_DENY},
	};
	const size_t n = sizeof(cases) / sizeof(cases[0]);

	cr_expect_eq(expect_default_paths(cases, n), n);
}

/* A checkout, an archive or a package that holds TLS test fixtures (certs/server.pem,
 * server.key) creates them as new files: the embedded default lets the exclusive
 * creation of a new file pass when only a name pattern (*.pem, *.key, .env, id_rsa*)
 * names it, and keeps refusing it under the anchored secret folders, without the
 * exclusive flag, and every other access to such a file. */
Test(paths, default_policy_lets_a_new_file_named_like_a_secret_be_created_exclusively)
{
	static const struct {
		const char *path; /* $H home, $R project */
		enum pol_op op;
		unsigned flags;
		enum pol_decision want;
	} cases[] = {
	    {"$R/fixtures/server.pem", POL_OP_CREATE, POL_PATH_CREATE_EXCL, POL_ALLOW},
	    {"$R/fixtures/server.pem", POL_OP_CREATE, POL_PATH_CREATE_EXCL | POL_PATH_NOFOLLOW,
	     POL_ALLOW},
	    {"$R/certs/server.key", POL_OP_CREATE, POL_PATH_CREATE_EXCL, POL_ALLOW},
	    {"$R/node_modules/x/test/id_rsa", POL_OP_CREATE, POL_PATH_CREATE_EXCL, POL_ALLOW},
	    {"$R/.env", POL_OP_CREATE, POL_PATH_CREATE_EXCL, POL_ALLOW},
	    /* anchored secrets: planting a key, a login or credentials is an attack */
	    {"$H/.ssh/new.pem", POL_OP_CREATE, POL_PATH_CREATE_EXCL, POL_DENY},
	    {"$H/.ssh/authorized_keys", POL_OP_CREATE, POL_PATH_CREATE_EXCL, POL_DENY},
	    {"$H/.ssh/config", POL_OP_CREATE, POL_PATH_CREATE_EXCL, POL_DENY},
	    {"$H/.aws/credentials", POL_OP_CREATE, POL_PATH_CREATE_EXCL, POL_DENY},
	    {"$H/.docker/config.json", POL_OP_CREATE, POL_PATH_CREATE_EXCL, POL_DENY},
	    {"$H/.netrc", POL_OP_CREATE, POL_PATH_CREATE_EXCL, POL_DENY},
	    /* under a folder a name pattern covers */
	    {"$R/keys.pem/new.txt", POL_OP_CREATE, POL_PATH_CREATE_EXCL, POL_DENY},
	    /* no exclusive flag, a folder, and every access to an existing file */
	    {"$R/fixtures/server.pem", POL_OP_CREATE, 0, POL_DENY},
	    {"$R/fixtures/server.pem", POL_OP_CREATE, POL_PATH_NOFOLLOW, POL_DENY},
	    {"$R/fixtures/server.pem", POL_OP_CREATE, POL_PATH_CREATE_EXCL | POL_PATH_IS_DIR,
	     POL_DENY},
	    {"$R/x.pem", POL_OP_READ, 0, POL_DENY},
	    {"$R/x.pem", POL_OP_WRITE, 0, POL_DENY},
	    {"$R/x.pem", POL_OP_TRUNCATE, 0, POL_DENY},
	    {"$R/x.pem", POL_OP_DELETE, 0, POL_DENY},
	    {"$R/x.pem", POL_OP_RENAME_TO, 0, POL_DENY},
	    {"$R/x.pem", POL_OP_READ, POL_PATH_CREATE_EXCL, POL_DENY},
	    {"$R/x.pem", POL_OP_WRITE, POL_PATH_CREATE_EXCL, POL_DENY},
	    {"$R/x.pem", POL_OP_TRUNCATE, POL_PATH_CREATE_EXCL, POL_DENY},
	    {"$R/x.pem", POL_OP_DELETE, POL_PATH_CREATE_EXCL, POL_DENY},
	    {"$R/x.pem", POL_OP_RENAME_TO, POL_PATH_CREATE_EXCL, POL_DENY},
	};
	struct pol_policy *p = pol_new(POL_LOAD_LAZY);

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, home) | pol_set_root(p, root), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[PATH_MAX];
		struct pol_result r;
		enum pol_decision d;

		tmp_expand(cases[i].path, path, sizeof(path));
		d = pol_check_path(p, path, cases[i].op, cases[i].flags, NULL, &r);
		cr_expect_eq(d, cases[i].want, "%s %s (flags %#x): %s (%s)",
			     pol_op_name(cases[i].op), path, cases[i].flags, pol_decision_name(d),
			     r.rule_id ? r.rule_id : "no rule");
		/* a refusal of a file that exists names the rule that names the file */
		if (cases[i].op != POL_OP_CREATE && !strncmp(cases[i].path, "$R/x.pem", 8))
			cr_expect(r.rule_id && strstr(r.pattern, "*.pem"), "%s: %s", path,
				  r.pattern ? r.pattern : "no pattern");
		pol_result_release(&r);
	}
	pol_free(p);
}

/* The metadata of a file made in the session (POL_PATH_SESSION_NEW on CHMOD) passes a
 * name pattern only for the object itself: through a new symlink named like a secret
 * to an older key, it is the key's own metadata, and refused. */
Test(paths, a_new_files_metadata_pass_only_for_the_file_itself)
{
	struct pol_policy *p = policy_from("zeroAccessPaths: ['*.pem', '*.key']\n");
	char key[PATH_MAX], link[PATH_MAX];
	struct pol_result r;

	snprintf(key, sizeof(key), "%s/old.key", root);
	snprintf(link, sizeof(link), "%s/new.pem", root);
	cr_assert_eq(close(open(key, O_CREAT | O_WRONLY, 0600)), 0);
	cr_assert_eq(symlink("old.key", link), 0);
	cr_expect_eq(check(p, link, POL_OP_CHMOD, POL_PATH_SESSION_NEW, &r), POL_DENY);
	pol_result_release(&r);
	cr_expect_eq(check(p, link, POL_OP_CHMOD, POL_PATH_SESSION_NEW | POL_PATH_NOFOLLOW, &r),
		     POL_ALLOW, "the link's own metadata");
	pol_result_release(&r);
	cr_expect_eq(check(p, key, POL_OP_CHMOD, POL_PATH_SESSION_NEW, &r), POL_ALLOW,
		     "what the layer says is new (the object, statx'd by the layer)");
	pol_result_release(&r);
	cr_expect_eq(check(p, key, POL_OP_CHMOD, 0, &r), POL_DENY);
	pol_result_release(&r);
	pol_free(p);
}

/* ---- directory file descriptors ------------------------------------------------------ */

Test(paths, dirfd_of_a_protected_folder_is_resolved)
{
	struct pol_policy *p = ssh_policy();
	char b[PATH_MAX];
	struct pol_result r;
	int fd;

	snprintf(b, sizeof(b), "%s/.ssh", home);
	fd = open(b, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	cr_expect_eq(pol_check_path_at(p, fd, "id_rsa", POL_OP_READ, 0, NULL, &r), POL_DENY);
	cr_expect_eq(pol_check_path_at(p, fd, "fresh", POL_OP_CREATE, 0, NULL, &r), POL_DENY);
	cr_expect_eq(pol_check_path_at(p, fd, "../other", POL_OP_CREATE, 0, NULL, &r), POL_ALLOW);
	close(fd);
	pol_free(p);
}

Test(paths, dirfd_opened_through_a_symlink_is_resolved)
{
	struct pol_policy *p = ssh_policy();
	char b[PATH_MAX], ln[PATH_MAX];
	struct pol_result r;
	int fd;

	snprintf(ln, sizeof(ln), "%s/fdlink", root);
	snprintf(b, sizeof(b), "%s/.ssh", home);
	link_to(b, ln);
	fd = open(ln, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	cr_expect_eq(pol_check_path_at(p, fd, "id_rsa", POL_OP_READ, 0, NULL, &r), POL_DENY);
	close(fd);
	fd = open(root, O_RDONLY | O_DIRECTORY);
	cr_assert_geq(fd, 0);
	cr_expect_eq(pol_check_path_at(p, fd, "../home/.ssh/id_rsa", POL_OP_READ, 0, NULL, &r),
		     POL_DENY);
	cr_expect_eq(pol_check_path_at(p, fd, "fdlink/id_rsa", POL_OP_READ, 0, NULL, &r), POL_DENY);
	cr_expect_eq(pol_check_path_at(p, fd, "plain.txt", POL_OP_READ, 0, NULL, &r), POL_ALLOW);
	close(fd);
	pol_free(p);
}

Test(paths, at_fdcwd_uses_the_context_cwd_and_absolute_paths_ignore_the_fd)
{
	struct pol_policy *p = ssh_policy();
	char b[PATH_MAX];
	struct pol_ctx ctx = {.cwd = home};
	struct pol_result r;

	cr_expect_eq(pol_check_path_at(p, AT_FDCWD, ".ssh/id_rsa", POL_OP_READ, 0, &ctx, &r),
		     POL_DENY);
	snprintf(b, sizeof(b), "%s/.ssh/id_rsa", home);
	cr_expect_eq(pol_check_path_at(p, 12345, b, POL_OP_READ, 0, &ctx, &r), POL_DENY,
		     "an absolute path does not look at dirfd");
	pol_free(p);
}

/* ---- odd inputs -------------------------------------------------------------------- */

Test(paths, path_too_long_to_check_is_refused)
{
	struct pol_policy *p = ssh_policy();
	size_t n = PATH_MAX * 2;
	char *b = malloc(n + 1);
	struct pol_result r;

	cr_assert_not_null(b);
	b[0] = '/';
	memset(b + 1, 'a', n - 1);
	b[n] = '\0';
	for (size_t i = 100; i < n; i += 100)
		b[i] = '/';
	cr_expect_eq(check(p, b, POL_OP_READ, 0, &r), POL_DENY);
	cr_expect_str_eq(r.rule_id ? r.rule_id : "", "input.path_too_long");
	free(b);
	pol_free(p);
}

Test(paths, empty_or_null_path_is_allowed)
{
	struct pol_policy *p = ssh_policy();
	struct pol_result r;

	cr_expect_eq(check(p, "", POL_OP_READ, 0, &r), POL_ALLOW);
	cr_expect_eq(check(p, NULL, POL_OP_READ, 0, &r), POL_ALLOW);
	pol_free(p);
}

Test(paths, canonical_flag_skips_the_second_resolution)
{
	struct pol_policy *p = ssh_policy();
	char ln[PATH_MAX], b[PATH_MAX];

	snprintf(ln, sizeof(ln), "%s/canon", root);
	snprintf(b, sizeof(b), "%s/.ssh", home);
	link_to(b, ln);
	snprintf(b, sizeof(b), "%s/canon/id_rsa", root);
	cr_expect_eq(path_decision(p, b, POL_OP_READ, POL_PATH_CANONICAL), POL_ALLOW, "%s", b);
	cr_expect_eq(path_decision(p, b, POL_OP_READ, 0), POL_DENY, "%s", b);
	pol_free(p);
}

Test(paths, folder_holding_a_named_entry_cannot_be_removed)
{
	char b[PATH_MAX];
	struct pol_policy *p;

	snprintf(b, sizeof(b), "%s/repo/.git", root);
	mkpath(b);
	p = policy_from("noDeletePaths: [.git/]\n");
	snprintf(b, sizeof(b), "%s/repo", root);
	cr_expect_eq(path_decision(p, b, POL_OP_DELETE, POL_PATH_IS_DIR), POL_DENY, "%s", b);
	cr_expect_eq(path_decision(p, b, POL_OP_RENAME_FROM, POL_PATH_IS_DIR), POL_DENY, "%s", b);
	snprintf(b, sizeof(b), "%s/repo/src", root);
	cr_expect_eq(path_decision(p, b, POL_OP_DELETE, POL_PATH_IS_DIR), POL_ALLOW, "%s", b);
	pol_free(p);
}

/* Link targets of 4,000 bytes nested three deep: the kernel follows them (each target is
 * under PATH_MAX), but the text left to walk outgrows any fixed buffer. A path that
 * cannot be resolved must not be decided on its written form alone. */
Test(paths, symlinks_too_long_to_resolve_are_refused_not_waved_through)
{
	struct pol_policy *p = ssh_policy();
	char pad[4100], target[PATH_MAX * 2], ln[PATH_MAX], b[PATH_MAX];
	size_t o = 0;
	int fd;

	while (o + 2 < 4000) {
		pad[o++] = '.';
		pad[o++] = '/';
	}
	pad[o] = '\0';
	snprintf(target, sizeof(target), "%s/.ssh/%s", home, pad);
	snprintf(ln, sizeof(ln), "%s/l3", root);
	link_to(target, ln);
	snprintf(target, sizeof(target), "l3/%s", pad);
	snprintf(ln, sizeof(ln), "%s/l2", root);
	link_to(target, ln);
	snprintf(target, sizeof(target), "l2/%s", pad);
	snprintf(ln, sizeof(ln), "%s/l1", root);
	link_to(target, ln);
	snprintf(b, sizeof(b), "%s/l1/id_rsa", root);
	fd = open(b, O_RDONLY);
	cr_assert_geq(fd, 0, "the kernel resolves %s: %s", b, strerror(errno));
	close(fd);
	cr_expect_eq(path_decision(p, b, POL_OP_READ, 0), POL_DENY, "%s", b);
	pol_free(p);
}

Test(paths, folder_holding_a_protected_entry_deeper_down_cannot_be_moved_or_removed)
{
	char b[PATH_MAX];
	struct pol_policy *p;

	snprintf(b, sizeof(b), "%s/projects/app/.git", root);
	mkpath(b);
	snprintf(b, sizeof(b), "%s/projects/app/.git/HEAD", root);
	touch(b);
	snprintf(b, sizeof(b), "%s/certs/prod/deep", root);
	mkpath(b);
	snprintf(b, sizeof(b), "%s/certs/prod/deep/server.pem", root);
	touch(b);
	snprintf(b, sizeof(b), "%s/certs/public", root);
	mkpath(b);
	snprintf(b, sizeof(b), "%s/certs/public/ca.pem", root);
	touch(b);
	snprintf(b, sizeof(b), "%s/scratch/a/b", root);
	mkpath(b);
	p = policy_from("noDeletePaths: [.git/]\nzeroAccessPaths: ['*.pem', '!**/public/*.pem']\n");
	snprintf(b, sizeof(b), "%s/projects", root);
	cr_expect_eq(path_decision(p, b, POL_OP_RENAME_FROM, POL_PATH_IS_DIR), POL_DENY, "%s", b);
	cr_expect_eq(path_decision(p, b, POL_OP_DELETE, POL_PATH_IS_DIR), POL_DENY, "%s", b);
	snprintf(b, sizeof(b), "%s/certs", root);
	cr_expect_eq(path_decision(p, b, POL_OP_DELETE, POL_PATH_IS_DIR), POL_DENY, "%s", b);
	snprintf(b, sizeof(b), "%s/certs/public", root);
	cr_expect_eq(path_decision(p, b, POL_OP_DELETE, POL_PATH_IS_DIR), POL_ALLOW, "%s", b);
	snprintf(b, sizeof(b), "%s/scratch", root);
	cr_expect_eq(path_decision(p, b, POL_OP_DELETE, POL_PATH_IS_DIR), POL_ALLOW, "%s", b);
	snprintf(b, sizeof(b), "%s/projects", root);
	cr_expect_eq(path_decision(p, b, POL_OP_DELETE, 0), POL_ALLOW, "%s", b);
	pol_free(p);
}

Test(paths, normalize_is_lexical)
{
	static const struct {
		const char *path, *base, *home, *want;
	} cases[] = {
	    {"/a/b/../c", NULL, NULL, "/a/c"},
	    {"a/./b", "/base", NULL, "/base/a/b"},
	    {"../../../x", "/base/one", NULL, "/x"},
	    {"~", NULL, "/home/u", "/home/u"},
	    {"~/x", "/base", "/home/u", "/home/u/x"},
	    {"~user/x", "/base", "/home/u", "/base/~user/x"},
	    {"//a//b//", NULL, NULL, "/a/b"},
	    {"/", NULL, NULL, "/"},
	    {"..", "/", NULL, "/"},
	    /* already normal, copied whole; and the forms that are not */
	    {"/usr/include/stdio.h", "/base", NULL, "/usr/include/stdio.h"},
	    {"/a/.b/..c/c.", NULL, NULL, "/a/.b/..c/c."},
	    {"/a/b/", NULL, NULL, "/a/b"},
	    {"/a/b/.", NULL, NULL, "/a/b"},
	    {"/a/b/..", NULL, NULL, "/a"},
	    {"/a//b", NULL, NULL, "/a/b"},
	    {"/a/./b", NULL, NULL, "/a/b"},
	    {"x/y", "/base/one", NULL, "/base/one/x/y"},
	    {"../y", "/base/one", NULL, "/base/y"},
	    {"../../..", "/base/one", NULL, "/"},
	    {"y", "/base//one/", NULL, "/base/one/y"},
	    /* past 16 bytes (the vector scan) */
	    {"/aaaaaaaaaaaaaaaaaaaa/./bbbbbbbbbbbbbbbbbbbb", NULL, NULL,
	     "/aaaaaaaaaaaaaaaaaaaa/bbbbbbbbbbbbbbbbbbbb"},
	    {"/aaaaaaaaaaaaaaaaaaaa/.git/bbbbbbbbbbbbbbbbbbbb/..", NULL, NULL,
	     "/aaaaaaaaaaaaaaaaaaaa/.git"},
	    {"/aaaaaaaaaaaaaaaaaaaa/.git/bbbbbbbbbbbbbbbbbbbb/x", NULL, NULL,
	     "/aaaaaaaaaaaaaaaaaaaa/.git/bbbbbbbbbbbbbbbbbbbb/x"},
	    {"/aaaaaaaaaaaaaaaaaaaa//b/..c/...", NULL, NULL, "/aaaaaaaaaaaaaaaaaaaa/b/..c/..."},
	    {"/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/../b", NULL, NULL, "/b"},
	};
	char out[PATH_MAX];

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		cr_assert_eq(pol_path_normalize(cases[k].path, cases[k].base, cases[k].home, out,
						sizeof(out)),
			     0);
		cr_expect_str_eq(out, cases[k].want, "%s", cases[k].path);
	}
	cr_expect_eq(pol_path_normalize("/aaaa/bbbb", NULL, NULL, out, 6), -ENAMETOOLONG);
	cr_expect_eq(pol_path_normalize("/aaaa", NULL, NULL, out, 5), -ENAMETOOLONG);
	cr_expect_eq(pol_path_normalize("b", "/aaaa", NULL, out, 5), -ENAMETOOLONG);
}

/* A repository's hooks are its tools, not its history: hook installers (pre-commit's
 * rename to .legacy) may replace them; the rest of .git/ stays no-delete. */
Test(paths, default_policy_lets_hook_installers_replace_git_hooks)
{
	static const struct default_path cases[] = {
	    {"/.git/hooks/pre-commit", POL_OP_DELETE, POL_ALLOW},
	    {"/.git/hooks/pre-commit", POL_OP_RENAME_FROM, POL_ALLOW},
	    {"/sub/.git/hooks/commit-msg", POL_OP_DELETE, POL_ALLOW},
	    {"/.git/HEAD", POL_OP_DELETE, POL_DENY},
	    {"/.git/hooks/../HEAD", POL_OP_DELETE, POL_DENY},
	    {"/.git/refs/heads/main", POL_OP_RENAME_FROM, POL_DENY},
	    {"/.git/objects/ab/cdef", POL_OP_DELETE, POL_DENY},
	};
	const size_t n = sizeof(cases) / sizeof(cases[0]);

	cr_expect_eq(expect_default_paths(cases, n), n);
}
