/* test_ruleindex.c - the command rule index (decide.c) and the literal reading it and the
 * prefilter rest on (compile.c): a rule the index leaves out could never have matched.
 * Every row of tests/corpus is decided with the index and the prefilter, and with every
 * rule's regex run on every unit, and the rules that match must be the same, in the same
 * order. */
#include "corpus_file.h"

#include <criterion/criterion.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dcg_policy.h"
#include "internal.h"

/* ---- the two bytes a pattern's matches start with ------------------------------------ */

struct keys_case {
	const char *pattern;
	const char *keys; /* the keys, two bytes each, in order; "" none */
};

static const struct keys_case keys_cases[] = {
    {"^git\\s+reset\\s+--hard\\b", "gi"},
    {"^rm\\b(?=.*\\s-rf)", "rm"},
    {"^(?:cp|cat|tee|pv)\\b.*\\s/dev/sd", "cpcatepv"},
    {"^(cp|Cat)\\b", "cpca"},
    {"^ch(?:own|grp|mod)\\b", "ch"},
    {"^\\.git/x", ".g"},
    {"^GIT\\s", "gi"},		      /* lowercased: the index compares lowercased */
    {"^git push\\b|^rm -rf", ""},     /* top-level alternation: the second has no ^ */
    {"^(?:sudo\\s+)?rm\\b", ""},      /* an optional group */
    {"^(?:rm|r)\\b", ""},	      /* an alternative shorter than two bytes */
    {"^(?:rm|(?:rmdir))\\b", "rmrm"}, /* a group inside an alternative: its keys */
    {"^(?:(?:gh|glab)\\s+api|curl)\\b", "ghglcu"},
    {"^(?:(?:gh|g)\\s+api|curl)\\b", ""}, /* one of its alternatives too short */
    {"^(?:(?:gh|glab)?x|curl)\\b", ""},	  /* the inner group may be absent */
    {"^(?:(?:(?:gh))\\s|curl)\\b", ""},	  /* two levels down: not read */
    {"^a?b", ""},			  /* the first byte may be absent */
    {"^ab?c", ""},			  /* the second byte may be absent */
    {"^ab*", ""},			  /* likewise */
    {"^ab{0,2}", ""},			  /* likewise */
    {"^a+b", ""},			  /* the first byte may repeat */
    {"^\\w+", ""},			  /* not a literal */
    {"^(?=rm)rm", ""},			  /* a lookahead */
    {"^(?i)rm", ""},			  /* options */
    {"^(?x) r m", ""},			  /* extended mode: spaces are not text */
    {"rm\\s+-rf", ""},			  /* not anchored */
    {"\\brm\\b", ""},			  /* not anchored */
    {"^\\Qrm\\E", ""},			  /* a quote */
    {"^(?:ab|cd)?", ""},		  /* an optional group */
    {"^(?:ab|cd)*x", ""},		  /* likewise */
    {"^(?:ab|cd", ""},			  /* unterminated */
};

Test(ruleindex, start_keys_are_read_only_where_every_match_has_them)
{
	for (size_t i = 0; i < sizeof(keys_cases) / sizeof(keys_cases[0]); i++) {
		const struct keys_case *c = &keys_cases[i];
		uint16_t keys[16];
		size_t n = pol_pattern_start_keys(c->pattern, keys, 16);
		char got[40] = "";

		for (size_t k = 0; k < n && 2 * k + 2 < sizeof(got); k++) {
			got[2 * k] = (char)(keys[k] >> 8);
			got[2 * k + 1] = (char)(keys[k] & 0xff);
			got[2 * k + 2] = '\0';
		}
		cr_expect_str_eq(got, c->keys, "%s: keys \"%s\", want \"%s\"", c->pattern, got,
				 c->keys);
	}
}

