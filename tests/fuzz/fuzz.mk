# tests/fuzz/: the shell analyser's libFuzzer target and its benchmark. Neither is part
# of `make test`.
#   make fuzz [FUZZ_TIME=600]   runs the fuzzer, growing tests/fuzz/corpus/ (seeded with the
#                               commands of tests/corpus/ and what earlier runs grew)
#   make fuzz-merge             shrinks the grown corpus back to a covering set
#   make bench-shell            decisions per CPU second over tests/corpus, worst-case inputs
#                               (bench_shell --rounds N: N rounds and nothing else, to profile)
FUZZ_CC ?= clang
FUZZ_TIME ?= 600
FUZZ_BIN := $(BUILD)/fuzz/fuzz_shell
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -std=gnu11 -D_GNU_SOURCE -Ipolicy
FUZZ_SRCS := tests/fuzz/fuzz_shell.c $(wildcard policy/shell*.c) policy/arena.c

.PHONY: fuzz fuzz-merge bench-shell

$(FUZZ_BIN): $(FUZZ_SRCS) policy/shell.h policy/shell_int.h policy/arena.h policy/dcg_policy.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_SRCS) -o $@

fuzz: $(FUZZ_BIN)
	@mkdir -p tests/fuzz/corpus
	$(FUZZ_BIN) -max_total_time=$(FUZZ_TIME) -max_len=16384 -len_control=10 -timeout=10 \
		-rss_limit_mb=2048 -dict=tests/fuzz/shell.dict -artifact_prefix=$(BUILD)/fuzz/ \
		tests/fuzz/corpus

fuzz-merge: $(FUZZ_BIN)
	rm -rf $(BUILD)/fuzz/merged && mkdir -p $(BUILD)/fuzz/merged
	$(FUZZ_BIN) -set_cover_merge=1 -max_len=16384 $(BUILD)/fuzz/merged tests/fuzz/corpus
	rm -rf tests/fuzz/corpus && mv $(BUILD)/fuzz/merged tests/fuzz/corpus

$(BUILD)/tests/bench_shell: $(BUILD)/tests/bench_shell.o $(POLICY_LIB)
	$(CC) $(ALL_LDFLAGS) $< $(POLICY_LIB) $(DEPS_LIBS) -o $@

bench-shell: $(BUILD)/tests/bench_shell
	$(BUILD)/tests/bench_shell tests/corpus/*.tsv

bench: bench-shell
