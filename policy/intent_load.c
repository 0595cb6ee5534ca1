/* intent_load.c - the intents file (.orchestration/active_intents.yaml) and the tools
 * lists of policy files, read into a set (intent.h); the set's lifecycle and lookups. */
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
#include <yaml.h>

#include "arena.h"
#include "yamlread.h"

/* ---- small helpers ------------------------------------------------------------------ */

static void vdiag(struct pol_intent_set *s, const char *file, unsigned line, unsigned col,
		  const char *fmt, va_list ap)
{
	struct pol_intent_diag *d;

	if (s->n_diags >= INTENT_MAX_DIAGS)
		return;
	d = &s->diags[s->n_diags++];
	pol_copy_str(d->file, sizeof(d->file), file);
	d->line = line;
	d->col = col;
	vsnprintf(d->msg, sizeof(d->msg), fmt, ap);
}

static void diag_at(struct pol_intent_set *s, const char *file, unsigned line, unsigned col,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void diag_at(struct pol_intent_set *s, const char *file, unsigned line, unsigned col,
		    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(s, file, line, col, fmt, ap);
	va_end(ap);
}

/* A diagnostic at a node's mark (m NULL: the whole file). */
static void diag(struct pol_intent_set *s, const char *file, const yaml_mark_t *m, const char *fmt,
		 ...) __attribute__((format(printf, 4, 5)));

static void diag(struct pol_intent_set *s, const char *file, const yaml_mark_t *m, const char *fmt,
		 ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag(s, file, m ? POL_YAML_LINE(*m) : 0, m ? POL_YAML_COL(*m) : 0, fmt, ap);
	va_end(ap);
}

static int strv_add(struct strv *sv, const char *s)
{
	char **nv = realloc(sv->v, (sv->n + 2) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	sv->v = nv;
	sv->v[sv->n] = strdup(s);
	if (!sv->v[sv->n])
		return -ENOMEM;
	sv->n++;
	sv->v[sv->n] = NULL;
	return 0;
}

static void strv_release(struct strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

/* A malloc'ed string from a printf format; NULL on ENOMEM. */
static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *out = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&out, fmt, ap);
	va_end(ap);
	return n < 0 ? NULL : out;
}

/* ---- owned_scope patterns ----------------------------------------------------------- */

/* Expands one owned_scope entry like the policy expands path patterns, with one
 * difference: "dir" + "/" + "**" becomes "dir/", which covers the folder itself too
 * (so that creating or removing the folder of an owned tree stays in scope). */
static int expand_pat(const char *pat, const char *root, struct pol_pathpat *pp)
{
	char tmp[PATH_MAX], buf[PATH_MAX];
	const char *s = pat;
	size_t n;

	memset(pp, 0, sizeof(*pp));
	if (*s == '!') {
		pp->negate = 1;
		s++;
	}
	n = strlen(s);
	if (n >= sizeof(tmp))
		return -ENAMETOOLONG;
	/* Windows-style separators in a pattern mean the same as in a path. */
	for (size_t i = 0; i < n; i++)
		tmp[i] = s[i] == '\\' ? '/' : s[i];
	tmp[n] = '\0';
	s = tmp;
	while (s[0] == '*' && s[1] == '*' && s[2] == '/')
		s += 3;
	n = strlen(s);
	while (n > 3 && s[n - 1] == '*' && s[n - 2] == '*' && s[n - 3] == '/')
		n -= 3;
	while (n > 1 && s[n - 1] == '/')
		n--;
	if (n == 0)
		return -EINVAL;
	if (!memchr(s, '/', n) && s[0] != '~') {
		pp->basename_only = 1;
		pp->glob = strndup(s, n);
	} else {
		char one[PATH_MAX];

		memcpy(one, s, n);
		one[n] = '\0';
		if (pol_path_normalize(one, root, getenv("HOME"), buf, sizeof(buf)) < 0)
			return -ENAMETOOLONG;
		pp->glob = strdup(buf);
	}
	if (!pp->glob)
		return -ENOMEM;
	pol_pathpat_classify(pp);
	return 0;
}

static int compile_scope(struct pol_intent_set *s, struct intent *in)
{
	const char *roots[2] = {s->root, s->root_real};
	size_t want = in->scope.n * 2;

	in->pats = calloc(want ? want : 1, sizeof(*in->pats));
	if (!in->pats)
		return -ENOMEM;
	for (int k = 0; k < 2; k++) {
		if (!roots[k])
			continue;
		for (size_t i = 0; i < in->scope.n; i++) {
			struct pol_pathpat *pp = &in->pats[in->n_pats];
			int rc = expand_pat(in->scope.v[i], roots[k], pp);

			if (rc == -ENOMEM)
				return rc;
			if (rc < 0) {
				if (k == 0)
					diag(s, s->file, NULL,
					     "%s: owned_scope entry '%s' is empty or too long",
					     in->pub.id, in->scope.v[i]);
				continue;
			}
			/* A basename pattern is the same against either root. */
			if (k == 1 && pp->basename_only) {
				free(pp->glob);
				memset(pp, 0, sizeof(*pp));
				continue;
			}
			if (!pp->negate)
				in->has_inclusion = 1;
			in->n_pats++;
		}
	}
	return 0;
}

/* ---- loading ---------------------------------------------------------------------------------- */

/* A list of strings (a lone string counts as a list of one). */
static int read_strv(struct pol_intent_set *s, const char *file, yaml_document_t *doc,
		     yaml_node_t *n, const char *key, const char *id, struct strv *out)
{
	const char *v = pol_yaml_scalar(n);

	if (v) {
		if (!v[0] && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
			return 0; /* "key:" with nothing: an empty list */
		return strv_add(out, v);
	}
	if (n->type != YAML_SEQUENCE_NODE) {
		diag(s, file, &n->start_mark, "%s: '%s' must be a list of strings", id, key);
		return -EINVAL;
	}
	for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top;
	     it++) {
		yaml_node_t *item = yaml_document_get_node(doc, *it);
		const char *sv = pol_yaml_scalar(item);

		if (!sv || !sv[0] || (sv[0] == '!' && !sv[1])) {
			diag(s, file, item ? &item->start_mark : NULL,
			     "%s: '%s' entries must be non-empty strings", id, key);
			return -EINVAL;
		}
		if (strv_add(out, sv) < 0)
			return -ENOMEM;
	}
	return 0;
}

int intent_id_ok(const char *id)
{
	size_t n = strlen(id);

	if (!n || n >= INTENT_ID_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)id[i] <= ' ' || id[i] == 0x7f)
			return 0;
	return 1;
}

