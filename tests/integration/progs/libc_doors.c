/* libc_doors CASE - one door libc exports, used as a program would to do damage in the
 * current folder, which holds ro/ (read-only under the test's policy), nd/ (no-delete)
 * and za/ (zero-access): test_preload_libc_doors.sh runs each case without dcg (the
 * damage happens) and under dcg run (it does not). A listing or a read prints what it
 * got; exit status 0 when the call succeeded, 1 when it was refused. */
#include <dlfcn.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <glob.h>
#include <iconv.h>
#include <mntent.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utmp.h>
#include <wordexp.h>

extern char **environ;

/* A libc function by name and version (GLIBC_PRIVATE and compat ones included). */
static void *fn(const char *name, const char *version)
{
	void *p = version ? dlvsym(RTLD_DEFAULT, name, version) : dlsym(RTLD_DEFAULT, name);

	if (!p) {
		fprintf(stderr, "libc_doors: no %s@%s\n", name, version ? version : "");
		exit(2);
	}
	return p;
}

static int wrote(int fd)
{
	int ok = fd >= 0 && write(fd, "x", 1) == 1;

	if (fd >= 0)
		close(fd);
	return ok ? 0 : 1;
}

static int walk_fn(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)f;
	printf("%s %d\n", path, flag);
	return 0;
}

static int old_ftw_fn(const char *path, const struct stat *st, int flag)
{
	(void)st;
	printf("%s %d\n", path, flag);
	return 0;
}