Test(ruleindex, built_after_a_few_units_not_for_the_first)
{
	struct pol_policy *p = pol_new(0);
	struct pol_ctx ctx = {.cwd = "/"};
	struct pol_result r;
	int built_at = -1;

	cr_assert(p && pol_load_embedded(p) == 0);
	for (int i = 0; i < 40 && built_at < 0; i++) {
		pol_check_command(p, "ls -la", 6, &ctx, &r);
		pol_result_release(&r);
		if (p->cmd_index_state == 2)
			built_at = i;
	}
	cr_assert_gt(built_at, 0, "built at decision %d", built_at);
	cr_assert_lt(built_at, 40);
	pol_free(p);
}

Test(ruleindex, start_keys_beyond_max_give_none)
{
	uint16_t keys[2];

	cr_assert_eq(pol_pattern_start_keys("^(?:ab|cd|ef)", keys, 2), 0);
	cr_assert_eq(pol_pattern_start_keys("^(?:ab|cd)", keys, 2), 2);
}

/* ---- the prefilter's keyword ---------------------------------------------------------- */

struct kw_case {
	const char *pattern; /* as YAML single-quoted text */
	const char *keyword; /* NULL: none */
};

static const struct kw_case kw_cases[] = {
    {"\\bgit\\s+reset\\s+--hard\\b", "--hard"},	      /* the longest required run */
    {">>?\\|?\\s+/dev/(?:sd[a-z]|nvme\\d)", "/dev/"}, /* not only at the start */
    {"a{2,3}bc", "bc"},				      /* a quantifier's digits are not text */
    {"abc?de", "ab"},				      /* c may be absent: the runs are ab, de */
    {"ab+cd", "ab"},				      /* b repeats: ab, then cd */
    {"xy(?:foo|bar)baz", "baz"},		      /* a group is left out */
    {"xy[abc]zzz", "zzz"},			      /* and a class */
    {"foo|barbaz", "\nfoo\nbarbaz"},		      /* top-level alternation: any of them */
    {"foo|b", NULL},				      /* one alternative without a literal */
    {"(?:os\\.walk|\\.rglob)\\s*\\(", "\nos.walk\n.rglob"}, /* a group every match passes */
    {"xy(?:foo|bar)", "\nfoo\nbar"},			    /* longer than the run outside */
    {"xyz(?:foo|bar)", "xyz"},				    /* not longer */
    {"(?:foo|bar)?bazz", "bazz"},			    /* an optional group */
    {"(?:ab|cd)+x", "\nab\ncd"},			    /* repeated, still required */
    {"(?=foobar)x", NULL},				    /* a lookahead is not read */
    /* an alternative that starts with a choice gives that choice's pieces */
    {"\\b(?:shutil\\.move|os\\.rename)\\s*\\(|\\bsend2trash",
     "\nshutil.move\nos.rename\nsend2trash"},
    {"(?x)rm -rf", NULL},   /* extended mode */
    {"ab\\x41cdefg", "ab"}, /* an escape it does not read ends it */
    {"\\Qabc\\E", NULL},    /* a quote */
    {"rm\\s+-rf\\s+/", "-rf"},
    {"\\bDROP\\s+TABLE\\b", "table"}, /* lowercased */
    {"\\bos\\.system\\s*\\(", "os.system"},
    {"a\\s", NULL}, /* shorter than two bytes */
    /* a pattern that starts with its longest literal (a program's name) gives the
     * pieces of the group every match passes instead: git status holds no gc */
    {"^git\\s+(?:gc\\b.*\\s--prune=now|prune\\b)", "\n--prune=now\nprune"},
    {"^docker\\s+(?:rm|rmi)\\b", "\nrm\nrmi"},
    {"^docker\\s+(?:r|rmi)\\b", "docker"},	     /* a piece shorter than two bytes */
    {"^docker\\s+(?:rm|rmi)?\\s+-f", "docker"},	     /* an optional group */
    {"\\bdocker\\s+(?:rm|rmi)\\b", "docker"},	     /* not at the start */
    {"^git\\s+reset\\s+(?:--hard|--keep)", "reset"}, /* not the longest literal */
};

