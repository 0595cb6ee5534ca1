/* facts.c - the facts decisions read that are data, not code: the catastrophic
 * targets, the folders of owner programs, and the reason and suggestions of each path
 * kind. They come from the data sections of a policy file (default.yaml, at its end;
 * load.c reads them) or from a snapshot's T, G and W records (snapshot.c), and are
 * held in the policy (internal.h, struct pol_policy).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* What a path rule says when no policy file gave its kind's reason: only a policy
 * loaded without the defaults (the tests' small policies) has none. */
static const char *const reason_fallback[] = {"zero-access path", "read-only path",
					      "no-delete path"};

int pol_strv_push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

int pol_fact_add(struct pol_policy *p, enum pol_fact kind, const char *s)
{
	if (!s || !s[0])
		return -EINVAL;
	switch (kind) {
	case POL_FACT_CATA_WORD:
		return pol_strv_push(&p->cata_words, &p->n_cata_words, s);
	case POL_FACT_CATA_PREFIX:
		return pol_strv_push(&p->cata_prefixes, &p->n_cata_prefixes, s);
	case POL_FACT_OWNER_FOLDER:
		/* a folder: absolute, ending with '/', so that /usr/ never covers /usrx */
		if (s[0] != '/' || s[strlen(s) - 1] != '/')
			return -EINVAL;
		return pol_strv_push(&p->owner_folders, &p->n_owner_folders, s);
	}
	return -EINVAL;
}

int pol_fact_path_reason(struct pol_policy *p, enum pol_path_kind kind, const char *reason,
			 const char *sugg0, const char *sugg1)
{
	char *r = strdup(reason), *s0 = sugg0 ? strdup(sugg0) : NULL,
	     *s1 = sugg1 ? strdup(sugg1) : NULL;

	if ((unsigned)kind > POL_PATH_NO_DELETE || !r || (sugg0 && !s0) || (sugg1 && !s1)) {
		free(r);
		free(s0);
		free(s1);
		return (unsigned)kind > POL_PATH_NO_DELETE ? -EINVAL : -ENOMEM;
	}
	free(p->path_reason[kind]);
	free(p->path_sugg[kind][0]);
	free(p->path_sugg[kind][1]);
	p->path_reason[kind] = r;
	p->path_sugg[kind][0] = s0;
	p->path_sugg[kind][1] = s1;
	return 0;
}

const char *pol_path_reason(const struct pol_policy *p, enum pol_path_kind kind)
{
	return p->path_reason[kind] ? p->path_reason[kind] : reason_fallback[kind];
}

void pol_facts_free(struct pol_policy *p)
{
	pol_strv_free(p->cata_words, p->n_cata_words);
	pol_strv_free(p->cata_prefixes, p->n_cata_prefixes);
	pol_strv_free(p->owner_folders, p->n_owner_folders);
	for (int k = 0; k < 3; k++) {
		free(p->path_reason[k]);
		free(p->path_sugg[k][0]);
		free(p->path_sugg[k][1]);
	}
}

static int has_prefix(const char *w, const char *prefix)
{
	return strncmp(w, prefix, strlen(prefix)) == 0;
}

int pol_catastrophic_word(const struct pol_policy *p, const char *w)
{
	const char *home = p->home;
	size_t hl = home ? strlen(home) : 0, wl = strlen(w);

	for (size_t k = 0; k < p->n_cata_words; k++)
		if (strcmp(w, p->cata_words[k]) == 0)
			return 1;
	for (size_t k = 0; k < p->n_cata_prefixes; k++)
		if (has_prefix(w, p->cata_prefixes[k]) ||
		    (has_prefix(w, "of=") && has_prefix(w + 3, p->cata_prefixes[k])))
			return 1;
	/* the home folder itself, spelled out: it is where ~ and $HOME point */
	return p->n_cata_words && hl > 1 && (wl == hl || (wl == hl + 1 && w[hl] == '/')) &&
	       strncmp(w, home, hl) == 0;
}

int pol_owner_folder(const struct pol_policy *p, const char *exe)
{
	for (size_t k = 0; k < p->n_owner_folders; k++)
		if (has_prefix(exe, p->owner_folders[k]))
			return 1;
	return 0;
}
