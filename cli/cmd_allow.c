/* cmd_allow.c - `dcg allow RULE-ID -r REASON`: an allowlist entry added to the user's or
 * the project's policy file, without losing anything already in it. */
#include "hook.h"

#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char allow_usage[] =
    "usage: dcg allow RULE-ID -r REASON [--path GLOB] [--expires YYYY-MM-DD]\n"
    "                 [--project | --user | --file FILE] [--policy FILE]\n"
    "\n"
    "Adds an entry to the `allow:` list of a policy file, so that RULE-ID no longer\n"
    "refuses (only for targets under GLOB, and only until the date, when given). The\n"
    "file keeps its comments and layout; it is replaced atomically.\n"
    "  --path GLOB  scopes the targets, not where you stand: a command is allowed when\n"
    "             every path it touches (resolved like the path rules: ~, the working\n"
    "             directory, .., symlinks) lies under GLOB, whatever the working\n"
    "             directory; a command whose targets cannot be known ($VAR, $(...)) is\n"
    "             not. A command that names no path (git reset --hard) is judged by the\n"
    "             folder it runs in. For a path rule, GLOB scopes the path checked.\n"
    "             Relative globs are relative to the project root.\n"
    "  --project  .dcg/policy.yaml of the project (found upwards; else created here)\n"
    "  --user     $XDG_CONFIG_HOME/dcg/policy.yaml (~/.config/dcg/policy.yaml)\n"
    "Default: the project file when there is one, else the user file.\n"
    "A project file's allow entries apply only while you trust it (dcg trust): a\n"
    "trusted or new project file is trusted again after the edit.\n"
    "An unknown RULE-ID is refused, with the closest known IDs.\n";

/* The nearest .dcg/policy.yaml upwards from cwd (or a .dcg folder), into out. */
static int find_project_file(const char *cwd, char *out, size_t size)
{
	char dir[PATH_MAX];
	struct stat st;
	size_t len;
	char *slash;

	if (snprintf(dir, sizeof(dir), "%s", cwd) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	for (;;) {
		if (snprintf(out, size, "%s/.dcg", strcmp(dir, "/") ? dir : "") < (int)size &&
		    stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
			len = strlen(out);
			if (snprintf(out + len, size - len, "/policy.yaml") >= (int)(size - len))
				return -ENAMETOOLONG;
			return 0;
		}
		slash = strrchr(dir, '/');
		if (!slash || slash == dir) {
			if (!strcmp(dir, "/"))
				return -ENOENT;
			dir[1] = '\0'; /* try / last */
			continue;
		}
		*slash = '\0';
	}
}

static int user_file(char *out, size_t size)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && xdg[0] == '/')
		n = snprintf(out, size, "%s/dcg/policy.yaml", xdg);
	else if (home && home[0])
		n = snprintf(out, size, "%s/.config/dcg/policy.yaml", home);
	else
		return -ENOENT;
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* The problems the policy loader finds in text, read as the file name. */
static size_t diag_count(const char *name, const char *text)
{
	struct pol_policy *p = pol_new(0);
	size_t n;

	if (!p)
		return (size_t)-1;
	pol_load_buffer(p, name, text, strlen(text));
	n = pol_diag_count(p);
	pol_free(p);
	return n;
}

static int unknown_rule(struct pol_policy *pol, const char *id)
{
	const char *near[5];
	size_t n = pol_rule_suggest(pol, id, near, 5), i;

	fprintf(stderr, "dcg: allow: no rule has the ID '%s'", id);
	if (n) {
		fprintf(stderr, "; did you mean:");
		for (i = 0; i < n; i++)
			fprintf(stderr, "%s %s", i ? "," : "", near[i]);
	}
	fprintf(stderr, "\n(dcg rules list shows every rule)\n");
	return 1;
}

/* Is this content of the project file trusted now? */
static int trusted_now(const char *file, const char *text, size_t len)
{
	char trust[PATH_MAX], real[PATH_MAX], hex[65], why[160];

	if (pol_trust_path(trust, sizeof(trust)) < 0 || !realpath(file, real))
		return 0;
	pol_sha256_hex(text, len, hex);
	return pol_trust_lookup(trust, real, hex, why, sizeof(why)) == POL_TRUST_TRUSTED;
}

static void retrust(const char *file)
{
	char trust[PATH_MAX];
	int err = pol_trust_path(trust, sizeof(trust));

	if (!err)
		err = pol_trust_add(trust, file, NULL, 0);
	if (err)
		fprintf(stderr, "dcg: allow: could not record trust of %s: %s\n", file,
			strerror(-err));
}