Test(ruleindex, keyword_is_the_longest_literal_every_match_holds)
{
	for (size_t c = 0; c < sizeof(kw_cases) / sizeof(kw_cases[0]); c++) {
		const struct kw_case *k = &kw_cases[c];
		struct pol_policy *p = pol_new(0);
		char yaml[512];
		int n =
		    snprintf(yaml, sizeof(yaml),
			     "bashToolPatterns:\n  - pattern: '%s'\n    reason: r\n", k->pattern);

		cr_assert(p && n > 0 && (size_t)n < sizeof(yaml));
		cr_assert_eq(pol_load_buffer(p, "kw.yaml", yaml, (size_t)n), 0, "%s", k->pattern);
		cr_assert_gt(pol_rule_count(p), 0);
		const char *kw = pol_rules(p)[pol_rule_count(p) - 1].keyword;
		if (!k->keyword)
			cr_expect_null(kw, "%s: keyword \"%s\", want none", k->pattern, kw);
		else
			cr_expect(kw && !strcmp(kw, k->keyword), "%s: keyword \"%s\", want \"%s\"",
				  k->pattern, kw ? kw : "(none)", k->keyword);
		pol_free(p);
	}
}

/* ---- the index and the prefilter against every regex, over the corpus ----------------- */

struct matches {
	char ids[4096];
	size_t len;
	unsigned tried; /* rules the regex or the prefilter looked at */
};

static void collect(const struct pol_trace_event *ev, void *arg)
{
	struct matches *m = arg;

	if (strcmp(ev->what, "rule") || !ev->rule_id)
		return;
	m->tried++;
	if (ev->matched == 1) {
		int n = snprintf(m->ids + m->len, sizeof(m->ids) - m->len, "%s ", ev->rule_id);
		if (n > 0 && (size_t)n < sizeof(m->ids) - m->len)
			m->len += (size_t)n;
	}
}

/* Decides cmd with the index and the prefilter (fast 1), or with every rule's regex
 * run on every unit (0): no index, no keyword. */
static enum pol_decision decide(struct pol_policy *p, const char *cmd, size_t len, unsigned flags,
				int fast, struct matches *m, char *rule, size_t rule_size)
{
	struct pol_ctx ctx = {.cwd = "/srv/dcg-corpus/proj", .flags = flags};
	struct pol_result r;
	enum pol_decision d;
	char **kw = NULL;

	pol_cmd_index_free(p);
	if (fast) {
		pol_cmd_index_build(p);
	} else {
		p->cmd_index_state = 3; /* as if it could not be built: every rule is tried */
		kw = calloc(p->n_rules + 1, sizeof(*kw));
		cr_assert(kw);
		for (size_t i = 0; i < p->n_rules; i++) {
			kw[i] = pol_rules(p)[i].keyword;
			pol_rules(p)[i].keyword = NULL; /* no prefilter: the regex decides */
		}
	}
	if (m) {
		memset(m, 0, sizeof(*m));
		ctx.trace = collect;
		ctx.trace_arg = m;
	}
	d = pol_check_command(p, cmd, len, &ctx, &r);
	snprintf(rule, rule_size, "%s", r.rule_id ? r.rule_id : "-");
	pol_result_release(&r);
	pol_cmd_index_free(p);
	for (size_t i = 0; kw && i < p->n_rules; i++)
		pol_rules(p)[i].keyword = kw[i];
	free(kw);
	return d;
}

