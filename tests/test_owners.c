/* Path rules with owners: a system program (git) may manage what a rule covers
 * (its own .git/ bookkeeping) at runtime, while everyone else stays refused. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "dcg_policy.h"
#include "internal.h" /* pol_load_buffer_default: the facts default.yaml holds */

static const char owners_yaml[] = "noDeletePaths:\n"
				  "  - path: .git/\n"
				  "    owners: [git]\n"
				  "  - README.md\n"
				  "readOnlyPaths:\n"
				  "  - {path: /srv/data/, owners: [/usr/bin/rsync]}\n";

/* Where named owners must live is data (default.yaml's ownerFolders): these tests
 * name the same folders. */
static const char folders_yaml[] = "ownerFolders: [/usr/, /bin/, /sbin/]\n";

static struct pol_policy *load_with(const char *folders)
{
	struct pol_policy *p = pol_new(0);

	cr_assert_not_null(p);
	pol_set_home(p, "/home/u");
	pol_set_root(p, "/home/u/proj");
	cr_assert_eq(pol_load_buffer_default(p, folders, strlen(folders)), 0);
	cr_assert_eq(pol_diag_count(p), 0);
	cr_assert_eq(pol_load_buffer(p, "owners.yaml", owners_yaml, strlen(owners_yaml)), 0);
	cr_assert_eq(pol_diag_count(p), 0);
	return p;
}

static struct pol_policy *load(void)
{
	return load_with(folders_yaml);
}

static enum pol_decision decide(struct pol_policy *p, const char *exe, const char *path,
				enum pol_op op)
{
	struct pol_ctx ctx = {.exe = exe};
	struct pol_result r;

	return pol_check_path(p, path, op, POL_PATH_NOFOLLOW, &ctx, &r);
}

static const struct {
	const char *exe, *path;
	enum pol_op op;
	enum pol_decision want;
} cases[] = {
    {"/usr/bin/git", "/home/u/proj/.git/index.lock", POL_OP_DELETE, POL_ALLOW},
    {"/usr/bin/git", "/home/u/proj/.git/index", POL_OP_RENAME_TO, POL_ALLOW},
    {"/usr/lib/git-core/git-gc", "/home/u/proj/.git/objects/ab/cd", POL_OP_DELETE, POL_ALLOW},
    /* a program named git outside the system folders is not git */
    {"/home/u/proj/git", "/home/u/proj/.git/index", POL_OP_DELETE, POL_DENY},
    {"/tmp/git-evil", "/home/u/proj/.git/HEAD", POL_OP_DELETE, POL_DENY},
    /* a name is a whole name: gitk or /usr/bin/legit are not owners */
    {"/usr/bin/gitk", "/home/u/proj/.git/HEAD", POL_OP_DELETE, POL_DENY},
    {"/usr/bin/legit", "/home/u/proj/.git/HEAD", POL_OP_DELETE, POL_DENY},
    {"/usr/bin/rm", "/home/u/proj/.git/index", POL_OP_DELETE, POL_DENY},
    {NULL, "/home/u/proj/.git/index", POL_OP_DELETE, POL_DENY},
    /* git owns .git/, not the other rules */
    {"/usr/bin/git", "/home/u/proj/README.md", POL_OP_DELETE, POL_DENY},
    /* an absolute owner is that file only */
    {"/usr/bin/rsync", "/srv/data/x", POL_OP_WRITE, POL_ALLOW},
    {"/usr/local/bin/rsync", "/srv/data/x", POL_OP_WRITE, POL_DENY},
};

Test(owners, only_the_owner_may_manage_what_a_rule_covers)
{
	struct pol_policy *p = load();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(decide(p, cases[i].exe, cases[i].path, cases[i].op), cases[i].want,
			     "case %zu: %s %s %s", i, cases[i].exe ? cases[i].exe : "(none)",
			     pol_op_name(cases[i].op), cases[i].path);
	pol_free(p);
}

Test(owners, owners_survive_the_snapshot)
{
	struct pol_policy *p = load(), *q = pol_new(0);
	size_t len;
	char *snap = pol_snapshot_save(p, &len);

	cr_assert_not_null(snap);
	cr_assert_eq(pol_snapshot_load(q, snap, len), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		cr_expect_eq(decide(q, cases[i].exe, cases[i].path, cases[i].op), cases[i].want,
			     "case %zu after the snapshot", i);
	free(snap);
	pol_free(q);
	pol_free(p);
}

Test(owners, an_unknown_key_in_a_path_entry_is_reported)
{
	static const char bad[] = "noDeletePaths:\n  - {path: .git/, owner: git}\n";
	struct pol_policy *p = pol_new(0);

	pol_load_buffer(p, "bad.yaml", bad, strlen(bad));
	cr_assert_eq(pol_diag_count(p), 1);
	cr_expect(strstr(pol_diag_get(p, 0)->msg, "owner") != NULL);
	cr_expect_eq(pol_diag_get(p, 0)->line, 2);
	pol_free(p);
}

/* The owner folders decide which copies of a named owner count. */
Test(owners, the_owner_folders_are_data)
{
	static const struct {
		const char *folders, *exe;
		enum pol_decision want;
	} t[] = {
	    {"ownerFolders: [/usr/, /bin/, /sbin/]\n", "/usr/bin/git", POL_ALLOW},
	    {"ownerFolders: [/usr/, /bin/, /sbin/]\n", "/opt/tools/git", POL_DENY},
	    {"ownerFolders: [/opt/tools/]\n", "/opt/tools/git", POL_ALLOW},
	    {"ownerFolders: [/opt/tools/]\n", "/usr/bin/git", POL_DENY},
	    /* a folder is a whole folder: /opt/tools/ is not /opt/toolsx/ */
	    {"ownerFolders: [/opt/tools/]\n", "/opt/toolsx/git", POL_DENY},
	    /* no folder: no program counts by its name */
	    {"version: 1\n", "/usr/bin/git", POL_DENY},
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct pol_policy *p = load_with(t[i].folders), *q = pol_new(0);
		size_t len;
		char *snap = pol_snapshot_save(p, &len);

		cr_expect_eq(decide(p, t[i].exe, "/home/u/proj/.git/index", POL_OP_DELETE),
			     t[i].want, "case %zu: %s", i, t[i].exe);
		cr_assert_not_null(snap);
		cr_assert_eq(pol_snapshot_load(q, snap, len), 0);
		cr_expect_eq(decide(q, t[i].exe, "/home/u/proj/.git/index", POL_OP_DELETE),
			     t[i].want, "case %zu after the snapshot: %s", i, t[i].exe);
		free(snap);
		pol_free(q);
		pol_free(p);
	}
}

/* Naming a folder loosens: a policy file other than the system file may not. */
Test(owners, only_the_system_file_names_owner_folders)
{
	static const char y[] = "ownerFolders: [/tmp/]\n";
	struct pol_policy *p = load();

	pol_load_buffer(p, "user.yaml", y, strlen(y));
	cr_assert_eq(pol_diag_count(p), 1);
	cr_expect(strstr(pol_diag_get(p, 0)->msg, "ownerFolders") != NULL);
	cr_expect_eq(decide(p, "/tmp/git", "/home/u/proj/.git/index", POL_OP_DELETE), POL_DENY);
	pol_free(p);
}
