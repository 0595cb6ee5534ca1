/* hook_ab.c - paired A/B of builds of dcg on one allowed Bash call, `BUILD hook --agent
 * claude` (what an agent runs), for changes of a few microseconds that bench_hook's
 * per-kind medians cannot separate from the noise of a shared machine.
 *
 * usage: hook_ab ROUNDS BUILD_A BUILD_B [BUILD...]   (ROUNDS: 3000 for about 2 us)
 *
 * Each round runs every build once, in an order that rotates from round to round; the
 * report gives each build's median wall and CPU time (rusage of the child) and the
 * median of its per-round difference from BUILD_A, which the load of the other cores
 * shifts alike. Before the rounds every build is dropped from the page cache (fsync,
 * POSIX_FADV_DONTNEED), so that exec faults all of them in the same way, in 4 KiB pages
 * as after a reboot: a binary just written by the linker (mmap) and one written by cp
 * (large folios) differ by up to 25 us per start for the same bytes. The calls run with
 * a throwaway HOME, so only the embedded policy is active. */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_BUILDS 8

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, size_t n, double *tmp)
{
	memcpy(tmp, v, n * sizeof(*v));
	qsort(tmp, n, sizeof(*tmp), by_value);
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

/* One call of build with input on stdin: wall and CPU microseconds; -1 on failure. */
static int run_once(const char *build, const char *input, char *const env[], double *wall,
		    double *cpu)
{
	char *argv[] = {(char *)build, "hook", "--agent", "claude", NULL};
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	int p[2], status;
	size_t len = strlen(input);
	double t0;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	/* far smaller than a pipe's buffer: it waits there before the start */
	if (write(p[1], input, len) != (ssize_t)len) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	close(p[1]);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[0], 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	t0 = now_us();
	if (posix_spawn(&pid, build, &fa, NULL, argv, env) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		close(p[0]);
		return -1;
	}
	wait4(pid, &status, 0, &ru);
	*wall = now_us() - t0;
	*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	posix_spawn_file_actions_destroy(&fa);
	close(p[0]);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	char home[] = "/tmp/dcg-ab-XXXXXX", proj[64], env_home[80], input[512];
	static double wall[MAX_BUILDS][100000], cpu[MAX_BUILDS][100000];
	double *d, *e, *tmp;
	char *env[2];
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
	snprintf(input, sizeof(input),
		 "{\"hook_event_name\":\"PreToolUse\",\"cwd\":\"%s\",\"tool_name\":\"Bash\","
		 "\"tool_input\":{\"command\":\"git status\"}}",
		 proj);
	for (int b = 0; b < nb; b++)
		evict(argv[2 + b]);
	for (long r = 0; r < rounds; r++)
		for (int k = 0; k < nb; k++) {
			int b = (int)((k + r) % nb);
			if (run_once(argv[2 + b], input, env, &wall[b][r], &cpu[b][r]) < 0) {
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
	rmdir(proj);
	rmdir(home);
	return 0;
}
