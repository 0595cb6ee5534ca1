/* bench_hook.c - whole-process latency of `dcg hook`: start, policy load, decision,
 * answer, exit; per kind of call, with /bin/true fed the same input as the baseline
 * of the same run. Kinds are interleaved so that machine noise hits them alike.
 *
 * usage: bench_hook DCG [CALLS_PER_KIND [OTHER_DCG...]]   (default 300; at least 200 is
 * meaningful). Each OTHER_DCG (another build: the one before a change, or one that
 * stops early, a floor) adds its allowed calls as one more kind, up to MAX_OTHERS, for
 * comparisons in the same run.
 * The run uses a throwaway HOME and audit log, so only the embedded policy is active. */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spawn_timed.h"

extern char **environ;

static const char *const allowed[] = {
    "ls -la",
    "git status",
    "git log --oneline -5",
    "make -j2",
    "npm test",
    "grep -rn TODO src",
    "cat README.md | head -20",
    "python3 -m pytest -q tests/",
    "cargo build --release",
    "echo hello > out.txt && wc -l out.txt",
    "find . -name '*.c' -newer Makefile",
    "docker ps -a",
};

static const char *const denied[] = {
    "git reset --hard",	      "git reset --hard HEAD~3",  "rm -rf build",
    "rm -rf ~/projects",      "git clean -fdx",		  "git push --force origin main",
    "cd /tmp && rm -rf data", "sudo rm -rf /var/lib/app",
};

static const char *const heredocs[] = {
    "python3 - <<'EOF'\\nimport os\\npath = \\\"/tmp/data\\\"\\nos.system(\\\"rm -rf "
    "/tmp/data\\\")\\nprint(\\\"done\\\")\\nEOF",
    "python3 <<EOF\\nimport shutil\\nshutil.rmtree('/srv/app')\\nEOF",
    "bash <<'EOF'\\nset -e\\ncd /repo\\ngit reset --hard\\nEOF",
    "node <<'EOF'\\nconst cp = require('child_process');\\ncp.execSync('rm -rf dist');\\nEOF",
    "cat > notes.txt <<'EOF'\\nplain text, nothing to run\\nEOF",
    "ruby <<'EOF'\\nputs 'hello'\\nEOF",
};

/* {tool, input} pairs; @ stands for the bench HOME. */
static const char *const files[][2] = {
    {"Read", "{\"file_path\":\"@/proj/src/main.c\"}"},
    {"Read", "{\"file_path\":\"@/.ssh/id_rsa\"}"},
    {"Write", "{\"file_path\":\"@/proj/new.txt\",\"content\":\"hello\\n\"}"},
    {"Write", "{\"file_path\":\"@/.bashrc\",\"content\":\"evil\\n\"}"},
    {"Edit", "{\"file_path\":\"@/proj/src/main.c\",\"old_string\":\"a\",\"new_string\":\"b\"}"},
    {"Edit", "{\"file_path\":\"@/proj/.env\",\"old_string\":\"a\",\"new_string\":\"b\"}"},
    {"Glob", "{\"pattern\":\"**/*.c\"}"},
    {"Grep", "{\"pattern\":\"TODO\",\"path\":\"@/proj\"}"},
    {"LS", "{\"path\":\"@/proj\"}"},
    {"MultiEdit", "{\"file_path\":\"@/proj/a.c\",\"edits\":[]}"},
};

#define MAX_OTHERS 4
enum kind {
	K_TRUE,
	K_ALLOWED,
	K_DENIED,
	K_HEREDOC,
	K_FILE,
	K_OTHER,
	K__COUNT = K_OTHER + MAX_OTHERS
};
static const char *kind_names[K__COUNT] = {"/bin/true", "allowed", "denied", "heredoc",
					   "file tools"};

struct sample {
	double *us;
	double *cpu; /* user + system time of the child */
	size_t n;
	size_t answered; /* calls that printed an answer (deny/ask) */
};

static double pct(double *v, size_t n, double p)
{
	size_t i = (size_t)(p * (double)(n - 1) + 0.5);

	return v[i];
}

