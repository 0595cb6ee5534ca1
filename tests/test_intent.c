/* test_intent.c - intent scopes (policy/intent.h), driven directly: scope decisions
 * from a table (tests/data/intent/scope_cases.txt) in a temporary workspace with real
 * folders and symlinks, each error code and its structured JSON, bad intents files,
 * shell commands, tool classes, and the selection store per project and session. */
#include "../policy/intent.h"

#include <cjson/cJSON.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DATA "tests/data/intent/"

/* ---- workspace ----------------------------------------------------------------------- */

static char ws[256];
static char repo[1024];

static void sh(const char *cmd)
{
	char line[2048];

	snprintf(line, sizeof(line), "cd '%s' && %s", ws, cmd);
	cr_assert_eq(system(line), 0, "setup failed: %s", cmd);
}

/* A project with the test intents, some files and symlinks in and out of the scopes;
 * selection state goes to a state folder inside it. */
static struct pol_intent_set *workspace(const char *id)
{
	struct pol_intent_set *s = NULL;
	char file[2 * PATH_MAX], state[PATH_MAX];
	int rc;

	cr_assert(getcwd(repo, sizeof(repo)));
	snprintf(ws, sizeof(ws), "/tmp/dcg-test-intent.XXXXXX");
	cr_assert(mkdtemp(ws));
	snprintf(file, sizeof(file),
		 "mkdir -p .orchestration && cp '%s/" DATA "active_intents.yaml' .orchestration/",
		 repo);
	sh(file);
	sh("mkdir -p src/auth/deep src/auth/clean src/api src/middleware secrets docs/guide "
	   "deploy && touch src/auth/login.ts src/auth/login.test.ts src/auth/clean/a.ts "
	   "README.md CHANGELOG.md && ln -s ../api src/auth/to-api && "
	   "ln -s /etc/hostname src/auth/to-etc && ln -s deep src/auth/to-inside && "
	   "ln -s src/auth link-to-auth");
	snprintf(state, sizeof(state), "%s/state", ws);
	setenv("XDG_STATE_HOME", state, 1);
	snprintf(file, sizeof(file), "%s/" POL_INTENT_FILE, ws);
	rc = pol_intent_load(file, ws, &s);
	cr_assert_eq(rc, 0, "load: %d", rc);
	cr_assert(s);
	cr_assert_eq(pol_intent_diag_count(s), 0);
	if (id)
		cr_assert_eq(pol_intent_select(s, id), 0);
	cr_assert_eq(chdir(ws), 0);
	return s;
}

static void remove_workspace(struct pol_intent_set *s)
{
	char line[512];

	pol_intent_free(s);
	cr_assert_eq(chdir(repo), 0);
	snprintf(line, sizeof(line), "rm -rf '%s'", ws);
	cr_assert_eq(system(line), 0);
}

static enum pol_op op_from(const char *name, unsigned *flags)
{
	static const struct {
		const char *name;
		enum pol_op op;
	} ops[] = {
	    {"read", POL_OP_READ},     {"write", POL_OP_WRITE},	       {"create", POL_OP_CREATE},
	    {"delete", POL_OP_DELETE}, {"rename", POL_OP_RENAME_FROM}, {"chmod", POL_OP_CHMOD},
	    {"exec", POL_OP_EXEC},     {"list", POL_OP_LIST},	       {"rmdir", POL_OP_DELETE},
	};

	*flags = !strcmp(name, "rmdir") ? POL_PATH_IS_DIR : 0;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(ops[i].name, name))
			return ops[i].op;
	cr_assert_fail("unknown op %s", name);
	return POL_OP_READ;
}

/* ---- scope matching, as a table ------------------------------------------------------- */

