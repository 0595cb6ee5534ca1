/* cmd_log.c - `dcg log`: the audit log, filtered and readable; `dcg stats`: refusals
 * counted by rule and by agent. Both read the rotated file (FILE.1) before the
 * current one, so a rotation loses nothing they can show. */
#include "hook.h"

#include "commands.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LOG_READ_MAX (64u * 1024 * 1024)

static const char log_usage[] =
    "usage: dcg log [--json] [--last N] [--since WHEN] [--rule ID] [--agent NAME]\n"
    "               [--decision deny|ask|warn|log|allow] [--observed]\n"
    "               [--color=auto|always|never]\n"
    "\n"
    "Shows the last N entries (default 20) of the audit log ($DCG_LOG, else\n"
    "$XDG_STATE_HOME/dcg/audit.jsonl, and FILE.1 before it once rotated): every deny,\n"
    "ask and warn of every layer, and every call an allow entry let pass (decision\n"
    "allow, with the entry). What was targeted is shown; only secrets are redacted.\n"
    "  --since WHEN   YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS] (UTC), or an age: 30m, 12h, 7d\n"
    "  --rule ID      a rule ID or a glob of them (core.git.*)\n"
    "  --agent NAME   claude, codex, gemini, cursor, pi\n"
    "  --decision D   only that decision\n"
    "  --observed     only what observe mode let pass (shown as would-deny, would-ask)\n"
    "  --json         the entries as stored, one JSON object per line\n"
    "Colour only on a terminal, unless --color says otherwise; NO_COLOR turns it off.\n";

static const char stats_usage[] =
    "usage: dcg stats [--json] [--since WHEN] [--suggest] [--color=auto|always|never]\n"
    "\n"
    "Counts what the audit log recorded: refusals (deny, ask, warn) by rule and by\n"
    "agent (or layer), the would-be refusals of observe mode apart (W-DENY, W-ASK), and\n"
    "the calls an allow entry or an allow-once grant let pass. --since as for dcg log.\n"
    "--suggest proposes the narrowest allow entries for refusals the user let through\n"
    "by hand again and again (asks answered yes, allow-once grants), and writes nothing.\n";

struct log_filter {
	char since[32]; /* ISO UTC prefix to compare with "time"; empty: no bound */
	const char *rule, *agent, *decision;
	int observed; /* only what observe mode let pass */
};

struct log_opts {
	struct log_filter f;
	long last;
	int json, color, suggest;
};

/* --since WHEN into an ISO UTC time string. */
static int parse_since(const char *s, char *out, size_t size)
{
	char *end;
	long n;
	time_t t;
	struct tm tm;

	errno = 0;
	n = strtol(s, &end, 10);
	if (!errno && n >= 0 && end != s && end[0] && !end[1] && strchr("smhdw", end[0])) {
		long mult = end[0] == 's'   ? 1
			    : end[0] == 'm' ? 60
			    : end[0] == 'h' ? 3600
			    : end[0] == 'd' ? 86400
					    : 7 * 86400;
		t = time(NULL) - n * mult;
		gmtime_r(&t, &tm);
		strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
		return 0;
	}
	memset(&tm, 0, sizeof(tm));
	end = strptime(s, "%Y-%m-%d", &tm);
	if (end && *end == 'T')
		end = strptime(end + 1, "%H:%M", &tm);
	if (end && *end == ':')
		end = strptime(end + 1, "%S", &tm);
	if (!end || *end)
		return -1;
	strftime(out, size, "%Y-%m-%dT%H:%M:%S", &tm);
	return 0;
}

static int parse_color(const char *v)
{
	if (!v || !strcmp(v, "auto"))
		return isatty(1) && !(getenv("NO_COLOR") && getenv("NO_COLOR")[0]);
	if (!strcmp(v, "always"))
		return 1;
	if (!strcmp(v, "never"))
		return 0;
	return -1;
}