/* Builds the i-th input of a kind into buf. */
static void input_for(enum kind k, size_t i, const char *home, char *buf, size_t size)
{
	char tmp[1024];

	switch (k) {
	case K_ALLOWED:
	case K_TRUE:
	case K_DENIED:
	case K_HEREDOC: {
		const char *const *cmds = k == K_DENIED	   ? denied
					  : k == K_HEREDOC ? heredocs
							   : allowed;
		size_t n = k == K_DENIED    ? sizeof(denied) / sizeof(denied[0])
			   : k == K_HEREDOC ? sizeof(heredocs) / sizeof(heredocs[0])
					    : sizeof(allowed) / sizeof(allowed[0]);

		snprintf(buf, size,
			 "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"%s/"
			 "proj\",\"tool_name\":\"Bash\","
			 "\"tool_input\":{\"command\":\"%s\"}}",
			 home, cmds[i % n]);
		break;
	}
	case K_FILE: {
		size_t j = i % (sizeof(files) / sizeof(files[0]));
		const char *t = files[j][1];
		size_t o = 0, hl = strlen(home);
		for (; *t && o + hl + 1 < sizeof(tmp); t++) {
			if (*t == '@') {
				memcpy(tmp + o, home, hl);
				o += hl;
			} else {
				tmp[o++] = *t;
			}
		}
		tmp[o] = '\0';
		snprintf(
		    buf, size,
		    "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"%s/proj\",\"tool_name\":\"%s\","
		    "\"tool_input\":%s}",
		    home, files[j][0], tmp);
		break;
	}
	default: /* another build: the allowed calls */
		input_for(K_ALLOWED, i, home, buf, size);
	}
}

/* Runs prog with input on stdin; returns the microseconds from spawn to reaped exit,
 * or a negative value on failure (-2: a non-zero exit). *answered: stdout was not empty. */
static double run_once(const char *prog, char *const argv[], const char *input, int outfd,
		       int nullfd, int *answered, double *cpu)
{
	struct stat st;
	double wall;
	int status;

	if (ftruncate(outfd, 0) < 0 || lseek(outfd, 0, SEEK_SET) < 0 ||
	    spawn_timed(prog, argv, environ, input, outfd, nullfd, &wall, cpu, &status) < 0)
		return -1;
	*answered = fstat(outfd, &st) == 0 && st.st_size > 0;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -2;
	return wall;
}