Test(intent, scope_cases_from_table)
{
	struct pol_intent_set *s = workspace(NULL);
	char line[512], path[2 * PATH_MAX];
	FILE *f;
	int n = 0;

	snprintf(path, sizeof(path), "%s/" DATA "scope_cases.txt", repo);
	f = fopen(path, "r");
	cr_assert(f, "cannot open %s", path);
	while (fgets(line, sizeof(line), f)) {
		char id[64], opname[32], p[400], expect[16];
		struct pol_result r;
		unsigned flags;
		enum pol_op op;

		if (line[0] == '#' || line[0] == '\n')
			continue;
		cr_assert_eq(sscanf(line, "%63s %31s %399s %15s", id, opname, p, expect), 4,
			     "bad case line: %s", line);
		if (!strncmp(p, "/ws/", 4) || !strcmp(p, "/ws"))
			snprintf(path, sizeof(path), "%s%s", ws, p + 3);
		else
			snprintf(path, sizeof(path), "%s", p);
		op = op_from(opname, &flags);
		cr_assert_eq(pol_intent_select(s, id), 0, "unknown intent %s", id);
		pol_intent_check_path(s, path, op, flags, ws, getenv("HOME"), &r);
		cr_expect_str_eq(pol_decision_name(r.decision), expect, "%s %s %s: got %s (%s)", id,
				 opname, p, pol_decision_name(r.decision),
				 r.rule_id ? r.rule_id : "no rule");
		if (r.decision != POL_ALLOW) {
			cr_expect_eq(r.detection, POL_DET_SCOPE);
			cr_expect_str_eq(r.rule_id, POL_INTENT_RULE_VIOLATION);
		}
		n++;
	}
	fclose(f);
	cr_assert_gt(n, 40, "the table was not read (%d cases)", n);
	remove_workspace(s);
}

Test(intent, in_scope_matches_patterns_without_the_file_system)
{
	struct pol_intent_set *s = workspace(NULL);
	const struct pol_intent *in = pol_intent_find(s, "INT-001");
	char p[PATH_MAX];

	cr_assert(in);
	cr_assert_eq(in->n_owned_scope, 3);
	cr_assert_str_eq(in->name, "JWT authentication");
	cr_assert_str_eq(in->status, "IN_PROGRESS");
	cr_assert_str_eq(in->constraints[0], "keep the public API");
	cr_assert_str_eq(in->acceptance_criteria[0], "unit tests pass");
	snprintf(p, sizeof(p), "%s/src/auth/a/b/c.ts", ws);
	cr_expect_eq(pol_intent_in_scope(s, in, p), 1);
	snprintf(p, sizeof(p), "%s/src/auth/a/b/c.test.ts", ws);
	cr_expect_eq(pol_intent_in_scope(s, in, p), 0);
	snprintf(p, sizeof(p), "%s/src/middleware/jwt.ts", ws);
	cr_expect_eq(pol_intent_in_scope(s, in, p), 1);
	cr_expect_eq(pol_intent_in_scope(s, in, "/src/auth/a.ts"), 0);
	in = pol_intent_find(s, "INT-EMPTY");
	cr_assert(in);
	cr_expect_eq(pol_intent_in_scope(s, in, ws), 0);
	remove_workspace(s);
}

/* ---- error codes and their JSON ---------------------------------------------------------- */

static void expect_json(const struct pol_result *r, const char *code, const char *in_reason)
{
	char buf[2048];
	size_t n = pol_intent_error_json(r, buf, sizeof(buf));
	cJSON *j, *v;

	cr_assert_gt(n, 0, "no JSON for %s", code);
	cr_assert_eq(strlen(buf), n);
	j = cJSON_Parse(buf);
	cr_assert(j, "not JSON: %s", buf);
	cr_assert_eq(cJSON_GetArraySize(j), 4, "exactly four keys: %s", buf);
	v = cJSON_GetObjectItemCaseSensitive(j, "error");
	cr_assert(cJSON_IsString(v));
	cr_expect_str_eq(v->valuestring, code);
	v = cJSON_GetObjectItemCaseSensitive(j, "reason");
	cr_assert(cJSON_IsString(v));
	cr_expect(strstr(v->valuestring, in_reason), "reason '%s' lacks '%s'", v->valuestring,
		  in_reason);
	v = cJSON_GetObjectItemCaseSensitive(j, "suggestion");
	cr_assert(cJSON_IsString(v) && v->valuestring[0]);
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "recoverable")));
	cJSON_Delete(j);
}

