/* test_pathidx.c - the preload's compact path index (policy/pathidx.h) against the
 * engine: whenever the index settles a path check as allowed, pol_check_path() on the
 * policy the guarded processes load (the snapshot of the same policy) must allow it
 * too. Checked for every case of tests/data/policy/paths.tsv, for the default policy
 * and the fixture policies over paths made from their own patterns and from the
 * checkout's files, every operation and flag, and through real symlinks. */
#include "dcg_policy.h"
#include "internal.h"
#include "pathidx.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DATA "tests/data/policy/"

#define TMP_TAG "pathidx"
#include "fixture_policies.h"
#include "tmp_home.h"

static char checkout[PATH_MAX];

/* The scratch folder, and the checkout this suite started in. */
static void pathidx_setup(void)
{
	cr_assert_not_null(getcwd(checkout, sizeof(checkout)));
	setup();
}

TestSuite(pathidx, .init = pathidx_setup, .fini = teardown, .timeout = 120);

/* An index of p and the engine's policy: p's snapshot loaded back, as a guarded
 * process loads it. */
struct pair {
	struct pol_policy *engine;
	struct pol_pidx idx;
	char *buf;
	size_t len;
};

static void pair_open(struct pair *pr, const struct pol_policy *p)
{
	size_t len = 0;
	char *snap = pol_snapshot_save(p, &len);

	cr_assert_not_null(snap);
	pr->engine = pol_new(0);
	cr_assert_not_null(pr->engine);
	cr_assert_eq(pol_snapshot_load(pr->engine, snap, len), 0);
	free(snap);
	pr->buf = pol_pidx_save(p, &pr->len);
	cr_assert_not_null(pr->buf);
	cr_assert_eq(pol_pidx_open(&pr->idx, pr->buf, pr->len, malloc), 0);
}

static void pair_close(struct pair *pr)
{
	free(pr->idx.pats);
	free(pr->buf);
	pol_free(pr->engine);
}

static const unsigned flag_sets[] = {0,
				     POL_PATH_NOFOLLOW,
				     POL_PATH_IS_DIR,
				     POL_PATH_SESSION_NEW,
				     POL_PATH_IS_DIR | POL_PATH_NOFOLLOW,
				     POL_PATH_CREATE_EXCL,
				     POL_PATH_CREATE_EXCL | POL_PATH_NOFOLLOW,
				     POL_PATH_CREATE_EXCL | POL_PATH_IS_DIR,
				     POL_PATH_SESSION_NEW | POL_PATH_CANONICAL};

struct tally {
	unsigned checked, settled;
};

/* Every operation and flag set on path (relative to base): a path the index settles
 * must be allowed by the engine. */
static void compare(const struct pair *pr, const char *base, const char *path, struct tally *t,
		    const char *what)
{
	for (int op = 0; op < POL_OP__COUNT; op++) {
		for (size_t k = 0; k < sizeof(flag_sets) / sizeof(flag_sets[0]); k++) {
			struct pol_ctx ctx = {.cwd = base};
			struct pol_result r;
			enum pol_decision d;

			t->checked++;
			if (!pol_pidx_allows(&pr->idx, base, path, (enum pol_op)op, flag_sets[k]))
				continue;
			t->settled++;
			d = pol_check_path(pr->engine, path, (enum pol_op)op, flag_sets[k], &ctx,
					   &r);
			cr_expect_eq(
			    d, POL_ALLOW,
			    "%s: the index settles %s %s (flags %u) but the engine says %s "
			    "(rule %s)",
			    what, pol_op_name((enum pol_op)op), path, flag_sets[k],
			    pol_decision_name(d), r.rule_id ? r.rule_id : "none");
			pol_result_release(&r);
		}
	}
}

/* Paths made from a glob: wildcards filled in, the path itself, beneath it, its
 * parent, and near misses (a letter changed, cut short). */