static void intent_release(struct intent *in)
{
	strv_release(&in->scope);
	strv_release(&in->constraints);
	strv_release(&in->acceptance);
	for (size_t i = 0; i < in->n_pats; i++)
		free(in->pats[i].glob);
	free(in->pats);
	free((char *)in->pub.id);
	free((char *)in->pub.name);
	free((char *)in->pub.status);
	free(in->reason);
	free(in->scope_txt);
	free(in->sugg[0]);
	free(in->sugg[1]);
	memset(in, 0, sizeof(*in));
}

static char *join(const struct strv *sv, const char *sep, const char *empty)
{
	size_t need = 1;
	char *out, *o;

	if (!sv->n)
		return strdup(empty);
	for (size_t i = 0; i < sv->n; i++)
		need += strlen(sv->v[i]) + strlen(sep);
	out = malloc(need);
	if (!out)
		return NULL;
	o = out;
	for (size_t i = 0; i < sv->n; i++) {
		size_t n = strlen(sv->v[i]);

		if (i) {
			memcpy(o, sep, strlen(sep));
			o += strlen(sep);
		}
		memcpy(o, sv->v[i], n);
		o += n;
	}
	*o = '\0';
	return out;
}

/* Parses one entry of active_intents. Returns 0 (added or left out with a
 * diagnostic) or -ENOMEM. */