Test(intent, violation_asks_with_scope_violation)
{
	struct pol_intent_set *s = workspace("INT-001");
	struct pol_result r;

	cr_assert_eq(pol_intent_check_path(s, "src/api/x.ts", POL_OP_WRITE, 0, ws, NULL, &r),
		     POL_ASK);
	cr_expect_eq(r.detection, POL_DET_SCOPE);
	cr_expect_str_eq(r.rule_id, "scope.violation");
	cr_expect_str_eq(pol_intent_error_code(&r), "SCOPE_VIOLATION");
	cr_expect_str_eq(r.matched, "src/api/x.ts");
	cr_expect(strstr(r.path, "/src/api/x.ts"));
	cr_expect(strstr(r.reason, "INT-001"));
	/* one-line messages and the audit log show the reason: it carries the code */
	cr_expect(!strncmp(r.reason, "SCOPE_VIOLATION: ", 17), "%s", r.reason);
	cr_expect(r.n_suggestions >= 1 && strstr(r.suggestions[0], "src/auth/**"));
	cr_expect(strstr(r.suggestions[0], "INT-EXCL"), "known intents listed: %s",
		  r.suggestions[0]);
	expect_json(&r, "SCOPE_VIOLATION", "src/api/x.ts is outside the owned_scope of INT-001");
	remove_workspace(s);
}

Test(intent, no_active_intent_denies_with_missing_intent)
{
	struct pol_intent_set *s = workspace(NULL);
	struct pol_result r;

	cr_assert_eq(pol_intent_check_path(s, "src/auth/a.ts", POL_OP_WRITE, 0, ws, NULL, &r),
		     POL_DENY);
	cr_expect_str_eq(r.rule_id, "scope.missing_intent");
	expect_json(&r, "MISSING_INTENT", "no active intent");
	/* reads stay free, and paths outside the project are not governed */
	cr_expect_eq(pol_intent_check_path(s, "src/auth/a.ts", POL_OP_READ, 0, ws, NULL, &r),
		     POL_ALLOW);
	cr_expect_eq(pol_intent_check_path(s, "/tmp/x", POL_OP_WRITE, 0, ws, NULL, &r), POL_ALLOW);
	remove_workspace(s);
}

Test(intent, unknown_intent_denies_with_intent_not_found)
{
	struct pol_intent_set *s = workspace(NULL);
	struct pol_result r;

	cr_assert_eq(pol_intent_select(s, "INT-404"), -ENOENT);
	cr_expect_str_eq(pol_intent_selected_id(s), "INT-404");
	cr_expect_null(pol_intent_active(s));
	cr_assert_eq(pol_intent_check_path(s, "src/auth/a.ts", POL_OP_WRITE, 0, ws, NULL, &r),
		     POL_DENY);
	cr_expect_str_eq(r.rule_id, "scope.intent_not_found");
	expect_json(&r, "INTENT_NOT_FOUND", "INT-404");
	cr_expect(strstr(r.suggestions[0], "INT-001, INT-EXCL"), "%s", r.suggestions[0]);
	remove_workspace(s);
}

Test(intent, json_escapes_and_stays_valid_when_cut)
{
	struct pol_intent_set *s = workspace("INT-001");
	struct pol_result r;
	char buf[300], big[4096];
	cJSON *j;

	pol_intent_check_path(s, "src/api/quote\"back\\slash\ttab.ts", POL_OP_WRITE, 0, ws, NULL,
			      &r);
	cr_assert_eq(r.decision, POL_ASK);
	cr_assert_gt(pol_intent_error_json(&r, big, sizeof(big)), 0);
	j = cJSON_Parse(big);
	cr_assert(j, "not JSON: %s", big);
	cr_expect(strstr(cJSON_GetObjectItem(j, "reason")->valuestring, "quote\"back/slash\ttab"),
		  "backslashes become slashes, quotes and tabs survive: %s",
		  cJSON_GetObjectItem(j, "reason")->valuestring);
	cJSON_Delete(j);
	/* a small buffer cuts the strings but keeps the JSON whole */
	cr_assert_gt(pol_intent_error_json(&r, buf, sizeof(buf)), 0);
	j = cJSON_Parse(buf);
	cr_assert(j, "cut JSON is not JSON: %s", buf);
	cr_expect(cJSON_IsTrue(cJSON_GetObjectItem(j, "recoverable")));
	cJSON_Delete(j);
	cr_expect_eq(pol_intent_error_json(&r, buf, 100), 0);
	/* not a scope result: no JSON */
	pol_result_init(&r);
	cr_expect_eq(pol_intent_error_json(&r, big, sizeof(big)), 0);
	cr_expect_null(pol_intent_error_code(&r));
	remove_workspace(s);
}