static size_t paths_from_glob(const char *glob, char out[][PATH_MAX], size_t max)
{
	char filled[PATH_MAX];
	size_t o = 0, n = 0;

	for (const char *g = glob; *g && o + 8 < sizeof(filled); g++) {
		if (g[0] == '*' && g[1] == '*') {
			memcpy(filled + o, "a/b", 3);
			o += 3;
			g++;
		} else if (*g == '*') {
			filled[o++] = 'x';
		} else if (*g == '?') {
			filled[o++] = 'q';
		} else if (*g == '[') {
			const char *e = strchr(g + 1, ']');

			filled[o++] = g[1] == '!' || g[1] == '^' ? '#' : g[1];
			if (e)
				g = e;
		} else if (*g != '\\') {
			filled[o++] = *g;
		}
	}
	filled[o] = '\0';
	while (o > 1 && filled[o - 1] == '/')
		filled[--o] = '\0';
	if (filled[0] != '/') { /* a basename pattern: somewhere in the project */
		char b[PATH_MAX];

		if (snprintf(b, sizeof(b), "%s/src/%s", root, filled) >= (int)sizeof(b))
			return 0;
		if (snprintf(filled, sizeof(filled), "%s", b) >= (int)sizeof(filled))
			return 0;
		o = strlen(filled);
	}
#define ADD(...)                                                                   \
	do {                                                                       \
		if (n < max && snprintf(out[n], PATH_MAX, __VA_ARGS__) < PATH_MAX) \
			n++;                                                       \
	} while (0)
	ADD("%s", filled);
	ADD("%s/child/file.c", filled);
	ADD("%sz", filled);
	ADD("%.*s", (int)(o > 2 ? o - 1 : o), filled);
	if (strrchr(filled, '/') && strrchr(filled, '/') != filled)
		ADD("%.*s", (int)(strrchr(filled, '/') - filled), filled);
	ADD("%s/../%s", filled, "sibling");
	{
		char near[PATH_MAX];

		if (snprintf(near, sizeof(near), "%s", filled) >= (int)sizeof(near))
			return n;
		if (o > 1)
			near[o - 1] = near[o - 1] == 'y' ? 'z' : 'y';
		ADD("%s", near);
	}
#undef ADD
	return n;
}

/* Every file and folder of the checkout under dir (bounded), as absolute paths. */
static void walk(const struct pair *pr, const char *dir, int depth, struct tally *t,
		 unsigned *budget, const char *what)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d)) && *budget) {
		char path[PATH_MAX];

		if (e->d_name[0] == '.' && (!e->d_name[1] || e->d_name[1] == '.'))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) >= (int)sizeof(path))
			continue;
		(*budget)--;
		compare(pr, checkout, path, t, what);
		if (e->d_type == DT_DIR && depth < 4)
			walk(pr, path, depth + 1, t, budget, what);
	}
	closedir(d);
}

/* The whole comparison for one policy. */
static struct tally compare_policy(const struct pol_policy *p, const char *what)
{
	static char gen[16][PATH_MAX];
	struct tally t = {0, 0};
	unsigned budget = 400;
	struct pair pr;

	pair_open(&pr, p);
	for (size_t i = 0; i < pr.idx.n_pats; i++) {
		size_t n = paths_from_glob(pr.idx.pats[i].glob, gen, 16);

		for (size_t k = 0; k < n; k++)
			compare(&pr, root, gen[k], &t, what);
	}
	walk(&pr, checkout, 0, &t, &budget, what);
	compare(&pr, root, "relative/file.txt", &t, what);
	compare(&pr, root, "./a/../b", &t, what);
	pair_close(&pr);
	return t;
}

static struct pol_policy *policy_new(void)
{
	struct pol_policy *p = pol_new(0);

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, home), 0);
	cr_assert_eq(pol_set_root(p, root), 0);
	return p;
}

Test(pathidx, default_policy_agrees_with_the_engine)
{
	struct pol_policy *p = policy_new();
	struct tally t;

	cr_assert_eq(pol_load_embedded(p), 0);
	t = compare_policy(p, "default policy");
	cr_log_info("default policy: %u checks, %u settled by the index", t.checked, t.settled);
	/* The index is of use: most checks are settled without the engine. */
	cr_expect_gt(t.settled, t.checked / 2, "%u of %u settled", t.settled, t.checked);
	pol_free(p);
}

/* The exclusive creation of a new file named like a secret (POL_PATH_CREATE_EXCL): the
 * guest settles it in the project without the engine, and leaves to the engine what
 * an anchored rule or a folder above refuses; both say the same of each case, and a
 * creation without the flag or any other access is still the engine's to refuse. */
