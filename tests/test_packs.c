/* test_packs.c - the packs as data (policy/packs/FAMILY.yaml, embedded after
 * default.yaml): every example of every embedded rule holds (a stop example is matched
 * by its rule, a pass example is not), every pack rule has both kinds, a file holds
 * only its own family's packs, and a user's own rules' examples are checked the same
 * way (a wrong one is found, a malformed one is a load diagnostic). */
#include "dcg_policy.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct pol_policy *every_pack_on(void)
{
	struct pol_policy *p = pol_new(0);

	cr_assert_not_null(p);
	pol_set_home(p, "/home/agent");
	pol_set_root(p, "/srv/dcg-corpus/proj");
	cr_assert_eq(pol_load_embedded(p), 0);
	cr_assert_eq(pol_enable_every_pack(p), 0);
	cr_assert_eq(pol_diag_count(p), 0);
	return p;
}

struct tally {
	const struct pol_policy *p;
	const char *file;
	size_t tried, failed, stops, passes;
	const char *only; /* count stops and passes of this rule only */
	int quiet;	  /* the failures are the test's own: count them, do not log */
};

static int check_one(const struct pol_example *ex, void *arg)
{
	struct tally *t = arg;
	char why[512];

	if (t->only) {
		if (!strcmp(ex->rule_id, t->only)) {
			t->stops += ex->stop;
			t->passes += !ex->stop;
		}
		return 0;
	}
	t->tried++;
	if (pol_example_check(t->p, ex, why, sizeof(why)) != 0) {
		t->failed++;
		if (!t->quiet)
			cr_log_error("%s:%u: %s: %s example %s: %s", t->file, ex->line, ex->rule_id,
				     ex->stop ? "stop" : "pass", ex->command, why);
	}
	return 0;
}

Test(packs, every_example_of_every_embedded_rule_holds)
{
	struct pol_policy *p = every_pack_on();
	const char *name, *text;
	size_t len, files = 0, tried = 0;

	for (size_t i = 0; (text = pol_embedded_source(i, &name, &len)); i++, files++) {
		struct tally t = {.p = p, .file = name};

		cr_expect_eq(pol_examples_each(text, len, check_one, &t), 0, "%s", name);
		cr_expect_eq(t.failed, 0, "%s: %zu of %zu examples do not hold", name, t.failed,
			     t.tried);
		tried += t.tried;
	}
	cr_assert_geq(files, 2, "default.yaml and the packs are embedded");
	cr_assert_geq(tried, 300, "only %zu examples", tried);
	pol_free(p);
}

/* The rule IDs a pack file's text defines ("  - id: X" lines), one by one. */
static const char *next_id(const char *text, const char *end, const char **id_end)
{
	static const char key[] = "\n  - id: ";
	const char *s = text;

	while (s && s < end && (s = memmem(s, (size_t)(end - s), key, sizeof(key) - 1))) {
		s += sizeof(key) - 1;
		*id_end = s + strcspn(s, " \n#");
		return s;
	}
	return NULL;
}

Test(packs, every_pack_rule_has_stop_and_pass_examples_and_its_family_name)
{
	struct pol_policy *p = every_pack_on();
	const char *name, *text, *id, *idend;
	size_t len, files = 0, rules = 0;

	for (size_t i = 0; (text = pol_embedded_source(i, &name, &len)); i++) {
		const char *base = strrchr(name, '/'), *s = text;
		char family[64], rid[128];

		if (!strstr(name, "packs/"))
			continue;
		files++;
		snprintf(family, sizeof(family), "%.*s", (int)strcspn(base + 1, "."), base + 1);
		while ((id = next_id(s, text + len, &idend))) {
			struct tally t = {.p = p, .file = name, .only = rid};

			snprintf(rid, sizeof(rid), "%.*s", (int)(idend - id), id);
			s = idend;
			rules++;
			cr_expect(!strncmp(rid, family, strlen(family)) &&
				      rid[strlen(family)] == '.',
				  "%s holds %s, of another family", name, rid);
			cr_expect_geq(pol_rule_find(p, rid), 0, "%s: %s is not embedded", name,
				      rid);
			pol_examples_each(text, len, check_one, &t);
			cr_expect(t.stops > 0 && t.passes > 0,
				  "%s: %s has %zu stop and %zu pass examples", name, rid, t.stops,
				  t.passes);
		}
	}
	cr_assert_geq(files, 10);
	cr_assert_geq(rules, 100);
	pol_free(p);
}

static const char user_rules[] =
    "rules:\n"
    "  - id: mine.drop\n"
    "    pattern: '^mytool\\s+drop\\b'\n"
    "    reason: drops a table of mytool's\n"
    "    enabled: false\n"
    "    examples:\n"
    "      stop: ['mytool drop t', 'sudo mytool drop t', 'mytool list']\n"
    "      pass: ['mytool list', 'echo mytool drop t', 'mytool drop x']\n";