/* The intent error is written by policy/'s one JSON writer (json.c), as the audit line
 * is: bytes that are not UTF-8 become U+FFFD, DEL is escaped, and the JSON stays whole
 * at every buffer size. */
Test(intent, json_writer_maps_bytes_and_stays_whole_at_every_size)
{
	struct pol_intent_set *s = workspace("INT-001");
	struct pol_result r;
	char buf[1024];
	cJSON *j;

	pol_intent_check_path(s, "src/api/bad\xff\x7f\xc3\xa9.ts", POL_OP_WRITE, 0, ws, NULL, &r);
	cr_assert_eq(r.decision, POL_ASK);
	cr_assert_gt(pol_intent_error_json(&r, buf, sizeof(buf)), 0);
	cr_expect(strstr(buf, "bad\\ufffd\\u007f\xc3\xa9.ts") != NULL, "%s", buf);
	for (size_t size = 256; size <= sizeof(buf); size += 7) {
		size_t n = pol_intent_error_json(&r, buf, size);

		cr_assert(n > 0 && n < size && buf[n] == '\0', "size %zu: %zu", size, n);
		j = cJSON_Parse(buf);
		cr_expect(j && cJSON_IsTrue(cJSON_GetObjectItem(j, "recoverable")),
			  "size %zu: not whole JSON: %s", size, buf);
		cJSON_Delete(j);
	}
	remove_workspace(s);
}

/* ---- bad files ----------------------------------------------------------------------- */

struct bad_case {
	const char *yaml;
	int rc;		  /* pol_intent_load_buffer's answer */
	size_t n_intents; /* usable intents left */
	unsigned line;	  /* line of the first diagnostic, 0: none expected */
	const char *msg;  /* part of the first diagnostic */
};