Test(pathidx, exclusive_creation_of_a_new_file_agrees_with_the_engine)
{
	static const struct {
		const char *path; /* $H home, $R project */
		enum pol_op op;
		unsigned flags;
		int allowed;
	} cases[] = {
	    {"$R/fixtures/server.pem", POL_OP_CREATE, POL_PATH_CREATE_EXCL, 1},
	    {"$R/fixtures/server.key", POL_OP_CREATE, POL_PATH_CREATE_EXCL | POL_PATH_NOFOLLOW, 1},
	    {"$R/.env.test", POL_OP_CREATE, POL_PATH_CREATE_EXCL, 1},
	    {"$H/.ssh/new.pem", POL_OP_CREATE, POL_PATH_CREATE_EXCL, 0},
	    {"$H/.ssh/authorized_keys", POL_OP_CREATE, POL_PATH_CREATE_EXCL, 0},
	    {"$H/.aws/credentials", POL_OP_CREATE, POL_PATH_CREATE_EXCL, 0},
	    {"$R/keys.pem/a.txt", POL_OP_CREATE, POL_PATH_CREATE_EXCL, 0},
	    {"$R/fixtures/server.pem", POL_OP_CREATE, 0, 0},
	    {"$R/fixtures/server.pem", POL_OP_CREATE, POL_PATH_CREATE_EXCL | POL_PATH_IS_DIR, 0},
	    {"$R/x.pem", POL_OP_READ, POL_PATH_CREATE_EXCL, 0},
	    {"$R/x.pem", POL_OP_WRITE, POL_PATH_CREATE_EXCL, 0},
	    {"$R/x.pem", POL_OP_TRUNCATE, POL_PATH_CREATE_EXCL, 0},
	    {"$R/x.pem", POL_OP_DELETE, POL_PATH_CREATE_EXCL, 0},
	};
	struct pol_policy *p = policy_new();
	struct pair pr;

	cr_assert_eq(pol_load_embedded(p), 0);
	pair_open(&pr, p);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pol_ctx ctx = {.cwd = root};
		struct pol_result r;
		char path[PATH_MAX];
		enum pol_decision d;
		int settled;

		tmp_expand(cases[i].path, path, sizeof(path));
		settled = pol_pidx_allows(&pr.idx, root, path, cases[i].op, cases[i].flags);
		d = pol_check_path(pr.engine, path, cases[i].op, cases[i].flags, &ctx, &r);
		cr_expect_eq(settled, cases[i].allowed, "index: %s %s (flags %#x)",
			     pol_op_name(cases[i].op), path, cases[i].flags);
		cr_expect_eq(d == POL_ALLOW, cases[i].allowed, "engine: %s %s (flags %#x): %s",
			     pol_op_name(cases[i].op), path, cases[i].flags,
			     r.rule_id ? r.rule_id : "allowed");
		pol_result_release(&r);
	}
	pair_close(&pr);
	pol_free(p);
}

/* The rule kinds that refuse each operation (one constant in internal.h, read by the
 * engine and the guest): zero-access everything, read-only every write, no-delete the
 * deletions and renames unless the file was made during the session. */
Test(pathidx, refusing_kinds_by_operation)
{
	enum {
		ZA = 1 << POL_PATH_ZERO_ACCESS,
		RO = 1 << POL_PATH_READ_ONLY,
		ND = 1 << POL_PATH_NO_DELETE
	};
	static const unsigned want[POL_OP__COUNT] = {
	    [POL_OP_READ] = ZA,
	    [POL_OP_WRITE] = ZA | RO,
	    [POL_OP_CREATE] = ZA | RO,
	    [POL_OP_TRUNCATE] = ZA | RO,
	    [POL_OP_DELETE] = ZA | RO | ND,
	    [POL_OP_RENAME_FROM] = ZA | RO | ND,
	    [POL_OP_RENAME_TO] = ZA | RO | ND,
	    [POL_OP_CHMOD] = ZA | RO,
	    [POL_OP_EXEC] = ZA,
	    [POL_OP_LIST] = ZA,
	    [POL_OP_LINK_FROM] = ZA | RO,
	};

	for (int op = 0; op < POL_OP__COUNT; op++) {
		unsigned moves =
		    op == POL_OP_DELETE || op == POL_OP_RENAME_FROM || op == POL_OP_RENAME_TO;

		cr_expect_eq(pol_op_refusing_kinds((enum pol_op)op, 0), want[op], "%s",
			     pol_op_name((enum pol_op)op));
		cr_expect_eq(pol_op_refusing_kinds((enum pol_op)op, POL_PATH_SESSION_NEW),
			     moves ? want[op] & ~(unsigned)ND : want[op], "%s, made in the session",
			     pol_op_name((enum pol_op)op));
	}
	cr_expect_eq(pol_op_refusing_kinds(POL_OP__COUNT, 0), ZA | RO | ND, "an unknown operation");
}