int cmd_allow(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"reason", required_argument, NULL, 'r'},
	    {"path", required_argument, NULL, 'P'},
	    {"expires", required_argument, NULL, 'e'},
	    {"project", no_argument, NULL, 'j'},
	    {"user", no_argument, NULL, 'u'},
	    {"file", required_argument, NULL, 'f'},
	    {"policy", required_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	struct hook_allow_entry e = {NULL, NULL, NULL, NULL};
	const char *policy = dcg_global_policy, *file = NULL;
	char cwd[PATH_MAX], target[PATH_MAX], msg[256];
	char *text = NULL, *out = NULL;
	struct pol_policy *pol = NULL;
	int c, where = 0, rc = 1, err, is_project = 0; /* where: 0 default, 1 project, 2 user */
	size_t len = 0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			e.reason = optarg;
			break;
		case 'P':
			e.path = optarg;
			break;
		case 'e':
			e.expires = optarg;
			break;
		case 'j':
			where = 1;
			break;
		case 'u':
			where = 2;
			break;
		case 'f':
			file = optarg;
			break;
		case 'p':
			policy = optarg;
			break;
		case 'h':
			fputs(allow_usage, stdout);
			return 0;
		default:
			fputs(allow_usage, stderr);
			return 1;
		}
	}
	if (optind != argc - 1 || !e.reason) {
		fputs(allow_usage, stderr);
		return 1;
	}
	e.rule = argv[optind];
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "dcg: allow: cannot get the working directory\n");
		return 1;
	}
	pol = hook_policy_open(policy, cwd, stderr);
	if (!pol) {
		fprintf(stderr, "dcg: out of memory\n");
		return 1;
	}
	if (pol_rule_find(pol, e.rule) < 0) {
		rc = unknown_rule(pol, e.rule);
		goto out;
	}

	if (file) {
		if (snprintf(target, sizeof(target), "%s", file) >= (int)sizeof(target))
			goto out;
	} else if (where == 2) {
		err = user_file(target, sizeof(target));
		if (err) {
			fprintf(stderr,
				"dcg: allow: no HOME or XDG_CONFIG_HOME for the user file\n");
			goto out;
		}
	} else if (find_project_file(cwd, target, sizeof(target)) == 0) {
		is_project = 1;
	} else {
		is_project = where == 1;
		if (where == 1) {
			if (snprintf(target, sizeof(target), "%s/.dcg/policy.yaml", cwd) >=
			    (int)sizeof(target))
				goto out;
		} else if (user_file(target, sizeof(target))) {
			fprintf(stderr,
				"dcg: allow: no HOME or XDG_CONFIG_HOME for the user file\n");
			goto out;
		}
	}

	err = hook_read_file(target, 16 * 1024 * 1024, &text, &len);
	if (err && err != -ENOENT) {
		fprintf(stderr, "dcg: allow: cannot read %s: %s\n", target, strerror(-err));
		goto out;
	}
	err = hook_allow_edit(text ? text : "", len, &e, &out, msg, sizeof(msg));
	if (err) {
		fprintf(stderr, "dcg: allow: %s: %s\n", target, msg[0] ? msg : strerror(-err));
		goto out;
	}
	if (diag_count(target, out) > diag_count(target, text ? text : "")) {
		fprintf(stderr,
			"dcg: allow: %s: the edited file would load with new problems; "
			"left it unchanged\n",
			target);
		goto out;
	}
	/* A project file's loosening holds only while the user trusts its content: an
	 * edit keeps a trusted (or new) file trusted, and never trusts a file that was
	 * not (its other entries may come from anyone who wrote to the repository). */
	int was_trusted = is_project && (!text || trusted_now(target, text, len));
	err = hook_write_atomic(target, out, strlen(out), 0644);
	if (err) {
		fprintf(stderr, "dcg: allow: cannot write %s: %s\n", target, strerror(-err));
		goto out;
	}
	if (was_trusted)
		retrust(target);
	else if (is_project)
		fprintf(stderr,
			"dcg: allow: %s is not trusted, so its allow entries do not apply yet; "
			"read it, then: dcg trust %s\n",
			target, target);
	printf("dcg: %s is now allowed%s%s%s%s (%s)\n", e.rule, e.path ? " under " : "",
	       e.path ? e.path : "", e.expires ? " until " : "", e.expires ? e.expires : "",
	       target);
	rc = 0;
out:
	free(text);
	free(out);
	pol_free(pol);
	return rc;
}
