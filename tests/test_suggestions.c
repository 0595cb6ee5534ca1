/* test_suggestions.c - what dcg suggests is safe to do: every suggestion of every rule
 * of the embedded default policy that names a command passes `dcg check` (allow, log
 * or warn), and no suggestion moves data into a temporary folder, onto /dev/null or
 * into the trash (the first step of a two-step walk-around: move, then delete).
 *
 * Commands are found in the suggestion text: the part after a colon, split at ", then",
 * ";", " or " and ", ", kept when it starts with a known command; parenthesised asides
 * and trailing prose ("first", "instead", "keeps ...") are cut, and placeholders (DIR,
 * FILE, BRANCH...) become concrete names in a temporary project. */
#include "dcg_policy.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/dcg-test-sugg.XXXXXX";
static char home[300], proj[400];

static void setup(void)
{
	char real[200];

	cr_assert_not_null(mkdtemp(tmpdir));
	cr_assert_not_null(realpath(tmpdir, real));
	snprintf(home, sizeof(home), "%s/home", real);
	snprintf(proj, sizeof(proj), "%s/proj", home);
	mkdir(home, 0700);
	mkdir(proj, 0700);
}

static void teardown(void)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		cr_log_warn("could not remove %s", tmpdir);
}

TestSuite(suggestions, .init = setup, .fini = teardown, .timeout = 60);

static const char *const commands[] = {
    "aws",	  "az",	    "cdk",	 "chmod",     "cp",	"crontab",   "dd",	  "docker",
    "doctl",	  "find",   "firebase",	 "fly",	      "gcloud", "gh",	     "git",	  "gsutil",
    "helm",	  "heroku", "kill",	 "kubectl",   "ls",	"lsblk",     "mongodump", "mv",
    "mysqldump",  "npm",    "pg_dump",	 "pgrep",     "pulumi", "redis-cli", "rm",	  "sam",
    "serverless", "sls",    "systemctl", "terraform", "tofu",	"vercel",
};

/* Words that end the command part of a fragment. */
static const char *const prose[] = {
    "first", "instead", "keeps",   "shows", "refuses", "only", "for", "to",
    "which", "after",	"without", "then",  "and",     "(",    NULL,
};

static const struct {
	const char *from, *to;
} placeholders[] = {
    {"DIR", "build"},	 {"FILE", "notes.txt"},	       {"TARGET", "build"},
    {"SRC", "disk.img"}, {"BRANCH", "old-branch"},     {"TAG", "v0.1"},
    {"PID", "12345"},	 {"NAME", "myproc"},	       {"REPO", "https://example.com/r.git"},
    {"DB", "mydb"},	 {"PKG@VERSION", "pkg@1.0.0"}, {"NS", "dev"},
    {"RELEASE", "web"},	 {"BUCKET", "my-bucket"},      {"VOL", "data"},
    {"N", "0"},		 {"PREFIX*", "'user:*'"},
};

static int is_command(const char *w, size_t n)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strlen(commands[i]) == n && !strncmp(w, commands[i], n))
			return 1;
	return 0;
}

/* Appends the command in fragment s (len bytes) to out, placeholders filled; returns 1
 * when the fragment starts with a command. */
static int command_of(const char *s, size_t len, char *out, size_t size)
{
	size_t o = 0, i = 0;

	while (i < len && s[i] == ' ')
		i++;
	size_t w = i;
	while (w < len && s[w] != ' ')
		w++;
	if (!is_command(s + i, w - i))
		return 0;
	while (i < len) {
		size_t e = i;

		while (e < len && s[e] != ' ')
			e++;
		int stop = 0;
		for (size_t k = 0; prose[k]; k++)
			if ((e - i == strlen(prose[k]) && !strncmp(s + i, prose[k], e - i)) ||
			    (prose[k][0] == '(' && s[i] == '('))
				stop = 1;
		if (stop && o)
			break;
		const char *word = s + i;
		size_t wl = e - i;
		for (size_t k = 0; k < sizeof(placeholders) / sizeof(placeholders[0]); k++)
			if (strlen(placeholders[k].from) == wl &&
			    !strncmp(word, placeholders[k].from, wl)) {
				word = placeholders[k].to;
				wl = strlen(word);
			}
		if (o + wl + 2 >= size)
			break;
		if (o)
			out[o++] = ' ';
		memcpy(out + o, word, wl);
		o += wl;
		while (e < len && s[e] == ' ')
			e++;
		i = e;
	}
	while (o && (out[o - 1] == '.' || out[o - 1] == ','))
		o--;
	out[o] = '\0';
	return 1;
}