Test(intent, bad_files_get_clear_diagnostics)
{
	static const struct bad_case cases[] = {
	    {"active_intents: [\n  - id: A\n", -EINVAL, 0, 2, "YAML syntax error"},
	    {"intents: []\n", -EINVAL, 0, 1, "no 'active_intents' key"},
	    {"- a\n- b\n", -EINVAL, 0, 1, "expected a mapping"},
	    {"active_intents: 3\n", -EINVAL, 0, 1, "must be a list"},
	    {"", -EINVAL, 0, 0, "expected a mapping"},
	    {"active_intents:\n", 0, 0, 0, NULL},
	    {"active_intents:\n  - name: no id\n  - id: B\n", 0, 1, 2, "has no id"},
	    {"active_intents:\n  - id: A\n  - id: A\n", 0, 1, 3, "listed twice"},
	    {"active_intents:\n  - id: two words\n", 0, 0, 2, "one word"},
	    {"active_intents:\n  - id: A\n    owned_scope: {a: 1}\n  - id: B\n", 0, 1, 3,
	     "must be a list of strings"},
	    {"active_intents:\n  - id: A\n    owned_scope: [1, [x]]\n", 0, 0, 3,
	     "non-empty strings"},
	    {"active_intents:\n  - id: A\n    owned_scope: src/\n", 0, 1, 0, NULL},
	    {"active_intents:\n  - plain\n", 0, 0, 2, "must be a mapping"},
	    /* the policy files' limits hold here too (policy/yamlread.c) */
	    {"active_intents: "
	     "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]"
	     "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]\n",
	     -EINVAL, 0, 1, "nested more than 64 deep"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct bad_case *c = &cases[i];
		struct pol_intent_set *s = NULL;
		int rc = pol_intent_load_buffer("bad.yaml", c->yaml, strlen(c->yaml), "/proj", &s);

		cr_assert(s, "case %zu: no set", i);
		cr_expect_eq(rc, c->rc, "case %zu: rc %d", i, rc);
		cr_expect_eq(pol_intent_invalid(s), c->rc == -EINVAL, "case %zu", i);
		cr_expect_eq(pol_intent_count(s), c->n_intents, "case %zu: %zu intents", i,
			     pol_intent_count(s));
		if (c->msg) {
			const struct pol_intent_diag *d = pol_intent_diag_get(s, 0);

			cr_assert(d, "case %zu: no diagnostic", i);
			cr_expect(strstr(d->msg, c->msg), "case %zu: '%s' lacks '%s'", i, d->msg,
				  c->msg);
			cr_expect_str_eq(d->file, "bad.yaml");
			if (c->line)
				cr_expect_eq(d->line, c->line, "case %zu: line %u", i, d->line);
		} else {
			cr_expect_eq(pol_intent_diag_count(s), 0, "case %zu: %s", i,
				     pol_intent_diag_count(s) ? pol_intent_diag_get(s, 0)->msg
							      : "");
		}
		pol_intent_free(s);
	}
}

Test(intent, a_refused_file_denies_every_write_in_the_project)
{
	struct pol_intent_set *s = NULL;
	struct pol_result r;
	static const char yaml[] = "active_intents: [oops\n";

	cr_assert_eq(pol_intent_load_buffer("x.yaml", yaml, sizeof(yaml) - 1, "/proj", &s),
		     -EINVAL);
	pol_intent_select(s, "INT-001");
	cr_assert_eq(pol_intent_check_path(s, "/proj/src/a", POL_OP_WRITE, 0, "/", NULL, &r),
		     POL_DENY);
	cr_expect_str_eq(r.rule_id, "scope.intents_invalid");
	expect_json(&r, "INVALID_INTENTS_FILE", "x.yaml:2");
	cr_expect_eq(pol_intent_check_path(s, "/proj/src/a", POL_OP_READ, 0, "/", NULL, &r),
		     POL_ALLOW);
	pol_intent_free(s);
}

Test(intent, missing_file_is_enoent)
{
	struct pol_intent_set *s = (void *)1;

	cr_expect_eq(pol_intent_load("/nonexistent/.orchestration/active_intents.yaml", NULL, &s),
		     -ENOENT);
	cr_expect_null(s);
}

/* ---- shell commands ------------------------------------------------------------------------ */

Test(intent, shell_commands_are_checked_on_the_paths_they_write)
{
	static const struct {
		const char *cmd;
		enum pol_decision want;
	} cases[] = {
	    {"ls -la src && cat README.md", POL_ALLOW},
	    {"echo hi > src/auth/new.ts", POL_ALLOW},
	    {"echo hi > src/api/new.ts", POL_ASK},
	    {"rm src/api/x.ts", POL_ASK},
	    {"rm src/auth/login.ts", POL_ALLOW},
	    {"cat README.md > /tmp/dcg-intent-copy", POL_ALLOW},
	    {"mv src/auth/login.ts src/api/login.ts", POL_ASK},
	    {"touch README.md", POL_ASK},
	};
	struct pol_intent_set *s = workspace("INT-001");

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pol_result r;
		enum pol_decision d =
		    pol_intent_check_command(s, cases[i].cmd, strlen(cases[i].cmd), ws, NULL, &r);

		cr_expect_eq(d, cases[i].want, "%s: got %s (%s)", cases[i].cmd,
			     pol_decision_name(d), r.matched);
		if (d != POL_ALLOW)
			cr_expect_str_eq(r.rule_id, "scope.violation");
	}
	remove_workspace(s);
}

Test(intent, shell_write_without_intent_is_missing_intent)
{
	struct pol_intent_set *s = workspace(NULL);
	struct pol_result r;
	static const char cmd[] = "echo x > src/auth/a.ts";

	cr_expect_eq(pol_intent_check_command(s, cmd, sizeof(cmd) - 1, ws, NULL, &r), POL_DENY);
	cr_expect_str_eq(r.rule_id, "scope.missing_intent");
	remove_workspace(s);
}

