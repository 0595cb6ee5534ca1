/* test_rule_ids.c - path rules take their IDs from their patterns (or an id: key), so
 * that reordering a list moves no allow entry onto another rule; the positional IDs of
 * older versions stay aliases in allow and disable entries, across snapshots too. */
#include "dcg_policy.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static struct pol_policy *load(const char *yaml)
{
	struct pol_policy *p = pol_new(0);

	cr_assert_not_null(p);
	pol_set_home(p, "/home/u");
	pol_set_root(p, "/srv/proj");
	cr_assert_eq(pol_load_buffer(p, "ids.yaml", yaml, strlen(yaml)), 0);
	return p;
}

static const char *id_of(const struct pol_policy *p, const char *pattern)
{
	for (size_t i = 0; i < pol_rule_count(p); i++) {
		struct pol_rule_info in;
		pol_rule_get(p, i, &in);
		if (in.kind == POL_RULE_PATH && in.pattern && !strcmp(in.pattern, pattern))
			return in.id;
	}
	return NULL;
}

Test(rule_ids, ids_come_from_the_pattern)
{
	static const struct {
		const char *pattern, *id;
	} want[] = {
	    {"~/.ssh/", "policy.zero_access.home_ssh"},
	    {"*.pem", "policy.zero_access.any_pem"},
	    {".env", "policy.zero_access.env"},
	    {".env.*", "policy.zero_access.env_any"},
	    {"!.env.example", "policy.zero_access.not_env_example"},
	    {"/etc/", "policy.read_only.etc"},
	    {"src/**/gen/", "policy.read_only.src_all_gen"},
	    {"data?.csv", "policy.read_only.data_one_csv"},
	    {"README.md", "policy.no_delete.readme_md"},
	};
	struct pol_policy *p = load("zeroAccessPaths: [~/.ssh/, '*.pem', .env, '.env.*', "
				    "'!.env.example']\n"
				    "readOnlyPaths: [/etc/, 'src/**/gen/', 'data?.csv']\n"
				    "noDeletePaths: [README.md]\n");

	cr_assert_eq(pol_diag_count(p), 0);
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		const char *id = id_of(p, want[k].pattern);
		cr_expect_str_eq(id ? id : "(none)", want[k].id, "%s", want[k].pattern);
	}
	pol_free(p);
}

Test(rule_ids, reordering_a_list_keeps_every_id)
{
	static const char *const pats[] = {"~/.ssh/", "*.pem", ".env", "secrets/", "*.key"};
	struct pol_policy *a =
	    load("zeroAccessPaths: [~/.ssh/, '*.pem', .env, secrets/, '*.key']\n");
	struct pol_policy *b =
	    load("zeroAccessPaths: ['*.key', secrets/, .env, '*.pem', ~/.ssh/]\n");

	for (size_t k = 0; k < sizeof(pats) / sizeof(pats[0]); k++)
		cr_expect_str_eq(id_of(a, pats[k]), id_of(b, pats[k]), "%s", pats[k]);
	pol_free(a);
	pol_free(b);
}

Test(rule_ids, an_id_key_names_the_rule_and_same_words_are_numbered)
{
	struct pol_policy *p = load("noDeletePaths:\n"
				    "  - {path: .git/, id: git_dir, owners: [git]}\n"
				    "  - {path: docs/, id: team.docs.keep}\n"
				    "  - {path: build.log, id: 'bad id!'}\n"
				    "  - a.b\n"
				    "  - a_b\n");

	cr_expect_str_eq(id_of(p, ".git/"), "policy.no_delete.git_dir");
	cr_expect_str_eq(id_of(p, "docs/"), "team.docs.keep");
	cr_expect_str_eq(id_of(p, "build.log"), "policy.no_delete.build_log");
	cr_expect_eq(pol_diag_count(p), 1, "the bad id is reported");
	cr_expect_str_eq(id_of(p, "a.b"), "policy.no_delete.a_b");
	cr_expect_str_eq(id_of(p, "a_b"), "policy.no_delete.a_b_2");
	pol_free(p);
}