/* The fragments of a suggestion that can be commands. */
static size_t fragments(const char *sugg, char out[][512], size_t max)
{
	const char *s = strstr(sugg, ": ");
	const char *seps[] = {", then ", "; ", " or ", ", ", " and "};
	size_t n = 0;

	s = s ? s + 2 : sugg;
	while (*s && n < max) {
		const char *end = s + strlen(s);
		size_t sl = 0;

		for (size_t k = 0; k < sizeof(seps) / sizeof(seps[0]); k++) {
			const char *f = strstr(s, seps[k]);
			if (f && f < end) {
				end = f;
				sl = strlen(seps[k]);
			}
		}
		if (command_of(s, (size_t)(end - s), out[n], sizeof(out[n])))
			n++;
		s = *end ? end + sl : end;
	}
	return n;
}

Test(suggestions, every_suggested_command_passes_and_none_moves_data_into_a_temp_folder)
{
	struct pol_policy *p = pol_new(0);
	regex_t temp_move;
	int bad = 0, checked = 0;

	cr_assert_not_null(p);
	cr_assert_eq(pol_set_home(p, home), 0);
	cr_assert_eq(pol_set_root(p, proj), 0);
	cr_assert_eq(pol_load_embedded(p), 0);
	/* mv ... into /tmp, $TMPDIR, /dev/null or a trash folder, or "move it to /tmp" */
	cr_assert_eq(
	    regcomp(&temp_move,
		    "(\\bmv\\b[^;|&]*[[:space:]](/tmp|/var/tmp|/dev/shm|/dev/null|\\$\\{?TMPDIR|"
		    "~?/?[^ ]*Trash))|(move [^.;]*(to|into) (/tmp|/var/tmp|the trash|a temp))",
		    REG_EXTENDED | REG_ICASE | REG_NOSUB),
	    0);
	for (size_t i = 0; i < pol_rule_count(p); i++) {
		struct pol_rule_info info;

		cr_assert_eq(pol_rule_get(p, i, &info), 0);
		for (size_t k = 0; k < info.n_suggestions; k++) {
			const char *s = info.suggestions[k];
			char cmds[8][512];
			size_t n;

			/* the user's way to allow a rule is not for the agent to run */
			if (!strncmp(s, "If intentional:", 15))
				continue;
			if (regexec(&temp_move, s, 0, NULL, 0) == 0) {
				cr_log_error("%s: suggests moving data into a temporary place: %s",
					     info.id, s);
				bad++;
			}
			n = fragments(s, cmds, 8);
			for (size_t c = 0; c < n; c++) {
				struct pol_result r;
				struct pol_ctx ctx = {.cwd = proj};
				enum pol_decision d;

				d = pol_check_command(p, cmds[c], strlen(cmds[c]), &ctx, &r);
				checked++;
				if (d > POL_WARN) {
					cr_log_error("%s: suggestion \"%s\": `%s` is %s by %s",
						     info.id, s, cmds[c], pol_decision_name(d),
						     r.rule_id ? r.rule_id : "-");
					bad++;
				}
				pol_result_release(&r);
			}
		}
	}
	regfree(&temp_move);
	cr_log_info("%d suggested commands checked", checked);
	cr_assert_gt(checked, 30, "the extraction found only %d commands", checked);
	cr_assert_eq(bad, 0, "%d suggestions are refused or move data into a temporary place", bad);
	pol_free(p);
}