/* Options shared by log and stats. Returns 0, 1 for --help, -1 on a usage error. */
static int parse_opts(int argc, char **argv, struct log_opts *o, const char *usage, int is_log)
{
	static const struct cli_option opts[] = {
	    {"json", no_argument, 'j'},	       {"last", required_argument, 'n'},
	    {"since", required_argument, 's'}, {"rule", required_argument, 'r'},
	    {"agent", required_argument, 'a'}, {"decision", required_argument, 'd'},
	    {"color", optional_argument, 'c'}, {"colour", optional_argument, 'c'},
	    {"observed", no_argument, 'o'},    {"suggest", no_argument, 'S'},
	    {"help", no_argument, 'h'},	       {"", 0, 0},
	};
	const char *color = NULL;
	char *endp;
	int c;

	memset(o, 0, sizeof(*o));
	o->last = 20;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "hn:", opts)) != -1) {
		if ((!is_log && (c == 'n' || c == 'r' || c == 'a' || c == 'd' || c == 'o')) ||
		    (is_log && c == 'S'))
			c = '?';
		switch (c) {
		case 'o':
			o->f.observed = 1;
			break;
		case 'S':
			o->suggest = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'n':
			errno = 0;
			o->last = strtol(optarg, &endp, 10);
			if (errno || *endp || o->last < 0 || o->last > 1000000) {
				fprintf(stderr, "dcg: log: --last wants a number, not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 's':
			if (parse_since(optarg, o->f.since, sizeof(o->f.since))) {
				fprintf(stderr,
					"dcg: --since wants YYYY-MM-DD[THH:MM[:SS]] or an age "
					"(30m, 12h, 7d), not '%s'\n",
					optarg);
				return -1;
			}
			break;
		case 'r':
			o->f.rule = optarg;
			break;
		case 'a':
			o->f.agent = optarg;
			break;
		case 'd':
			if (strcmp(optarg, "deny") && strcmp(optarg, "ask") &&
			    strcmp(optarg, "warn") && strcmp(optarg, "log") &&
			    strcmp(optarg, "allow")) {
				fprintf(stderr,
					"dcg: log: --decision is deny, ask, warn, log or allow\n");
				return -1;
			}
			o->f.decision = optarg;
			break;
		case 'c':
			color = optarg ? optarg : "always";
			if (parse_color(color) < 0) {
				fprintf(stderr, "dcg: --color is auto, always or never\n");
				return -1;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 1;
		default:
			fputs(usage, stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected '%s'\n", argv[0], argv[optind]);
		fputs(usage, stderr);
		return -1;
	}
	o->color = parse_color(color);
	return 0;
}

static const char *member(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int keep(const cJSON *o, const struct log_filter *f)
{
	const char *v;

	if (f->since[0] && (!(v = member(o, "time")) || strncmp(v, f->since, 19) < 0))
		return 0;
	if (f->rule && (!(v = member(o, "rule_id")) ||
			(strcmp(v, f->rule) != 0 && fnmatch(f->rule, v, 0) != 0)))
		return 0;
	if (f->agent && (!(v = member(o, "agent")) || strcmp(v, f->agent) != 0))
		return 0;
	if (f->decision && (!(v = member(o, "decision")) || strcmp(v, f->decision) != 0))
		return 0;
	if (f->observed && !member(o, "would"))
		return 0;
	return 1;
}

/* The lines of FILE.1 then FILE, as one buffer of NUL-terminated lines. */
static int read_log(const char *path, struct hook_buf *all)
{
	char rotated[PATH_MAX + 8];
	int found = 0;

	snprintf(rotated, sizeof(rotated), "%s.1", path);
	for (int k = 0; k < 2; k++) {
		char *text = NULL;
		size_t len;
		int err = hook_read_file(k ? path : rotated, LOG_READ_MAX, &text, &len);
		if (err == -ENOENT)
			continue;
		if (err) {
			fprintf(stderr, "dcg: log: %s: %s\n", k ? path : rotated, strerror(-err));
			return err;
		}
		found = 1;
		/* complete lines only: a last line without its newline is being written */
		while (len && text[len - 1] != '\n')
			len--;
		hook_buf_add(all, text, len);
		free(text);
	}
	return found ? 0 : -ENOENT;
}

static const char *paint(const char *decision, int color)
{
	if (!color || !decision)
		return "";
	if (!strcmp(decision, "deny"))
		return "\033[1;31m";
	if (!strcmp(decision, "ask"))
		return "\033[1;33m";
	if (!strcmp(decision, "warn"))
		return "\033[35m";
	if (!strcmp(decision, "allow"))
		return "\033[32m";
	return "";
}

static void print_human(const cJSON *o, int color)
{
	const char *in = member(o, "input"), *dec = member(o, "decision");
	const char *who = member(o, "agent") ? member(o, "agent") : member(o, "layer");
	char input[512], shown[512];
	size_t n;

	n = pol_truncate_utf8(in ? in : "", in ? strlen(in) : 0, 100, input, sizeof(input));
	hook_utf8_sanitize(input, n, shown, sizeof(shown));
	for (char *c = shown; *c; c++)
		if (*c == '\n' || *c == '\t')
			*c = ' ';
	char would[16];

	if (member(o, "would")) { /* observe mode: what it would have been, apart */
		snprintf(would, sizeof(would), "w-%s", member(o, "would"));
		dec = would;
	}
	printf("%-24s %s%-6s%s %-32s %-7s %-10s %s", member(o, "time") ? member(o, "time") : "-",
	       paint(dec, color), dec ? dec : "-", color && dec ? "\033[0m" : "",
	       member(o, "rule_id") ? member(o, "rule_id") : "-", who ? who : "-",
	       member(o, "tool") ? member(o, "tool") : "-", shown);
	if (member(o, "allowed_by")) {
		const cJSON *line = cJSON_GetObjectItemCaseSensitive(o, "allow_line");
		printf("  [allowed: %s, %s:%d]", member(o, "allowed_by"),
		       member(o, "allow_file") ? member(o, "allow_file") : "?",
		       cJSON_IsNumber(line) ? line->valueint : 0);
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "allowed_by_once")))
		printf("  [allowed once]");
	printf("\n");
}

/* Every kept entry of the log, parsed, in order; *n of them. */
static cJSON **load_entries(const struct log_filter *f, size_t *n, char *path, size_t psize,
			    int *missing)
{
	struct hook_buf all = HOOK_BUF_INIT;
	cJSON **v = NULL;
	size_t cap = 0;
	char *p, *end;
	int err;

	*n = 0;
	*missing = 0;
	if (pol_log_path(path, psize)) {
		fprintf(stderr, "dcg: log: the log path is too long\n");
		return NULL;
	}
	err = read_log(path, &all);
	if (err) {
		*missing = err == -ENOENT;
		hook_buf_release(&all);
		return NULL;
	}
	for (p = all.s, end = all.s ? all.s + all.len : NULL; p && p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		cJSON *o;
		if (!nl)
			break;
		*nl = '\0';
		o = nl > p ? cJSON_Parse(p) : NULL;
		p = nl + 1;
		if (!o || !keep(o, f)) {
			cJSON_Delete(o);
			continue;
		}
		if (*n == cap) {
			cJSON **m = realloc(v, (cap = cap ? cap * 2 : 256) * sizeof(*v));
			if (!m) {
				cJSON_Delete(o);
				break;
			}
			v = m;
		}
		v[(*n)++] = o;
	}
	hook_buf_release(&all);
	return v;
}

static void free_entries(cJSON **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cJSON_Delete(v[i]);
	free(v);
}

int cmd_log(int argc, char **argv)
{
	struct log_opts o;
	char path[PATH_MAX];
	cJSON **v;
	size_t n, first;
	int rc, missing;

	rc = parse_opts(argc, argv, &o, log_usage, 1);
	if (rc)
		return rc > 0 ? 0 : 1;
	v = load_entries(&o.f, &n, path, sizeof(path), &missing);
	if (!v && missing) {
		if (!o.json)
			printf("no audit log yet (%s): nothing was refused\n", path);
		return 0;
	}
	first = n > (size_t)o.last ? n - (size_t)o.last : 0;
	if (!o.json && n > first)
		printf("%-24s %-6s %-32s %-7s %-10s %s\n", "TIME", "DECI.", "RULE", "AGENT", "TOOL",
		       "INPUT");
	for (size_t i = first; i < n; i++) {
		if (o.json) {
			char *s = cJSON_PrintUnformatted(v[i]);
			if (s)
				printf("%s\n", s);
			free(s);
		} else {
			print_human(v[i], o.color);
		}
	}
	free_entries(v, n);
	return 0;
}

/* ---- stats ----------------------------------------------------------------------------- */

struct count {
	char key[160];
	size_t deny, ask, warn, allowed, wdeny, wask;
};

static struct count *bump(struct count **c, size_t *n, const char *key)
{
	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*c)[i].key, key))
			return &(*c)[i];
	struct count *m = realloc(*c, (*n + 1) * sizeof(**c));
	if (!m)
		return NULL;
	*c = m;
	memset(&m[*n], 0, sizeof(m[0]));
	snprintf(m[*n].key, sizeof(m[0].key), "%s", key);
	return &m[(*n)++];
}

