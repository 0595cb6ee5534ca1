/* cmd_intent.c - `dcg intent list|select INT-ID|clear|show`, and `--intent ID` of the
 * launchers (hook_intent_prepare_run). The hook's scope check is in call.c. */
#include "hook.h"

#include "commands.h"
#include "intent.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void known_ids(const struct pol_intent_set *s, FILE *f);

int hook_intent_prepare_run(const char *id, FILE *err)
{
	char file[PATH_MAX], root[PATH_MAX];
	struct pol_intent_set *s = NULL;
	int rc = -1;

	if (pol_intent_find_file(NULL, file, sizeof(file), root, sizeof(root)) < 0) {
		fprintf(err, "dcg: --intent %s: no %s in this folder or its parents\n", id,
			POL_INTENT_FILE);
		return -1;
	}
	pol_intent_load(file, root, &s);
	if (!s) {
		fprintf(err, "dcg: --intent %s: cannot load %s\n", id, file);
		return -1;
	}
	for (size_t i = 0; i < pol_intent_diag_count(s); i++) {
		const struct pol_intent_diag *d = pol_intent_diag_get(s, i);

		fprintf(err, "%s:%u:%u: %s\n", d->file, d->line, d->col, d->msg);
	}
	if (pol_intent_invalid(s)) {
		fprintf(err, "dcg: --intent %s: %s cannot be used\n", id, file);
		goto out;
	}
	if (!pol_intent_find(s, id)) {
		fprintf(err, "dcg: unknown intent '%s' in %s. Known:", id, file);
		known_ids(s, err);
		fprintf(err, "\n");
		goto out;
	}
	if (setenv("DCG_INTENT", id, 1) != 0 || setenv("DCG_INTENTS_FILE", file, 1) != 0) {
		fprintf(err, "dcg: --intent %s: %s\n", id, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	pol_intent_free(s);
	return rc;
}

/* ---- dcg intent ------------------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: dcg intent list [--json] [--cwd DIR] [--session ID]\n"
		"       dcg intent select INT-ID [--cwd DIR] [--session ID]\n"
		"       dcg intent clear [--cwd DIR] [--session ID]\n"
		"       dcg intent show [INT-ID] [--cwd DIR] [--session ID]\n\n"
		"The active intent of a project confines its writes to the intent's\n"
		"owned_scope (%s at the project root). The selection is kept\n"
		"per project, and per agent session with --session (or $DCG_SESSION_ID):\n"
		"a session without its own selection uses the project's.\n",
		POL_INTENT_FILE);
}

static void print_diags(const struct pol_intent_set *s)
{
	for (size_t i = 0; i < pol_intent_diag_count(s); i++) {
		const struct pol_intent_diag *d = pol_intent_diag_get(s, i);

		fprintf(stderr, "%s:%u:%u: %s\n", d->file, d->line, d->col, d->msg);
	}
}

static void print_list(const char *label, const char *const *v, size_t n)
{
	printf("%-22s", label);
	if (!n)
		printf("(none)");
	for (size_t i = 0; i < n; i++)
		printf("%s%s", i ? ", " : "", v[i]);
	printf("\n");
}

static void show_intent(const struct pol_intent *in, int active)
{
	printf("%-22s%s%s\n", "Intent:", in->id, active ? " (active)" : "");
	if (in->name[0])
		printf("%-22s%s\n", "Name:", in->name);
	if (in->status[0])
		printf("%-22s%s\n", "Status:", in->status);
	print_list("Owned scope:", in->owned_scope, in->n_owned_scope);
	if (!in->n_owned_scope)
		printf("%-22s%s\n", "", "an empty scope owns nothing: every write asks");
	print_list("Constraints:", in->constraints, in->n_constraints);
	print_list("Acceptance criteria:", in->acceptance_criteria, in->n_acceptance_criteria);
}

static void add_json_strv(cJSON *o, const char *key, const char *const *v, size_t n)
{
	cJSON *a = cJSON_AddArrayToObject(o, key);

	for (size_t i = 0; a && i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
}

static int list_json(const struct pol_intent_set *s)
{
	const struct pol_intent *act = pol_intent_active(s);
	cJSON *root = cJSON_CreateObject(), *arr;
	char *out = NULL;
	int rc = 1;

	if (!root)
		return 1;
	cJSON_AddStringToObject(root, "file", pol_intent_file(s));
	cJSON_AddStringToObject(root, "root", pol_intent_root(s));
	if (pol_intent_selected_id(s))
		cJSON_AddStringToObject(root, "active", pol_intent_selected_id(s));
	else
		cJSON_AddNullToObject(root, "active");
	arr = cJSON_AddArrayToObject(root, "intents");
	for (size_t i = 0; arr && i < pol_intent_count(s); i++) {
		const struct pol_intent *in = pol_intent_get(s, i);
		cJSON *o = cJSON_CreateObject();

		if (!o)
			goto out;
		cJSON_AddItemToArray(arr, o);
		cJSON_AddStringToObject(o, "id", in->id);
		cJSON_AddStringToObject(o, "name", in->name);
		cJSON_AddStringToObject(o, "status", in->status);
		cJSON_AddBoolToObject(o, "is_active", in == act);
		add_json_strv(o, "owned_scope", in->owned_scope, in->n_owned_scope);
		add_json_strv(o, "constraints", in->constraints, in->n_constraints);
		add_json_strv(o, "acceptance_criteria", in->acceptance_criteria,
			      in->n_acceptance_criteria);
	}
	out = cJSON_PrintUnformatted(root);
	if (out) {
		printf("%s\n", out);
		rc = pol_intent_invalid(s) ? 1 : 0;
	}
out:
	free(out);
	cJSON_Delete(root);
	return rc;
}

static void known_ids(const struct pol_intent_set *s, FILE *f)
{
	if (!pol_intent_count(s)) {
		fprintf(f, "(the file lists no usable intent)");
		return;
	}
	for (size_t i = 0; i < pol_intent_count(s); i++) {
		const struct pol_intent *in = pol_intent_get(s, i);

		fprintf(f, "\n  %s%s%s", in->id, in->name[0] ? "  " : "", in->name);
	}
}

int cmd_intent(int argc, char **argv)
{
	const char *cwd = NULL, *session = getenv("DCG_SESSION_ID"), *verb = NULL, *id = NULL;
	char here[PATH_MAX], file[PATH_MAX], root[PATH_MAX], sel[256];
	struct pol_intent_set *s = NULL;
	int json = 0, rc = 1, from_session = 0, err;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--json")) {
			json = 1;
		} else if ((!strcmp(a, "--cwd") || !strcmp(a, "--session")) && i + 1 < argc) {
			if (!strcmp(a, "--cwd"))
				cwd = argv[++i];
			else
				session = argv[++i];
		} else if (!strncmp(a, "--session=", 10)) {
			session = a + 10;
		} else if (!strncmp(a, "--cwd=", 6)) {
			cwd = a + 6;
		} else if (!strcmp(a, "--policy") && i + 1 < argc) {
			i++; /* accepted by every command; intents do not depend on it */
		} else if (a[0] == '-') {
			fprintf(stderr, "dcg intent: unknown option '%s'\n", a);
			usage(stderr);
			return 1;
		} else if (!verb) {
			verb = a;
		} else if (!id) {
			id = a;
		} else {
			fprintf(stderr, "dcg intent: too many arguments\n");
			usage(stderr);
			return 1;
		}
	}
	if (session && !session[0])
		session = NULL;
	if (!verb) {
		usage(stderr);
		return 1;
	}
	if (strcmp(verb, "list") && strcmp(verb, "select") && strcmp(verb, "clear") &&
	    strcmp(verb, "show")) {
		fprintf(stderr, "dcg intent: unknown action '%s'\n", verb);
		usage(stderr);
		return 1;
	}
	if (!cwd)
		cwd = getcwd(here, sizeof(here)) ? here : ".";
	if (pol_intent_find_file(cwd, file, sizeof(file), root, sizeof(root)) < 0) {
		fprintf(stderr,
			"dcg intent: no %s in %s or its parents: this project does not confine "
			"writes to intents\n",
			POL_INTENT_FILE, cwd);
		return 1;
	}
	err = pol_intent_load(file, root, &s);
	if (!s) {
		fprintf(stderr, "dcg intent: cannot load %s: %s\n", file, strerror(-err));
		return 1;
	}
	print_diags(s);
	if (pol_intent_selection_get(root, session, sel, sizeof(sel), &from_session) == 0)
		pol_intent_select(s, sel);

	if (!strcmp(verb, "select")) {
		if (!id) {
			fprintf(stderr, "dcg intent select: which intent? Known:");
			known_ids(s, stderr);
			fprintf(stderr, "\n");
			goto out;
		}
		if (!pol_intent_find(s, id)) {
			fprintf(stderr, "dcg intent select: unknown intent '%s' in %s. Known:", id,
				file);
			known_ids(s, stderr);
			fprintf(stderr, "\n");
			goto out;
		}
		err = pol_intent_selection_set(root, session, id);
		if (err < 0) {
			fprintf(stderr, "dcg intent select: cannot store the selection: %s\n",
				strerror(-err));
			goto out;
		}
		printf("active intent%s: %s%s%s\n", session ? " of this session" : "", id,
		       pol_intent_find(s, id)->name[0] ? " - " : "", pol_intent_find(s, id)->name);
		rc = 0;
	} else if (!strcmp(verb, "clear")) {
		err = pol_intent_selection_set(root, session, NULL);
		if (err < 0) {
			fprintf(stderr, "dcg intent clear: %s\n", strerror(-err));
			goto out;
		}
		printf("no active intent%s: writes in %s are refused until one is selected\n",
		       session ? " for this session" : "", root);
		rc = 0;
	} else if (!strcmp(verb, "list")) {
		if (json) {
			rc = list_json(s);
			goto out;
		}
		printf("%s\n", file);
		for (size_t i = 0; i < pol_intent_count(s); i++) {
			const struct pol_intent *in = pol_intent_get(s, i);

			printf("%s %-12s %-14s %s\n", in == pol_intent_active(s) ? "*" : " ",
			       in->id, in->status[0] ? in->status : "-", in->name);
		}
		if (!pol_intent_selected_id(s))
			printf("no active intent (dcg intent select INT-ID)\n");
		else if (!pol_intent_active(s))
			printf("the active intent '%s' is not in the file\n",
			       pol_intent_selected_id(s));
		rc = pol_intent_invalid(s) ? 1 : 0;
	} else { /* show */
		const struct pol_intent *in = id ? pol_intent_find(s, id) : pol_intent_active(s);

		if (!in) {
			if (id)
				fprintf(stderr, "dcg intent show: unknown intent '%s'. Known:", id);
			else if (pol_intent_selected_id(s))
				fprintf(
				    stderr,
				    "dcg intent show: the active intent '%s' is not in %s. Known:",
				    pol_intent_selected_id(s), file);
			else
				fprintf(stderr, "dcg intent show: no active intent. Known:");
			known_ids(s, stderr);
			fprintf(stderr, "\n");
			goto out;
		}
		show_intent(in, in == pol_intent_active(s));
		if (in == pol_intent_active(s))
			printf("%-22s%s\n",
			       "Selected for:", from_session ? "this session" : "the project");
		printf("%-22s%s\n", "Project root:", root);
		rc = 0;
	}
out:
	pol_intent_free(s);
	return rc;
}