static int read_intent(struct pol_intent_set *s, const char *file, yaml_document_t *doc,
		       yaml_node_t *n)
{
	struct intent in;
	const char *id = NULL;
	int bad = 0, rc = 0;

	memset(&in, 0, sizeof(in));
	if (n->type != YAML_MAPPING_NODE) {
		diag(s, file, &n->start_mark,
		     "an active_intents entry must be a mapping (id, name, owned_scope, ...)");
		return 0;
	}
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++) {
		const char *k = pol_yaml_scalar(yaml_document_get_node(doc, pr->key));

		if (k && !strcmp(k, "id"))
			id = pol_yaml_scalar(yaml_document_get_node(doc, pr->value));
	}
	if (!id || !intent_id_ok(id)) {
		diag(s, file, &n->start_mark,
		     id ? "intent id '%s' must be one word (no spaces), under 128 bytes"
			: "an intent has no id%s",
		     id ? id : "");
		return 0;
	}
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->intents[i].pub.id, id)) {
			diag(
			    s, file, &n->start_mark,
			    "intent id '%s' is listed twice (line %u): the later entry is left out",
			    id, s->intents[i].pub.line);
			return 0;
		}
	in.pub.id = strdup(id);
	in.pub.line = (unsigned)n->start_mark.line + 1;
	if (!in.pub.id)
		return -ENOMEM;
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *kn = yaml_document_get_node(doc, pr->key);
		yaml_node_t *vn = yaml_document_get_node(doc, pr->value);
		const char *k = pol_yaml_scalar(kn);

		if (!k || !vn)
			continue;
		if (!strcmp(k, "name") || !strcmp(k, "status")) {
			const char *v = pol_yaml_scalar(vn);
			const char **dst = !strcmp(k, "name") ? &in.pub.name : &in.pub.status;

			if (!v) {
				diag(s, file, &vn->start_mark, "%s: '%s' must be a string", id, k);
				bad = 1;
				continue;
			}
			free((char *)*dst);
			*dst = strdup(v);
			if (!*dst) {
				rc = -ENOMEM;
				goto out_release;
			}
		} else if (!strcmp(k, "owned_scope")) {
			rc = read_strv(s, file, doc, vn, k, id, &in.scope);
		} else if (!strcmp(k, "constraints")) {
			rc = read_strv(s, file, doc, vn, k, id, &in.constraints);
		} else if (!strcmp(k, "acceptance_criteria")) {
			rc = read_strv(s, file, doc, vn, k, id, &in.acceptance);
		}
		if (rc == -ENOMEM)
			goto out_release;
		if (rc < 0)
			bad = 1;
		rc = 0;
	}
	if (bad) {
		diag(s, file, &n->start_mark, "intent '%s' is left out because of the errors above",
		     id);
		goto out_release;
	}
	if (!in.pub.name)
		in.pub.name = strdup("");
	if (!in.pub.status)
		in.pub.status = strdup("");
	if (!in.pub.name || !in.pub.status) {
		rc = -ENOMEM;
		goto out_release;
	}
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 8;
		struct intent *ni = realloc(s->intents, nc * sizeof(*ni));

		if (!ni) {
			rc = -ENOMEM;
			goto out_release;
		}
		s->intents = ni;
		s->cap = nc;
	}
	s->intents[s->n++] = in;
	return 0;
out_release:
	intent_release(&in);
	return rc;
}

/* Builds what results of this intent point to: patterns, reason, suggestions. */
static int finish_intent(struct pol_intent_set *s, struct intent *in)
{
	int rc = compile_scope(s, in);

	if (rc < 0)
		return rc;
	in->pub.owned_scope = (const char *const *)in->scope.v;
	in->pub.n_owned_scope = in->scope.n;
	in->pub.constraints = (const char *const *)in->constraints.v;
	in->pub.n_constraints = in->constraints.n;
	in->pub.acceptance_criteria = (const char *const *)in->acceptance.v;
	in->pub.n_acceptance_criteria = in->acceptance.n;
	in->scope_txt = join(&in->scope, ", ", "(empty: owns nothing)");
	if (in->pub.name[0])
		in->reason = xasprintf("SCOPE_VIOLATION: outside the owned_scope of %s (%s)",
				       in->pub.id, in->pub.name);
	else
		in->reason =
		    xasprintf("SCOPE_VIOLATION: outside the owned_scope of %s", in->pub.id);
	in->sugg[0] = xasprintf(
	    "Keep writes inside %s's owned_scope (%s), select the intent that owns this path "
	    "(dcg intent select INT-ID; known: %s), or ask the user to widen the scope",
	    in->pub.id, in->scope_txt ? in->scope_txt : "", s->known ? s->known : "none");
	in->sugg[1] = xasprintf("If intentional: ask the user to approve this write, or to add the "
				"path to %s's owned_scope in %s",
				in->pub.id, POL_INTENT_FILE);
	if (!in->scope_txt || !in->reason || !in->sugg[0] || !in->sugg[1])
		return -ENOMEM;
	return 0;
}

