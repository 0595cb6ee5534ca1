/* test_corpus.c - the embedded default policy against the tests/corpus files (TSV): every line
 * is a command with the decision and rule ID it must get (HOME=/home/agent, working
 * directory and project root /srv/dcg-corpus/proj). One test per file; every mismatch is
 * reported, and any mismatch fails the file. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus_file.h"
#include "dcg_policy.h"

static struct pol_policy *corpus_policy(void)
{
	struct pol_policy *p = pol_new(0);

	cr_assert(p);
	cr_assert_eq(pol_set_home(p, "/home/agent"), 0);
	cr_assert_eq(pol_set_root(p, "/srv/dcg-corpus/proj"), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	cr_assert_eq(pol_diag_count(p), 0, "the embedded policy has diagnostics: %s",
		     pol_diag_count(p) ? pol_diag_get(p, 0)->msg : "");
	return p;
}

/* Writes form with its one %s (the command as it is) or %q (the command inside single
 * quotes, its own quotes written '\'') replaced by cmd, into out. 0 when it does not fit. */
/* Is at inside quotes of cmd (a rough count of ' and " before it)? */
static int quoted_at(const char *cmd, const char *at)
{
	char q = 0;

	for (const char *c = cmd; c < at; c++)
		if (!q && (*c == '\'' || *c == '"'))
			q = *c;
		else if (q && *c == q)
			q = 0;
	return q != 0;
}

static size_t corpus_variant(const char *form, const char *cmd, char *out, size_t size)
{
	const char *at = strchr(form, '%');
	size_t o = 0;

	if (!at || size < strlen(form) + 1)
		return 0;
	memcpy(out, form, (size_t)(at - form));
	o = (size_t)(at - form);
	for (const char *c = cmd; *c; c++) {
		if (o + 8 >= size)
			return 0;
		/* %H and %P: the home folder as $HOME and as its path where a word starts
		 * with ~/ (not inside quotes, where the shell keeps ~ as it is) */
		int home = (at[1] == 'H' || at[1] == 'P') && c[0] == '~' && c[1] == '/' &&
			   (c == cmd || c[-1] == ' ' || c[-1] == '=');
		if (home && !quoted_at(cmd, c)) {
			const char *h = at[1] == 'H' ? "$HOME" : "/home/agent";
			memcpy(out + o, h, strlen(h));
			o += strlen(h);
		} else if (at[1] == 'q' && *c == '\'') {
			memcpy(out + o, "'\\''", 4);
			o += 4;
		} else {
			out[o++] = *c;
		}
	}
	if (o + strlen(at + 2) + 1 > size)
		return 0;
	memcpy(out + o, at + 2, strlen(at + 2) + 1);
	return o + strlen(at + 2);
}

/* Decides every row of file, each one-line command put in form (corpus_variant) when
 * form is given; returns how many were decided otherwise (each is logged), so that
 * each test asserts on it. */
/* How a form's rows are judged (run_corpus_with's how). */
enum {
	FORM_SIMPLE = 1,   /* only simple commands that run a program (behind a wrapper) */
	FORM_DECISION = 2, /* the decision alone: the rule may differ */
};

