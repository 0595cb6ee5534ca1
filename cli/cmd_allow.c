/* cmd_allow.c - `dcg allow RULE-ID -r REASON`: an allowlist entry added to the user's or
 * the project's policy file, without losing anything already in it (an entry for the
 * same rule and paths is replaced, never doubled); `dcg allow --list`; `dcg unallow`. */
#include "hook.h"

#include "commands.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char allow_usage[] =
    "usage: dcg allow RULE-ID -r REASON [--path GLOB] [--expires YYYY-MM-DD]\n"
    "                 [--project | --user | --file FILE] [--policy FILE]\n"
    "       dcg allow --list [--json] [--policy FILE]\n"
    "\n"
    "Adds an entry to the `allow:` list of a policy file, so that RULE-ID no longer\n"
    "refuses (only under GLOB, and only until the date, when given; a date already\n"
    "past is refused). An entry for the same rule and paths is replaced, not doubled.\n"
    "The file keeps its comments and layout; it is replaced atomically.\n"
    "--list: every allow entry of the active policy files: rule, scope, reason,\n"
    "expiry, file. dcg unallow takes one back.\n"
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

static const char unallow_usage[] =
    "usage: dcg unallow RULE-ID [--path GLOB] [--project | --user | --file FILE]\n"
    "\n"
    "Removes the allow entries for RULE-ID (with --path, only the one for GLOB) from\n"
    "the project's and the user's policy files (or only the one named), keeping\n"
    "everything else in them as it was. Exit status 1 when there was none.\n";

/* YYYY-MM-DD, a real date, still ahead: an entry expires at its date's start (UTC),
 * so today's date is already past. */
static int check_expiry(const char *s)
{
	struct tm tm, check;
	char *end;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%d", &tm);
	if (!end || *end || strlen(s) != 10) {
		fprintf(stderr, "dcg: allow: --expires wants a date YYYY-MM-DD, not '%s'\n", s);
		return -1;
	}
	check = tm;
	t = timegm(&check);
	if (check.tm_mday != tm.tm_mday || check.tm_mon != tm.tm_mon) {
		fprintf(stderr, "dcg: allow: %s is not a date\n", s);
		return -1;
	}
	if (t <= time(NULL)) {
		fprintf(stderr,
			"dcg: allow: %s is already past: the entry would never apply (an entry "
			"holds until its date starts)\n",
			s);
		return -1;
	}
	return 0;
}