static int by_total(const void *a, const void *b)
{
	const struct count *x = a, *y = b;
	size_t tx = x->deny + x->ask + x->warn + x->wdeny + x->wask,
	       ty = y->deny + y->ask + y->warn + y->wdeny + y->wask;

	return tx != ty ? (tx < ty ? 1 : -1) : strcmp(x->key, y->key);
}

static cJSON *counts_json(const struct count *c, size_t n)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; arr && i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddStringToObject(o, "key", c[i].key);
		cJSON_AddNumberToObject(o, "deny", (double)c[i].deny);
		cJSON_AddNumberToObject(o, "ask", (double)c[i].ask);
		cJSON_AddNumberToObject(o, "warn", (double)c[i].warn);
		cJSON_AddNumberToObject(o, "allowed", (double)c[i].allowed);
		cJSON_AddNumberToObject(o, "would_deny", (double)c[i].wdeny);
		cJSON_AddNumberToObject(o, "would_ask", (double)c[i].wask);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

static void print_counts(const char *title, const struct count *c, size_t n, int color)
{
	printf("%-40s %s%6s%s %s%6s%s %6s %8s %7s %6s\n", title, paint("deny", color), "DENY",
	       color ? "\033[0m" : "", paint("ask", color), "ASK", color ? "\033[0m" : "", "WARN",
	       "ALLOWED", "W-DENY", "W-ASK");
	for (size_t i = 0; i < n; i++)
		printf("%-40s %6zu %6zu %6zu %8zu %7zu %6zu\n", c[i].key, c[i].deny, c[i].ask,
		       c[i].warn, c[i].allowed, c[i].wdeny, c[i].wask);
}