int main(int argc, char **argv)
{
	char home[] = "/tmp/dcg-bench-XXXXXX", path[512], input[4096], dcg[4096];
	char *dcg_argv[] = {NULL, "hook", NULL}, *true_argv[] = {"/bin/true", NULL};
	char other[MAX_OTHERS][4096], *other_argv[MAX_OTHERS][3], label[MAX_OTHERS][64];
	int n_other = 0;
	struct sample s[K__COUNT];
	size_t n = 300, i, k, failures = 0;
	int outfd, nullfd, answered, rc = 0;
	double cpu;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_hook DCG [CALLS_PER_KIND [OTHER_DCG...]]\n");
		return 1;
	}
	if (argc > 2) {
		long v = strtol(argv[2], NULL, 10);
		if (v < 10 || v > 100000) {
			fprintf(stderr, "bench_hook: CALLS_PER_KIND from 10 to 100000\n");
			return 1;
		}
		n = (size_t)v;
	}
	if (argc > 3 + MAX_OTHERS) {
		fprintf(stderr, "bench_hook: at most %d other builds\n", MAX_OTHERS);
		return 1;
	}
	for (int a = 3; a < argc; a++, n_other++) {
		const char *base = strrchr(argv[a], '/');

		if (!realpath(argv[a], other[n_other])) {
			perror(argv[a]);
			return 1;
		}
		other_argv[n_other][0] = other[n_other];
		other_argv[n_other][1] = "hook";
		other_argv[n_other][2] = NULL;
		snprintf(label[n_other], sizeof(label[n_other]), "allowed, %.52s",
			 base ? base + 1 : argv[a]);
		kind_names[K_OTHER + n_other] = label[n_other];
	}
	if (!realpath(argv[1], dcg)) {
		perror(argv[1]);
		return 1;
	}
	dcg_argv[0] = dcg;
	if (!mkdtemp(home)) {
		perror("mkdtemp");
		return 1;
	}
	snprintf(path, sizeof(path), "%s/proj", home);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/proj/src", home);
	mkdir(path, 0755);
	setenv("HOME", home, 1);
	snprintf(path, sizeof(path), "%s/.config", home);
	setenv("XDG_CONFIG_HOME", path, 1);
	snprintf(path, sizeof(path), "%s/audit.jsonl", home);
	setenv("DCG_LOG", path, 1);
	unsetenv("DCG_POLICY");
	snprintf(path, sizeof(path), "%s/proj", home);
	if (chdir(path) < 0)
		return 1;
	snprintf(path, sizeof(path), "%s/out", home);
	outfd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	nullfd = open("/dev/null", O_WRONLY);
	if (outfd < 0 || nullfd < 0)
		return 1;

	for (k = 0; k < K__COUNT; k++) {
		s[k].us = calloc(n, sizeof(double));
		s[k].cpu = calloc(n, sizeof(double));
		s[k].n = 0;
		s[k].answered = 0;
		if (!s[k].us || !s[k].cpu)
			return 1;
	}
	/* warm the page cache and the dynamic loader's caches */
	for (i = 0; i < 20; i++) {
		input_for(K_ALLOWED, i, home, input, sizeof(input));
		run_once(dcg, dcg_argv, input, outfd, nullfd, &answered, &cpu);
		for (int o = 0; o < n_other; o++)
			run_once(other[o], other_argv[o], input, outfd, nullfd, &answered, &cpu);
	}
	for (i = 0; i < n; i++) {
		for (k = 0; k < K__COUNT; k++) {
			double us;
			input_for((enum kind)k, i, home, input, sizeof(input));
			if (k >= K_OTHER && k - K_OTHER >= (size_t)n_other)
				continue;
			if (k == K_TRUE)
				us = run_once("/bin/true", true_argv, input, outfd, nullfd,
					      &answered, &cpu);
			else if (k >= K_OTHER)
				us = run_once(other[k - K_OTHER], other_argv[k - K_OTHER], input,
					      outfd, nullfd, &answered, &cpu);
			else
				us = run_once(dcg, dcg_argv, input, outfd, nullfd, &answered, &cpu);
			if (us < 0) {
				if (++failures > 3)
					continue;
				fprintf(stderr, "bench_hook: %s run %zu failed (%s)\n",
					kind_names[k], i,
					us == -2 ? "non-zero exit" : strerror(errno));
				rc = 1;
				continue;
			}
			s[k].cpu[s[k].n] = cpu;
			s[k].us[s[k].n++] = us;
			s[k].answered += (size_t)answered;
		}
	}

	printf("dcg hook, whole process (spawn to exit), %zu calls per kind, interleaved\n", n);
	printf("%-24s %6s %9s %9s %9s %9s %9s %s\n", "kind", "calls", "p50 us", "p95 us",
	       "p50/true", "p50-true", "cpu p50", "answered (deny/ask)");
	qsort(s[K_TRUE].us, s[K_TRUE].n, sizeof(double), cmp_double);
	for (k = 0; k < K__COUNT; k++) {
		double p50, p95, base = pct(s[K_TRUE].us, s[K_TRUE].n, 0.5);
		if (!s[k].n)
			continue;
		qsort(s[k].us, s[k].n, sizeof(double), cmp_double);
		qsort(s[k].cpu, s[k].n, sizeof(double), cmp_double);
		p50 = pct(s[k].us, s[k].n, 0.5);
		p95 = pct(s[k].us, s[k].n, 0.95);
		printf("%-24s %6zu %9.0f %9.0f %8.2fx %9.0f %9.0f %zu\n", kind_names[k], s[k].n,
		       p50, p95, p50 / base, p50 - base, pct(s[k].cpu, s[k].n, 0.5),
		       k == K_TRUE ? 0 : s[k].answered);
	}
	for (k = 0; k < K__COUNT; k++) {
		free(s[k].us);
		free(s[k].cpu);
	}
	snprintf(path, sizeof(path), "rm -rf '%s'", home);
	if (system(path) != 0)
		fprintf(stderr, "bench_hook: could not remove %s\n", home);
	return rc;
}