Test(rule_ids, a_long_pattern_gets_a_short_stable_id)
{
	struct pol_policy *p = load("readOnlyPaths: [/srv/some/very/long/path/to/a/generated/"
				    "folder/that/nobody/edits/]\n");
	const char *id = id_of(p, "/srv/some/very/long/path/to/a/generated/folder/that/nobody/"
				  "edits/");

	cr_assert_not_null(id);
	cr_expect_leq(strlen(id), strlen("policy.read_only.") + 40, "%s", id);
	cr_expect_eq(strncmp(id, "policy.read_only.srv_some_very_long", 35), 0, "%s", id);
	pol_free(p);
}

/* The positional ID this file's third zero-access entry had: .env */
Test(rule_ids, old_positional_ids_still_allow_and_disable)
{
	struct pol_policy *p =
	    load("zeroAccessPaths: [~/.ssh/, '*.pem', .env]\n"
		 "readOnlyPaths: [/etc/, /opt/]\n"
		 "allow:\n  - {rule: policy.zero_access.3, reason: reading my env}\n"
		 "disable: [policy.read_only.2]\n");
	struct pol_result r;
	ssize_t i = pol_rule_find_alias(p, "policy.zero_access.3");
	struct pol_rule_info in;

	cr_assert_geq(i, 0);
	pol_rule_get(p, (size_t)i, &in);
	cr_expect_str_eq(in.id, "policy.zero_access.env");
	cr_expect_str_eq(in.alias, "policy.zero_access.3");
	cr_expect_lt(pol_rule_find(p, "policy.zero_access.3"), 0, "the alias is not the ID");
	cr_expect_eq(pol_check_path(p, "/srv/proj/.env", POL_OP_READ, 0, NULL, &r), POL_ALLOW);
	cr_expect(r.allowed_by_allowlist);
	cr_expect_eq(pol_check_path(p, "/home/u/.ssh/id_rsa", POL_OP_READ, 0, NULL, &r), POL_DENY);
	cr_expect_eq(pol_check_path(p, "/opt/x", POL_OP_WRITE, 0, NULL, &r), POL_ALLOW,
		     "disabled by its old ID");
	cr_expect_eq(pol_check_path(p, "/etc/x", POL_OP_WRITE, 0, NULL, &r), POL_DENY);
	pol_free(p);
}

Test(rule_ids, aliases_survive_a_snapshot_and_the_embedded_defaults_have_them)
{
	struct pol_policy *p = load("zeroAccessPaths: [~/.ssh/, '*.pem', .env]\n"), *q = pol_new(0),
			  *e = pol_new(0);
	size_t len = 0;
	char *snap = pol_snapshot_save(p, &len);
	ssize_t i;

	cr_assert_not_null(snap);
	cr_assert_eq(pol_snapshot_load(q, snap, len), 0);
	free(snap);
	i = pol_rule_find_alias(q, "policy.zero_access.2");
	cr_assert_geq(i, 0);
	cr_expect_eq(i, pol_rule_find(q, "policy.zero_access.any_pem"));
	cr_assert_eq(pol_load_embedded(e), 0);
	i = pol_rule_find_alias(e, "default.zero_access.1");
	cr_assert_geq(i, 0, "the embedded defaults keep their aliases");
	cr_expect_eq(i, pol_rule_find(e, "default.zero_access.home_ssh"));
	pol_free(p);
	pol_free(q);
	pol_free(e);
}

/* pol_new() adds its built-in rules without looking each up: their IDs are distinct,
 * each found where it is, and so are dcg's own rules the layered load adds after them
 * (looked up one by one before the ID index is made). */
