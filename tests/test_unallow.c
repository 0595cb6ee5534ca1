/* test_unallow.c - the allow entries of a policy file as written (cli/allow_list.c):
 * read with their place in the text, and cut out one at a time, an entry or one path of
 * an entry, in block and flow style, leaving every other byte (comments included). */
#include "../cli/hook.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name, *text;
	size_t item; /* the entry to cut */
	int path;    /* -1: the entry; else that path of it */
	const char *want;
} cuts[] = {
    {"block, first of two", "allow:\n  - rule: a.b\n    reason: r\n  - rule: c.d\n    reason: s\n",
     0, -1, "allow:\n  - rule: c.d\n    reason: s\n"},
    {"block, last keeps the comments around it",
     "# top\nallow:\n  - rule: a.b  # mine\n    reason: r\n  # about c.d\n  - rule: c.d\n"
     "    reason: s\n# end\n",
     1, -1, "# top\nallow:\n  - rule: a.b  # mine\n    reason: r\n  # about c.d\n# end\n"},
    {"block entry with a block list of paths",
     "allow:\n  - rule: a.b\n    reason: r\n    paths:\n      - x/**\n      - y/**\nkey: 1\n", 0,
     -1, "allow:\nkey: 1\n"},
    {"flow mapping in a block list",
     "allow:\n  - {rule: a.b, reason: r}\n  - {rule: c.d, reason: s}\n", 0, -1,
     "allow:\n  - {rule: c.d, reason: s}\n"},
    {"flow list, middle entry",
     "allow: [{rule: a.b, reason: r}, {rule: c.d, reason: s}, {rule: e.f, reason: t}]\n", 1, -1,
     "allow: [{rule: a.b, reason: r}, {rule: e.f, reason: t}]\n"},
    {"flow list, last entry", "allow: [{rule: a.b, reason: r}, {rule: c.d, reason: s}]\n", 1, -1,
     "allow: [{rule: a.b, reason: r}]\n"},
    {"one path of a flow list of paths",
     "allow:\n  - rule: a.b\n    reason: r\n    paths: ['x/**', 'y/**', z/]\n", 0, 1,
     "allow:\n  - rule: a.b\n    reason: r\n    paths: ['x/**', z/]\n"},
    {"one path of a block list of paths",
     "allow:\n  - rule: a.b\n    reason: r\n    paths:\n      - x/**\n      - y/**\n", 0, 0,
     "allow:\n  - rule: a.b\n    reason: r\n    paths:\n      - y/**\n"},
};

Test(unallow, cuts_leave_every_other_byte)
{
	for (size_t k = 0; k < sizeof(cuts) / sizeof(cuts[0]); k++) {
		struct hook_allow_item *items = NULL;
		size_t n = 0, len = strlen(cuts[k].text);
		char *out;

		cr_assert_eq(hook_allow_items(cuts[k].text, len, &items, &n), 0, "%s",
			     cuts[k].name);
		cr_assert_gt(n, cuts[k].item, "%s: %zu entries", cuts[k].name, n);
		out = hook_allow_cut(cuts[k].text, len,
				     cuts[k].path < 0
					 ? &items[cuts[k].item].span
					 : &items[cuts[k].item].path_spans[cuts[k].path]);
		cr_assert_not_null(out);
		cr_expect_str_eq(out, cuts[k].want, "%s", cuts[k].name);
		free(out);
		free(items);
	}
}

Test(unallow, items_carry_rule_scope_reason_expiry_and_line)
{
	static const char text[] =
	    "zeroAccessPaths: [~/v/]\n"
	    "allow:\n"
	    "  - rule: core.git.reset_hard\n"
	    "    reason: scratch repo\n"
	    "    paths: ['~/scratch/**']\n"
	    "    expires: 2099-12-31\n"
	    "  - {rule: core.git.clean_force, reason: \"ok\", path: build/}\n"
	    "  - rule: x.y\n"
	    "    reason: everywhere\n";
	struct hook_allow_item *it = NULL;
	size_t n = 0;

	cr_assert_eq(hook_allow_items(text, strlen(text), &it, &n), 0);
	cr_assert_eq(n, 3);
	cr_expect_str_eq(it[0].rule, "core.git.reset_hard");
	cr_expect_str_eq(it[0].reason, "scratch repo");
	cr_expect_str_eq(it[0].expires, "2099-12-31");
	cr_expect_eq(it[0].n_paths, 1);
	cr_expect_str_eq(it[0].paths[0], "~/scratch/**");
	cr_expect_eq(it[0].line, 3);
	cr_expect_str_eq(it[1].paths[0], "build/");
	cr_expect(it[1].paths_single);
	cr_expect_eq(it[1].line, 7);
	cr_expect_eq(it[2].n_paths, 0);
	free(it);
}

Test(unallow, no_list_or_not_yaml)
{
	struct hook_allow_item *it = NULL;
	size_t n = 7;

	cr_expect_eq(hook_allow_items("rules: []\n", 10, &it, &n), 0);
	cr_expect_eq(n, 0);
	free(it);
	cr_expect_lt(hook_allow_items("allow: [\n", 9, &it, &n), 0);
	cr_expect_eq(hook_allow_items("", 0, &it, &n), 0);
	cr_expect_eq(n, 0);
}