static int finish_set(struct pol_intent_set *s)
{
	struct strv ids = {NULL, 0};
	int rc = 0;

	for (size_t i = 0; i < s->n && rc == 0; i++)
		rc = strv_add(&ids, s->intents[i].pub.id);
	if (rc == 0)
		s->known = join(&ids, ", ", "none");
	strv_release(&ids);
	if (rc < 0 || !s->known)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		rc = finish_intent(s, &s->intents[i]);
		if (rc < 0)
			return rc;
	}
	s->reason_missing =
	    xasprintf("MISSING_INTENT: no active intent: writes in this project need one (%s)",
		      POL_INTENT_FILE);
	s->sugg_missing = xasprintf(
	    "Select the intent you work on: dcg intent select INT-ID (known: %s)", s->known);
	s->sugg_not_found =
	    xasprintf("Select a known intent: dcg intent select INT-ID (known: %s)", s->known);
	s->reason_tool = xasprintf("UNCHECKED_TOOL: this tool's writes cannot be checked against "
				   "the active intent's owned_scope");
	s->sugg_tool = xasprintf(
	    "Use Write or Edit for files in the owned_scope, or ask the user to approve this call");
	if (s->invalid) {
		const struct pol_intent_diag *d = s->n_diags ? &s->diags[0] : NULL;

		s->reason_invalid =
		    d ? xasprintf(
			    "INVALID_INTENTS_FILE: the intents file cannot be used: %s:%u:%u: %s",
			    d->file, d->line, d->col, d->msg)
		      : xasprintf("INVALID_INTENTS_FILE: the intents file cannot be used");
	} else {
		s->reason_invalid =
		    xasprintf("INVALID_INTENTS_FILE: the intents file cannot be used");
	}
	s->sugg_invalid = xasprintf("Fix %s (dcg intent list shows the errors)", s->file);
	if (!s->reason_missing || !s->sugg_missing || !s->sugg_not_found || !s->reason_tool ||
	    !s->sugg_tool || !s->reason_invalid || !s->sugg_invalid)
		return -ENOMEM;
	s->sugg_missing_v[0] = s->sugg_missing;
	s->sugg_missing_v[1] = "If intentional: run dcg intent select INT-ID, then retry";
	s->sugg_not_found_v[0] = s->sugg_not_found;
	s->sugg_not_found_v[1] =
	    "If intentional: add the intent to " POL_INTENT_FILE ", or run dcg intent clear";
	s->sugg_invalid_v[0] = s->sugg_invalid;
	s->sugg_invalid_v[1] =
	    "If intentional: remove " POL_INTENT_FILE " to stop confining writes";
	s->sugg_tool_v[0] = s->sugg_tool;
	s->sugg_tool_v[1] = "If intentional: approve the call, or list the tool under "
			    "tools.read_only in the policy";
	return pol_intent_select(s, NULL);
}

