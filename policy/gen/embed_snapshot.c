/* embed_snapshot - build tool: checks policy/default.yaml and the packs
 * (policy/packs/FAMILY.yaml, loaded after it in the order given) and writes their portable
 * snapshot, which embed.S pulls into the binaries.
 *
 * Usage: embed_snapshot OUT.snap OUT.codes OUT.split OUT.rules OUT.src DEFAULT.yaml PACK...
 * OUT.src: the files' text as read, each its name and its text ended by a NUL, the list
 * by an empty name: what `dcg packs --verbose` and `dcg rules lint` read the rules'
 * examples from (pol_embedded_source). OUT.codes: the embedded regex rules' compiled codes, serialized by PCRE2, with the
 * offset of each (write_codes). OUT.split: the snapshot pre-split. OUT.rules: the rule
 * image of the split form (pol_snapshot_image), which a POL_LOAD_LAZY load copies,
 * checked here and sealed (pol_snapshot_image_seal): the binaries do not check it again.
 * Fails the build on any diagnostic and on any regex that does not compile, so the
 * embedded policy can be trusted to load at run time. */
#include "dcg_policy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* This tool makes the embedded policy, so it has none to load: the library's layered
 * load (which it never calls) finds this instead of the real one. */
int pol_load_embedded(struct pol_policy *p)
{
	(void)p;
	return -ENOENT;
}

const uint32_t *pol_embedded_codes_get(const char **version)
{
	(void)version;
	return NULL;
}

void pol_embedded_attach(struct pol_policy *p, size_t first)
{
	(void)p;
	(void)first;
}

void pol_embedded_attach_numbered(struct pol_policy *p, size_t first, uint32_t n)
{
	(void)p;
	(void)first;
	(void)n;
}

void pol_embedded_attach_pending(const struct pol_policy *p)
{
	(void)p;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* Writes the codes of the embedded regex rules, in load order (the order
 * pol_load_embedded() numbers them in), as the container pol_embedded_code() reads:
 * four 32-bit words (POL_CODES_MAGIC, the number of codes n, the length h of the
 * serialized set's start (PCRE2's header and character tables), the set's size), n + 1
 * offsets of each code in the set, then the set as pcre2_serialize_encode() made it.
 * Code k alone is the set's start followed by its bytes: a process decodes only the
 * codes its decisions need. Each code is decoded that way here once, to check it. */
static int write_codes(struct pol_policy *p, const char *path)
{
	const pcre2_code **codes = calloc(p->n_rules + 1, sizeof(*codes));
	uint32_t *head = NULL;
	uint8_t *bytes = NULL;
	PCRE2_SIZE size = 0;
	int32_t n = 0, rc = 0;
	size_t sum = 0;
	FILE *out;

	if (!codes)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_rules; i++) {
		struct pol_rule *r = &pol_rules(p)[i];

		if (!pol_embedded_regex(r))
			continue;
		codes[n] = pol_rule_code(p, r);
		if (!codes[n]) {
			free(codes);
			return -EINVAL;
		}
		n++;
	}
	head = calloc((size_t)n + 5, sizeof(*head));
	if (!head || (n && pcre2_serialize_encode(codes, n, &bytes, &size, NULL) < 0)) {
		rc = -EINVAL;
		goto out;
	}
	/* Each code's bytes are its compiled size, one after the other after the start. */
	for (int32_t k = 0; k < n; k++) {
		size_t cs = 0;
		if (pcre2_pattern_info(codes[k], PCRE2_INFO_SIZE, &cs) != 0) {
			rc = -EINVAL;
			goto out;
		}
		head[4 + k] = (uint32_t)sum; /* made absolute below */
		sum += cs;
	}
	if (n && (sum >= size || size > UINT32_MAX)) {
		rc = -EINVAL;
		goto out;
	}
	head[0] = POL_CODES_MAGIC;
	head[1] = (uint32_t)n;
	head[2] = (uint32_t)(size - sum);
	head[3] = (uint32_t)size;
	for (int32_t k = 0; k < n; k++)
		head[4 + k] += head[2];
	head[4 + n] = (uint32_t)size;
	for (int32_t k = 0; k < n; k++) {
		pcre2_code *one = pol_embedded_code(head, bytes, k, NULL);
		size_t a = 0, b = 1;
		pcre2_pattern_info(one, PCRE2_INFO_SIZE, &a);
		pcre2_pattern_info(codes[k], PCRE2_INFO_SIZE, &b);
		pcre2_code_free(one);
		if (!one || a != b) {
			fprintf(stderr, "embed_snapshot: code %d does not decode alone\n", (int)k);
			rc = -EINVAL;
			goto out;
		}
	}
	out = fopen(path, "wb");
	if (!out || fwrite(head, 4, (size_t)n + 5, out) != (size_t)n + 5 ||
	    (size && fwrite(bytes, 1, size, out) != size) || fclose(out) != 0)
		rc = -EIO;
out:
	pcre2_serialize_free(bytes);
	free(head);
	free(codes);
	return rc;
}

/* Loads every file into p as the embedded default policy, in order, and writes the
 * sources blob; *hash is the FNV-1a hash of every file's text, in order. */
