/* cmd_once.c - `dcg allow-once`: redeem, list and revoke the codes offered with
 * refusals (policy/once.c), and the hook's side of them (hook_once_apply). */
#include "commands.h"
#include "hook.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char once_usage[] =
    "usage: dcg allow-once CODE [--for DURATION] [--uses N] [--dry-run]\n"
    "       dcg allow-once --list [--json]\n"
    "       dcg allow-once --revoke CODE | --revoke --all\n"
    "\n"
    "Every refusal of a command carries a code. Redeeming it lets that exact command\n"
    "(as it was refused) pass in that folder (the repository's root, else the working\n"
    "folder), once, for 24 hours; --for 30m|12h|2d and --uses N (at most 100) say\n"
    "otherwise. The command is shown and you are asked to confirm; standard input must\n"
    "be a terminal, so an agent cannot redeem its own code (the hook and the runtime\n"
    "layers refuse `dcg allow-once` from it anyway). --dry-run shows what the code\n"
    "would allow. An unredeemed code expires after 24 hours. --list shows the codes\n"
    "still of use; --revoke takes one back, --revoke --all every one.\n";

/* ---- the hook's side ----------------------------------------------------------------------- */

void hook_once_apply(const struct pol_policy *p, const struct hook_call *call, struct pol_result *r)
{
	char folder[PATH_MAX], cwd[PATH_MAX];
	const char *where = call->cwd;
	struct pol_result probe;

	if (!p || call->kind != HOOK_CALL_COMMAND || r->decision < POL_ASK || !r->rule_id)
		return;
	if (!where || where[0] != '/')
		where = getcwd(cwd, sizeof(cwd));
	if (!where || pol_once_folder(where, folder, sizeof(folder)) < 0)
		return;
	/* a grant lets pass only what a code could have been offered for */
	probe = *r;
	probe.decision = POL_DENY;
	probe.script = NULL;
	if (!pol_once_offerable(p, &probe))
		return;
	if (pol_once_use(folder, call->command, call->command_len, POL_ONCE_USE_HOOK, 0, 0) == 1) {
		r->decision = POL_ALLOW;
		r->allowed_by_once = 1;
		return;
	}
	if (r->decision == POL_DENY)
		pol_once_offer(folder, call->command, call->command_len, r->rule_id, 0,
			       r->once_code);
}

/* ---- showing a command ---------------------------------------------------------------------- */

/* The command as it will pass, with nothing a terminal would act on: each line
 * indented, other control bytes as \xHH (an escape sequence could hide a part). */
static void show_command(FILE *f, const char *cmd, size_t len)
{
	fputs("  | ", f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)cmd[i];

		if (c == '\n')
			fputs(i + 1 < len ? "\n  | " : "", f);
		else if (c < 0x20 || c == 0x7f)
			fprintf(f, "\\x%02x", c);
		else
			fputc(c, f);
	}
	fputc('\n', f);
}

static void show_time(FILE *f, const char *label, time_t t)
{
	struct tm tm;
	char buf[40];

	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", &tm);
	fprintf(f, "%s%s", label, buf);
}

static void show_entry(FILE *f, const struct pol_once_entry *e)
{
	fprintf(f, "Code:     %s\nRule:     %s\nFolder:   %s\n", e->code, e->rule, e->folder);
	show_time(f, "Offered:  ", e->created);
	fputs("\nCommand:\n", f);
	show_command(f, e->cmd, e->cmd_len);
}

/* ---- options ---------------------------------------------------------------------------------- */

/* 30m, 12h, 2d, 90s, or a number of seconds: 0 and *out, or -1. */
static int parse_duration(const char *s, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || v <= 0)
		return -1;
	switch (*end) {
	case '\0':
	case 's':
		break;
	case 'm':
		v *= 60;
		break;
	case 'h':
		v *= 3600;
		break;
	case 'd':
		v *= 86400;
		break;
	default:
		return -1;
	}
	if (*end && end[1])
		return -1;
	if (v > POL_ONCE_FOR_MAX)
		return -1;
	*out = v;
	return 0;
}