/* A user's own rules: the same check finds the example that does not hold, with a rule
 * off by default turned on for it, through wrappers and data words alike. */
Test(packs, a_users_wrong_examples_are_found)
{
	struct pol_policy *p = pol_new(0);
	struct tally t = {.p = p, .file = "mine.yaml", .quiet = 1};
	struct pol_example ex = {.rule_id = "mine.drop", .stop = 1, .command = "mytool drop t"};
	char why[256];

	cr_assert_eq(pol_load_buffer(p, "mine.yaml", user_rules, strlen(user_rules)), 0);
	cr_assert_eq(pol_diag_count(p), 0);
	/* off: its own stop example does not hold */
	cr_assert_eq(pol_example_check(p, &ex, why, sizeof(why)), 1);
	cr_assert(strstr(why, "does not stop it"), "%s", why);
	cr_assert_eq(pol_enable_every_pack(p), 0);
	cr_assert_eq(pol_example_check(p, &ex, why, sizeof(why)), 0, "%s", why);
	cr_assert_eq(pol_examples_each(user_rules, strlen(user_rules), check_one, &t), 0);
	cr_expect_eq(t.tried, 6);
	cr_expect_eq(t.failed, 2, "the stop 'mytool list' and the pass 'mytool drop x'");
	ex.rule_id = "mine.nothing";
	cr_assert_lt(pol_example_check(p, &ex, why, sizeof(why)), 0);
	pol_free(p);
}

Test(packs, malformed_examples_are_load_diagnostics)
{
	static const char *const bad[] = {
	    "rules:\n  - id: a.b\n    pattern: x\n    examples: [x]\n",
	    "rules:\n  - id: a.b\n    pattern: x\n    examples: {stop: x}\n",
	    "rules:\n  - id: a.b\n    pattern: x\n    examples: {deny: [x]}\n",
	    "rules:\n  - id: a.b\n    pattern: x\n    examples: {stop: [[x]]}\n",
	};

	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct pol_policy *p = pol_new(0);

		pol_load_buffer(p, "bad.yaml", bad[k], strlen(bad[k]));
		cr_expect_geq(pol_diag_count(p), 1, "%s", bad[k]);
		cr_expect_geq(pol_rule_find(p, "a.b"), 0, "the rule itself still loads");
		pol_free(p);
	}
}

/* A policy with more packs than the list has room for: the count is right and nothing
 * is written past the room (the CLI asks again with the count). */
Test(packs, pack_list_counts_past_its_room)
{
	struct pol_policy *p = every_pack_on();
	size_t n = pol_pack_list(p, NULL, 0);
	struct pol_pack_info *all = calloc(n + 1, sizeof(*all)), few[4];

	cr_assert_geq(n, 20);
	cr_assert_eq(pol_pack_list(p, few, 4), n);
	pol_pack_list_release(few, 4);
	cr_assert_eq(pol_pack_list(p, all, n + 1), n);
	for (size_t k = 1; k < n; k++)
		cr_expect_lt(strcmp(all[k - 1].name, all[k].name), 0, "each pack once, sorted");
	pol_pack_list_release(all, n);
	free(all);
	pol_free(p);
}

struct quiet {
	const struct pol_policy *p;
	const char *file;
	size_t tried, reached;
};

static int unknown_stays_quiet(const struct pol_example *ex, void *arg)
{
	static const char *const fallbacks[] = {"unknown.destructive_subcommand",
						"unknown.forced_reset"};
	struct quiet *q = arg;
	char why[512];

	if (!strncmp(ex->rule_id, "unknown.", 8))
		return 0;
	for (size_t k = 0; k < 2; k++) {
		struct pol_example e = {.rule_id = fallbacks[k], .stop = 0, .command = ex->command};

		q->tried++;
		if (pol_example_check(q->p, &e, why, sizeof(why)) != 0) {
			q->reached++;
			cr_log_error("%s:%u: %s's example \"%s\": %s", q->file, ex->line,
				     ex->rule_id, ex->command, why);
		}
	}
	return 0;
}

/* The rules for tools without a pack (policy/packs/unknown.yaml) never reach a command
 * of a tool a pack knows: no example of any other rule, stop or pass, is theirs (their
 * list of known tools is made by policy/gen/unknown.py; run it after adding a pack). */
Test(packs, the_unknown_tool_rules_leave_known_tools_to_their_packs)
{
	struct pol_policy *p = every_pack_on();
	const char *name, *text;
	size_t len;
	struct quiet q = {.p = p};

	for (size_t i = 0; (text = pol_embedded_source(i, &name, &len)); i++) {
		q.file = name;
		pol_examples_each(text, len, unknown_stays_quiet, &q);
	}
	cr_assert_geq(q.tried, 1000);
	cr_expect_eq(q.reached, 0, "%zu examples of known tools reach the unknown-tool rules",
		     q.reached);
	pol_free(p);
}
