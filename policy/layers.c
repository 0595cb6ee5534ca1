/* layers.c - the layered policy: the embedded defaults, the system file, the user
 * file, the project file found upwards from the working directory (trusted or not),
 * then $DCG_POLICY or --policy (DESIGN.md "Policy file"). */
#include "dcg_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

void pol_env_from_process(struct pol_env *env, char *cwd_buf, size_t cwd_size)
{
	memset(env, 0, sizeof(*env));
	env->home = getenv("HOME");
	env->xdg_config_home = getenv("XDG_CONFIG_HOME");
	env->policy_file = getenv("DCG_POLICY");
	if (env->policy_file && !env->policy_file[0])
		env->policy_file = NULL;
	env->xdg_state_home = getenv("XDG_STATE_HOME");
	env->system_file = getenv("DCG_SYSTEM_POLICY");
	if (env->system_file && !env->system_file[0])
		env->system_file = NULL;
	env->cwd = cwd_buf && getcwd(cwd_buf, cwd_size) ? cwd_buf : NULL;
}

/* The project: the nearest folder upwards from cwd that holds .dcg/policy.yaml, into
 * root (size bytes, at least PATH_MAX), which holds the folder tried meanwhile: only
 * the file's name is on the stack, under every load. */
static int find_project(const char *cwd, char *root, size_t size)
{
	char f[PATH_MAX + 32], *dir = root;

	if (!cwd || size < PATH_MAX || pol_path_normalize(cwd, "/", NULL, dir, PATH_MAX) < 0) {
		root[0] = '\0';
		return -ENOENT;
	}
	for (;;) {
		pol_cat3(f, sizeof(f), dir, strcmp(dir, "/") ? "/" : "", ".dcg/policy.yaml");
		if (access(f, F_OK) == 0)
			return 0;
		char *slash = pol_last_slash(dir);
		if (!slash || slash == dir) {
			if (strcmp(dir, "/") == 0) {
				root[0] = '\0';
				return -ENOENT;
			}
			dir[1] = '\0';
			continue;
		}
		*slash = '\0';
	}
}

/* An optional layer's file: missing is fine, unreadable is said. */
static int load_optional(struct pol_policy *p, const char *path, int scope, const char *trust)
{
	int rc = pol_load_file_scoped(p, path, scope, trust);

	if (rc < 0 && rc != -ENOENT && rc != -EINVAL)
		pol_diag_add(p, path, 0, 0, NULL, 1, "cannot read policy file: %s: ignored",
			     strerror(-rc));
	return rc < 0 && rc != -ENOENT;
}

/* ---- the guard's own files ------------------------------------------------------------ */

/* One row per file or folder the guard reads to decide or to run (dcg_policy.h). */
const struct pol_self_row pol_self_rows[] = {
    {"dcg.self.config", POL_SELF_CONFIG, 1, 0},
    {"dcg.self.state", POL_SELF_STATE, 1, 1},
    {"dcg.self.trust", POL_SELF_TRUST, 0, 1},
    {"dcg.self.log", POL_SELF_LOG, 0, 1},
    {"dcg.self.log_rotated", POL_SELF_LOG_ROTATED, 0, 1},
    {"dcg.self.system", POL_SELF_SYSTEM, 0, 0},
    {"dcg.self.policy", POL_SELF_POLICY, 0, 0},
    {"dcg.self.project", POL_SELF_PROJECT, 0, 0},
    {"dcg.self.snapshot", POL_SELF_RUNTIME, 1, 0},
    {"dcg.self.binary", POL_SELF_BINARY, 0, 0},
    {"dcg.self.preload", POL_SELF_PRELOAD, 0, 0},
    {"dcg.self.engine", POL_SELF_ENGINE, 0, 0},
    {"dcg.self.libdir", POL_SELF_LIBDIR, 1, 0},
    {"dcg.self.guard", POL_SELF_GUARD, 0, 0},
    {"dcg.self.guard_engine", POL_SELF_GUARD_ENGINE, 0, 0},
};
const size_t pol_self_row_count = sizeof(pol_self_rows) / sizeof(pol_self_rows[0]);