static unsigned run_corpus_with(const char *file, const char *form, int how)
{
	struct pol_policy *p = corpus_policy();
	struct pol_ctx ctx = {.cwd = "/srv/dcg-corpus/proj"};
	FILE *f = fopen(file, "r");
	char line[8192], var[16384];
	unsigned lineno = 0, cases = 0, bad = 0;

	cr_assert(f, "cannot open %s", file);
	while (fgets(line, sizeof(line), f)) {
		char *dec, *rule, *cmd, *t1, *t2;
		struct pol_result r;
		size_t len;

		lineno++;
		line[strcspn(line, "\n")] = '\0';
		char yaml[512];
		size_t n = corpus_packs_yaml(line, yaml, sizeof(yaml));
		if (n) { /* the packs the rows below need: "#packs: kubernetes dns" */
			cr_assert(n != (size_t)-1, "%s:%u: packs line too long", file, lineno);
			cr_assert_eq(pol_load_buffer(p, "packs", yaml, n), 0, "%s:%u", file,
				     lineno);
			cr_assert_eq(pol_diag_count(p), 0, "%s:%u: %s", file, lineno,
				     pol_diag_count(p) ? pol_diag_get(p, 0)->msg : "");
			continue;
		}
		if (!line[0] || line[0] == '#')
			continue;
		t1 = strchr(line, '\t');
		t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		cr_assert(t2, "%s:%u: expected decision<TAB>rule<TAB>command", file, lineno);
		*t1 = *t2 = '\0';
		dec = line;
		rule = t1 + 1;
		cmd = t2 + 1;
		len = corpus_unescape(cmd);
		if (form) {
			const char *ph = strchr(form, '%');
			/* a comment would take in what the form puts after the command */
			int comment = ph[1] == 's' && ph[2] && (cmd[0] == '#' || strstr(cmd, " #"));
			/* a wrapper runs one simple command that is a program */
			int compound = (how & FORM_SIMPLE) &&
				       (strpbrk(cmd, ";&|(){}`<>\\$*") ||
					memchr(cmd, '=', strcspn(cmd, " \t")) ||
					!strncmp(cmd, "cd ", 3) || !strncmp(cmd, "export ", 7) ||
					!strncmp(cmd, "alias ", 6) || !strncmp(cmd, "source ", 7) ||
					!strncmp(cmd, ". ", 2) || !strncmp(cmd, "unalias ", 8));
			if (compound || comment || strchr(cmd, '\n') ||
			    (len && cmd[len - 1] == '\\') ||
			    !(len = corpus_variant(form, cmd, var, sizeof var)))
				continue;
			cmd = var;
		}
		cases++;
		pol_check_command(p, cmd, len, &ctx, &r);
		const char *got_rule = r.rule_id ? r.rule_id : "-";
		/* a path rule may be named by its old positional ID (its alias) */
		int ok = !strcmp(pol_decision_name(r.decision), dec) &&
			 ((how & FORM_DECISION) ||
			  (!strcmp(rule, "*") || !strcmp(rule, got_rule) ||
			   (r.rule_id && pol_rule_find_alias(p, rule) >= 0 &&
			    pol_rule_find_alias(p, rule) == pol_rule_find(p, r.rule_id))));
		if (!ok) {
			bad++;
			cr_log_error("%s:%u: %s: want %s %s, got %s %s", file, lineno, cmd, dec,
				     rule, pol_decision_name(r.decision), got_rule);
		}
		pol_result_release(&r);
	}
	fclose(f);
	pol_free(p);
	cr_assert_gt(cases, 0, "%s holds no case", file);
	cr_expect_eq(bad, 0, "%s: %u of %u cases decided otherwise", file, bad, cases);
	return bad;
}

static unsigned run_corpus(const char *file)
{
	return run_corpus_with(file, NULL, 0);
}

/* Runs every one-line row of every corpus file (listed from the folder, so that a new
 * file is covered without a line here) in each form; returns the count decided
 * otherwise. */
static unsigned run_forms(const char *const *forms, size_t n_forms, int how)
{
	DIR *d = opendir("tests/corpus");
	struct dirent *e;
	unsigned files = 0, bad = 0;
	char path[512];

	cr_assert(d);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".tsv") != 0)
			continue;
		snprintf(path, sizeof path, "tests/corpus/%s", e->d_name);
		files++;
		for (size_t k = 0; k < n_forms; k++)
			bad += run_corpus_with(path, forms[k], how);
	}
	closedir(d);
	cr_assert_geq(files, 10);
	return bad;
}

/* The home folder in its three spellings, ~/, $HOME/ and its path, gets the same
 * decision (the rule may differ: rm -rf /home/agent/ is named by the rm -rf rule, rm -rf
 * ~/ by the root-or-home one). truncate -s 0 of everything in /home/agent only warned. */
Test(corpus, the_home_folder_in_every_spelling_gets_the_same_decision)
{
	static const char *const forms[] = {"%H", "%P"};
	unsigned bad = run_forms(forms, sizeof forms / sizeof forms[0], FORM_DECISION);

	cr_assert_eq(bad, 0, "%u rows changed their decision with the home folder spelled out",
		     bad);
}

/* A simple command keeps its decision behind the programs that run the command they
 * are given (the rule may differ: a wrapper can make a more particular one match). */
