/* intent_state.c - the active-intent selection, kept per project and agent session in
 * dcg's state folder, and the set a process works with (pol_intent_open,
 * pol_intent_open_env). */
#include "intent_int.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* ---- selection ------------------------------------------------------------------------ */

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ull;
	}
	return h;
}

int pol_intent_state_path(const char *root, const char *session, char *out, size_t size)
{
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char real[PATH_MAX], base[PATH_MAX], name[96], sess[96];
	const char *bn;
	size_t o = 0;
	int n;

	if (!root || root[0] != '/')
		return -EINVAL;
	/* The same project reached through a symlink keeps its selection. */
	if (pol_path_resolve(root, 0, real, sizeof(real)) < 0)
		pol_copy_str(real, sizeof(real), root);
	if (xdg && xdg[0] == '/')
		n = snprintf(base, sizeof(base), "%s/dcg/intents", xdg);
	else if (home && home[0] == '/')
		n = snprintf(base, sizeof(base), "%s/.local/state/dcg/intents", home);
	else
		return -EINVAL;
	if (n < 0 || (size_t)n >= sizeof(base))
		return -ENAMETOOLONG;
	bn = strrchr(real, '/');
	bn = bn && bn[1] ? bn + 1 : "root";
	/* file names keep to a safe alphabet; the hash tells projects apart */
	for (const char *t = bn; *t && o < 40; t++)
		name[o++] =
		    (isalnum((unsigned char)*t) || *t == '.' || *t == '_' || *t == '-') ? *t : '_';
	name[o] = '\0';
	sess[0] = '\0';
	if (session && session[0]) {
		size_t k = 0;

		sess[k++] = '@';
		for (const char *t = session; *t && k < 48; t++)
			sess[k++] =
			    (isalnum((unsigned char)*t) || *t == '.' || *t == '_' || *t == '-')
				? *t
				: '_';
		snprintf(sess + k, sizeof(sess) - k, "-%08x",
			 (unsigned)(fnv1a(session) & 0xffffffffu));
	}
	n = snprintf(out, size, "%s/%s-%016llx%s", base, name, (unsigned long long)fnv1a(real),
		     sess);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

static int read_state(const char *path, char *id, size_t size)
{
	char buf[512];
	ssize_t n;
	size_t k = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	while (k < (size_t)n && buf[k] != '\n')
		k++;
	if (k == 0)
		return -ENOENT;
	if (k >= size)
		return -ENAMETOOLONG;
	memcpy(id, buf, k);
	id[k] = '\0';
	return 0;
}

int pol_intent_selection_get(const char *root, const char *session, char *id, size_t size,
			     int *from_session)
{
	char path[PATH_MAX];
	int rc;

	if (from_session)
		*from_session = 0;
	if (session && session[0]) {
		rc = pol_intent_state_path(root, session, path, sizeof(path));
		if (rc < 0)
			return rc;
		rc = read_state(path, id, size);
		if (rc != -ENOENT) {
			if (rc == 0 && from_session)
				*from_session = 1;
			return rc;
		}
	}
	rc = pol_intent_state_path(root, NULL, path, sizeof(path));
	if (rc < 0)
		return rc;
	return read_state(path, id, size);
}

static int mkdirs(char *path, size_t upto)
{
	for (size_t i = 1; i <= upto; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		char c = path[i];

		path[i] = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			int e = -errno;

			path[i] = c;
			return e;
		}
		path[i] = c;
		if (c == '\0')
			break;
	}
	return 0;
}

int pol_intent_selection_set(const char *root, const char *session, const char *id)
{
	char path[PATH_MAX], data[INTENT_ID_MAX + PATH_MAX + 4];
	int rc, n;
	char *slash;

	rc = pol_intent_state_path(root, session, path, sizeof(path));
	if (rc < 0)
		return rc;
	if (!id || !id[0]) {
		if (unlink(path) < 0 && errno != ENOENT)
			return -errno;
		return 0;
	}
	if (!intent_id_ok(id))
		return -EINVAL;
	slash = strrchr(path, '/');
	rc = mkdirs(path, (size_t)(slash - path));
	if (rc < 0)
		return rc;
	n = snprintf(data, sizeof(data), "%s\n%s\n", id, root);
	if (n < 0 || (size_t)n >= sizeof(data))
		return -ENAMETOOLONG;
	return pol_write_atomic(path, data, (size_t)n, 0600);
}

/* The set of the intents file found in root: its PATH_MAX buffer in a frame of its own,
 * made only when a file was found. */
static __attribute__((noinline)) struct pol_intent_set *
open_found(const char *root, const char *session, const char *explicit_id, int *err)
{
	char file[PATH_MAX], id[INTENT_ID_MAX + 1];
	struct pol_intent_set *s = NULL;
	size_t n =
	    pol_cat3(file, sizeof(file), root, strcmp(root, "/") ? "/" : "", POL_INTENT_FILE);
	int rc;

	if (n >= sizeof(file)) {
		*err = -ENAMETOOLONG;
		return NULL;
	}
	rc = pol_intent_load(file, root, &s);
	if (!s) {
		*err = rc;
		return NULL;
	}
	*err = rc;
	if (explicit_id && explicit_id[0]) {
		if (pol_intent_select(s, explicit_id) == -ENOMEM)
			goto out_nomem;
	} else if (pol_intent_selection_get(root, session, id, sizeof(id), NULL) == 0) {
		if (pol_intent_select(s, id) == -ENOMEM)
			goto out_nomem;
	}
	return s;
out_nomem:
	pol_intent_free(s);
	*err = -ENOMEM;
	return NULL;
}

struct pol_intent_set *pol_intent_open(const char *cwd, const char *session,
				       const char *explicit_id, int *err)
{
	/* the lookup every hook call makes (most projects have no intents file): one
	 * PATH_MAX buffer on the stack, not three */
	char root[PATH_MAX];
	int rc = pol_intent_find_root(cwd, root);

	if (rc < 0) {
		*err = rc;
		return NULL;
	}
	return open_found(root, session, explicit_id, err);
}

struct pol_intent_set *pol_intent_open_env(void)
{
	return pol_intent_open_from(getenv("DCG_INTENT"), getenv("DCG_INTENTS_FILE"));
}

struct pol_intent_set *pol_intent_open_from(const char *id, const char *file)
{
	char found[PATH_MAX], root[PATH_MAX];
	struct pol_intent_set *s = NULL;
	int rc;

	if (!id || !id[0])
		return NULL;
	if (!file || !file[0]) {
		if (pol_intent_find_file(NULL, found, sizeof(found), root, sizeof(root)) < 0)
			return NULL;
		file = found;
	}
	rc = pol_intent_load(file, NULL, &s);
	if (rc == -ENOENT)
		intent_invalid_set(file, NULL, rc, &s); /* named but gone: fail closed */
	if (s && pol_intent_select(s, id) == -ENOMEM) {
		pol_intent_free(s);
		return NULL;
	}
	return s;
}