Test(rule_ids, built_in_ids_are_distinct_and_found)
{
	struct pol_policy *p = pol_new(0);
	/* fictional folders: no file of this machine is read */
	struct pol_env env = {.home = "/nonexistent-dcg-test/home",
			      .cwd = "/nonexistent-dcg-test/proj",
			      .no_project = 1,
			      .no_system = 1};

	cr_assert_not_null(p);
	cr_assert_gt(pol_rule_count(p), 10);
	for (size_t i = 0; i < pol_rule_count(p); i++) {
		struct pol_rule_info info;
		cr_assert_eq(pol_rule_get(p, i, &info), 0);
		cr_expect_eq(pol_rule_find(p, info.id), (ssize_t)i, "%s", info.id);
	}
	pol_load_layers(p, &env);
	for (size_t i = 0; i < pol_rule_count(p); i++) {
		struct pol_rule_info info;
		cr_assert_eq(pol_rule_get(p, i, &info), 0);
		cr_expect_eq(pol_rule_find(p, info.id), (ssize_t)i, "%s", info.id);
	}
	cr_expect_geq(pol_rule_find(p, "dcg.self.config"), 0);
	cr_expect_lt(pol_rule_find(p, "no.such.rule"), 0);
	pol_free(p);
}

/* dcg's own files, where this environment puts them, as guarded read-only rules that
 * end with their allow suggestion; the state and the log are dcg's to write. */
