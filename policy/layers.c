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

/* The paths pol_load_layers() builds, packed one after the other in one heap area
 * (each with the room it always had): the hook's deepest stack (this function's
 * callees) is 28 KB shallower. Once the first five are built the area is cut to what
 * they hold (realloc, in place: the rest goes back to the top of the heap, and what
 * the load allocates next lies right after them, not 28 KB further on pages of its
 * own); the two a project file or --policy need later each have an area of their
 * own. */
struct packed {
	char *next;
	char area[PATH_MAX * 5 + 256]; /* root, user, trust, log, old */
};

/* Where the next string goes: the area holds every one at its full size. */
static char *pack_room(struct packed *k)
{
	return k->next;
}

/* Keeps the string just written at s: the next one goes after it. */
static void pack_keep(struct packed *k, const char *s)
{
	k->next = (char *)(uintptr_t)s + strlen(s) + 1;
}

/* The area cut to the strings it holds; *s (each of n, or NULL) follows it. */
static struct packed *pack_cut(struct packed *k, char **s, size_t n)
{
	size_t used = (size_t)(k->next - (char *)k), off[5];
	struct packed *c;

	for (size_t i = 0; i < n; i++)
		off[i] = s[i] ? (size_t)(s[i] - (char *)k) : 0;
	c = realloc(k, used);
	if (!c)
		return k; /* kept whole */
	for (size_t i = 0; i < n; i++)
		if (s[i])
			s[i] = (char *)c + off[i];
	c->next = (char *)c + used;
	return c;
}

int pol_load_layers(struct pol_policy *p, const struct pol_env *env)
{
	struct packed *k;
	char *path, *root, *trust, *user, *log, *old = NULL;
	const char *trust_file = env->trust_file;
	int rc, bad = 0, have_project, have_log;
	size_t diags_before = pol_diag_count(p);

	if (env->home) /* first: what it allocates goes before the area */
		pol_set_home(p, env->home);
	k = malloc(sizeof(*k));
	if (!k) { /* the embedded defaults at least */
		pol_diag_add(p, "<policy>", 0, 0, NULL, 1,
			     "out of memory: only the defaults apply");
		pol_load_embedded(p);
		return -ENOMEM;
	}
	k->next = k->area;
	root = pack_room(k);
	root[0] = '\0';
	have_project = !env->no_project && find_project(env->cwd, root, PATH_MAX) == 0;
	pack_keep(k, root);
	user = pack_room(k);
	if (env->xdg_config_home && env->xdg_config_home[0] == '/')
		pol_cat3(user, PATH_MAX + 64, env->xdg_config_home, "/dcg/policy.yaml", "");
	else
		pol_cat3(user, PATH_MAX + 64, p->home, "/.config/dcg/policy.yaml", "");
	pack_keep(k, user);
	trust = pack_room(k);
	if (!trust_file && pol_trust_path(trust, PATH_MAX) == 0)
		trust_file = trust;
	else
		trust[0] = '\0';
	pack_keep(k, trust);
	log = pack_room(k);
	have_log = pol_log_path(log, PATH_MAX) == 0;
	if (have_log) {
		pack_keep(k, log);
		old = pack_room(k);
		pol_cat3(old, PATH_MAX + 4, log, ".1", ""); /* the rotated generation */
		pack_keep(k, old);
	}
	{
		char *s[5] = {root, user, trust, have_log ? log : NULL, old};
		int own_trust = trust_file == trust;

		k = pack_cut(k, s, 5);
		root = s[0], user = s[1], trust = s[2], log = s[3], old = s[4];
		if (own_trust)
			trust_file = trust;
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
	if (have_log) {
		pol_add_self_rule(p, "dcg.self.log", log, 0, 1);
		pol_add_self_rule(p, "dcg.self.log_rotated", old, 0, 1);
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
	if (have_project && !(path = malloc(PATH_MAX + 64))) {
		pol_diag_add(p, "<policy>", 0, 0, NULL, 1,
			     "out of memory: the project policy file was not read");
		bad = 1;
	} else if (have_project) {
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
		free(path);
	}
	if (env->policy_file) {
		char *abs = malloc(PATH_MAX);

		if (!abs) {
			pol_diag_add(p, env->policy_file, 0, 0, NULL, 1,
				     "out of memory: the policy file was not read");
			bad = 1;
		} else {
			if (pol_path_normalize(env->policy_file, env->cwd ? env->cwd : p->root,
					       p->home, abs, PATH_MAX) < 0)
				pol_copy_str(abs, PATH_MAX, env->policy_file);
			rc = pol_load_file_scoped(p, abs, POL_SCOPE_POLICY, NULL);
			if (rc == -ENOENT || (rc < 0 && rc != -EINVAL)) {
				pol_diag_add(p, abs, 0, 0, NULL, 1, "cannot read policy file: %s",
					     strerror(-rc));
			}
			if (rc < 0)
				bad = 1;
			free(abs);
		}
	}
	/* A file loaded with some bad entries returns 0: its diagnostics say it had errors. */
	if (pol_diag_count(p) > diags_before)
		bad = 1;
	free(k);
	return bad ? -EINVAL : 0;
}
