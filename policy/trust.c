/* trust.c - the user's trust in project policy files: SHA-256 of a file's content,
 * recorded with the file's real path in one line of the trust file.
 *
 * Trust file format: one record per line, "HEX64 SPACE ABSOLUTE-PATH"; lines starting
 * with '#' and empty lines are comments. A malformed line counts as no record (it
 * never trusts anything) and is reported by pol_trust_lookup().
 */
#include "dcg_policy.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define TRUST_FILE_MAX (1u << 20)

/* ---- SHA-256 (FIPS 180-4) --------------------------------------------------------- */

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(uint32_t h[8], const unsigned char *b)
{
	uint32_t w[64], a[8];

	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
		       (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(a, h, sizeof(a));
	for (int i = 0; i < 64; i++) {
		uint32_t s1 = ROR(a[4], 6) ^ ROR(a[4], 11) ^ ROR(a[4], 25);
		uint32_t ch = (a[4] & a[5]) ^ (~a[4] & a[6]);
		uint32_t t1 = a[7] + s1 + ch + sha_k[i] + w[i];
		uint32_t s0 = ROR(a[0], 2) ^ ROR(a[0], 13) ^ ROR(a[0], 22);
		uint32_t maj = (a[0] & a[1]) ^ (a[0] & a[2]) ^ (a[1] & a[2]);
		memmove(a + 1, a, 7 * sizeof(a[0]));
		a[4] += t1;
		a[0] = t1 + s0 + maj;
	}
	for (int i = 0; i < 8; i++)
		h[i] += a[i];
}

void pol_sha256_hex(const void *data, size_t len, char hex[65])
{
	uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
	const unsigned char *p = data;
	unsigned char tail[128];
	size_t full = len & ~(size_t)63, rest = len - full, tl;
	uint64_t bits = (uint64_t)len * 8;

	for (size_t off = 0; off < full; off += 64)
		sha_block(h, p + off);
	memset(tail, 0, sizeof(tail));
	if (rest)
		memcpy(tail, p + full, rest);
	tail[rest] = 0x80;
	tl = rest + 1 + 8 <= 64 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		tail[tl - 1 - i] = (unsigned char)(bits >> (8 * i));
	sha_block(h, tail);
	if (tl == 128)
		sha_block(h, tail + 64);
	for (int i = 0; i < 8; i++)
		snprintf(hex + 8 * i, 9, "%08x", h[i]);
}

/* ---- the trust file --------------------------------------------------------------- */

int pol_trust_path(char *buf, size_t size)
{
	const char *s = getenv("DCG_TRUST_FILE");
	size_t n;

	if (s && s[0] == '/')
		n = pol_cat3(buf, size, s, "", "");
	else if ((s = getenv("XDG_STATE_HOME")) && s[0] == '/')
		n = pol_cat3(buf, size, s, "/dcg/trusted", "");
	else if ((s = getenv("HOME")) && s[0] == '/')
		n = pol_cat3(buf, size, s, "/.local/state/dcg/trusted", "");
	else
		return -ENOENT;
	return n >= size ? -ENAMETOOLONG : 0;
}

/* Reads the whole trust file into a malloc'ed, NUL-terminated buffer. */
static int read_all(const char *path, char **out, size_t *len)
{
	struct stat st;
	char *buf;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*out = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > TRUST_FILE_MAX) {
		close(fd);
		return -EINVAL;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

static int hex64(const char *s)
{
	for (int i = 0; i < 64; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

enum pol_trust pol_trust_lookup(const char *trust_file, const char *real_path, const char *hex,
				char *why, size_t why_size)
{
	char *buf, *line, *next;
	size_t len;
	unsigned lineno = 0, bad = 0;
	enum pol_trust t = POL_TRUST_UNTRUSTED;
	int rc;

	if (why_size)
		why[0] = '\0';
	if (!trust_file) {
		snprintf(why, why_size, "no trust file (HOME unset)");
		return POL_TRUST_UNTRUSTED;
	}
	rc = read_all(trust_file, &buf, &len);
	if (rc == -ENOENT) {
		snprintf(why, why_size, "not trusted");
		return POL_TRUST_UNTRUSTED;
	}
	if (rc < 0) {
		snprintf(why, why_size, "trust records %s unreadable (%s)", trust_file,
			 rc == -EINVAL ? "not a regular file or too big" : strerror(-rc));
		return POL_TRUST_BROKEN;
	}
	if (memchr(buf, '\0', len)) {
		free(buf);
		snprintf(why, why_size, "trust records %s are corrupt (NUL byte)", trust_file);
		return POL_TRUST_BROKEN;
	}
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (line[0] == '#' || line[0] == '\0')
			continue;
		if (strlen(line) < 66 || !hex64(line) || line[64] != ' ' || line[65] != '/') {
			bad++;
			continue;
		}
		if (strcmp(line + 65, real_path) != 0)
			continue;
		if (memcmp(line, hex, 64) == 0) {
			t = POL_TRUST_TRUSTED;
			break;
		}
		t = POL_TRUST_CHANGED;
	}
	free(buf);
	if (t == POL_TRUST_CHANGED)
		snprintf(why, why_size, "changed since it was trusted");
	else if (t == POL_TRUST_UNTRUSTED && bad)
		snprintf(why, why_size, "not trusted (%u malformed trust records in %s ignored)",
			 bad, trust_file);
	else if (t == POL_TRUST_UNTRUSTED)
		snprintf(why, why_size, "not trusted");
	return t;
}

/* Writes the trust file with every record for real_path dropped, and one new record
 * when hex is set: a temporary file in the same folder renamed over the old one. */
static int rewrite(const char *trust_file, const char *real_path, const char *hex, int *removed)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32], *buf = NULL, *line, *next;
	size_t len = 0;
	int fd, rc = read_all(trust_file, &buf, &len);
	FILE *f;

	*removed = 0;
	if (rc < 0 && rc != -ENOENT)
		return rc;
	pol_copy_str(dir, sizeof(dir), trust_file);
	char *slash = strrchr(dir, '/');
	if (!slash)
		return -EINVAL;
	*slash = '\0';
	/* mkdir -p of the state folder */
	for (char *s = dir + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(dir, 0700);
		*s = '/';
	}
	if (dir[0])
		mkdir(dir, 0700);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", trust_file, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		free(buf);
		return -errno;
	}
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		free(buf);
		unlink(tmp);
		return -ENOMEM;
	}
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strlen(line) >= 66 && line[64] == ' ' && strcmp(line + 65, real_path) == 0) {
			(*removed)++;
			continue;
		}
		/* Malformed lines are kept as they are: the user may want to see them. */
		fprintf(f, "%s\n", line);
	}
	if (hex)
		fprintf(f, "%s %s\n", hex, real_path);
	free(buf);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		rc = -errno;
		fclose(f);
		unlink(tmp);
		return rc ? rc : -EIO;
	}
	fclose(f);
	if (rename(tmp, trust_file) < 0) {
		rc = -errno;
		unlink(tmp);
		return rc;
	}
	return 0;
}

int pol_trust_add(const char *trust_file, const char *policy_file, char *real_out, size_t real_size)
{
	char real[PATH_MAX], hex[65], *buf;
	size_t len;
	int removed, rc;

	if (!realpath(policy_file, real))
		return -errno;
	rc = read_all(real, &buf, &len);
	if (rc < 0)
		return rc;
	pol_sha256_hex(buf, len, hex);
	free(buf);
	if (real_out)
		pol_copy_str(real_out, real_size, real);
	return rewrite(trust_file, real, hex, &removed);
}

int pol_trust_remove(const char *trust_file, const char *policy_file, char *real_out,
		     size_t real_size)
{
	char real[PATH_MAX];
	int removed, rc;

	/* A file that is gone can still be untrusted by the path it had. */
	if (!realpath(policy_file, real) &&
	    pol_path_normalize(policy_file, "/", NULL, real, sizeof(real)) < 0)
		return -ENAMETOOLONG;
	if (real_out)
		pol_copy_str(real_out, real_size, real);
	rc = rewrite(trust_file, real, NULL, &removed);
	if (rc < 0)
		return rc;
	return removed ? 0 : -ENOENT;
}
