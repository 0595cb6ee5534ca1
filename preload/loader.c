/* loader.c - the variables that make the dynamic loader or libc write a file or load
 * code for a new program before the guard's own code runs in it (or beside it), judged
 * at every exec like paths (guard_env_vet(), guard.h):
 *   LD_DEBUG_OUTPUT=F        the loader writes F.PID: a write of F
 *   LD_PROFILE=SO            it writes $LD_PROFILE_OUTPUT (or /var/tmp)/SO.profile
 *   GMON_OUT_PREFIX=F        gprof's output at exit, F.PID: a write of F
 *   MALLOC_TRACE=F           libc_malloc_debug's trace: a write of F
 *   LD_LIBRARY_PATH=D:...    libraries loaded from D: an exec there; a libc.so.6 in D
 *                            that is not the running libc: runtime.loader
 *   GCONV_PATH=D:...         gconv modules loaded from D: an exec there
 *   LOCPATH=D:...            locale files read from D: a read there
 *   LD_AUDIT=...             an audit library runs before the guard and can rebind
 *                            every symbol: runtime.loader
 * Set-uid programs ignore them (the loader's secure mode); the guard does not tell. */
#include "guard.h"

#include <limits.h>
#include <string.h>
#include <sys/stat.h>

/* The value of envp's NAME= entry, or NULL. */
static const char *env_value(char *const envp[], const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; envp && envp[i]; i++)
		if (strncmp(envp[i], name, n) == 0 && envp[i][n] == '=')
			return envp[i] + n + 1;
	return NULL;
}

/* The file the loader would open with oflags. */
static int check_file(const char *var, const char *path, int oflags)
{
	unsigned pflags = 0;
	enum pol_op op = guard_open_op(oflags, &pflags);

	if (!*path)
		return 0;
	return guard_check_path(var, AT_FDCWD, path, op, pflags);
}

/* Whether folder dir (n bytes) holds a libc.so.6 that is not the running one. */
static int foreign_libc(const char *dir, size_t n)
{
	static const char lib[] = "/libc.so.6";
	char path[PATH_MAX];
	struct stat a, b;

	if (n + sizeof(lib) > sizeof(path))
		return 0;
	memcpy(path, dir, n);
	memcpy(path + n, lib, sizeof(lib));
	if (stat(path, &a) < 0)
		return 0;
	if (guard_libc_stat(&b) < 0)
		return 1; /* cannot tell it from ours: not loaded */
	return a.st_dev != b.st_dev || a.st_ino != b.st_ino;
}

/* Each folder of a search list (':' or ';' between them) as op; for LD_LIBRARY_PATH
 * (libs set) also the libc test. */
static int check_list(const char *var, const char *list, enum pol_op op, int libs)
{
	char dir[PATH_MAX];

	while (*list) {
		size_t n = strcspn(list, ":;");

		if (n > 0 && n < sizeof(dir)) {
			memcpy(dir, list, n);
			dir[n] = '\0';
			if (guard_check_path(var, AT_FDCWD, dir, op, 0) < 0)
				return -1;
			if (libs && foreign_libc(dir, n) &&
			    guard_check_builtin(var, RT_RULE_LOADER, dir) < 0)
				return -1;
		}
		list += n;
		if (*list)
			list++;
	}
	return 0;
}

/* LD_PROFILE=SO writes DIR/SO.profile (SO's file name), DIR from LD_PROFILE_OUTPUT or
 * /var/tmp. */
static int check_profile(char *const envp[], const char *so)
{
	const char *dir = env_value(envp, "LD_PROFILE_OUTPUT");
	const char *base = strrchr(so, '/');
	char path[PATH_MAX];
	struct rt_msg m;

	if (!*so)
		return 0;
	rt_msg_init(&m, path, sizeof(path));
	rt_msg_add(&m, dir && *dir ? dir : "/var/tmp");
	rt_msg_add(&m, "/");
	rt_msg_add(&m, base ? base + 1 : so);
	rt_msg_add(&m, ".profile");
	if (m.len >= sizeof(path) - 1)
		return guard_check_builtin("LD_PROFILE", RT_RULE_LOADER, so);
	return check_file("LD_PROFILE", path, O_RDWR | O_CREAT);
}

int guard_check_search_list(const char *var, const char *list, enum pol_op op)
{
	return list ? check_list(var, list, op, 0) : 0;
}

int guard_env_vet(const char *call, char *const envp[])
{
	const char *v;

	(void)call;
	if ((v = env_value(envp, "LD_AUDIT")) && *v &&
	    guard_check_builtin("LD_AUDIT", RT_RULE_LOADER, v) < 0)
		return -1;
	if ((v = env_value(envp, "LD_DEBUG_OUTPUT")) &&
	    check_file("LD_DEBUG_OUTPUT", v, O_WRONLY | O_APPEND | O_CREAT) < 0)
		return -1;
	if ((v = env_value(envp, "LD_PROFILE")) && check_profile(envp, v) < 0)
		return -1;
	if ((v = env_value(envp, "GMON_OUT_PREFIX")) &&
	    check_file("GMON_OUT_PREFIX", v, O_WRONLY | O_CREAT | O_TRUNC) < 0)
		return -1;
	if ((v = env_value(envp, "MALLOC_TRACE")) &&
	    check_file("MALLOC_TRACE", v, O_WRONLY | O_CREAT | O_TRUNC) < 0)
		return -1;
	if ((v = env_value(envp, "LD_LIBRARY_PATH")) &&
	    check_list("LD_LIBRARY_PATH", v, POL_OP_EXEC, 1) < 0)
		return -1;
	if ((v = env_value(envp, "GCONV_PATH")) && check_list("GCONV_PATH", v, POL_OP_EXEC, 0) < 0)
		return -1;
	if ((v = env_value(envp, "LOCPATH")) && check_list("LOCPATH", v, POL_OP_READ, 0) < 0)
		return -1;
	return 0;
}