/* Parses the document; any error that makes the file unusable sets s->invalid. */
static int parse_intents(struct pol_intent_set *s, const char *name, const char *buf, size_t len)
{
	yaml_document_t doc;
	yaml_node_t *root, *list = NULL;
	struct pol_yaml_diag d;
	int rc = pol_yaml_load(buf, len, INTENT_MAX_FILE, &doc, &d);

	if (rc == -EINVAL) {
		diag_at(s, name, d.line, d.col, "%s", d.msg);
		s->invalid = 1;
		return 0;
	}
	if (rc < 0)
		return rc;
	root = yaml_document_get_root_node(&doc);
	if (!root || root->type != YAML_MAPPING_NODE) {
		diag(s, name, root ? &root->start_mark : NULL,
		     "expected a mapping with an 'active_intents' list");
		s->invalid = 1;
		goto out_doc;
	}
	list = pol_yaml_get(&doc, root, "active_intents");
	if (!list) {
		diag(s, name, &root->start_mark, "no 'active_intents' key");
		s->invalid = 1;
		goto out_doc;
	}
	if (list->type == YAML_SCALAR_NODE && !pol_yaml_scalar(list)[0])
		goto out_doc; /* "active_intents:" with nothing: no intents */
	if (list->type != YAML_SEQUENCE_NODE) {
		diag(s, name, &list->start_mark, "'active_intents' must be a list of intents");
		s->invalid = 1;
		goto out_doc;
	}
	for (yaml_node_item_t *it = list->data.sequence.items.start;
	     it < list->data.sequence.items.top && rc == 0; it++) {
		yaml_node_t *item = yaml_document_get_node(&doc, *it);

		if (item)
			rc = read_intent(s, name, &doc, item);
	}
out_doc:
	yaml_document_delete(&doc);
	return rc;
}

static struct pol_intent_set *set_new(const char *file, const char *root)
{
	struct pol_intent_set *s = calloc(1, sizeof(*s));
	char norm[PATH_MAX], real[PATH_MAX], here[PATH_MAX];
	const char *base = getcwd(here, sizeof(here)) ? here : "/";

	if (!s)
		return NULL;
	s->file = strdup(file);
	if (!s->file)
		goto out_free;
	if (!root) {
		/* the folder above .orchestration/ */
		char tmp[PATH_MAX];

		if (pol_path_normalize(file, base, NULL, tmp, sizeof(tmp)) < 0 ||
		    strlen(tmp) + 8 >= sizeof(tmp))
			goto out_free;
		memcpy(tmp + strlen(tmp), "/../..", 7);
		if (pol_path_normalize(tmp, "/", NULL, norm, sizeof(norm)) < 0)
			goto out_free;
	} else if (pol_path_normalize(root, base, NULL, norm, sizeof(norm)) < 0) {
		goto out_free;
	}
	s->root = strdup(norm);
	if (!s->root)
		goto out_free;
	if (pol_path_resolve(norm, 0, real, sizeof(real)) == 0 && strcmp(real, norm) != 0) {
		s->root_real = strdup(real);
		if (!s->root_real)
			goto out_free;
	}
	return s;
out_free:
	pol_intent_free(s);
	return NULL;
}

int pol_intent_load_buffer(const char *name, const char *buf, size_t len, const char *root,
			   struct pol_intent_set **out)
{
	struct pol_intent_set *s;
	int rc;

	*out = NULL;
	s = set_new(name, root);
	if (!s)
		return -ENOMEM;
	rc = parse_intents(s, name, buf, len);
	if (rc == 0)
		rc = finish_set(s);
	if (rc < 0) {
		pol_intent_free(s);
		return rc;
	}
	*out = s;
	return s->invalid ? -EINVAL : 0;
}

/* Reads a whole file into a malloc'ed buffer (NUL-terminated). */
/* A set that refuses every write in its project, with err as the reason. */
int intent_invalid_set(const char *file, const char *root, int err, struct pol_intent_set **out)
{
	struct pol_intent_set *s = set_new(file, root);

	if (!s)
		return -ENOMEM;
	diag(s, file, NULL, "cannot read the file: %s", strerror(-err));
	s->invalid = 1;
	if (finish_set(s) < 0) {
		pol_intent_free(s);
		return -ENOMEM;
	}
	*out = s;
	return -EINVAL;
}

int pol_intent_load(const char *file, const char *root, struct pol_intent_set **out)
{
	char *buf;
	size_t len;
	int rc;

	*out = NULL;
	rc = pol_read_file(file, INTENT_MAX_FILE, 1, &buf, &len);
	if (rc == -ENOENT)
		return rc;
	if (rc < 0) /* present but unreadable: refuse writes, with the reason */
		return intent_invalid_set(file, root, rc, out);
	rc = pol_intent_load_buffer(file, buf, len, root, out);
	free(buf);
	return rc;
}

