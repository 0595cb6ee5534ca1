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

/* s itself when borrowed, else a copy p frees: NULL when out of memory. */
static const char *keep(struct pol_policy *p, const char *s, int borrow)
{
	if (borrow || !s)
		return s;
	return pol_strv_push(&p->fact_owned, &p->n_fact_owned, s) < 0
		   ? NULL
		   : p->fact_owned[p->n_fact_owned - 1];
}

/* Appends to a list grown by doubling (its room is the next power of two). */
static int list_add(const char ***v, size_t *n, const char *s)
{
	if (*n == 0 || (*n & (*n - 1)) == 0) {
		const char **nv = realloc(*v, (*n ? *n * 2 : 8) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		*v = nv;
	}
	(*v)[(*n)++] = s;
	return 0;
}

int pol_fact_add(struct pol_policy *p, enum pol_fact kind, const char *s, int borrow)
{
	const char ***v;
	size_t *n;

	if (!s || !s[0])
		return -EINVAL;
	switch (kind) {
	case POL_FACT_CATA_WORD:
		v = &p->cata_words;
		n = &p->n_cata_words;
		break;
	case POL_FACT_CATA_PREFIX:
		v = &p->cata_prefixes;
		n = &p->n_cata_prefixes;
		break;
	case POL_FACT_OWNER_FOLDER:
		/* a folder: absolute, ending with '/', so that /usr/ never covers /usrx */
		if (s[0] != '/' || s[strlen(s) - 1] != '/')
			return -EINVAL;
		v = &p->owner_folders;
		n = &p->n_owner_folders;
		break;
	default:
		return -EINVAL;
	}
	if (!(s = keep(p, s, borrow)))
		return -ENOMEM;
	return list_add(v, n, s);
}

int pol_fact_path_reason(struct pol_policy *p, enum pol_path_kind kind, const char *reason,
			 const char *sugg0, const char *sugg1, int borrow)
{
	const char *r, *s0, *s1;

	if ((unsigned)kind > POL_PATH_NO_DELETE || !reason || !reason[0])
		return -EINVAL;
	r = keep(p, reason, borrow);
	s0 = keep(p, sugg0, borrow);
	s1 = keep(p, sugg1, borrow);
	if (!r || (sugg0 && !s0) || (sugg1 && !s1))
		return -ENOMEM;
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
	free(p->cata_words);
	free(p->cata_prefixes);
	free(p->owner_folders);
	pol_strv_free(p->fact_owned, p->n_fact_owned);
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
		if (strcmp(w, p->cata_words[k]) == 0 ||
		    /* a word of the home folder (~ and what follows) spelled with its path */
		    (p->cata_words[k][0] == '~' && hl > 1 && strncmp(w, home, hl) == 0 &&
		     strcmp(w + hl, p->cata_words[k] + 1) == 0))
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
