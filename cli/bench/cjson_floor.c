/* cjson_floor.c - the second floor of `make bench-hook`: the least any hook that reads
 * its call with cJSON must do. A process linked with libcjson (as dcg is) that reads
 * the call to its end, parses it and takes the tool's name and input, then exits 0
 * (allowed) without a policy. bench_hook runs it as one more build: `/bin/true`, this,
 * dcg-floor and dcg in the same run tell what loading libcjson and parsing cost, what
 * dcg's own start adds, and what its policy and decision add. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	static char buf[1 << 16];
	size_t len = 0;
	ssize_t got;
	cJSON *call, *name, *input;

	while (len < sizeof(buf) && (got = read(0, buf + len, sizeof(buf) - len)) != 0) {
		if (got < 0)
			return 2;
		len += (size_t)got;
	}
	call = cJSON_ParseWithLength(buf, len);
	name = cJSON_GetObjectItemCaseSensitive(call, "tool_name");
	input = cJSON_GetObjectItemCaseSensitive(call, "tool_input");
	if (!cJSON_IsString(name) || !cJSON_IsObject(input)) {
		fputs("cjson-floor: not a tool call\n", stderr);
		cJSON_Delete(call);
		return 2;
	}
	cJSON_Delete(call);
	return 0;
}