Test(ruleindex, every_corpus_row_matches_the_same_rules_as_every_regex_on_every_unit)
{
	struct pol_policy *p = pol_new(0);
	glob_t g;
	unsigned rows = 0, tried_index = 0, tried_all = 0;
	static const unsigned flag_sets[] = {0, POL_CTX_RUNTIME, POL_CTX_NO_ANALYSIS};

	cr_assert(p);
	cr_assert_eq(pol_set_home(p, "/home/agent"), 0);
	cr_assert_eq(pol_set_root(p, "/srv/dcg-corpus/proj"), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	cr_assert_eq(glob("tests/corpus/*.tsv", 0, NULL, &g), 0, "no corpus found");
	for (size_t fi = 0; fi < g.gl_pathc; fi++) {
		FILE *f = fopen(g.gl_pathv[fi], "r");
		char line[8192];
		unsigned lineno = 0;

		cr_assert(f, "cannot open %s", g.gl_pathv[fi]);
		while (fgets(line, sizeof(line), f)) {
			char *t1, *t2, *cmd;
			size_t len;

			lineno++;
			line[strcspn(line, "\n")] = '\0';
			char yaml[512];
			size_t n = corpus_packs_yaml(line, yaml, sizeof(yaml));
			if (n) { /* every pack a file needs, kept on */
				cr_assert(n != (size_t)-1);
				cr_assert_eq(pol_load_buffer(p, "packs", yaml, n), 0);
				continue;
			}
			if (!line[0] || line[0] == '#' || !(t1 = strchr(line, '\t')) ||
			    !(t2 = strchr(t1 + 1, '\t')))
				continue;
			cmd = t2 + 1;
			len = corpus_unescape(cmd);
			rows++;
			for (size_t k = 0; k < sizeof(flag_sets) / sizeof(flag_sets[0]); k++) {
				struct matches a, b;
				char ra[128], rb[128];
				enum pol_decision da, db;

				/* traced: no stop at the first deny, every match is seen */
				decide(p, cmd, len, flag_sets[k], 1, &a, ra, sizeof(ra));
				decide(p, cmd, len, flag_sets[k], 0, &b, rb, sizeof(rb));
				cr_assert_str_eq(
				    a.ids, b.ids, "%s:%u (flags %u): %s\n  index: %s\n  all:   %s",
				    g.gl_pathv[fi], lineno, flag_sets[k], cmd, a.ids, b.ids);
				tried_index += a.tried;
				tried_all += b.tried;
				/* untraced: the decision and its rule */
				da = decide(p, cmd, len, flag_sets[k], 1, NULL, ra, sizeof(ra));
				db = decide(p, cmd, len, flag_sets[k], 0, NULL, rb, sizeof(rb));
				cr_assert(da == db && !strcmp(ra, rb),
					  "%s:%u (flags %u): %s: index %s %s, all %s %s",
					  g.gl_pathv[fi], lineno, flag_sets[k], cmd,
					  pol_decision_name(da), ra, pol_decision_name(db), rb);
			}
		}
		fclose(f);
	}
	globfree(&g);
	pol_free(p);
	cr_assert_gt(rows, 1000, "the corpus holds %u rows", rows);
	/* the index is in use: it looks at far fewer rules than a full scan */
	cr_assert_lt(tried_index * 3, tried_all, "index %u rules, full scan %u", tried_index,
		     tried_all);
}

/* ---- the embedded codes, decoded one by one ------------------------------------------- */

Test(ruleindex, every_embedded_code_decodes_alone_and_matches_like_its_pattern)
{
	struct pol_policy *p = pol_new(0);
	size_t n = 0;

	cr_assert(p && pol_load_embedded(p) == 0);
	cr_assert(p->codes_blob, "the embedded codes were not attached");
	for (size_t i = 0; i < p->n_rules; i++) {
		struct pol_rule *r = &pol_rules(p)[i];
		if (r->code_index < 0)
			continue;
		pcre2_code *one = pol_embedded_code(
		    p->codes_blob, (const uint8_t *)(p->codes_blob + 5 + p->n_codes), r->code_index,
		    NULL);
		cr_assert(one, "%s: code %d does not decode", r->id, r->code_index);
		/* the same pattern: its own text, compiled by it, matches as the source does */
		pcre2_match_data *md = pcre2_match_data_create(4, NULL);
		int m = pcre2_match(one, (PCRE2_SPTR) "git reset --hard", 16, 0, 0, md, NULL);
		pcre2_code *src = pol_rule_code(p, r);
		int m2 = pcre2_match(src, (PCRE2_SPTR) "git reset --hard", 16, 0, 0, md, NULL);
		cr_expect_eq(m >= 0, m2 >= 0, "%s", r->id);
		size_t a = 0, b = 1;
		pcre2_pattern_info(one, PCRE2_INFO_SIZE, &a);
		pcre2_pattern_info(src, PCRE2_INFO_SIZE, &b);
		cr_expect_eq(a, b, "%s: %zu bytes, its code in use %zu", r->id, a, b);
		pcre2_match_data_free(md);
		pcre2_code_free(one);
		n++;
	}
	cr_assert_gt(n, 100, "only %zu embedded codes", n);
	/* out of range: none */
	cr_assert_null(pol_embedded_code(
	    p->codes_blob, (const uint8_t *)(p->codes_blob + 5 + p->n_codes), p->n_codes, NULL));
	/* a code whose offsets leave the set, or run backwards: none (checked per code) */
	size_t nw = (size_t)p->n_codes + 5;
	uint32_t *w = malloc(nw * 4);
	cr_assert_not_null(w);
	for (int b = 0; b < 4; b++) {
		memcpy(w, p->codes_blob, nw * 4);
		if (b == 0)
			w[4 + 3] = w[3] + 1; /* starts past the set */
		else if (b == 1)
			w[4 + 4] = w[4 + 3] - 1; /* ends before it starts */
		else if (b == 2)
			w[4 + 3] = w[2] - 1; /* starts inside the set's start */
		else
			w[4 + 4] = w[3] + 1; /* ends past the set */
		cr_expect_null(pol_embedded_code(w, (const uint8_t *)(p->codes_blob + nw), 3, NULL),
			       "damage %d", b);
	}
	free(w);
	pol_free(p);
}

Test(ruleindex, warming_decodes_every_embedded_code_at_once)
{
	struct pol_policy *p = pol_new(0);
	size_t n = 0, have = 0;

	cr_assert(p && pol_load_embedded(p) == 0);
	/* one decoded before: it keeps its own */
	for (size_t i = 0; i < p->n_rules && !have; i++)
		if (pol_rules(p)[i].code_index >= 0)
			have = pol_rule_code(p, &pol_rules(p)[i]) != NULL;
	cr_assert(have);
	pol_warm(p);
	for (size_t i = 0; i < p->n_rules; i++) {
		if (pol_rules(p)[i].code_index < 0)
			continue;
		n++;
		cr_expect_not_null(pol_rules(p)[i].code, "%s: no code after pol_warm",
				   pol_rules(p)[i].id);
	}
	cr_assert_gt(n, 100);
	pol_free(p);
}

/* ---- a lazy start: symlinks resolved at the first path decision ------------------------ */

/* A path rule naming a link to a folder also covers the folder it points to (its
 * canonical form). A lazy policy (the hook's) resolves it at the first path decision,
 * not at load: the answer is the same. */
Test(ruleindex, lazy_policy_covers_a_linked_folder_as_an_eager_one_does)
{
	char dir[] = "/tmp/dcg-test-ruleindex.XXXXXX", real[PATH_MAX], yaml[PATH_MAX * 2];
	char target[PATH_MAX + 32], cmd[PATH_MAX + 32];

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(realpath(dir, real));
	snprintf(target, sizeof(target), "%s/real", real);
	cr_assert_eq(mkdir(target, 0700), 0);
	snprintf(cmd, sizeof(cmd), "%s/link", real);
	cr_assert_eq(symlink(target, cmd), 0);
	int n = snprintf(yaml, sizeof(yaml), "zeroAccessPaths: ['%s/link/']\n", real);
	snprintf(target, sizeof(target), "%s/real/secret", real);
	for (unsigned flags = 0; flags <= POL_LOAD_LAZY; flags += POL_LOAD_LAZY) {
		struct pol_policy *p = pol_new(flags);
		struct pol_result r;

		cr_assert(p && n > 0);
		cr_assert_eq(pol_load_buffer(p, "link.yaml", yaml, (size_t)n), 0);
		cr_assert_eq(p->canon_pending, flags ? 1 : 0, "flags %u", flags);
		cr_expect_eq(pol_check_path(p, target, POL_OP_READ, 0, NULL, &r), POL_DENY,
			     "flags %u: %s not covered through the link", flags, target);
		pol_result_release(&r);
		/* a read readies the zero-access rules (not their exclusions: none matched) */
		cr_expect(pol_pg_ready(p) & 1u, "flags %u: zero-access rules not ready", flags);
		pol_free(p);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", real);
	cr_assert_eq(system(cmd), 0);
}

/* A lazy policy readies only the path rules a decision can read: the kinds that may
 * refuse the operation, and a kind's exclusions only once one of its rules matched.
 * Each rule and exclusion below names a link, so it covers what it covers only once
 * resolved: every decision must be the eager policy's, whatever was decided before it
 * (the table runs in order on one policy, and once more on a fresh policy per row). */
struct group_case {
	const char *path; /* under the test folder */
	enum pol_op op;
	enum pol_decision want;
};

static const struct group_case group_cases[] = {
    {"plain/file.txt", POL_OP_READ, POL_ALLOW},
    {"real/secret", POL_OP_READ, POL_DENY},	    /* zero-access through zlink */
    {"pubreal/a.pem", POL_OP_READ, POL_ALLOW},	    /* *.pem, lifted through publink */
    {"plain/a.pem", POL_OP_READ, POL_DENY},	    /* *.pem, not lifted */
    {"pubreal/a.pem", POL_OP_WRITE, POL_ALLOW},	    /* lifted for a write too */
    {"roreal/notes", POL_OP_READ, POL_ALLOW},	    /* read-only: read */
    {"roreal/notes", POL_OP_WRITE, POL_DENY},	    /* read-only through rolink */
    {"roreal/keep/notes", POL_OP_WRITE, POL_ALLOW}, /* lifted through keeplink */
    {"plain/file.txt", POL_OP_WRITE, POL_ALLOW},
    {"ndreal/log", POL_OP_WRITE, POL_ALLOW}, /* no-delete: may be edited */
    {"ndreal/log", POL_OP_DELETE, POL_DENY}, /* no-delete through ndlink */
    {"real/secret", POL_OP_WRITE, POL_DENY},
};

static void group_tree(const char *real)
{
	static const char *const dirs[] = {"real",	  "pubreal", "roreal",
					   "roreal/keep", "ndreal",  "plain"};
	static const char *const links[][2] = {{"real", "zlink"},
					       {"pubreal", "publink"},
					       {"roreal", "rolink"},
					       {"roreal/keep", "keeplink"},
					       {"ndreal", "ndlink"}};
	char a[PATH_MAX + 32], b[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(a, sizeof(a), "%s/%s", real, dirs[i]);
		cr_assert_eq(mkdir(a, 0700), 0, "%s", a);
	}
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		snprintf(a, sizeof(a), "%s/%s", real, links[i][0]);
		snprintf(b, sizeof(b), "%s/%s", real, links[i][1]);
		cr_assert_eq(symlink(a, b), 0, "%s", b);
	}
}

static struct pol_policy *group_policy(unsigned flags, const char *yaml, size_t n)
{
	struct pol_policy *p = pol_new(flags);

	cr_assert_not_null(p);
	cr_assert_eq(pol_load_buffer(p, "groups.yaml", yaml, n), 0);
	return p;
}

static enum pol_decision group_decide(struct pol_policy *p, const char *real,
				      const struct group_case *c)
{
	char path[PATH_MAX + 64];
	struct pol_result r;

	snprintf(path, sizeof(path), "%s/%s", real, c->path);
	enum pol_decision d = pol_check_path(p, path, c->op, 0, NULL, &r);
	pol_result_release(&r);
	return d;
}

Test(ruleindex, lazy_policy_readies_only_the_groups_a_decision_reads)
{
	char dir[] = "/tmp/dcg-test-groups.XXXXXX", real[PATH_MAX], yaml[PATH_MAX * 8];

	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(realpath(dir, real));
	group_tree(real);
	int n = snprintf(yaml, sizeof(yaml),
			 "zeroAccessPaths: ['%s/zlink/', '*.pem', '!%s/publink/']\n"
			 "readOnlyPaths: ['%s/rolink/', '!%s/keeplink/']\n"
			 "noDeletePaths: ['%s/ndlink/']\n",
			 real, real, real, real, real);
	cr_assert(n > 0 && (size_t)n < sizeof(yaml));
	size_t nc = sizeof(group_cases) / sizeof(group_cases[0]);
	struct pol_policy *eager = group_policy(0, yaml, (size_t)n);
	struct pol_policy *lazy = group_policy(POL_LOAD_LAZY, yaml, (size_t)n);

	/* nothing ready at load; a read that matches nothing readies the zero-access
	 * rules alone */
	cr_expect_eq(pol_pg_ready(lazy), 0u);
	cr_expect_eq(group_decide(lazy, real, &group_cases[0]), POL_ALLOW);
	cr_expect_eq(pol_pg_ready(lazy), 1u);
	for (size_t i = 0; i < nc; i++) {
		const struct group_case *c = &group_cases[i];
		struct pol_policy *fresh = group_policy(POL_LOAD_LAZY, yaml, (size_t)n);

		cr_expect_eq(group_decide(eager, real, c), c->want, "eager: %s", c->path);
		cr_expect_eq(group_decide(lazy, real, c), c->want, "lazy, in order: %s op %d",
			     c->path, (int)c->op);
		cr_expect_eq(group_decide(fresh, real, c), c->want, "lazy, first: %s op %d",
			     c->path, (int)c->op);
		pol_free(fresh);
	}
	/* A lazy policy tries the rules ready one by one in its first two decisions and
	 * builds the path index for the third; a group readied later drops it again. */
	struct pol_policy *once = group_policy(POL_LOAD_LAZY, yaml, (size_t)n);
	for (int k = 0; k < 4; k++) {
		cr_expect_eq(group_decide(once, real, &group_cases[0]), group_cases[0].want,
			     "decision %d", k);
		cr_expect_eq(once->buckets != NULL, k >= 2, "decision %d: index %s", k,
			     once->buckets ? "built" : "not built");
	}
	cr_expect_eq(group_decide(once, real, &group_cases[6]), group_cases[6].want);
	cr_expect_null(once->buckets, "a group readied keeps a stale index");
	pol_free(once);
	pol_free(eager);
	pol_free(lazy);
	snprintf(yaml, sizeof(yaml), "rm -rf '%s'", real);
	cr_assert_eq(system(yaml), 0);
}

/* Which patterns see a command's redirections (pol_pattern_words_only): those that name
 * a `<` or `>` outside the syntax of a group. */
Test(ruleindex, a_pattern_sees_redirections_only_when_it_names_one)
{
	static const struct {
		const char *pattern;
		int words_only;
	} cases[] = {
	    {"^mv\\b.*\\s/dev/null(?:\\s|$)", 1},
	    {"^mv\\b.*(?<![<>|&])\\s/dev/null", 0}, /* a class naming > */
	    {"(?<=\\s)rm\\b(?>\\s+-rf)", 1},
	    {"^(?<cmd>rm|shred)\\s", 1},
	    {"^(?P<cmd>rm)\\s(?P>cmd)", 1},
	    {">>?\\|?\\s+/dev/sd[a-z]", 0},
	    {"^crontab\\s+-\\s+<\\s+/dev/null", 0},
	    {"^tee\\s[^<>]*", 0},
	    {"^cat\\s.*\\>", 0},
	    {"^(?<unterminated", 0},
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		cr_expect_eq(pol_pattern_words_only(cases[i].pattern), cases[i].words_only, "%s",
			     cases[i].pattern);
	cr_assert_eq(pol_pattern_words_only(NULL), 0);
}