struct once_opts {
	const char *code, *revoke;
	long seconds;
	long uses;
	int list, json, dry, all;
};

static int parse_opts(int argc, char **argv, struct once_opts *o)
{
	static const struct cli_option opts[] = {
	    {"for", required_argument, 'f'}, {"uses", required_argument, 'u'},
	    {"dry-run", no_argument, 'n'},   {"list", no_argument, 'l'},
	    {"json", no_argument, 'j'},	     {"revoke", optional_argument, 'r'},
	    {"all", no_argument, 'a'},	     {"policy", required_argument, 'p'},
	    {"help", no_argument, 'h'},	     {"", 0, 0},
	};
	char *end;
	int c;

	memset(o, 0, sizeof(*o));
	o->seconds = POL_ONCE_FOR_DEFAULT;
	o->uses = 1;
	optind = 1;
	while ((c = cli_getopt(argc, argv, "h", opts)) != -1) {
		switch (c) {
		case 'f':
			if (parse_duration(optarg, &o->seconds) < 0) {
				fprintf(stderr,
					"dcg: allow-once: --for %s: say 30m, 12h or 2d "
					"(at most 30d)\n",
					optarg);
				return -1;
			}
			break;
		case 'u':
			o->uses = strtol(optarg, &end, 10);
			if (*end || o->uses < 1 || o->uses > POL_ONCE_USES_MAX) {
				fprintf(stderr, "dcg: allow-once: --uses takes 1 to %d\n",
					POL_ONCE_USES_MAX);
				return -1;
			}
			break;
		case 'n':
			o->dry = 1;
			break;
		case 'l':
			o->list = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'r':
			o->revoke = optarg ? optarg : "";
			break;
		case 'a':
			o->all = 1;
			break;
		case 'p':
			break; /* accepted by every command; codes do not depend on it */
		case 'h':
			fputs(once_usage, stdout);
			return -2;
		default:
			fputs(once_usage, stderr);
			return -1;
		}
	}
	if (o->revoke && !o->revoke[0] && optind < argc)
		o->revoke = argv[optind++];
	if (optind < argc)
		o->code = argv[optind++];
	if (optind < argc || (!o->code && !o->list && !o->revoke) ||
	    (o->revoke && !o->revoke[0] && !o->all)) {
		fputs(once_usage, stderr);
		return -1;
	}
	return 0;
}

/* ---- the subcommands ------------------------------------------------------------------------------ */

static int entry_live(const struct pol_once_entry *e, time_t now)
{
	return !e->revoked && e->expires > now && (!e->granted || e->used < e->uses);
}

static int once_list(int json, time_t now)
{
	struct pol_once_entry *v;
	size_t n, shown = 0;
	int rc = pol_once_load(&v, &n);

	if (rc < 0) {
		fprintf(stderr, "dcg: allow-once: cannot read the codes: %s\n", strerror(-rc));
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		const struct pol_once_entry *e = &v[i];
		char cmd[4 * 80 + 8];

		if (!entry_live(e, now))
			continue;
		hook_utf8_sanitize(e->cmd, e->cmd_len, cmd, sizeof(cmd));
		for (char *c = cmd; *c; c++)
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = ' ';
		if (json) {
			printf("{\"code\":\"%s\",\"state\":\"%s\",\"uses\":%u,\"used\":%u,"
			       "\"expires\":%lld,\"rule\":\"%s\"}\n",
			       e->code, e->granted ? "granted" : "offered", e->uses, e->used,
			       (long long)e->expires, e->rule);
		} else {
			printf("%s  %-8s ", e->code, e->granted ? "granted" : "offered");
			if (e->granted)
				printf("%u/%u used, ", e->used, e->uses);
			show_time(stdout, "until ", e->expires);
			printf("  %s  %s\n    %.100s\n", e->rule, e->folder, cmd);
		}
		shown++;
	}
	if (!shown && !json)
		printf("No allow-once code is waiting or granted.\n");
	pol_once_list_release(v, n);
	return 0;
}