void pol_intent_free(struct pol_intent_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		intent_release(&s->intents[i]);
	free(s->intents);
	free(s->file);
	free(s->root);
	free(s->root_real);
	free(s->selected);
	free(s->known);
	free(s->reason_missing);
	free(s->reason_not_found);
	free(s->reason_invalid);
	free(s->reason_tool);
	free(s->sugg_missing);
	free(s->sugg_not_found);
	free(s->sugg_invalid);
	free(s->sugg_tool);
	strv_release(&s->tools.read_only);
	strv_release(&s->tools.destructive);
	free(s);
}

size_t pol_intent_diag_count(const struct pol_intent_set *s)
{
	return s ? s->n_diags : 0;
}

const struct pol_intent_diag *pol_intent_diag_get(const struct pol_intent_set *s, size_t i)
{
	return s && i < s->n_diags ? &s->diags[i] : NULL;
}

int pol_intent_invalid(const struct pol_intent_set *s)
{
	return s ? s->invalid : 0;
}

const char *pol_intent_file(const struct pol_intent_set *s)
{
	return s ? s->file : NULL;
}

const char *pol_intent_root(const struct pol_intent_set *s)
{
	return s ? s->root : NULL;
}

size_t pol_intent_count(const struct pol_intent_set *s)
{
	return s ? s->n : 0;
}

const struct pol_intent *pol_intent_get(const struct pol_intent_set *s, size_t i)
{
	return s && i < s->n ? &s->intents[i].pub : NULL;
}

const struct pol_intent *pol_intent_find(const struct pol_intent_set *s, const char *id)
{
	if (!s || !id)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->intents[i].pub.id, id))
			return &s->intents[i].pub;
	return NULL;
}

int pol_intent_select(struct pol_intent_set *s, const char *id)
{
	char *sel = NULL, *reason;

	if (id && id[0]) {
		sel = strdup(id);
		if (!sel)
			return -ENOMEM;
	}
	reason = xasprintf("INTENT_NOT_FOUND: the active intent '%s' is not in %s", sel ? sel : "",
			   s->file);
	if (!reason) {
		free(sel);
		return -ENOMEM;
	}
	free(s->selected);
	free(s->reason_not_found);
	s->selected = sel;
	s->reason_not_found = reason;
	s->active = (const struct intent *)pol_intent_find(s, sel);
	return sel && !s->active ? -ENOENT : 0;
}

const struct pol_intent *pol_intent_active(const struct pol_intent_set *s)
{
	return s && s->active ? &s->active->pub : NULL;
}

const char *pol_intent_selected_id(const struct pol_intent_set *s)
{
	return s ? s->selected : NULL;
}

/* Walks up from cwd, normalized into dir (PATH_MAX bytes), to the first folder with
 * POL_INTENT_FILE, whose path is built in dir itself for each stat: dir is then that
 * folder. No buffer of its own: the lookup every hook call makes stays shallow. */
int pol_intent_find_root(const char *cwd, char *dir)
{
	static const char name[] = "/" POL_INTENT_FILE;
	char *here = NULL;
	struct stat st;
	int rc;

	/* the process's folder taken as long as it is: a second PATH_MAX buffer made this
	 * frame, below every call the hook decides, a page deeper */
	if (!cwd || cwd[0] != '/')
		cwd = (here = getcwd(NULL, 0)) ? here : "/";
	rc = pol_path_normalize(cwd, "/", NULL, dir, PATH_MAX);
	free(here);
	if (rc < 0)
		return -ENAMETOOLONG;
	for (;;) {
		size_t dl = strlen(dir), at = strcmp(dir, "/") ? dl : 0;

		if (at + sizeof(name) > PATH_MAX)
			return -ENAMETOOLONG;
		memcpy(dir + at, name, sizeof(name));
		rc = stat(dir, &st);
		dir[dl] = '\0';
		if (rc == 0)
			return 0;
		if (!strcmp(dir, "/"))
			return -ENOENT;
		char *slash = pol_last_slash(dir);
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
	}
}

/* The intents file of root into file. */
static int file_of(const char *root, char *file, size_t file_size)
{
	size_t n = pol_cat3(file, file_size, root, strcmp(root, "/") ? "/" : "", POL_INTENT_FILE);

	return n >= file_size ? -ENAMETOOLONG : 0;
}