/* Paths deep in folders named like the rules' own paths select more index buckets
 * that hold rules than the guest gathers (it then tries every rule): the same
 * answers, and the protected ones among them are not settled. */
Test(pathidx, deep_paths_past_the_gathered_buckets_agree_with_the_engine)
{
	static char gen[16][PATH_MAX];
	struct pol_policy *p = policy_new();
	char deep[PATH_MAX], path[PATH_MAX * 2];
	size_t o = 0;
	unsigned overflowed = 0;
	struct tally t = {0, 0};
	struct pair pr;

	cr_assert_eq(pol_load_embedded(p), 0);
	pair_open(&pr, p);
	/* the last component of each rule's filled path, as folders, three times over */
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < pr.idx.n_pats && o + 64 < sizeof(deep) * 3 / 4; i++) {
			const char *b;

			if (!paths_from_glob(pr.idx.pats[i].glob, gen, 16) ||
			    !(b = strrchr(gen[0], '/')) || !b[1] || strlen(b) > 40)
				continue;
			o += (size_t)snprintf(deep + o, sizeof(deep) - o, "%s", b);
		}
	cr_assert_gt(o, 0);
	for (size_t i = 0; i < pr.idx.n_pats; i++) {
		size_t n = paths_from_glob(pr.idx.pats[i].glob, gen, 16);

		for (size_t k = 0; k < n; k++) {
			uint16_t b[32];

			snprintf(path, sizeof(path), "%s%s", deep, gen[k]);
			if (strlen(path) >= PATH_MAX)
				continue;
			overflowed += pol_path_buckets(path, pr.idx.present, b, 32) > 32;
			compare(&pr, root, path, &t, "deep");
		}
	}
	cr_expect_gt(overflowed, 0, "no path selected more than 32 buckets");
	pair_close(&pr);
	pol_free(p);
}

static void fixture_compare(struct pol_policy *p, const char *file, void *ctx)
{
	(void)ctx;
	compare_policy(p, file);
}

/* The fixture policies that load (some are there to fail). */
Test(pathidx, fixture_policies_agree_with_the_engine)
{
	unsigned files = fixture_policies_each(policy_new, fixture_compare, NULL);

	cr_expect_geq(files, 5, "only %u fixture policies loaded", files);
}

/* Each row of paths.tsv: its policy (the patterns in their lists), its path, every
 * operation and flag set. */
Test(pathidx, path_table_agrees_with_the_engine)
{
	static const char *const keys[] = {"zeroAccessPaths", "readOnlyPaths", "noDeletePaths"};
	static const char *const short_names[] = {"za", "ro", "nd"};
	FILE *f = fopen(DATA "paths.tsv", "r");
	char line[2048];
	unsigned rows = 0;
	struct tally t = {0, 0};

	cr_assert_not_null(f, "%s (tests run from the repository root)", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *fld[6], pats[2048], path[PATH_MAX], yaml[8192], items[3][2048] = {"", "", ""};
		size_t nf = 0, il[3] = {0, 0, 0}, y = 0;
		int list = -1;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		for (char *s = line; *s && nf < 6;) {
			fld[nf++] = s;
			s += strcspn(s, "\t");
			while (*s == '\t')
				*s++ = '\0';
		}
		cr_assert_eq(nf, 6, "paths.tsv: %s", line);
		for (int l = 0; l < 3; l++)
			if (!strcmp(fld[0], short_names[l]))
				list = l;
		cr_assert_geq(list, 0);
		tmp_expand(fld[1], pats, sizeof(pats));
		for (char *tok = pats, *end; *tok; tok = end) {
			int l = list;

			while (*tok == ' ')
				tok++;
			if (!*tok)
				break;
			end = tok + strcspn(tok, " ");
			for (int k = 0; k < 3 && end - tok > 3 && tok[2] == ':'; k++)
				if (!strncmp(tok, short_names[k], 2)) {
					l = k;
					tok += 3;
				}
			il[l] += (size_t)snprintf(items[l] + il[l], sizeof(items[l]) - il[l],
						  "  - '%.*s'\n", (int)(end - tok), tok);
		}
		for (int l = 0; l < 3; l++)
			if (il[l])
				y += (size_t)snprintf(yaml + y, sizeof(yaml) - y, "%s:\n%s",
						      keys[l], items[l]);
		struct pol_policy *p = policy_new();
		struct pair pr;

		cr_assert_eq(pol_load_buffer(p, "paths.tsv", yaml, y), 0);
		pair_open(&pr, p);
		tmp_expand(fld[4], path, sizeof(path));
		compare(&pr, root, path, &t, line);
		pair_close(&pr);
		pol_free(p);
		rows++;
	}
	fclose(f);
	cr_log_info("paths.tsv: %u rows, %u checks, %u settled", rows, t.checked, t.settled);
	cr_expect_geq(rows, 80);
	cr_expect_gt(t.settled, 0);
}