/* ---- tool classes --------------------------------------------------------------------------- */

Test(intent, tool_classes_from_the_caller_and_from_policy)
{
	struct pol_intent_set *s = workspace("INT-001");
	struct pol_result r;
	static const char pol[] = "version: 1\n"
				  "tools:\n"
				  "  read_only: [mcp__github__get_*, Bash]\n"
				  "  destructive: [mcp__github__get_and_delete, TodoWrite]\n"
				  "  destructive_need_approval: true\n";
	static const char bad[] = "tools:\n  nonsense: 1\n  destructive_need_approval: maybe\n";

	/* the caller (an agent adapter) knows which of its tools only read */
	cr_expect_eq(pol_intent_tool_class(s, "Read", 1), POL_INTENT_TOOL_READ_ONLY);
	cr_expect_eq(pol_intent_tool_class(s, "Read", 0), POL_INTENT_TOOL_DESTRUCTIVE);
	cr_expect_eq(pol_intent_tool_class(s, "Write", 0), POL_INTENT_TOOL_DESTRUCTIVE);
	cr_expect_eq(pol_intent_tool_class(s, "mcp__x__y", 0), POL_INTENT_TOOL_DESTRUCTIVE);
	cr_expect_eq(pol_intent_tool_class(s, "", 1), POL_INTENT_TOOL_DESTRUCTIVE);
	cr_expect_eq(pol_intent_tools_need_approval(s), 0);
	/* without approval required, unknown tools pass */
	cr_expect_eq(pol_intent_check_tool(s, "mcp__x__y", 0, &r), POL_ALLOW);

	cr_assert_eq(pol_intent_tools_load_buffer(s, "p.yaml", pol, sizeof(pol) - 1), 0);
	cr_expect_eq(pol_intent_tool_class(s, "mcp__github__get_issue", 0),
		     POL_INTENT_TOOL_READ_ONLY);
	cr_expect_eq(pol_intent_tool_class(s, "mcp__github__get_and_delete", 0),
		     POL_INTENT_TOOL_DESTRUCTIVE);
	cr_expect_eq(pol_intent_tool_class(s, "TodoWrite", 1), POL_INTENT_TOOL_DESTRUCTIVE);
	cr_expect_eq(pol_intent_tool_class(s, "Bash", 0), POL_INTENT_TOOL_READ_ONLY);
	cr_expect_eq(pol_intent_tools_need_approval(s), 1);
	cr_expect_eq(pol_intent_check_tool(s, "mcp__github__get_issue", 0, &r), POL_ALLOW);
	cr_expect_eq(pol_intent_check_tool(s, "mcp__x__y", 0, &r), POL_ASK);
	cr_expect_str_eq(r.rule_id, "scope.unchecked_tool");
	expect_json(&r, "UNCHECKED_TOOL", "mcp__x__y");
	pol_intent_select(s, NULL);
	cr_expect_eq(pol_intent_check_tool(s, "mcp__x__y", 0, &r), POL_DENY);
	cr_expect_str_eq(r.rule_id, "scope.missing_intent");

	cr_expect_eq(pol_intent_tools_load_buffer(s, "bad.yaml", bad, sizeof(bad) - 1), -EINVAL);
	cr_expect_eq(pol_intent_diag_count(s), 2);
	cr_expect(strstr(pol_intent_diag_get(s, 0)->msg, "tools.nonsense"));
	remove_workspace(s);
}

/* ---- selection ------------------------------------------------------------------------------- */