int pol_runtime_dir(char *buf, size_t size)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	int n;

	if (rt && rt[0] == '/')
		n = snprintf(buf, size, "%s/dcg", rt);
	else
		n = snprintf(buf, size, "/tmp/dcg-%u", (unsigned)getuid());
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* dir (a canonical file's folder, up to its last '/') joined with rel and folded
 * lexically: the folder holds no symlink, so each ".." goes up from a real folder. */
static int beside(const char *file, const char *rel, char *buf, size_t size)
{
	const char *slash = file ? strrchr(file, '/') : NULL;
	char joined[PATH_MAX + 64];

	if (!file || file[0] != '/' || !slash ||
	    (size_t)snprintf(joined, sizeof(joined), "%.*s/%s", (int)(slash - file), file, rel) >=
		sizeof(joined))
		return -ENOENT;
	if (pol_path_normalize(joined, "/", NULL, buf, size) < 0)
		return -ENAMETOOLONG;
	size_t n = strlen(buf);
	if (rel[strlen(rel) - 1] == '/' && n + 2 <= size && buf[n - 1] != '/') {
		buf[n] = '/'; /* a folder, as the row says */
		buf[n + 1] = '\0';
	}
	return 0;
}

int pol_self_path(enum pol_self_where where, const struct pol_env *env, const char *root, char *buf,
		  size_t size)
{
	const char *s = NULL, *tail = "";
	size_t n;

	switch (where) {
	case POL_SELF_CONFIG:
		if (env->xdg_config_home && env->xdg_config_home[0] == '/')
			s = env->xdg_config_home, tail = "/dcg/";
		else
			s = env->home, tail = "/.config/dcg/";
		break;
	case POL_SELF_STATE:
		if (env->xdg_state_home && env->xdg_state_home[0] == '/')
			s = env->xdg_state_home, tail = "/dcg/";
		else
			s = env->home, tail = "/.local/state/dcg/";
		break;
	case POL_SELF_TRUST:
		if (env->trust_file)
			s = env->trust_file;
		else
			return pol_trust_path(buf, size);
		break;
	case POL_SELF_LOG:
	case POL_SELF_LOG_ROTATED:
		if (pol_log_path(buf, size) < 0)
			return -ENAMETOOLONG;
		s = buf, tail = where == POL_SELF_LOG ? "" : ".1";
		break;
	case POL_SELF_SYSTEM:
		s = env->system_file ? env->system_file : "/etc/dcg/policy.yaml";
		break;
	case POL_SELF_POLICY:
		if (env->policy_file)
			return pol_path_normalize(env->policy_file, env->cwd ? env->cwd : "/",
						  env->home, buf, size);
		break;
	case POL_SELF_PROJECT:
		s = root, tail = root && root[1] ? "/.dcg/policy.yaml" : ".dcg/policy.yaml";
		break;
	case POL_SELF_RUNTIME:
		if (pol_runtime_dir(buf, size) < 0)
			return -ENAMETOOLONG;
		s = buf, tail = "/";
		break;
	case POL_SELF_BINARY:
		s = env->dcg_exe;
		break;
	case POL_SELF_PRELOAD:
		return beside(env->dcg_exe, "libdcg-preload.so", buf, size);
	case POL_SELF_ENGINE:
		return beside(env->dcg_exe, "libdcg-engine.so", buf, size);
	case POL_SELF_LIBDIR:
		return beside(env->dcg_exe, "../lib/dcg/", buf, size);
	case POL_SELF_GUARD:
		s = env->guard_lib;
		break;
	case POL_SELF_GUARD_ENGINE:
		return beside(env->guard_lib, "libdcg-engine.so", buf, size);
	}
	if (!s || s[0] != '/')
		return -ENOENT;
	if (s == buf) { /* the log's path, already there */
		n = strlen(buf);
		return pol_cat3(buf + n, size - n, tail, "", "") >= size - n ? -ENAMETOOLONG : 0;
	}
	return pol_cat3(buf, size, s, tail, "") >= size ? -ENAMETOOLONG : 0;
}

/* Every row of the inventory this environment has, as a guarded read-only rule: the
 * user's files unless no_user, the system file unless no_system, the project's file
 * when there is one (root). */
static void self_rules_add(struct pol_policy *p, const struct pol_env *env, const char *root,
			   char *buf, size_t size)
{
	for (size_t i = 0; i < pol_self_row_count; i++) {
		const struct pol_self_row *r = &pol_self_rows[i];

		if ((env->no_user && r->where == POL_SELF_CONFIG) ||
		    (env->no_system && r->where == POL_SELF_SYSTEM) ||
		    pol_self_path(r->where, env, root, buf, size) < 0)
			continue;
		pol_add_self_rule(p, r->id, buf, r->folder, r->dcg_owned);
	}
}

int pol_load_layers(struct pol_policy *p, const struct pol_env *env)
{
	/* Each path is built here (with the room it always had), then kept at its size
	 * or handed to a self rule, which copies it: one buffer, under frames the
	 * decision goes deeper than anyway, and no 20 KB area on the heap (whose end
	 * malloc writes: a page of its own at every load). */
	char tmp[PATH_MAX + 64];
	char *root = NULL, *user = NULL, *trust = NULL, *path;
	const char *trust_file = env->trust_file;
	int rc, bad = 0, have_project;
	size_t diags_before = pol_diag_count(p);

	if (env->home)
		pol_set_home(p, env->home);
	have_project = !env->no_project && find_project(env->cwd, tmp, PATH_MAX) == 0;
	if (have_project)
		root = strdup(tmp);
	if (env->xdg_config_home && env->xdg_config_home[0] == '/')
		pol_cat3(tmp, PATH_MAX + 64, env->xdg_config_home, "/dcg/policy.yaml", "");
	else
		pol_cat3(tmp, PATH_MAX + 64, p->home, "/.config/dcg/policy.yaml", "");
	user = strdup(tmp);
	if (!trust_file && pol_trust_path(tmp, PATH_MAX) == 0)
		trust_file = trust = strdup(tmp);
	if ((have_project && !root) || !user || (trust_file == trust && !trust)) {
		free(root);
		free(user);
		free(trust);
		pol_diag_add(p, "<policy>", 0, 0, NULL, 1,
			     "out of memory: only the defaults apply");
		pol_load_embedded(p); /* the embedded defaults at least */
		return -ENOMEM;
	}
	if (have_project)
		pol_set_root(p, root);
	else if (env->cwd)
		pol_set_root(p, env->cwd);
	/* dcg's own files wherever this environment puts them, read-only like the default
	 * locations the embedded policy names; added before the embedded policy, whose
	 * load indexes every path rule once. */
	self_rules_add(p, env, have_project ? root : NULL, tmp, PATH_MAX + 64);
	if (pol_load_embedded(p) < 0)
		bad = 1;
	if (!env->no_system)
		bad |=
		    load_optional(p, env->system_file ? env->system_file : "/etc/dcg/policy.yaml",
				  POL_SCOPE_SYSTEM, NULL);
	if (!env->no_user)
		bad |= load_optional(p, user, POL_SCOPE_USER, NULL);
	if (have_project) {
		path = tmp;
		snprintf(path, PATH_MAX + 64, "%s%s.dcg/policy.yaml", root,
			 strcmp(root, "/") ? "/" : "");
		if (load_optional(p, path, POL_SCOPE_PROJECT, trust_file)) {
			bad = 1;
			if (!p->project_trust) { /* unreadable: nothing of it was loaded */
				p->project_file = pol_origin_intern(p, path);
				p->project_trust = POL_TRUST_BROKEN;
				pol_copy_str(p->project_why, sizeof(p->project_why),
					     "the file could not be read: nothing of it applies");
			}
		}
	}
	if (env->policy_file) {
		char *abs = tmp;

		if (pol_path_normalize(env->policy_file, env->cwd ? env->cwd : p->root, p->home,
				       abs, PATH_MAX) < 0)
			pol_copy_str(abs, PATH_MAX, env->policy_file);
		rc = pol_load_file_scoped(p, abs, POL_SCOPE_POLICY, NULL);
		if (rc == -ENOENT || (rc < 0 && rc != -EINVAL)) {
			pol_diag_add(p, abs, 0, 0, NULL, 1, "cannot read policy file: %s",
				     strerror(-rc));
		}
		if (rc < 0)
			bad = 1;
	}
	/* A file loaded with some bad entries returns 0: its diagnostics say it had errors. */
	if (pol_diag_count(p) > diags_before)
		bad = 1;
	free(root);
	free(user);
	free(trust);
	return bad ? -EINVAL : 0;
}