Test(rule_ids, dcg_own_files_are_guarded_read_only_rules)
{
	static const struct {
		const char *id, *pattern;
		int owned;
	} want[] = {
	    {"dcg.self.config", "/nonexistent-dcg-test/cfg/dcg/", 0},
	    {"dcg.self.state", "/nonexistent-dcg-test/xstate/dcg/", 1},
	    {"dcg.self.trust", "/nonexistent-dcg-test/state/trust.json", 1},
	    {"dcg.self.log", "/nonexistent-dcg-test/log/audit.jsonl", 1},
	    {"dcg.self.log_rotated", "/nonexistent-dcg-test/log/audit.jsonl.1", 1},
	    {"dcg.self.system", "/nonexistent-dcg-test/etc/policy.yaml", 0},
	    {"dcg.self.policy", "/nonexistent-dcg-test/proj/given.yaml", 0},
	    {"dcg.self.snapshot", "/nonexistent-dcg-test/run/dcg/", 0},
	    {"dcg.self.binary", "/nonexistent-dcg-test/pfx/bin/dcg", 0},
	    {"dcg.self.preload", "/nonexistent-dcg-test/pfx/bin/libdcg-preload.so", 0},
	    {"dcg.self.engine", "/nonexistent-dcg-test/pfx/bin/libdcg-engine.so", 0},
	    {"dcg.self.libdir", "/nonexistent-dcg-test/pfx/lib/dcg/", 0},
	    {"dcg.self.guard", "/nonexistent-dcg-test/elsewhere/libdcg-preload.so", 0},
	    {"dcg.self.guard_engine", "/nonexistent-dcg-test/elsewhere/libdcg-engine.so", 0},
	};
	struct pol_env env = {.home = "/nonexistent-dcg-test/home",
			      .cwd = "/nonexistent-dcg-test/proj",
			      .xdg_config_home = "/nonexistent-dcg-test/cfg",
			      .xdg_state_home = "/nonexistent-dcg-test/xstate",
			      .system_file = "/nonexistent-dcg-test/etc/policy.yaml",
			      .trust_file = "/nonexistent-dcg-test/state/trust.json",
			      .policy_file = "given.yaml",
			      .dcg_exe = "/nonexistent-dcg-test/pfx/bin/dcg",
			      .guard_lib = "/nonexistent-dcg-test/elsewhere/libdcg-preload.so",
			      .no_project = 1};
	struct pol_policy *p = pol_new(POL_LOAD_LAZY);
	char allow[128];

	cr_assert_not_null(p);
	cr_assert_eq(setenv("DCG_LOG", "/nonexistent-dcg-test/log/audit.jsonl", 1), 0);
	cr_assert_eq(setenv("XDG_RUNTIME_DIR", "/nonexistent-dcg-test/run", 1), 0);
	pol_load_layers(p, &env);
	unsetenv("DCG_LOG");
	/* every row of the inventory is in this table: a row added there is tested here */
	cr_expect_eq(pol_self_row_count, sizeof(want) / sizeof(want[0]) + 1, "the project row");
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++) {
		ssize_t i = pol_rule_find(p, want[k].id);
		cr_assert_geq(i, 0, "%s", want[k].id);
		const struct pol_rule *r = &pol_rules(p)[i];

		cr_expect_str_eq(r->pattern, want[k].pattern);
		/* a folder's glob without its last '/': it covers what lies beneath */
		size_t gl =
		    strlen(want[k].pattern) - (want[k].pattern[strlen(want[k].pattern) - 1] == '/');
		cr_expect(strlen(r->path.glob) == gl && !strncmp(r->path.glob, want[k].pattern, gl),
			  "%s: %s", want[k].id, r->path.glob);
		cr_expect(r->kind == POL_RULE_PATH && r->path_kind == POL_PATH_READ_ONLY &&
			      r->decision == POL_DENY && r->severity == POL_SEV_HIGH &&
			      r->guarded && r->enabled && r->active,
			  "%s", want[k].id);
		cr_expect_str_eq(r->origin, "<builtin>");
		cr_expect(strstr(r->reason, "dcg's own file") != NULL, "%s", r->reason);
		snprintf(allow, sizeof(allow), "If intentional: dcg allow %s -r \"reason\"",
			 want[k].id);
		cr_assert_gt(r->n_suggestions, 0);
		cr_expect_str_eq(r->suggestions[r->n_suggestions - 1], allow);
		cr_expect_eq(r->n_owners, (uint32_t)want[k].owned, "%s", want[k].id);
		if (want[k].owned)
			cr_expect_str_eq(r->owners[0], ":dcg");
	}
	struct pol_result res;
	pol_check_path(p, "/nonexistent-dcg-test/cfg/dcg/policy.yaml", POL_OP_WRITE, 0, NULL, &res);
	cr_expect_eq(res.decision, POL_DENY);
	cr_expect_str_eq(res.rule_id, "dcg.self.config");
	pol_result_release(&res);
	/* every operation that changes a file refuses every row, to anybody but dcg */
	static const enum pol_op ops[] = {POL_OP_WRITE,	      POL_OP_TRUNCATE,	POL_OP_DELETE,
					  POL_OP_RENAME_FROM, POL_OP_RENAME_TO, POL_OP_CREATE,
					  POL_OP_CHMOD};
	for (size_t k = 0; k < sizeof(want) / sizeof(want[0]); k++)
		for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
			char path[256];
			size_t n = strlen(want[k].pattern);

			snprintf(path, sizeof(path), "%s%s", want[k].pattern,
				 want[k].pattern[n - 1] == '/' ? "new-file" : "");
			pol_check_path(p, path, ops[o], 0, NULL, &res);
			cr_expect_eq(res.decision, POL_DENY, "%s: %s", path, pol_op_name(ops[o]));
			pol_result_release(&res);
		}
	pol_free(p);
}

/* The project's own policy file is one of the guard's files too. */
Test(rule_ids, the_project_policy_file_is_the_guards)
{
	struct pol_env env = {.home = "/nonexistent-dcg-test/home", .no_user = 1, .no_system = 1};
	char buf[PATH_MAX];

	cr_assert_eq(pol_self_path(POL_SELF_PROJECT, &env, "/srv/p", buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/srv/p/.dcg/policy.yaml");
	cr_assert_eq(pol_self_path(POL_SELF_PROJECT, &env, "/", buf, sizeof(buf)), 0);
	cr_expect_str_eq(buf, "/.dcg/policy.yaml");
	cr_expect_eq(pol_self_path(POL_SELF_PROJECT, &env, NULL, buf, sizeof(buf)), -ENOENT);
	cr_expect_eq(pol_self_path(POL_SELF_BINARY, &env, NULL, buf, sizeof(buf)), -ENOENT);
	cr_expect_eq(pol_self_path(POL_SELF_POLICY, &env, NULL, buf, sizeof(buf)), -ENOENT);
}
