/* bench_shell.c - `make bench-shell`: how fast commands are decided with the shell
 * analysis, against a baseline measured in the same run (the same commands decided by
 * raw regex matching, POL_CTX_NO_ANALYSIS), and how long the worst-case inputs take.
 * Rates are per second of this process's CPU time.
 *
 * Usage: bench_shell CORPUS.tsv...   (the files of tests/corpus)
 *        bench_shell --rounds N CORPUS.tsv...   decides every command N times with the
 *        analysis and prints nothing else: the run to profile (valgrind --tool=callgrind) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena.h"
#include "corpus_file.h"
#include "dcg_policy.h"
#include "shell.h"

struct cmd {
	char *s;
	size_t len;
};

/* This process's CPU time: on a shared machine, other processes' load takes the CPU
 * away from the bench between decisions, and a wall clock would count it against it. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t load(int argc, char **argv, struct cmd **out)
{
	size_t n = 0, cap = 1024;
	struct cmd *v = malloc(cap * sizeof(*v));
	char line[8192];

	for (int i = 1; v && i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		if (!f) {
			perror(argv[i]);
			continue;
		}
		while (fgets(line, sizeof(line), f)) {
			char *t;
			size_t o;
			line[strcspn(line, "\n")] = '\0';
			if (line[0] == '#' || !(t = strchr(line, '\t')) ||
			    !(t = strchr(t + 1, '\t')))
				continue;
			t++;
			o = corpus_unescape(t);
			if (n == cap) {
				struct cmd *nv = realloc(v, (cap *= 2) * sizeof(*v));
				if (!nv)
					break;
				v = nv;
			}
			v[n].s = malloc(o + 1);
			if (!v[n].s)
				break;
			memcpy(v[n].s, t, o);
			v[n].s[o] = '\0';
			v[n].len = o;
			n++;
		}
		fclose(f);
	}
	*out = v;
	return n;
}

/* Decides every command in rounds for about `secs` seconds; returns decisions/s. */
static double rate(const struct pol_policy *p, const struct cmd *v, size_t n, unsigned flags,
		   double secs, unsigned *denied)
{
	struct pol_ctx ctx = {.cwd = "/srv/dcg-corpus/proj", .flags = flags};
	size_t done = 0;
	double t0 = now(), t;

	*denied = 0;
	do {
		for (size_t i = 0; i < n; i++) {
			struct pol_result r;
			if (pol_check_command(p, v[i].s, v[i].len, &ctx, &r) >= POL_ASK && done < n)
				(*denied)++;
			pol_result_release(&r);
			done++;
		}
		t = now() - t0;
	} while (t < secs);
	return (double)done / t;
}

static int count_unit(const struct pol_unit *u, void *arg)
{
	(void)u;
	(*(size_t *)arg)++;
	return 0;
}

/* Analyses every command in rounds; *units gets the units of one round. */
static double analyse_rate(const struct cmd *v, size_t n, double secs, size_t *units)
{
	struct pol_shell_opts o = {.cwd = "/srv/dcg-corpus/proj", .home = "/home/agent"};
	size_t done = 0, first = 0;
	double t0 = now(), t;

	*units = 0;
	do {
		if (done == n)
			first = *units;
		for (size_t i = 0; i < n; i++) {
			struct pol_arena a;
			pol_arena_init(&a, 0);
			pol_shell_analyze(v[i].s, v[i].len, &o, &a, count_unit, units);
			pol_arena_release(&a);
			done++;
		}
		t = now() - t0;
	} while (t < secs);
	if (done > n)
		*units = first;
	return (double)done / t;
}

static char *repeat(const char *head, const char *unit, size_t bytes, const char *tail)
{
	size_t hl = strlen(head), ul = strlen(unit), tl = strlen(tail), o = hl;
	char *s = malloc(hl + bytes + ul + tl + 1);

	if (!s)
		return NULL;
	memcpy(s, head, hl);
	while (o - hl < bytes) {
		memcpy(s + o, unit, ul);
		o += ul;
	}
	memcpy(s + o, tail, tl + 1);
	return s;
}