/* spawns rm on nd/g with an empty environment (no preload) */
static int spawn_rm(int (*sp)(pid_t *, const char *, const posix_spawn_file_actions_t *,
			      const posix_spawnattr_t *, char *const[], char *const[]))
{
	char *argv[] = {"rm", "-f", "nd/g", NULL}, *envp[] = {NULL};
	pid_t pid;
	int st;

	if (sp(&pid, "/bin/rm", NULL, NULL, argv, envp) != 0)
		return 1;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	const char *c = argc > 1 ? argv[1] : "";
	struct utmp ut;

	memset(&ut, 0, sizeof(ut));
	ut.ut_type = USER_PROCESS;
	memcpy(ut.ut_user, "x", 2);
	if (!strcmp(c, "__open")) {
		int (*f)(const char *, int, ...) = fn("__open", "GLIBC_2.2.5");
		return wrote(f("ro/f", O_WRONLY | O_TRUNC));
	}
	if (!strcmp(c, "__open64_nocancel")) {
		int (*f)(const char *, int, ...) = fn("__open64_nocancel", "GLIBC_PRIVATE");
		return wrote(f("ro/f", O_WRONLY | O_TRUNC));
	}
	if (!strcmp(c, "_IO_fopen")) {
		FILE *(*f)(const char *, const char *) = fn("_IO_fopen", "GLIBC_2.2.5");
		FILE *s = f("ro/f", "w");
		return s && fclose(s) == 0 ? 0 : 1;
	}
	if (!strcmp(c, "__xmknod")) {
		int (*f)(int, const char *, mode_t, dev_t *) = fn("__xmknod", "GLIBC_2.2.5");
		dev_t d = 0;
		return f(0, "ro/fifo", S_IFIFO | 0644, &d) == 0 ? 0 : 1;
	}
	if (!strcmp(c, "posix_spawn@GLIBC_2.2.5"))
		return spawn_rm(fn("posix_spawn", "GLIBC_2.2.5"));
	if (!strcmp(c, "__libc_system")) {
		int (*f)(const char *) = fn("__libc_system", "GLIBC_PRIVATE");
		unsetenv("LD_PRELOAD");
		return f("exec 3>>ro/f; echo x >&3") == 0 ? 0 : 1;
	}
	if (!strcmp(c, "_IO_popen")) {
		FILE *(*f)(const char *, const char *) = fn("_IO_popen", "GLIBC_2.2.5");
		unsetenv("LD_PRELOAD");
		FILE *p = f("exec 3>>ro/f; echo x >&3", "r");
		return p && pclose(p) == 0 ? 0 : 1;
	}
	if (!strcmp(c, "__nss_files_fopen")) {
		FILE *(*f)(const char *) = fn("__nss_files_fopen", "GLIBC_PRIVATE");
		FILE *s = f("za/secret");
		char line[256];
		if (!s)
			return 1;
		while (fgets(line, sizeof(line), s))
			fputs(line, stdout);
		return 0;
	}
	if (!strcmp(c, "updwtmp")) {
		updwtmp("ro/f", &ut);
		return 0;
	}
	if (!strcmp(c, "pututline")) {
		utmpname("ro/f");
		setutent();
		return pututline(&ut) ? 0 : 1;
	}
	if (!strcmp(c, "setmntent")) {
		FILE *m = setmntent("ro/f", "a");
		struct mntent e = {"src", "/mnt", "none", "defaults", 0, 0};
		return m && addmntent(m, &e) == 0 && endmntent(m) ? 0 : 1;
	}
	if (!strcmp(c, "glob")) {
		glob_t g;
		if (glob("za/*", 0, NULL, &g) != 0)
			return 1;
		for (size_t i = 0; i < g.gl_pathc; i++)
			puts(g.gl_pathv[i]);
		return 0;
	}
	if (!strcmp(c, "nftw"))
		return nftw("za", walk_fn, 4, FTW_PHYS) == 0 ? 0 : 1;
	if (!strcmp(c, "nftw-chdir"))
		return nftw(".", walk_fn, 4, FTW_PHYS | FTW_CHDIR) == 0 ? 0 : 1;
	if (!strcmp(c, "nftw-depth"))
		return nftw(".", walk_fn, 4, FTW_PHYS | FTW_DEPTH) == 0 ? 0 : 1;
	if (!strcmp(c, "nftw@GLIBC_2.2.5")) {
		int (*f)(const char *, __nftw_func_t, int, int) = fn("nftw", "GLIBC_2.2.5");
		return f("za", walk_fn, 4, FTW_PHYS) == 0 ? 0 : 1;
	}
	if (!strcmp(c, "ftw"))
		return ftw(".", old_ftw_fn, 4) == 0 ? 0 : 1;
	if (!strcmp(c, "fts")) {
		char *roots[] = {"za", NULL};
		FTS *t = fts_open(roots, FTS_PHYSICAL, NULL);
		FTSENT *e;
		while (t && (e = fts_read(t)))
			printf("%s %d\n", e->fts_path, e->fts_info);
		return t && fts_close(t) == 0 ? 0 : 1;
	}
	if (!strcmp(c, "wordexp-glob")) {
		wordexp_t w;
		if (wordexp("za/*", &w, 0) != 0)
			return 1;
		for (size_t i = 0; i < w.we_wordc; i++)
			puts(w.we_wordv[i]);
		return 0;
	}
	if (!strcmp(c, "wordexp-cmd")) {
		wordexp_t w;
		unsetenv("LD_PRELOAD");
		return wordexp("$(rm -f nd/g)", &w, WRDE_SHOWERR) == 0 ? 0 : 1;
	}
	if (!strcmp(c, "dlopen")) {
		void *h = dlopen("./za/lib.so", RTLD_NOW);
		return h ? 0 : 1;
	}
	if (!strcmp(c, "iconv")) { /* gconv modules from a folder set in-process */
		setenv("GCONV_PATH", "za", 1);
		return iconv_open("FOO//", "UTF-8") != (iconv_t)-1 ? 0 : 1;
	}
	if (!strcmp(c, "inotify")) {
		int fd = inotify_init1(IN_CLOEXEC);

		if (inotify_add_watch(fd, "za", IN_CREATE) < 0)
			return 1;
		puts("watching za: the names of its secret files would follow");
		return 0;
	}
	if (!strcmp(c, "unlink")) /* for the LD_PRELOAD case */
		return unlink("nd/g") == 0 ? 0 : 1;
	if (!strcmp(c, "setenv")) { /* the guard's variables pointed elsewhere in-process */
		setenv("DCG_SNAPSHOT", "/nonexistent/snap", 1);
		setenv("DCG_POLICY", "/dev/null", 1);
		return unlink("nd/g") == 0 ? 0 : 1;
	}
	fprintf(stderr, "libc_doors: unknown case %s\n", c);
	return 2;
}