/* ---- stats --suggest ------------------------------------------------------------------------ */

struct approval {
	char rule[128];
	char folder[PATH_MAX];
	size_t count;
	char example[160];
};

/* An entry the user let through by hand: an ask answered yes at a terminal (a runtime
 * layer logs it as an ask; one answered no is logged as a deny), or a pass of an
 * allow-once grant. */
static int approved(const cJSON *o)
{
	const char *d = member(o, "decision"), *layer = member(o, "layer");

	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, "allowed_by_once")))
		return 1;
	return d && layer && !strcmp(d, "ask") && strcmp(layer, "hook") && strcmp(layer, "check");
}

/* Where an entry applies: its path's folder for a path decision, else its command's
 * repository root (or folder). */
static int approval_folder(const cJSON *o, char *out, size_t size)
{
	const char *path = member(o, "path"), *cwd = member(o, "cwd");

	if (path && path[0] == '/') {
		snprintf(out, size, "%s", path);
		char *sl = strrchr(out, '/');
		if (sl && sl != out)
			*sl = '\0';
		return 0;
	}
	return cwd ? pol_once_folder(cwd, out, size) : -1;
}

static int by_count(const void *a, const void *b)
{
	const struct approval *x = a, *y = b;

	return x->count != y->count ? (x->count < y->count ? 1 : -1) : strcmp(x->rule, y->rule);
}

/* dcg stats --suggest: for each rule and folder the user let through by hand at least
 * twice, the narrowest allow entry that covers them; writes nothing. */
