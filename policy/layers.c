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
	if (!env->no_user)
		pol_add_self_rule(p, "dcg.self.config", user, 1, 0);
	pol_add_self_rule(p, "dcg.self.state", trust_file, 1, 1);
	if (pol_log_path(tmp, PATH_MAX) == 0) {
		size_t n = strlen(tmp);

		pol_add_self_rule(p, "dcg.self.log", tmp, 0, 1);
		memcpy(tmp + n, ".1", 3); /* the rotated generation */
		pol_add_self_rule(p, "dcg.self.log_rotated", tmp, 0, 1);
	}
	if (!env->no_system)
		pol_add_self_rule(p, "dcg.self.system", env->system_file, 0, 0);
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