static int same_paths(const struct hook_allow_item *it, const char *path)
{
	return path ? it->n_paths == 1 && !strcmp(it->paths[0], path) : it->n_paths == 0;
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

/* ---- --list ----------------------------------------------------------------------------- */

static const char *scope_of(const struct hook_allow_item *it, char *buf, size_t size)
{
	size_t o = 0;

	if (!it->n_paths)
		return "everywhere";
	buf[0] = '\0';
	for (size_t i = 0; i < it->n_paths && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? ", " : "", it->paths[i]);
	return buf;
}

static int expired(const char *date)
{
	struct tm tm;
	char *end;

	memset(&tm, 0, sizeof(tm));
	end = date[0] ? strptime(date, "%Y-%m-%d", &tm) : NULL;
	return end && !*end && timegm(&tm) <= time(NULL);
}

static int allow_list(const char *policy, int json)
{
	struct pol_policy *pol = hook_policy_open(policy, NULL, stderr);
	cJSON *arr = json ? cJSON_CreateArray() : NULL;
	size_t total = 0;
	int rc = 0;

	if (!pol || (json && !arr)) {
		fprintf(stderr, "dcg: out of memory\n");
		pol_free(pol);
		return 1;
	}
	if (!json)
		printf("%-36s %-28s %-11s %-28s %s\n", "RULE", "SCOPE", "EXPIRES", "REASON",
		       "FILE");
	for (size_t f = 0; f < pol_file_count(pol); f++) {
		const char *name = pol_file_name(pol, f);
		struct hook_allow_item *items = NULL;
		size_t n = 0, len;
		char *text = NULL, scope[1024];

		if (name[0] != '/' || hook_read_file(name, 16 * 1024 * 1024, &text, &len))
			continue;
		if (hook_allow_items(text, len, &items, &n) == 0) {
			for (size_t i = 0; i < n; i++) {
				const struct hook_allow_item *it = &items[i];
				int gone = expired(it->expires);
				total++;
				if (json) {
					cJSON *o = cJSON_CreateObject(), *paths;
					if (!o)
						continue;
					cJSON_AddStringToObject(o, "rule", it->rule);
					paths = cJSON_AddArrayToObject(o, "paths");
					for (size_t k = 0; paths && k < it->n_paths; k++)
						cJSON_AddItemToArray(
						    paths, cJSON_CreateString(it->paths[k]));
					cJSON_AddStringToObject(o, "reason", it->reason);
					if (it->expires[0])
						cJSON_AddStringToObject(o, "expires", it->expires);
					else
						cJSON_AddNullToObject(o, "expires");
					cJSON_AddBoolToObject(o, "expired", gone);
					cJSON_AddStringToObject(o, "file", name);
					cJSON_AddNumberToObject(o, "line", it->line);
					cJSON_AddItemToArray(arr, o);
					continue;
				}
				printf("%-36s %-28s %-11s %-28s %s:%u\n", it->rule,
				       scope_of(it, scope, sizeof(scope)),
				       gone		? "expired"
				       : it->expires[0] ? it->expires
							: "never",
				       it->reason, name, it->line);
			}
		}
		free(items);
		free(text);
	}
	if (json) {
		char *out = cJSON_PrintUnformatted(arr);
		if (out)
			printf("%s\n", out);
		else
			rc = 1;
		free(out);
		cJSON_Delete(arr);
	} else {
		printf("%zu allow entr%s\n", total, total == 1 ? "y" : "ies");
	}
	pol_free(pol);
	return rc;
}

/* ---- unallow ------------------------------------------------------------------------------- */

/* Removes the entries for rule (and path) from one file; returns how many, or -1. */
static int unallow_file(const char *file, const char *rule, const char *path)
{
	struct hook_allow_item *items = NULL;
	size_t n = 0, len;
	char *text = NULL, *cut;
	int removed = 0, err, was_trusted;

	err = hook_read_file(file, 16 * 1024 * 1024, &text, &len);
	if (err == -ENOENT)
		return 0;
	if (err) {
		fprintf(stderr, "dcg: unallow: cannot read %s: %s\n", file, strerror(-err));
		return -1;
	}
	if (hook_allow_items(text, len, &items, &n)) {
		fprintf(stderr, "dcg: unallow: %s is not valid YAML; left it unchanged\n", file);
		free(text);
		return -1;
	}
	/* a trusted project file stays trusted: taking an entry out only tightens */
	was_trusted = trusted_now(file, text, len);
	/* from the end, so that the spans before stay valid */
	for (size_t i = n; i-- > 0;) {
		const struct hook_allow_item *it = &items[i];
		const struct hook_allow_span *span = &it->span;
		if (strcmp(it->rule, rule) != 0)
			continue;
		if (path) {
			size_t k;
			for (k = 0; k < it->n_paths && strcmp(it->paths[k], path); k++)
				;
			if (k == it->n_paths)
				continue;
			/* one path of several: take only that one */
			if (it->n_paths > 1 && !it->paths_single)
				span = &it->path_spans[k];
		}
		cut = hook_allow_cut(text, len, span);
		if (!cut) {
			removed = -1;
			goto out;
		}
		free(text);
		text = cut;
		len = strlen(text);
		removed++;
	}
	if (removed > 0) {
		struct hook_allow_item *left = NULL;
		size_t nl = 0;
		/* the result must still read, and hold no entry for what was removed */
		if (diag_count(file, text) == (size_t)-1 ||
		    hook_allow_items(text, len, &left, &nl)) {
			fprintf(stderr,
				"dcg: unallow: %s: cannot remove the entry safely; left "
				"it unchanged\n",
				file);
			free(left);
			removed = -1;
			goto out;
		}
		free(left);
		err = hook_write_atomic(file, text, len, 0644);
		if (err) {
			fprintf(stderr, "dcg: unallow: cannot write %s: %s\n", file,
				strerror(-err));
			removed = -1;
		} else if (was_trusted) {
			retrust(file);
		}
	}
out:
	free(items);
	free(text);
	return removed;
}

int cmd_unallow(int argc, char **argv)
{
	static const struct cli_option opts[] = {
	    {"path", required_argument, 'P'}, {"project", no_argument, 'j'},
	    {"user", no_argument, 'u'},	      {"file", required_argument, 'f'},
	    {"help", no_argument, 'h'},	      {"", 0, 0},
	};
	const char *path = NULL, *file = NULL;
	char cwd[PATH_MAX], files[2][PATH_MAX];
	int c, where = 0, nf = 0, total = 0, failed = 0;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "h", opts)) != -1) {
		switch (c) {
		case 'P':
			path = optarg;
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
		case 'h':
			fputs(unallow_usage, stdout);
			return 0;
		default:
			fputs(unallow_usage, stderr);
			return 1;
		}
	}
	if (optind != argc - 1) {
		fputs(unallow_usage, stderr);
		return 1;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		fprintf(stderr, "dcg: unallow: cannot get the working directory\n");
		return 1;
	}
	if (file)
		nf = snprintf(files[0], sizeof(files[0]), "%s", file) < (int)sizeof(files[0]);
	if (!file && where != 2 && find_project_file(cwd, files[nf], sizeof(files[0])) == 0)
		nf++;
	if (!file && where != 1 && user_file(files[nf], sizeof(files[0])) == 0)
		nf++;
	for (int i = 0; i < nf; i++) {
		int r = unallow_file(files[i], argv[optind], path);
		if (r < 0)
			failed = 1;
		if (r > 0) {
			printf("dcg: %s: removed %d allow entr%s for %s%s%s\n", files[i], r,
			       r == 1 ? "y" : "ies", argv[optind], path ? " under " : "",
			       path ? path : "");
			total += r;
		}
	}
	if (!total && !failed)
		fprintf(stderr, "dcg: unallow: no allow entry for %s%s%s (dcg allow --list)\n",
			argv[optind], path ? " under " : "", path ? path : "");
	return total && !failed ? 0 : 1;
}

