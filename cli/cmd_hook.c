/* cmd_hook.c - `dcg hook`: one tool call on stdin, one answer on stdout.
 *
 * Claude Code lets the tool run when a hook crashes, exits 1, prints non-JSON or
 * times out. So every path out of here either prints a complete answer and exits 0,
 * or (crash, timeout, stdout failure) explains on stderr and exits 2, which Claude
 * Code treats as a refusal. Nothing is printed on stdout before the answer is whole. */
#include "hook.h"

#include "agents/agents.h"

#include "commands.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Larger input is refused unread: a real tool call is far smaller, and reading and
 * parsing 100 MB would blow the time budget. */
#define HOOK_MAX_INPUT (16u * 1024 * 1024)
/* dcg refuses by itself before any agent's hook timeout can let the call through. */
#define HOOK_ALARM_SECONDS 10

static void fail_closed(int sig)
{
	static const char crash[] =
	    "dcg: internal error while checking this tool call; it is refused. "
	    "Run `dcg status` to see what is wrong.\n";
	static const char slow[] = "dcg: checking this tool call took too long; it is refused.\n";
	ssize_t n;

	if (sig == SIGALRM)
		n = write(2, slow, sizeof(slow) - 1);
	else
		n = write(2, crash, sizeof(crash) - 1);
	(void)n;
	_exit(2);
}

static void install_fail_closed(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa)); /* an empty sa_mask too: no sigemptyset to bind */
	sa.sa_handler = fail_closed;
	sigaction(SIGALRM, &sa, NULL);
#if !defined(__SANITIZE_ADDRESS__)
	/* Under the sanitizers their own reports matter more. */
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGABRT, &sa, NULL);
#endif
	alarm(HOOK_ALARM_SECONDS);
}

/* Reads stdin up to max bytes. Returns 0 (with *over set when more was waiting),
 * or a negative errno. The buffer starts small, the size of most calls (a Bash call
 * from Claude Code is 300 to 600 bytes), and grows fourfold (in place: nothing else is
 * on the heap yet): the parsed call and the policy then share the heap's first page
 * with it instead of starting 64 KiB further, on a page of their own. */
static int read_input(char **out, size_t *len, size_t max, int *over)
{
	size_t cap = 1024, used = 0;
	char *buf = malloc(cap + 1), *n;
	ssize_t got;

	*out = NULL;
	*len = 0;
	*over = 0;
	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (used == cap) {
			if (cap >= max) {
				*over = 1;
				break;
			}
			cap = cap * 4 > max ? max : cap * 4;
			n = realloc(buf, cap + 1);
			if (!n) {
				free(buf);
				return -ENOMEM;
			}
			buf = n;
		}
		got = read(0, buf + used, cap - used);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -errno;
		}
		if (got == 0)
			break;
		used += (size_t)got;
	}
	buf[used] = '\0';
	*out = buf;
	*len = used;
	return 0;
}

/* Reads and drops the rest of stdin, so the agent's write of an oversized call ends
 * normally instead of on a broken pipe. Not inlined: its buffer would make the frame
 * of cmd_hook 64 KiB larger, and the stack-clash probes touch every page of a frame at
 * every start of the hook (16 page faults). */
static __attribute__((noinline)) void drain_input(void)
{
	char tmp[65536];
	ssize_t got;

	do
		got = read(0, tmp, sizeof(tmp));
	while (got > 0 || (got < 0 && errno == EINTR));
}

static int write_all(int fd, const char *s, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, s, len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The text to log as the call's input: the command, or its paths. */
static void log_input(const struct hook_call *call, char *out, size_t size)
{
	size_t i, off = 0;
	int n;

	out[0] = '\0';
	if (call->kind == HOOK_CALL_COMMAND) {
		snprintf(out, size, "%.*s",
			 (int)(call->command_len > size ? size : call->command_len), call->command);
		return;
	}
	for (i = 0; i < call->n_paths && off < size; i++) {
		n = snprintf(out + off, size - off, "%s%s", i ? " " : "", call->paths[i]);
		if (n < 0)
			break;
		off += (size_t)n;
	}
}

/* Logs a decided call. Not inlined: its 4 KiB buffer stays off the stack of an allowed
 * call, whose every page of depth is a page fault at each start. */
static __attribute__((noinline)) void
log_call(const struct hook_call *call, const struct hook_agent *agent, const struct pol_result *res)
{
	struct pol_log_entry le;
	char logged[4096];

	log_input(call, logged, sizeof(logged));
	memset(&le, 0, sizeof(le));
	le.layer = "hook";
	le.tool = call->tool ? call->tool : "?";
	le.input = logged;
	le.agent = agent->name;
	le.cwd = call->cwd;
	le.result = res;
	pol_log_append(&le); /* a failure to log never changes the decision */
}

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: dcg hook [--agent NAME] [--policy FILE]\n"
		   "\n"
		   "Reads one tool call from the agent on stdin and answers it in the agent's\n"
		   "protocol: nothing for an allowed call, a deny or ask answer otherwise, with\n"
		   "the reason on stderr. Malformed input is refused, never let through.\n"
		   "Agents:");
	for (i = 0; i < hook_agent_count(); i++)
		fprintf(f, " %s%s", hook_agent_get(i)->name,
			hook_agent_get(i)->parse ? "" : " (not yet)");
	fprintf(f, "\nInstall it with: dcg install --agent claude\n");
}