/* A link into a protected folder: the index must not settle the path as written,
 * since where it leads is covered. */
Test(pathidx, symlink_into_a_protected_folder_goes_to_the_engine)
{
	char dir[PATH_MAX], link[PATH_MAX], yaml[PATH_MAX + 64];
	struct pol_policy *p = policy_new();
	struct tally t = {0, 0};
	struct pair pr;

	snprintf(dir, sizeof(dir), "%s/secret", root);
	snprintf(link, sizeof(link), "%s/innocent", root);
	cr_assert_eq(mkdir(dir, 0700), 0);
	cr_assert_eq(symlink(dir, link), 0);
	snprintf(yaml, sizeof(yaml), "zeroAccessPaths: ['%s/']\n", dir);
	cr_assert_eq(pol_load_buffer(p, "link", yaml, strlen(yaml)), 0);
	pair_open(&pr, p);
	cr_expect_eq(pol_pidx_allows(&pr.idx, root, "innocent/key", POL_OP_READ, 0), 0);
	cr_expect_eq(pol_pidx_allows(&pr.idx, root, "secret/key", POL_OP_READ, 0), 0);
	cr_expect_eq(pol_pidx_allows(&pr.idx, root, "other/key", POL_OP_READ, 0), 1);
	/* As a canonical path (what openat2 with RESOLVE_NO_SYMLINKS will walk) the
	 * written form alone is judged. */
	cr_expect_eq(
	    pol_pidx_allows(&pr.idx, root, "innocent/key", POL_OP_READ, POL_PATH_CANONICAL), 1);
	compare(&pr, root, "innocent/key", &t, "link");
	compare(&pr, root, "innocent", &t, "link");
	pair_close(&pr);
	pol_free(p);

	/* A rule naming the link covers the real folder too (its canonical form). */
	p = policy_new();
	snprintf(yaml, sizeof(yaml), "zeroAccessPaths: ['%s/']\n", link);
	cr_assert_eq(pol_load_buffer(p, "link", yaml, strlen(yaml)), 0);
	pair_open(&pr, p);
	cr_expect_eq(pol_pidx_allows(&pr.idx, root, "secret/key", POL_OP_READ, POL_PATH_CANONICAL),
		     0);
	compare(&pr, root, "secret/key", &t, "rule naming a link");
	pair_close(&pr);
	pol_free(p);
}

/* A damaged index is refused, never half-read. */
Test(pathidx, malformed_index_is_refused)
{
	struct pol_policy *p = policy_new();
	struct pol_pidx x;
	size_t len = 0;
	char *buf;

	cr_assert_eq(pol_load_buffer(p, "y", "readOnlyPaths: [vendor/]\n", 25), 0);
	buf = pol_pidx_save(p, &len);
	cr_assert_not_null(buf);
	cr_expect_eq(pol_pidx_open(&x, buf, len - 1, malloc), -EINVAL);
	buf[len - 1] = 'x'; /* the last glob loses its NUL */
	cr_expect_eq(pol_pidx_open(&x, buf, len, malloc), -EINVAL);
	buf[len - 1] = '\0';
	buf[0] = 'X';
	cr_expect_eq(pol_pidx_open(&x, buf, len, malloc), -EINVAL);
	free(buf);
	pol_free(p);
}