int main(int argc, char **argv)
{
	struct pol_policy *p = pol_new(0);
	struct cmd *v = NULL;
	size_t n, units;
	unsigned denied_raw, denied;
	struct pol_ctx ctx = {.cwd = "/srv/dcg-corpus/proj"};
	long rounds = 0;

	if (argc > 2 && !strcmp(argv[1], "--rounds")) {
		rounds = strtol(argv[2], NULL, 10);
		argc -= 2;
		argv += 2;
	}
	if (!p || pol_set_home(p, "/home/agent") || pol_set_root(p, "/srv/dcg-corpus/proj") ||
	    pol_load_embedded(p)) {
		fprintf(stderr, "bench_shell: cannot load the embedded policy\n");
		return 1;
	}
	n = load(argc, argv, &v);
	if (!n) {
		fprintf(stderr, "usage: bench_shell tests/corpus/*.tsv\n");
		return 1;
	}
	/* warm up: lazy regex compilation happens on first use */
	rate(p, v, n, 0, rounds > 0 ? 0 : 0.05, &denied);
	for (long k = 1; k < rounds; k++)
		rate(p, v, n, 0, 0, &denied);
	if (rounds > 0) {
		printf("bench-shell: %zu corpus commands decided %ld times\n", n, rounds);
		goto out;
	}

	double base = rate(p, v, n, POL_CTX_NO_ANALYSIS, 1.0, &denied_raw);
	double full = rate(p, v, n, 0, 1.0, &denied);
	double an = analyse_rate(v, n, 1.0, &units);
	/* the same with every pack on (policy/packs/, the opt-in ones too) */
	struct pol_policy *all = pol_new(0);
	unsigned denied_all = 0;
	double every = 0;
	if (all && !pol_set_home(all, "/home/agent") &&
	    !pol_set_root(all, "/srv/dcg-corpus/proj") && !pol_load_embedded(all) &&
	    !pol_enable_every_pack(all)) {
		rate(all, v, n, 0, 0.05, &denied_all);
		every = rate(all, v, n, 0, 1.0, &denied_all);
	}
	printf("bench-shell: %zu corpus commands, %zu rules (rates per CPU second)\n", n,
	       pol_rule_count(p));
	printf("  raw regex only (baseline):   %10.0f decisions/s  (%u of %zu stopped)\n", base,
	       denied_raw, n);
	printf("  with shell analysis:         %10.0f decisions/s  (%u of %zu stopped)  = %.2fx "
	       "baseline\n",
	       full, denied, n, full / base);
	printf("  every pack on:               %10.0f decisions/s  (%u of %zu stopped)  = %.2fx "
	       "baseline\n",
	       every, denied_all, n, every / base);
	pol_free(all);
	printf("  analyser alone:              %10.0f commands/s   (%.1f units per command)  = "
	       "%.2fx baseline\n",
	       an, (double)units / (double)n, an / base);

	/* worst cases: each decided once, timed */
	const size_t MB = 1024 * 1024;
	struct {
		const char *name;
		char *s;
	} w[] = {
	    {"1 MB of nested $(", repeat("", "$(", MB, "")},
	    {"1 MB of nested (", repeat("", "(", MB, "")},
	    {"1 MB of nested \"$(", repeat("", "\"$(", MB, "")},
	    {"1 MB of `echo \\`", repeat("", "`echo \\`", MB, "")},
	    {"1 MB unterminated '", repeat("echo '", "a", MB, "")},
	    {"1 MB unterminated \"", repeat("echo \"", "a $x ", MB, "")},
	    {"1 MB unterminated heredoc", repeat("cat <<EOF\n", "line of text\n", MB, "")},
	    {"1 MB heredoc into python",
	     repeat("python3 <<EOF\n", "os.system('x')\n", MB, "EOF\n")},
	    {"1 MB of ls a b;", repeat("", "ls a b;", MB, "rm -rf /")},
	    {"1 MB of a|", repeat("", "a|", MB, "sh")},
	    {"1 MB one word", repeat("echo ", "x", MB, "")},
	    {"1 MB of <<E heredocs", repeat("", "cat <<E\n", MB, "")},
	    {"1 MB of ${", repeat("", "${", MB, "")},
	    {"1 MB of $((", repeat("", "$((", MB, "")},
	    {"1 MB bash -c nesting", repeat("", "bash -c \"", MB, "")},
	    {"1 MB of \\\\\\\\", repeat("echo ", "\\\\", MB, "")},
	    {"1 MB of find -exec", repeat("find . ", "-exec find . ", MB, ";")},
	    {"1 MB of sudo", repeat("", "sudo ", MB, "rm -rf /")},
	    {"1 MB case patterns", repeat("case x in ", "a|", MB, "b) rm -rf /;; esac")},
	};
	printf("  worst cases (one decision each):\n");
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		struct pol_result r;
		double t0;
		if (!w[i].s)
			continue;
		t0 = now();
		pol_check_command(p, w[i].s, strlen(w[i].s), &ctx, &r);
		double ms = (now() - t0) * 1e3;
		printf("    %-28s %8.2f ms  %-5s %s\n", w[i].name, ms,
		       pol_decision_name(r.decision), r.rule_id ? r.rule_id : "-");
		pol_result_release(&r);
		free(w[i].s);
	}
out:
	for (size_t i = 0; i < n; i++)
		free(v[i].s);
	free(v);
	pol_free(p);
	return 0;
}
