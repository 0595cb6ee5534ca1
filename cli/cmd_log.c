/* cmd_log.c - `dcg log [--json] [--last N]`: the tail of the audit log, readable. */
#include "hook.h"

#include "commands.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOG_MAX_WINDOW (64u * 1024 * 1024)

static const char log_usage[] =
    "usage: dcg log [--json] [--last N]\n"
    "\n"
    "Shows the last N entries (default 20) of the audit log ($DCG_LOG, else\n"
    "$XDG_STATE_HOME/dcg/audit.jsonl): every deny, ask and warn of every layer.\n"
    "--json prints the entries as they are stored, one JSON object per line.\n";

/* Reads enough of the file's end to hold its last `want` lines. */
static int read_tail(const char *path, size_t want, char **out, size_t *len, int *partial)
{
	struct stat st;
	size_t window = 65536, lines, i;
	char *buf = NULL;
	ssize_t n;
	off_t start;
	int fd;

	*out = NULL;
	*len = 0;
	*partial = 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -errno;
	}
	for (;;) {
		if ((off_t)window > st.st_size)
			window = (size_t)st.st_size;
		free(buf);
		buf = malloc(window + 1);
		if (!buf) {
			close(fd);
			return -ENOMEM;
		}
		start = st.st_size - (off_t)window;
		n = pread(fd, buf, window, start);
		if (n < 0) {
			free(buf);
			close(fd);
			return -errno;
		}
		buf[n] = '\0';
		for (lines = 0, i = 0; i < (size_t)n; i++)
			lines += buf[i] == '\n';
		if (lines > want || start == 0 || window >= LOG_MAX_WINDOW)
			break;
		window *= 4;
	}
	close(fd);
	*partial = start > 0;
	*out = buf;
	*len = (size_t)n;
	return 0;
}

static const char *member(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : "-";
}

static void print_human(const char *line)
{
	cJSON *o = cJSON_Parse(line);
	char input[512], shown[512];
	const char *in;
	size_t n;

	if (!o) {
		printf("(unreadable line) %.100s\n", line);
		return;
	}
	in = member(o, "input");
	/* The logger redacts already; cut and keep one line per entry. */
	n = pol_truncate_utf8(in, strlen(in), 100, input, sizeof(input));
	hook_utf8_sanitize(input, n, shown, sizeof(shown));
	for (char *c = shown; *c; c++)
		if (*c == '\n' || *c == '\t')
			*c = ' ';
	printf("%-24s %-5s %-32s %-7s %-10s %s\n", member(o, "time"), member(o, "decision"),
	       member(o, "rule_id"), member(o, "layer"), member(o, "tool"), shown);
	cJSON_Delete(o);
}

int cmd_log(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"json", no_argument, NULL, 'j'},
	    {"last", required_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	char path[PATH_MAX], *buf = NULL, *p, *end, *endp, **starts = NULL;
	size_t len, count = 0, i, first;
	long last = 20;
	int c, json = 0, err, partial;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+hn:", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'n':
			errno = 0;
			last = strtol(optarg, &endp, 10);
			if (errno || *endp || last < 0 || last > 1000000) {
				fprintf(stderr, "dcg: log: --last wants a number, not '%s'\n",
					optarg);
				return 1;
			}
			break;
		case 'h':
			fputs(log_usage, stdout);
			return 0;
		default:
			fputs(log_usage, stderr);
			return 1;
		}
	}
	if (optind < argc) {
		fputs(log_usage, stderr);
		return 1;
	}
	if (pol_log_path(path, sizeof(path))) {
		fprintf(stderr, "dcg: log: the log path is too long\n");
		return 1;
	}
	err = read_tail(path, (size_t)last, &buf, &len, &partial);
	if (err == -ENOENT) {
		if (!json)
			printf("no audit log yet (%s): nothing was refused\n", path);
		return 0;
	}
	if (err) {
		fprintf(stderr, "dcg: log: %s: %s\n", path, strerror(-err));
		return 1;
	}
	/* Complete lines only: the first may be cut by the window, unless it is the
	 * file's start. */
	starts = malloc(sizeof(*starts) * (len / 2 + 2));
	if (!starts) {
		free(buf);
		return 1;
	}
	end = buf + len;
	p = buf;
	while (p < end) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break; /* a line being written right now */
		*nl = '\0';
		if (nl > p && !partial)
			starts[count++] = p;
		partial = 0;
		p = nl + 1;
	}
	first = count > (size_t)last ? count - (size_t)last : 0;
	if (!json && count)
		printf("%-24s %-5s %-32s %-7s %-10s %s\n", "TIME", "DECI.", "RULE", "LAYER", "TOOL",
		       "INPUT");
	for (i = first; i < count; i++) {
		if (json)
			printf("%s\n", starts[i]);
		else
			print_human(starts[i]);
	}
	free(starts);
	free(buf);
	return 0;
}
