/* hook_ab.c - paired A/B of builds of dcg on one allowed Bash call, `BUILD hook --agent
 * claude` (what an agent runs), for changes of a few microseconds that bench_hook's
 * per-kind medians cannot separate from the noise of a shared machine.
 *
 * usage: hook_ab ROUNDS BUILD_A BUILD_B [BUILD...]   (ROUNDS: 3000 for about 2 us)
 *        HOOK_AB_COMMAND='grep -rn TODO src' hook_ab ...   (another Bash command than
 *        `git status`: one of bench_hook's path decisions, say)
 *
 * Each round runs every build once, in an order that rotates from round to round; the
 * report gives each build's median wall and CPU time (rusage of the child) and the
 * median of its per-round difference from BUILD_A, which the load of the other cores
 * shifts alike. Before the rounds every build is dropped from the page cache (fsync,
 * POSIX_FADV_DONTNEED), so that exec faults all of them in the same way, in 4 KiB pages
 * as after a reboot: a binary just written by the linker (mmap) and one written by cp
 * (large folios) differ by up to 25 us per start for the same bytes. The calls run with
 * a throwaway HOME holding proj/src, as bench_hook's, so only the embedded policy is
 * active. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spawn_timed.h"

#define MAX_BUILDS 8

static double median(const double *v, size_t n, double *tmp)
{
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	return tmp[n / 2];
}

/* Drops the file's pages from the page cache (written back first). */
static void evict(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fsync(fd) < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
		fprintf(stderr, "hook_ab: %s stays in the page cache\n", path);
	close(fd);
}

/* One call of build with input on stdin, its output to outfd: wall and CPU
 * microseconds; -1 on failure. */
static int run_once(const char *build, const char *input, char *const env[], int outfd,
		    double *wall, double *cpu)
{
	char *argv[] = {(char *)build, "hook", "--agent", "claude", NULL};
	int status;

	if (spawn_timed(build, argv, env, input, outfd, -1, wall, cpu, &status) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	char home[] = "/tmp/dcg-ab-XXXXXX", proj[64], env_home[80], input[512];
	static double wall[MAX_BUILDS][100000], cpu[MAX_BUILDS][100000];
	double *d, *e, *tmp;
	char *env[2];
	int nullfd;
	long rounds;
	int nb = argc - 2;

	if (argc < 4 || nb > MAX_BUILDS) {
		fprintf(stderr, "usage: hook_ab ROUNDS BUILD_A BUILD_B [BUILD...] (at most %d)\n",
			MAX_BUILDS);
		return 2;
	}
	rounds = strtol(argv[1], NULL, 10);
	if (rounds < 1 || rounds > 100000) {
		fprintf(stderr, "hook_ab: ROUNDS from 1 to 100000\n");
		return 2;
	}
	if (!mkdtemp(home)) {
		perror("hook_ab: mkdtemp");
		return 1;
	}
	snprintf(proj, sizeof(proj), "%s/proj", home);
	if (mkdir(proj, 0700) < 0) {
		perror("hook_ab: mkdir");
		return 1;
	}
	snprintf(env_home, sizeof(env_home), "HOME=%s", home);
	env[0] = env_home;
	env[1] = NULL;
	{
		const char *cmd = getenv("HOOK_AB_COMMAND");
		char esc[256], src[80];
		size_t o = 0;

		/* the command as a JSON string: quotes and backslashes escaped */
		for (const char *c = cmd && *cmd ? cmd : "git status"; *c; c++) {
			if (o + 3 >= sizeof(esc)) {
				fprintf(stderr, "hook_ab: HOOK_AB_COMMAND too long\n");
				return 2;
			}
			if (*c == '"' || *c == '\\')
				esc[o++] = '\\';
			esc[o++] = *c;
		}
		esc[o] = '\0';
		snprintf(src, sizeof(src), "%s/src", proj);
		if (mkdir(src, 0700) < 0) {
			perror("hook_ab: mkdir");
			return 1;
		}
		snprintf(input, sizeof(input),
			 "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"%s\",\"tool_name\":"
			 "\"Bash\",\"tool_input\":{\"command\":\"%s\"}}",
			 proj, esc);
	}
	nullfd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (nullfd < 0) {
		perror("hook_ab: /dev/null");
		return 1;
	}
	for (int b = 0; b < nb; b++)
		evict(argv[2 + b]);
	for (long r = 0; r < rounds; r++)
		for (int k = 0; k < nb; k++) {
			int b = (int)((k + r) % nb);
			if (run_once(argv[2 + b], input, env, nullfd, &wall[b][r], &cpu[b][r]) <
			    0) {
				fprintf(stderr, "hook_ab: %s failed\n", argv[2 + b]);
				return 1;
			}
		}
	d = malloc((size_t)rounds * sizeof(*d));
	e = malloc((size_t)rounds * sizeof(*e));
	tmp = malloc((size_t)rounds * sizeof(*tmp));
	if (!d || !e || !tmp)
		return 1;
	printf("%ld rounds; medians in us; diff: per-round difference from the first build\n",
	       rounds);
	printf("%-40s %8s %8s %10s %10s\n", "build", "wall", "cpu", "wall diff", "cpu diff");
	for (int b = 0; b < nb; b++) {
		for (long r = 0; r < rounds; r++) {
			d[r] = wall[b][r] - wall[0][r];
			e[r] = cpu[b][r] - cpu[0][r];
		}
		printf("%-40s %8.1f %8.1f %+10.1f %+10.1f\n", argv[2 + b],
		       median(wall[b], (size_t)rounds, tmp), median(cpu[b], (size_t)rounds, tmp),
		       median(d, (size_t)rounds, tmp), median(e, (size_t)rounds, tmp));
	}
	free(d);
	free(e);
	free(tmp);
	snprintf(input, sizeof(input), "%s/src", proj);
	rmdir(input);
	rmdir(proj);
	rmdir(home);
	return 0;
}