Test(intent, selection_per_project_and_per_session)
{
	struct pol_intent_set *s = workspace(NULL), *o;
	char id[64], p1[PATH_MAX], p2[PATH_MAX], other[PATH_MAX];
	int from_session = -1, err;

	cr_expect_eq(pol_intent_selection_get(ws, NULL, id, sizeof(id), NULL), -ENOENT);
	cr_assert_eq(pol_intent_selection_set(ws, NULL, "INT-001"), 0);
	cr_assert_eq(pol_intent_selection_get(ws, NULL, id, sizeof(id), NULL), 0);
	cr_expect_str_eq(id, "INT-001");
	/* a session without its own selection falls back to the project's */
	cr_assert_eq(pol_intent_selection_get(ws, "sess-A", id, sizeof(id), &from_session), 0);
	cr_expect_str_eq(id, "INT-001");
	cr_expect_eq(from_session, 0);
	cr_assert_eq(pol_intent_selection_set(ws, "sess-A", "INT-EXCL"), 0);
	cr_assert_eq(pol_intent_selection_get(ws, "sess-A", id, sizeof(id), &from_session), 0);
	cr_expect_str_eq(id, "INT-EXCL");
	cr_expect_eq(from_session, 1);
	/* another session and the project are untouched */
	cr_assert_eq(pol_intent_selection_get(ws, "sess-B", id, sizeof(id), NULL), 0);
	cr_expect_str_eq(id, "INT-001");
	/* odd session IDs get distinct, safe file names */
	cr_assert_eq(pol_intent_state_path(ws, "a/b", p1, sizeof(p1)), 0);
	cr_assert_eq(pol_intent_state_path(ws, "a_b", p2, sizeof(p2)), 0);
	cr_expect_str_neq(p1, p2);
	cr_expect_null(strchr(strrchr(p1, '/') + 1, '/'));
	/* another project has its own selection */
	snprintf(other, sizeof(other), "%s/src", ws);
	cr_expect_eq(pol_intent_selection_get(other, NULL, id, sizeof(id), NULL), -ENOENT);

	/* pol_intent_open: found upwards from a subfolder, selection applied */
	snprintf(other, sizeof(other), "%s/src/auth", ws);
	o = pol_intent_open(other, "sess-A", NULL, &err);
	cr_assert(o);
	cr_expect_eq(err, 0);
	cr_expect_str_eq(pol_intent_active(o)->id, "INT-EXCL");
	pol_intent_free(o);
	o = pol_intent_open(other, NULL, "INT-EMPTY", &err);
	cr_assert(o);
	cr_expect_str_eq(pol_intent_active(o)->id, "INT-EMPTY");
	pol_intent_free(o);

	/* clearing: the session falls back again; clearing twice is fine */
	cr_assert_eq(pol_intent_selection_set(ws, "sess-A", NULL), 0);
	cr_assert_eq(pol_intent_selection_set(ws, "sess-A", NULL), 0);
	cr_assert_eq(pol_intent_selection_get(ws, "sess-A", id, sizeof(id), NULL), 0);
	cr_expect_str_eq(id, "INT-001");
	cr_assert_eq(pol_intent_selection_set(ws, NULL, NULL), 0);
	cr_expect_eq(pol_intent_selection_get(ws, "sess-A", id, sizeof(id), NULL), -ENOENT);
	cr_expect_eq(pol_intent_selection_set(ws, NULL, "two words"), -EINVAL);
	remove_workspace(s);
}

Test(intent, open_without_intents_file_is_enoent)
{
	int err = 0;

	cr_expect_null(pol_intent_open("/proc/self", NULL, NULL, &err));
	cr_expect_eq(err, -ENOENT);
}