Test(corpus, a_command_keeps_its_decision_behind_a_wrapper)
{
	static const char *const forms[] = {"sudo %s",	"timeout 60 %s", "nice -n 5 %s", "env %s",
					    "nohup %s", "command %s",	 "exec %s",	 "time %s"};
	unsigned bad =
	    run_forms(forms, sizeof forms / sizeof forms[0], FORM_SIMPLE | FORM_DECISION);

	cr_assert_eq(bad, 0, "%u rows changed their decision behind a wrapper", bad);
}

/* A redirection of an output (to /dev/null, or a file in the project) changes nothing a
 * rule judges: every one-line row of every corpus file keeps its decision and rule with
 * one appended (`mv a b 2>/dev/null` was refused as mv onto /dev/null, and a `$` anchor
 * let `mysql -e 'truncate logs' 2>/dev/null` pass). Not the standard input: `crontab -
 * </dev/null` installs an empty table where `crontab -` with a pipe does not.
 * The files are listed from the folder, so a new one is covered without a line here. */
Test(corpus, a_redirection_to_dev_null_changes_no_decision)
{
	static const char *const forms[] = {"%s 2>/dev/null", "%s >/dev/null 2>&1",
					    "%s &>/dev/null", "%s > build.log", "%s 2>>errors.txt"};
	unsigned bad = run_forms(forms, sizeof forms / sizeof forms[0], 0);

	cr_assert_eq(bad, 0, "%u rows changed their decision with a redirection appended", bad);
}

/* A command means the same inside the shell's own constructs: handed to a shell as a
 * string, in a group, a branch, a loop, after another command. `{ case $1 in a) ...;;
 * esac; }` was refused as a parse error, and assignments in `{ X=1 git commit; }`
 * were not seen. */
Test(corpus, a_command_means_the_same_inside_a_shell_construct)
{
	static const char *const forms[] = {
	    "bash -c '%q'",
	    "eval '%q'",
	    "sh -c '%q' sh",
	    "bash <<< '%q'",
	    "true && %s",
	    "if true; then %s; fi",
	    "for i in 1; do %s; done",
	    "{ %s; }",
	    "( %s )",
	    "while false; do :; done; %s",
	};
	unsigned bad = run_forms(forms, sizeof forms / sizeof forms[0], 0);

	cr_assert_eq(bad, 0, "%u rows changed their decision inside a construct", bad);
}

Test(corpus, filesystem)
{
	cr_assert_eq(run_corpus("tests/corpus/filesystem.tsv"), 0);
}
Test(corpus, runs_later)
{
	cr_assert_eq(run_corpus("tests/corpus/runs_later.tsv"), 0);
}
Test(corpus, git)
{
	cr_assert_eq(run_corpus("tests/corpus/git.tsv"), 0);
}
Test(corpus, system_data_cloud)
{
	cr_assert_eq(run_corpus("tests/corpus/system_data_cloud.tsv"), 0);
}
Test(corpus, remote_exec)
{
	cr_assert_eq(run_corpus("tests/corpus/remote_exec.tsv"), 0);
}
Test(corpus, heredoc)
{
	cr_assert_eq(run_corpus("tests/corpus/heredoc.tsv"), 0);
}
Test(corpus, paths)
{
	cr_assert_eq(run_corpus("tests/corpus/paths.tsv"), 0);
}
Test(corpus, benign)
{
	cr_assert_eq(run_corpus("tests/corpus/benign.tsv"), 0);
}
Test(corpus, suggestions_pass_the_policy)
{
	cr_assert_eq(run_corpus("tests/corpus/suggestions.tsv"), 0);
}
Test(corpus, shell_tricks)
{
	cr_assert_eq(run_corpus("tests/corpus/shell_tricks.tsv"), 0);
}
Test(corpus, agent_sessions)
{
	cr_assert_eq(run_corpus("tests/corpus/agent_sessions.tsv"), 0);
}
/* classes of the red team of the hook: git's long-option prefixes, computed names */
Test(corpus, redteam)
{
	cr_assert_eq(run_corpus("tests/corpus/redteam.tsv"), 0);
}
/* issue 14: the classes of miss, each with must-stop and must-pass rows */
Test(corpus, shell_evaluation)
{
	cr_assert_eq(run_corpus("tests/corpus/shell_eval.tsv"), 0);
}
Test(corpus, interpreter_code)
{
	cr_assert_eq(run_corpus("tests/corpus/interpreters.tsv"), 0);
}
Test(corpus, tools)
{
	cr_assert_eq(run_corpus("tests/corpus/tools.tsv"), 0);
}
Test(corpus, packs)
{
	cr_assert_eq(run_corpus("tests/corpus/packs.tsv"), 0);
}
/* issue 31: the families of policy/packs/, behind wrappers, in lists and as data */
Test(corpus, families)
{
	cr_assert_eq(run_corpus("tests/corpus/families.tsv"), 0);
}
/* issue 32: bash's own expansions, rebindings, copies, what dcg cannot see */
Test(corpus, shell_evaluation_third_round)
{
	cr_assert_eq(run_corpus("tests/corpus/shell_eval3.tsv"), 0);
}
/* issue 32: programs that run a command they are handed */
Test(corpus, runners)
{
	cr_assert_eq(run_corpus("tests/corpus/runners.tsv"), 0);
}
Test(corpus, false_alarms)
{
	cr_assert_eq(run_corpus("tests/corpus/false_alarms.tsv"), 0);
}

