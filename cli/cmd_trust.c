/* cmd_trust.c - `dcg trust [FILE]` and `dcg untrust [FILE]`: the user's trust in a
 * project's policy file, and the notes that say what an untrusted one could not do. */
#include "hook.h"

#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char trust_usage[] =
    "usage: dcg trust [FILE]\n"
    "       dcg untrust [FILE]\n"
    "\n"
    "A project's policy file (.dcg/policy.yaml) comes with every cloned repository, so\n"
    "what it loosens (disable:, allow:, and '!' exclusions of protections set by the\n"
    "system, user or default policy) is ignored until you trust it; what it tightens\n"
    "holds at once. `dcg trust` records the SHA-256 of the file's content; when the\n"
    "file changes it must be trusted again. `dcg untrust` forgets it.\n"
    "FILE defaults to the project file found upwards from the working directory.\n"
    "Records: $DCG_TRUST_FILE, else $XDG_STATE_HOME/dcg/trusted (~/.local/state/dcg/).\n";

void hook_print_trust_notes(FILE *out, const struct pol_policy *p, int brief)
{
	const char *file, *why;
	enum pol_trust t = pol_project_trust(p, &file, &why);
	size_t n = pol_ignored_count(p), counts[3] = {0, 0, 0};
	static const char *const whats[3] = {"disable", "allow", "exclusion"};

	if (t == POL_TRUST_NONE || t == POL_TRUST_TRUSTED)
		return;
	for (size_t i = 0; i < n; i++)
		for (int k = 0; k < 3; k++)
			if (!strcmp(pol_ignored_get(p, i)->what, whats[k]))
				counts[k]++;
	if (t == POL_TRUST_BROKEN && !n) {
		fprintf(out, "dcg: note: project policy %s: %s\n", file, why);
		return;
	}
	if (!n)
		return; /* nothing it holds loosens: trust changes nothing */
	if (brief) {
		fprintf(out,
			"dcg: note: project policy %s is %s: its loosening entries were ignored "
			"(%zu disable, %zu allow, %zu exclusion). If the user wants them: "
			"dcg trust %s\n",
			file, why, counts[0], counts[1], counts[2], file);
		return;
	}
	fprintf(out, "Project policy %s: %s; its loosening entries are ignored:\n", file, why);
	for (size_t i = 0; i < n; i++) {
		const struct pol_ignored *g = pol_ignored_get(p, i);

		fprintf(out, "  line %u: %s %s (%s)\n", g->line, g->what, g->text, g->why);
	}
	fprintf(out, "Read the file; if you want them, trust it with: dcg trust %s\n", file);
}

/* The project file upwards from the working directory. */
static int project_file(char *out, size_t size)
{
	char dir[PATH_MAX], f[PATH_MAX + 32];

	if (!getcwd(dir, sizeof(dir)))
		return -errno;
	for (;;) {
		snprintf(f, sizeof(f), "%s%s.dcg/policy.yaml", dir, strcmp(dir, "/") ? "/" : "");
		if (access(f, F_OK) == 0) {
			if (snprintf(out, size, "%s", f) >= (int)size)
				return -ENAMETOOLONG;
			return 0;
		}
		char *slash = strrchr(dir, '/');
		if (!slash || !strcmp(dir, "/"))
			return -ENOENT;
		if (slash == dir)
			slash[1] = '\0';
		else
			*slash = '\0';
	}
}

static int trust_main(int argc, char **argv, int add)
{
	static const struct cli_option opts[] = {
	    {"help", no_argument, 'h'},
	    {"", 0, 0},
	};
	char file[PATH_MAX], trust[PATH_MAX], real[PATH_MAX];
	int c, err;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "h", opts)) != -1) {
		if (c == 'h') {
			fputs(trust_usage, stdout);
			return 0;
		}
		fputs(trust_usage, stderr);
		return 1;
	}
	if (argc - optind > 1) {
		fputs(trust_usage, stderr);
		return 1;
	}
	if (optind < argc) {
		if (snprintf(file, sizeof(file), "%s", argv[optind]) >= (int)sizeof(file))
			return 1;
	} else if (project_file(file, sizeof(file)) < 0) {
		fprintf(stderr, "dcg: %s: no .dcg/policy.yaml here or above; name the file\n",
			argv[0]);
		return 1;
	}
	err = pol_trust_path(trust, sizeof(trust));
	if (err) {
		fprintf(stderr, "dcg: %s: no HOME or XDG_STATE_HOME for the trust records\n",
			argv[0]);
		return 1;
	}
	err = add ? pol_trust_add(trust, file, real, sizeof(real))
		  : pol_trust_remove(trust, file, real, sizeof(real));
	if (!add && err == -ENOENT) {
		printf("dcg: %s was not trusted\n", real);
		return 0;
	}
	if (err) {
		fprintf(stderr, "dcg: %s: %s: %s\n", argv[0], file, strerror(-err));
		return 1;
	}
	if (add)
		printf("dcg: trusted %s as it is now: its disable:, allow: and '!' entries apply; "
		       "a change needs dcg trust again\n",
		       real);
	else
		printf("dcg: %s is no longer trusted: its loosening entries are ignored\n", real);
	return 0;
}

int cmd_trust(int argc, char **argv)
{
	return trust_main(argc, argv, 1);
}

int cmd_untrust(int argc, char **argv)
{
	return trust_main(argc, argv, 0);
}

void hook_print_observe_note(FILE *out, const struct pol_policy *p)
{
	switch (pol_observe_mode(p)) {
	case 2:
		fprintf(out, "mode:        observe: dcg only observes and refuses nothing; what it "
			     "would refuse is logged (dcg log --observed)\n");
		break;
	case 1:
		fprintf(out, "mode:        enforce, but some rules or packs only observe (observe: "
			     "in the policy); their would-be refusals are logged\n");
		break;
	default:
		fprintf(out, "mode:        enforce\n");
	}
}

void hook_print_observed(FILE *out, const struct pol_result *r)
{
	fprintf(out,
		"dcg observes only: this call would have been %s by %s (%s); nothing was "
		"refused, it is logged as a would-be %s\n",
		r->observed == POL_ASK ? "asked about" : "refused", r->rule_id ? r->rule_id : "?",
		r->reason ? r->reason : "policy", pol_decision_name(r->observed));
}