Test(intent, runtime_environment_selects_the_named_intent)
{
	struct pol_intent_set *s = workspace(NULL), *e;
	char file[PATH_MAX * 2];
	struct pol_result r;

	unsetenv("DCG_INTENT");
	cr_expect_null(pol_intent_open_env(), "no DCG_INTENT: no confinement");
	snprintf(file, sizeof(file), "%s/" POL_INTENT_FILE, ws);
	setenv("DCG_INTENT", "INT-001", 1);
	setenv("DCG_INTENTS_FILE", file, 1);
	e = pol_intent_open_env();
	cr_assert(e);
	cr_assert(pol_intent_active(e));
	cr_expect_str_eq(pol_intent_active(e)->id, "INT-001");
	cr_expect_str_eq(pol_intent_root(e), ws);
	cr_expect_eq(
	    pol_intent_check_path_at(e, AT_FDCWD, "src/api/x.ts", POL_OP_CREATE, 0, NULL, NULL, &r),
	    POL_ASK);
	pol_intent_free(e);
	/* an unknown ID: INTENT_NOT_FOUND on every write in the project */
	setenv("DCG_INTENT", "INT-404", 1);
	e = pol_intent_open_env();
	cr_assert(e);
	cr_expect_eq(pol_intent_check_path(e, "src/auth/a.ts", POL_OP_WRITE, 0, NULL, NULL, &r),
		     POL_DENY);
	cr_expect_str_eq(r.rule_id, "scope.intent_not_found");
	pol_intent_free(e);
	/* a named file that is gone fails closed */
	setenv("DCG_INTENT", "INT-001", 1);
	snprintf(file, sizeof(file), "%s/gone/.orchestration/active_intents.yaml", ws);
	setenv("DCG_INTENTS_FILE", file, 1);
	e = pol_intent_open_env();
	cr_assert(e);
	cr_expect(pol_intent_invalid(e));
	snprintf(file, sizeof(file), "%s/gone/x", ws);
	cr_expect_eq(pol_intent_check_path(e, file, POL_OP_WRITE, 0, NULL, NULL, &r), POL_DENY);
	cr_expect_str_eq(r.rule_id, "scope.intents_invalid");
	pol_intent_free(e);
	remove_workspace(s);
}

Test(intent, relative_paths_against_a_directory_descriptor)
{
	struct pol_intent_set *s = workspace("INT-001");
	struct pol_result r;
	int fd = open("src/auth", O_RDONLY | O_DIRECTORY);

	cr_assert_geq(fd, 0);
	cr_expect_eq(pol_intent_check_path_at(s, fd, "new.ts", POL_OP_CREATE, 0, NULL, NULL, &r),
		     POL_ALLOW);
	cr_expect_eq(
	    pol_intent_check_path_at(s, fd, "../api/new.ts", POL_OP_CREATE, 0, NULL, NULL, &r),
	    POL_ASK);
	cr_expect_eq(
	    pol_intent_check_path_at(s, fd, "to-api/new.ts", POL_OP_CREATE, 0, NULL, NULL, &r),
	    POL_ASK);
	close(fd);
	remove_workspace(s);
}

Test(intent, a_project_reached_through_a_symlink_keeps_its_scope)
{
	struct pol_intent_set *s = workspace(NULL), *via_link = NULL;
	char link[300], file[PATH_MAX * 2], p[PATH_MAX * 2];
	struct pol_result r;

	snprintf(link, sizeof(link), "%s.link", ws);
	cr_assert_eq(symlink(ws, link), 0);
	snprintf(file, sizeof(file), "%s/" POL_INTENT_FILE, link);
	cr_assert_eq(pol_intent_load(file, link, &via_link), 0);
	cr_assert_eq(pol_intent_select(via_link, "INT-001"), 0);
	/* the same files, named through the link or through the real folder */
	snprintf(p, sizeof(p), "%s/src/auth/a.ts", link);
	cr_expect_eq(pol_intent_check_path(via_link, p, POL_OP_WRITE, 0, "/", NULL, &r), POL_ALLOW);
	snprintf(p, sizeof(p), "%s/src/auth/a.ts", ws);
	cr_expect_eq(pol_intent_check_path(via_link, p, POL_OP_WRITE, 0, "/", NULL, &r), POL_ALLOW);
	snprintf(p, sizeof(p), "%s/src/api/a.ts", ws);
	cr_expect_eq(pol_intent_check_path(via_link, p, POL_OP_WRITE, 0, "/", NULL, &r), POL_ASK);
	snprintf(p, sizeof(p), "%s/src/api/a.ts", link);
	cr_expect_eq(pol_intent_check_path(via_link, p, POL_OP_WRITE, 0, "/", NULL, &r), POL_ASK);
	/* the selection store does not care which name was used */
	cr_assert_eq(pol_intent_selection_set(link, NULL, "INT-EXCL"), 0);
	cr_assert_eq(pol_intent_selection_get(ws, NULL, p, sizeof(p), NULL), 0);
	cr_expect_str_eq(p, "INT-EXCL");
	pol_intent_free(via_link);
	unlink(link);
	remove_workspace(s);
}