/* Every rule of the embedded policy says why and offers a way out that is not the
 * allowlist (which the loader adds to every rule). */
Test(corpus, every_default_rule_has_a_reason_and_a_suggestion)
{
	struct pol_policy *p = corpus_policy();

	for (size_t i = 0; i < pol_rule_count(p); i++) {
		struct pol_rule_info info;
		size_t own = 0;
		cr_assert_eq(pol_rule_get(p, i, &info), 0);
		if (info.kind == POL_RULE_PATH)
			continue;
		cr_expect(info.reason && info.reason[0], "%s has no reason", info.id);
		for (size_t k = 0; k < info.n_suggestions; k++)
			if (strncmp(info.suggestions[k], "If intentional:", 15) != 0)
				own++;
		cr_expect_geq(own, 1, "%s has no suggestion of its own", info.id);
	}
	pol_free(p);
}

/* The same policy in a real project folder (a .env and a .git inside): searches and
 * moves into /tmp pass; deleting or moving what holds .git does not. */
Test(corpus, tree_operations_in_a_real_project)
{
	char root[] = "/tmp/dcg-corpus-XXXXXX", path[256], cmd[512];
	struct pol_policy *p;
	struct pol_result r;
	const struct {
		const char *cmd, *want;
	} cases[] = {
	    {"grep -rn TODO .", "allow"}, {"rg TODO", "allow"},
	    {"ls -la", "allow"},	  {"mv build build.old", "allow"},
	    {"mv build /tmp/", "deny"},	  {"cp -r src /tmp/src-copy", "allow"},
	    {"cat src/main.c", "allow"},  {"cat .env", "deny"},
	    {"rm -r src", "deny"},	  {"rm .git/HEAD", "deny"},
	    {"mv .git /tmp/", "deny"},
	};

	cr_assert(mkdtemp(root));
	snprintf(cmd, sizeof(cmd),
		 "mkdir -p %s/src %s/build %s/.git && touch %s/.env %s/src/main.c", root, root,
		 root, root, root);
	cr_assert_eq(system(cmd), 0);
	p = pol_new(0);
	cr_assert(p);
	pol_set_home(p, "/home/agent");
	pol_set_root(p, root);
	cr_assert_eq(pol_load_embedded(p), 0);
	struct pol_ctx ctx = {.cwd = root};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pol_check_command(p, cases[i].cmd, strlen(cases[i].cmd), &ctx, &r);
		cr_expect_str_eq(pol_decision_name(r.decision), cases[i].want, "%s: got %s %s",
				 cases[i].cmd, pol_decision_name(r.decision),
				 r.rule_id ? r.rule_id : "-");
		pol_result_release(&r);
	}
	pol_free(p);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	cr_assert_eq(system(path), 0);
}

/* Long, harmless command lines stay allowed: no rule of the default policy may hit a
 * PCRE2 limit on them (a limit hit counts as a match, so it would be a false deny). */