static int load_all(struct pol_policy *p, char **files, int n, const char *src_out, uint64_t *hash)
{
	FILE *src = fopen(src_out, "wb");
	int rc = 0;

	if (!src) {
		fprintf(stderr, "embed_snapshot: cannot write %s\n", src_out);
		return -1;
	}
	*hash = 1469598103934665603ull;
	for (int k = 0; k < n && rc == 0; k++) {
		size_t len = 0, first = pol_diag_count(p);
		char *yaml = read_all(files[k], &len);

		if (!yaml || memchr(yaml, 0, len)) {
			fprintf(stderr, "%s: %s\n", files[k],
				yaml ? "holds a NUL" : strerror(errno));
			free(yaml);
			rc = -1;
			break;
		}
		/* A byte between files, so that moving text from one to the next changes it. */
		for (size_t i = 0; i <= len; i++)
			*hash = (*hash ^ (i < len ? (unsigned char)yaml[i] : 0)) * 1099511628211ull;
		/* POL_LOAD_EAGER: every regex is compiled now, and a failure is a diagnostic. */
		pol_load_buffer_default(p, yaml, len);
		for (size_t i = first; i < pol_diag_count(p); i++) {
			const struct pol_diag *d = pol_diag_get(p, i);
			fprintf(stderr, "%s:%u:%u: %s%s%s\n", files[k], d->line, d->col, d->rule,
				d->rule[0] ? ": " : "", d->msg);
		}
		if (fwrite(files[k], 1, strlen(files[k]) + 1, src) != strlen(files[k]) + 1 ||
		    fwrite(yaml, 1, len, src) != len || fputc(0, src) == EOF)
			rc = -1;
		free(yaml);
	}
	if (fputc(0, src) == EOF || fclose(src) != 0)
		rc = -1;
	return rc;
}

int main(int argc, char **argv)
{
	struct pol_policy *p;
	char *snap, version[17];
	size_t slen = 0;
	uint64_t h = 0;
	int rc = 1;
	FILE *out;

	if (argc < 7) {
		fprintf(stderr,
			"usage: %s OUT.snap OUT.codes OUT.split OUT.rules OUT.src DEFAULT.yaml "
			"[PACK.yaml...]\n",
			argv[0]);
		return 2;
	}
	p = pol_new(POL_LOAD_EAGER);
	if (!p)
		return 1;
	/* Home and root that no real path has, so that nothing machine-specific could
	 * leak into the snapshot even by mistake. */
	pol_set_home(p, "/nonexistent-home");
	pol_set_root(p, "/nonexistent-root");
	if (load_all(p, argv + 6, argc - 6, argv[5], &h) < 0)
		goto out_policy;
	/* The version names these files: snapshots made from a policy holding these
	 * rules carry it, and only then get this build's compiled codes. */
	snprintf(version, sizeof(version), "%016llx", (unsigned long long)h);
	p->embedded_version = version;
	if (pol_diag_count(p)) {
		fprintf(stderr, "%s: the embedded default policy must load without a message\n",
			argv[0]);
		goto out_policy;
	}
	snap = pol_snapshot_save_opts(p, &slen, 1);
	if (!snap)
		goto out_policy;
	out = fopen(argv[1], "wb");
	if (!out || fwrite(snap, 1, slen, out) != slen || fclose(out) != 0) {
		fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[1]);
		free(snap);
		goto out_policy;
	}
	/* What the binaries embed: the same snapshot, pre-split for a load without a scan. */
	{
		size_t xlen = 0;
		void *x = pol_snapshot_split(snap, slen, &xlen);

		out = x ? fopen(argv[3], "wb") : NULL;
		if (!out || fwrite(x, 1, xlen, out) != xlen || fclose(out) != 0) {
			fprintf(stderr, "%s: cannot write %s\n", argv[0], argv[3]);
			free(x);
			free(snap);
			goto out_policy;
		}
		/* and its rules as a lazy load makes them, copied at once by the binaries */
		size_t ilen = 0;
		const char *why = NULL;
		void *img = pol_snapshot_image(x, xlen, &ilen, &why);
		/* checked whole here, once: the binaries' loads of it then skip the check */
		if (img && pol_snapshot_image_seal(x, xlen, img, ilen) != 0) {
			fprintf(stderr,
				"%s: the rule image made for %s does not pass the check every "
				"load makes (policy/snapshot.c: its image writer and its checker "
				"disagree): not embedded; mend the writer (pol_snapshot_image) "
				"or the checker, then build again\n",
				argv[0], argv[4]);
			free(img);
			free(x);
			free(snap);
			goto out_policy;
		}
		out = img ? fopen(argv[4], "wb") : NULL;
		if (!out || fwrite(img, 1, ilen, out) != ilen || fclose(out) != 0) {
			fprintf(stderr, "%s: cannot write %s%s%s\n", argv[0], argv[4],
				why ? ": no image of rule " : "", why ? why : "");
			free(img);
			free(x);
			free(snap);
			goto out_policy;
		}
		free(img);
		free(x);
	}
	free(snap);
	if (write_codes(p, argv[2]) < 0) {
		fprintf(stderr, "%s: cannot write the compiled regexes to %s\n", argv[0], argv[2]);
		goto out_policy;
	}
	rc = 0;
out_policy:
	pol_free(p);
	return rc;
}