int cmd_allow(int argc, char **argv)
{
	static const struct cli_option opts[] = {
	    {"reason", required_argument, 'r'},
	    {"path", required_argument, 'P'},
	    {"expires", required_argument, 'e'},
	    {"project", no_argument, 'j'},
	    {"user", no_argument, 'u'},
	    {"file", required_argument, 'f'},
	    {"policy", required_argument, 'p'},
	    {"list", no_argument, 'l'},
	    {"json", no_argument, 'J'},
	    {"help", no_argument, 'h'},
	    {"", 0, 0},
	};
	struct hook_allow_entry e = {NULL, NULL, NULL, NULL};
	const char *policy = dcg_global_policy, *file = NULL;
	char cwd[PATH_MAX], target[PATH_MAX], msg[256];
	char *text = NULL, *out = NULL;
	struct pol_policy *pol = NULL;
	struct hook_allow_item *items = NULL;
	int c, where = 0, rc = 1, err, replaced = 0, list = 0, json = 0, is_project = 0,
	       was_trusted = 0; /* where: 0 default, 1 project, 2 user */
	size_t len = 0, n_items = 0;

	optind = 1;
	while ((c = cli_getopt(argc, argv, "r:h", opts)) != -1) {
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
		case 'l':
			list = 1;
			break;
		case 'J':
			json = 1;
			break;
		case 'h':
			fputs(allow_usage, stdout);
			return 0;
		default:
			fputs(allow_usage, stderr);
			return 1;
		}
	}
	if (list) {
		if (optind != argc || e.reason || e.path || e.expires || where || file) {
			fprintf(stderr, "dcg: allow --list takes only --json and --policy\n");
			fputs(allow_usage, stderr);
			return 1;
		}
		return allow_list(policy, json);
	}
	if (json) {
		fprintf(stderr, "dcg: allow: --json is for --list\n");
		return 1;
	}
	if (optind != argc - 1 || !e.reason) {
		fputs(allow_usage, stderr);
		return 1;
	}
	if (e.expires && check_expiry(e.expires))
		return 1;
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
		ssize_t k = pol_rule_find_alias(pol, e.rule);
		struct pol_rule_info in;
		if (k < 0 || pol_rule_get(pol, (size_t)k, &in)) {
			rc = unknown_rule(pol, e.rule);
			goto out;
		}
		/* an old positional ID: the entry names the rule by its ID */
		fprintf(stderr, "dcg: allow: %s is now called %s\n", e.rule, in.id);
		e.rule = in.id;
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
	/* A project file's loosening holds only while the user trusts its content: an
	 * edit keeps a trusted (or new) file trusted, and never trusts a file that was
	 * not (its other entries may come from anyone who wrote to the repository). */
	was_trusted = is_project && (!text || trusted_now(target, text, len));
	/* The same rule and paths again: the same entry, replaced, never doubled. */
	if (text && hook_allow_items(text, len, &items, &n_items) == 0) {
		for (size_t i = n_items; i-- > 0;) {
			char *cut;
			if (strcmp(items[i].rule, e.rule) || !same_paths(&items[i], e.path))
				continue;
			if (!strcmp(items[i].expires, e.expires ? e.expires : "") &&
			    !strcmp(items[i].reason, e.reason)) {
				printf("dcg: %s is already allowed%s%s (%s:%u): nothing changed\n",
				       e.rule, e.path ? " under " : "", e.path ? e.path : "",
				       target, items[i].line);
				rc = 0;
				goto out;
			}
			cut = hook_allow_cut(text, len, &items[i].span);
			if (!cut)
				goto out;
			free(text);
			text = cut;
			len = strlen(text);
			replaced = 1;
		}
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
	printf("dcg: %s is now allowed%s%s%s%s (%s%s)\n", e.rule, e.path ? " under " : "",
	       e.path ? e.path : "", e.expires ? " until " : "", e.expires ? e.expires : "", target,
	       replaced ? ", replacing its earlier entry" : "");
	rc = 0;
out:
	free(items);
	free(text);
	free(out);
	pol_free(pol);
	return rc;
}