/* Not on the stack: its 8 KiB of scratch buffers (written only for a search tool)
 * would push every frame below it two pages deeper, two page faults at each start.
 * One call per process; a second call reuses it after hook_call_release(). Its head,
 * the three below and the others a call writes come first in dcg's .bss, on the page
 * the loader writes anyway (cli/hook.order). */
static struct hook_call hook_the_call;

/* The policy and the parsed call of the last call (see the end of cmd_hook). */
static struct pol_policy *kept_policy;
static void *kept_state;
static void (*kept_release)(void *state);

int cmd_hook(int argc, char **argv)
{
	static const struct cli_option opts[] = {
	    {"agent", required_argument, 'a'},
	    {"policy", required_argument, 'p'},
	    {"help", no_argument, 'h'},
	    {"", 0, 0},
	};
	const struct hook_agent *agent;
	const char *agent_name = "claude", *policy_file = dcg_global_policy;
	struct pol_policy *pol = NULL;
	struct pol_result res;
	struct hook_call *const call = &hook_the_call;
	struct hook_answer ans;
	char *input = NULL, *answer = NULL, *msg = NULL;
	void *state = NULL;
	size_t len = 0;
	int c, over = 0, code = 0, err, plain;

	install_fail_closed();
	/* What an agent runs (cmd_install.c: `dcg hook --agent NAME`) and `dcg hook` need no
	 * getopt_long: its first call is a lazy binding and a new window of libc's text. */
	plain = argc == 1 || (argc == 3 && !strcmp(argv[1], "--agent"));
	if (argc == 3 && plain)
		agent_name = argv[2];
	optind = 1;
	while (!plain && (c = cli_getopt(argc, argv, "+h", opts)) != -1) {
		switch (c) {
		case 'a':
			agent_name = optarg;
			break;
		case 'p':
			policy_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	agent = hook_agent_find(agent_name);
	if (!agent || !agent->parse) {
		/* A hook that exits 1 lets the call through: refuse loudly instead. */
		fprintf(stderr, "dcg: hook: %s agent '%s'; the call is refused\n",
			agent ? "no protocol yet for the" : "unknown", agent_name);
		return 2;
	}

	pol_result_init(&res);
	hook_call_init(call);
	err = read_input(&input, &len, HOOK_MAX_INPUT, &over);
	if (err) {
		call->kind = HOOK_CALL_INVALID;
		call->invalid = "dcg could not read the tool call from stdin";
	} else if (over) {
		call->kind = HOOK_CALL_INVALID;
		call->invalid = "the tool call is too large to check (over 16 MiB)";
	} else {
		agent->parse(input, len, call, &state);
#ifdef HOOK_BENCH_FLOOR
		_exit(0); /* the floor of `make bench-hook` (cli/module.mk): start, read, parse */
#endif
	}
	if (call->kind == HOOK_CALL_OTHER && !hook_intent_confines(call))
		goto out; /* nothing to decide: no policy load at all */

	if (call->kind != HOOK_CALL_INVALID)
		pol = hook_policy_open(policy_file, call->cwd, stderr);
	hook_decide_call(pol, call, POL_CTX_KEEP_SCRIPT, &res);
	if (res.decision >= POL_ASK)
		hook_once_apply(pol, call, &res);

	if (res.decision >= POL_WARN || res.allowed_by_allowlist || res.allowed_by_once ||
	    res.observed) {
		if (res.decision >= POL_WARN) {
			struct hook_msg_opts mo = {isatty(2), call->command, call->command_len};
			msg = hook_msg_human(&res, &mo);
			if (msg)
				write_all(2, msg, strlen(msg));
			if (pol)
				hook_print_trust_notes(stderr, pol, 1);
		} else if (res.observed) {
			hook_print_observed(stderr, &res);
		}
		/* an allowlisted pass is logged too, with the entry that let it pass */
		log_call(call, agent, &res);
	}
	ans.result = &res;
	ans.call = call;
	answer = agent->answer(&ans, &code);
	if (!answer && (res.decision == POL_DENY || res.decision == POL_ASK)) {
		/* No memory for the JSON: exit 2 still refuses. */
		static const char oom[] = "dcg: out of memory; the call is refused\n";
		write_all(2, oom, sizeof(oom) - 1);
		code = 2;
		goto out;
	}
	if (answer) {
		size_t alen = strlen(answer);
		if (write_all(1, answer, alen) || write_all(1, "\n", 1)) {
			static const char bad[] =
			    "dcg: cannot write the answer; the call is refused\n";
			write_all(2, bad, sizeof(bad) - 1);
			code = 2;
		}
	}
out:
	if (over)
		drain_input();
	free(answer);
	free(msg);
	pol_result_release(&res);
	hook_call_release(call);
	/* The process exits next: freeing some 300 rules one by one, or the parsed call
	 * node by node, costs more than the rest of the exit. Both stay reachable from here
	 * (no leak to a checker); an in-process caller that calls again frees the ones
	 * before. */
	pol_free(kept_policy);
	kept_policy = pol;
	if (kept_state)
		kept_release(kept_state);
	kept_state = state;
	kept_release = state ? agent->release : NULL;
	free(input);
	return code;
}
