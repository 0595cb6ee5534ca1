/* intent_int.h - what the three parts of intent scopes share (intent.h is the
 * manual): intent_load.c reads the intents file and the tools lists into a set,
 * intent_scope.c matches paths, commands and tools against the active intent and
 * writes the structured error, intent_state.c keeps the selection per project and
 * session and opens the set a process works with. */
#ifndef DCG_INTENT_INT_H
#define DCG_INTENT_INT_H

#include <stddef.h>

#include "intent.h"
#include "internal.h"

#define INTENT_MAX_FILE	 (4u * 1024 * 1024) /* an intents file is small; more is refused */
#define INTENT_MAX_DIAGS 16
#define INTENT_ID_MAX	 128
/* Bounds of the walk that looks for excluded files inside a folder being deleted: past
 * them the folder counts as holding one (fail safe). */
#define WALK_MAX_ENTRIES 20000
#define WALK_MAX_DEPTH	 12

struct strv {
	char **v;
	size_t n;
};

struct intent {
	struct pol_intent pub;
	struct strv scope, constraints, acceptance;
	/* The owned_scope expanded against the root as written and, when it differs,
	 * against the root resolved through symlinks. */
	struct pol_pathpat *pats;
	size_t n_pats;
	int has_inclusion;
	char *reason;	 /* "SCOPE_VIOLATION: outside the owned_scope of ID (name)" */
	char *scope_txt; /* the patterns joined by ", " */
	char *sugg[2];
};

struct tool_pats {
	struct strv read_only, destructive;
	int need_approval;
};

struct pol_intent_set {
	char *file;
	char *root;	 /* as given (normalized) */
	char *root_real; /* resolved through symlinks; NULL when the same */
	struct intent *intents;
	size_t n, cap;
	struct pol_intent_diag diags[INTENT_MAX_DIAGS];
	size_t n_diags;
	int invalid;
	char *selected;
	const struct intent *active;
	char *known; /* "INT-001, INT-002" or "none" */
	/* reasons and suggestions of the set-wide results */
	char *reason_missing, *reason_not_found, *reason_invalid, *reason_tool;
	char *sugg_missing, *sugg_not_found, *sugg_invalid, *sugg_tool;
	/* each result's second suggestion says how to go on on purpose ("If intentional:"),
	 * since a scope rule is not a policy rule that `dcg allow` could lift */
	const char *sugg_missing_v[2], *sugg_not_found_v[2], *sugg_invalid_v[2], *sugg_tool_v[2];
	struct tool_pats tools;
};

/* intent_load.c */
/* 1 when id is a usable intent ID: one word (no space or control byte), shorter
 * than INTENT_ID_MAX bytes. */
int intent_id_ok(const char *id);
/* *out: a set that refuses every write, saying the file cannot be read (err). */
/* pol_intent_find_file() without the file's path: walks up from cwd in root (PATH_MAX
 * bytes), which is then the folder holding POL_INTENT_FILE. 0, -ENOENT, -ENAMETOOLONG. */
int pol_intent_find_root(const char *cwd, char *root);
int intent_invalid_set(const char *file, const char *root, int err, struct pol_intent_set **out);

#endif /* DCG_INTENT_INT_H */