Test(corpus, long_harmless_commands_hit_no_match_limit)
{
	static const struct {
		const char *head, *pre, *post, *tail;
		unsigned times;
	} cases[] = {
	    {"ls", " f", ".c", "", 5000},
	    {"git add", " src/f", ".c", "", 5000},
	    {"echo", " word", "", "", 5000},
	    {"aws s3 cp", " --exclude x", "", " a b", 3000},
	    {"docker run", " -e X", "=1", " img", 3000},
	    {"kubectl get", " pod", "", "", 5000},
	    {"rm", " f", ".o", "", 5000},
	    {"git reset", " f", "", "", 5000},
	    {"chmod 644", " f", "", "", 5000},
	    {"rm -rf", " /tmp/x", "", "", 2000},
	    {"gcloud compute instances list --filter", " name=x", "", "", 3000},
	    {"python3 - <<'EOF'\nimport os\n", "p",
	     " = str(Path('/data/f')) + os.path.join('/srv', 'a')\n", "EOF\n", 5000},
	    {"node -e \"", "fs.readFileSync('/etc/x", "');", "\"", 5000},
	    {"perl -e '", "print \"x", "\";", "'", 5000},
	    {"ruby -e '", "puts \"x", "\";", "'", 5000},
	};
	struct pol_policy *p = corpus_policy();
	struct pol_ctx ctx = {.cwd = "/srv/dcg-corpus/proj"};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t cap = strlen(cases[i].head) + strlen(cases[i].tail) + 64 +
			     cases[i].times * (strlen(cases[i].pre) + strlen(cases[i].post) + 12),
		       o;
		char *cmd = malloc(cap);
		struct pol_result r;

		cr_assert(cmd);
		o = (size_t)snprintf(cmd, cap, "%s", cases[i].head);
		for (unsigned k = 0; k < cases[i].times; k++)
			o += (size_t)snprintf(cmd + o, cap - o, "%s%u%s", cases[i].pre, k,
					      cases[i].post);
		o += (size_t)snprintf(cmd + o, cap - o, "%s", cases[i].tail);
		pol_check_command(p, cmd, o, &ctx, &r);
		cr_expect_eq(r.decision, POL_ALLOW, "%s ... x%u: %s %s (limit hit %d)",
			     cases[i].head, cases[i].times, pol_decision_name(r.decision),
			     r.rule_id ? r.rule_id : "-", r.limit_hit);
		pol_result_release(&r);
		free(cmd);
	}
	pol_free(p);
}

/* Every pack is listed with its rule count and what it guards; the opt-in packs are
 * off until packs: names them, and each has must-stop rows in tests/corpus/packs.tsv. */
Test(corpus, every_pack_is_listed_and_the_opt_in_ones_have_rows)
{
	struct pol_policy *p = corpus_policy();
	struct pol_pack_info packs[128];
	size_t n = pol_pack_list(p, packs, 128), off = 0;
	FILE *f = fopen("tests/corpus/packs.tsv", "r");
	static char rows[1 << 16];
	size_t len;

	cr_assert(f);
	len = fread(rows, 1, sizeof(rows) - 1, f);
	rows[len] = '\0';
	fclose(f);
	cr_assert_leq(n, 128);
	for (size_t i = 0; i < n; i++) {
		char want[96];
		cr_expect_gt(packs[i].rules, 0, "%s", packs[i].name);
		cr_expect(packs[i].guards && packs[i].guards[0], "%s guards nothing",
			  packs[i].name);
		if (packs[i].active == packs[i].rules)
			continue;
		off++;
		snprintf(want, sizeof(want), "\ndeny\t%s.", packs[i].name);
		cr_expect(strstr(rows, want), "opt-in pack %s has no must-stop row in packs.tsv",
			  packs[i].name);
	}
	cr_expect_geq(off, 8, "the packs with opt-in rules");
	pol_pack_list_release(packs, n);
	cr_assert_eq(pol_load_buffer(p, "packs", "packs: [kubernetes]", 19), 0);
	n = pol_pack_list(p, packs, 128);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(packs[i].name, "kubernetes"))
			cr_expect_eq(packs[i].active, packs[i].rules, "packs: turns kubernetes on");
		else if (!strcmp(packs[i].name, "dns"))
			cr_expect_lt(packs[i].active, packs[i].rules,
				     "dns keeps its opt-in rule off");
	pol_pack_list_release(packs, n);
	pol_free(p);
}