static int suggest(cJSON **v, size_t n, int json)
{
	struct approval *a = NULL;
	size_t na = 0, total = 0, shown = 0;

	for (size_t i = 0; i < n; i++) {
		char folder[PATH_MAX];
		const char *rule = member(v[i], "rule_id");
		struct approval *x = NULL;

		if (!rule || !approved(v[i]) || approval_folder(v[i], folder, sizeof(folder)) < 0)
			continue;
		total++;
		for (size_t k = 0; k < na && !x; k++)
			if (!strcmp(a[k].rule, rule) && !strcmp(a[k].folder, folder))
				x = &a[k];
		if (!x) {
			struct approval *m = realloc(a, (na + 1) * sizeof(*a));
			if (!m)
				break;
			a = m;
			x = &a[na++];
			memset(x, 0, sizeof(*x));
			snprintf(x->rule, sizeof(x->rule), "%s", rule);
			snprintf(x->folder, sizeof(x->folder), "%s", folder);
			pol_truncate_utf8(member(v[i], "input") ? member(v[i], "input") : "",
					  member(v[i], "input") ? strlen(member(v[i], "input")) : 0,
					  60, x->example, sizeof(x->example));
		}
		x->count++;
	}
	if (na)
		qsort(a, na, sizeof(*a), by_count);
	if (!json)
		printf("%zu calls let through by hand (asks answered yes, allow-once grants); "
		       "nothing is written\n",
		       total);
	for (size_t k = 0; k < na; k++) {
		if (a[k].count < 2)
			continue; /* once is not a habit: allow-once was the right size */
		shown++;
		if (json)
			printf("{\"rule\":\"%s\",\"path\":\"%s/**\",\"covers\":%zu}\n", a[k].rule,
			       a[k].folder, a[k].count);
		else
			printf(
			    "  dcg allow %s --path '%s/**' -r \"approved by hand\"   # covers %zu, "
			    "e.g. %s\n",
			    a[k].rule, a[k].folder, a[k].count, a[k].example);
	}
	if (!json && !shown)
		printf("  (nothing approved twice in one place: no entry to suggest)\n");
	free(a);
	return 0;
}

int cmd_stats(int argc, char **argv)
{
	struct log_opts o;
	struct count *rules = NULL, *agents = NULL;
	size_t n, nr = 0, na = 0;
	char path[PATH_MAX];
	cJSON **v;
	int rc, missing;

	rc = parse_opts(argc, argv, &o, stats_usage, 0);
	if (rc)
		return rc > 0 ? 0 : 1;
	v = load_entries(&o.f, &n, path, sizeof(path), &missing);
	if (o.suggest) {
		rc = suggest(v, n, o.json);
		free_entries(v, n);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		const char *d = member(v[i], "decision"), *rule = member(v[i], "rule_id");
		const char *who =
		    member(v[i], "agent") ? member(v[i], "agent") : member(v[i], "layer");
		struct count *c[2];
		if (!d)
			continue;
		c[0] = bump(&rules, &nr, rule ? rule : "-");
		c[1] = bump(&agents, &na, who ? who : "-");
		for (int k = 0; k < 2; k++) {
			if (!c[k])
				continue;
			c[k]->deny += !strcmp(d, "deny");
			c[k]->ask += !strcmp(d, "ask");
			c[k]->warn += !strcmp(d, "warn");
			c[k]->allowed +=
			    !strcmp(d, "allow") && (member(v[i], "allowed_by") ||
						    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
							v[i], "allowed_by_once")));
			c[k]->wdeny +=
			    member(v[i], "would") && !strcmp(member(v[i], "would"), "deny");
			c[k]->wask +=
			    member(v[i], "would") && !strcmp(member(v[i], "would"), "ask");
		}
	}
	if (nr)
		qsort(rules, nr, sizeof(*rules), by_total);
	if (na)
		qsort(agents, na, sizeof(*agents), by_total);
	if (o.json) {
		cJSON *root = cJSON_CreateObject();
		char *s;
		cJSON_AddNumberToObject(root, "entries", (double)n);
		cJSON_AddItemToObject(root, "by_rule", counts_json(rules, nr));
		cJSON_AddItemToObject(root, "by_agent", counts_json(agents, na));
		s = cJSON_PrintUnformatted(root);
		if (s)
			printf("%s\n", s);
		free(s);
		cJSON_Delete(root);
	} else if (!n) {
		printf("no entries in the audit log (%s)%s\n", path,
		       o.f.since[0] ? " in that time" : "");
	} else {
		printf("%zu entries in %s\n\n", n, path);
		print_counts("RULE", rules, nr, o.color);
		printf("\n");
		print_counts("AGENT (or layer)", agents, na, o.color);
	}
	free(rules);
	free(agents);
	free_entries(v, n);
	return 0;
}