static int once_revoke(const struct once_opts *o, time_t now)
{
	char code[12];
	int rc;

	if (o->all) {
		rc = pol_once_revoke(NULL);
	} else if (pol_once_code_parse(o->revoke, code) < 0) {
		fprintf(stderr, "dcg: allow-once: '%s' is not a code\n", o->revoke);
		return 1;
	} else {
		rc = pol_once_revoke(code);
	}
	if (rc < 0) {
		fprintf(stderr, "dcg: allow-once: cannot write the grants: %s\n", strerror(-rc));
		return 1;
	}
	pol_once_compact(now);
	printf("Revoked %s.\n", o->all ? "every code" : code);
	return 0;
}

/* Asks on the terminal: 1 for yes. */
static int confirm(void)
{
	char ans[16];

	fputs("Allow this command? [y/N] ", stderr);
	fflush(stderr);
	if (!fgets(ans, sizeof(ans), stdin))
		return 0;
	return ans[0] == 'y' || ans[0] == 'Y';
}

/* The entry of code, or NULL with the reason said. */
static const struct pol_once_entry *find_code(const struct pol_once_entry *v, size_t n,
					      const char *code, time_t now)
{
	for (size_t i = 0; i < n; i++) {
		const struct pol_once_entry *e = &v[i];

		if (strcmp(e->code, code))
			continue;
		if (e->revoked)
			fprintf(stderr, "dcg: allow-once: %s was revoked\n", code);
		else if (e->granted)
			fprintf(stderr, "dcg: allow-once: %s was already redeemed (%u/%u used)\n",
				code, e->used, e->uses);
		else if (e->expires <= now)
			fprintf(stderr,
				"dcg: allow-once: %s has expired; the next refusal "
				"offers a new code\n",
				code);
		else
			return e;
		return NULL;
	}
	fprintf(stderr,
		"dcg: allow-once: no code %s was offered here (see dcg allow-once --list)\n", code);
	return NULL;
}

static int once_redeem(const struct once_opts *o, time_t now)
{
	struct pol_once_entry *v;
	const struct pol_once_entry *e;
	char code[12];
	size_t n;
	int rc, status = 1;

	if (pol_once_code_parse(o->code, code) < 0) {
		fprintf(stderr, "dcg: allow-once: '%s' is not a code (%d letters and digits)\n",
			o->code, POL_ONCE_CODE_CHARS);
		return 1;
	}
	if ((rc = pol_once_load(&v, &n)) < 0) {
		fprintf(stderr, "dcg: allow-once: cannot read the codes: %s\n", strerror(-rc));
		return 1;
	}
	if (!(e = find_code(v, n, code, now)))
		goto out;
	show_entry(stdout, e);
	printf("Grants:   %ld use%s, ", o->uses, o->uses == 1 ? "" : "s");
	show_time(stdout, "until ", now + o->seconds);
	putchar('\n');
	fflush(stdout);
	if (o->dry) {
		printf("(dry run: nothing granted)\n");
		status = 0;
		goto out;
	}
	if (!isatty(0)) {
		fprintf(stderr, "dcg: allow-once: standard input is not a terminal; a code is "
				"redeemed by a person, at a terminal\n");
		goto out;
	}
	if (!confirm()) {
		fprintf(stderr, "Nothing granted.\n");
		goto out;
	}
	rc = pol_once_grant(e, now + o->seconds, (unsigned)o->uses);
	if (rc < 0) {
		fprintf(stderr, "dcg: allow-once: cannot write the grant: %s\n", strerror(-rc));
		goto out;
	}
	pol_once_compact(now);
	printf("Granted: the command may run %ld time%s in %s.\n", o->uses, o->uses == 1 ? "" : "s",
	       e->folder);
	status = 0;
out:
	pol_once_list_release(v, n);
	return status;
}

int cmd_allow_once(int argc, char **argv)
{
	struct once_opts o;
	time_t now = time(NULL);
	int rc = parse_opts(argc, argv, &o);

	if (rc < 0)
		return rc == -2 ? 0 : 1;
	if (o.list)
		return once_list(o.json, now);
	if (o.revoke)
		return once_revoke(&o, now);
	return once_redeem(&o, now);
}