/* For a root shorter than PATH_MAX: the walk in a buffer of its own, copied. */
static __attribute__((noinline)) int find_copy(const char *cwd, char *file, size_t file_size,
					       char *root, size_t root_size)
{
	char dir[PATH_MAX];
	int rc = pol_intent_find_root(cwd, dir);

	if (rc < 0)
		return rc;
	if (strlen(dir) >= root_size)
		return -ENAMETOOLONG;
	memcpy(root, dir, strlen(dir) + 1);
	return file_of(root, file, file_size);
}

int pol_intent_find_file(const char *cwd, char *file, size_t file_size, char *root,
			 size_t root_size)
{
	int rc;

	/* Every caller's root holds PATH_MAX bytes: the walk goes on in it. */
	if (root_size < PATH_MAX)
		return find_copy(cwd, file, file_size, root, root_size);
	rc = pol_intent_find_root(cwd, root);
	return rc < 0 ? rc : file_of(root, file, file_size);
}

/* ---- tools: in policy files ---------------------------------------------------------- */

int pol_intent_tools_load_buffer(struct pol_intent_set *s, const char *name, const char *buf,
				 size_t len)
{
	yaml_document_t doc;
	yaml_node_t *tools;
	struct pol_yaml_diag d;
	/* the policy loader reports a file's size, depth and syntax errors already */
	int rc = pol_yaml_load(buf, len, len, &doc, &d);

	if (rc < 0)
		return rc;
	tools = pol_yaml_get(&doc, yaml_document_get_root_node(&doc), "tools");
	if (!tools || (tools->type == YAML_SCALAR_NODE && !pol_yaml_scalar(tools)[0]))
		goto out_doc;
	if (tools->type != YAML_MAPPING_NODE) {
		diag(s, name, &tools->start_mark,
		     "'tools' must be a mapping (read_only, destructive, "
		     "destructive_need_approval)");
		rc = -EINVAL;
		goto out_doc;
	}
	for (yaml_node_pair_t *pr = tools->data.mapping.pairs.start;
	     pr < tools->data.mapping.pairs.top; pr++) {
		yaml_node_t *kn = yaml_document_get_node(&doc, pr->key);
		yaml_node_t *vn = yaml_document_get_node(&doc, pr->value);
		const char *k = pol_yaml_scalar(kn), *v = pol_yaml_scalar(vn);
		int r2 = 0;

		if (!k || !vn)
			continue;
		if (!strcmp(k, "read_only")) {
			r2 = read_strv(s, name, &doc, vn, "tools.read_only", "tools",
				       &s->tools.read_only);
		} else if (!strcmp(k, "destructive")) {
			r2 = read_strv(s, name, &doc, vn, "tools.destructive", "tools",
				       &s->tools.destructive);
		} else if (!strcmp(k, "destructive_need_approval")) {
			if (v && (!strcmp(v, "true") || !strcmp(v, "yes") || !strcmp(v, "on")))
				s->tools.need_approval = 1;
			else if (v &&
				 (!strcmp(v, "false") || !strcmp(v, "no") || !strcmp(v, "off")))
				s->tools.need_approval = 0;
			else {
				diag(s, name, &vn->start_mark,
				     "tools.destructive_need_approval must be true or false");
				r2 = -EINVAL;
			}
		} else {
			diag(s, name, &kn->start_mark,
			     "unknown key 'tools.%s' (read_only, destructive, "
			     "destructive_need_approval)",
			     k);
			r2 = -EINVAL;
		}
		if (r2 == -ENOMEM) {
			rc = r2;
			break;
		}
		if (r2 < 0)
			rc = -EINVAL;
	}
out_doc:
	yaml_document_delete(&doc);
	return rc;
}

int pol_intent_tools_load(struct pol_intent_set *s, const char *policy_file)
{
	char *buf;
	size_t len;
	int rc = pol_read_file(policy_file, INTENT_MAX_FILE, 1, &buf, &len);

	if (rc < 0)
		return rc;
	rc = pol_intent_tools_load_buffer(s, policy_file, buf, len);
	free(buf);
	return rc;
}
