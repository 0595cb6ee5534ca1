# tests/fuzz/: the shell analyser's libFuzzer target and its benchmark. Neither is part
# of `make test`.
#   make fuzz [FUZZ_TIME=600]   runs the fuzzer, growing tests/fuzz/corpus/
#   make fuzz-merge             minimizes the grown corpus back into tests/fuzz/corpus/
#   make bench-shell            decisions per second over tests/corpus, worst-case inputs
FUZZ_CC ?= clang
FUZZ_TIME ?= 600
FUZZ_BIN := $(BUILD)/fuzz/fuzz_shell
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer -std=gnu11 -D_GNU_SOURCE -Ipolicy
FUZZ_SRCS := tests/fuzz/fuzz_shell.c policy/shell.c policy/arena.c

.PHONY: fuzz fuzz-merge bench-shell

$(FUZZ_BIN): $(FUZZ_SRCS) policy/shell.h policy/arena.h policy/dcg_policy.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_FLAGS) $(FUZZ_SRCS) -o $@

fuzz: $(FUZZ_BIN)
	@mkdir -p tests/fuzz/corpus
	$(FUZZ_BIN) -max_total_time=$(FUZZ_TIME) -max_len=16384 -timeout=10 -rss_limit_mb=2048 \
		-dict=tests/fuzz/shell.dict tests/fuzz/corpus tests/fuzz/seeds

fuzz-merge: $(FUZZ_BIN)
	rm -rf $(BUILD)/fuzz/merged && mkdir -p $(BUILD)/fuzz/merged
	$(FUZZ_BIN) -merge=1 -max_len=16384 $(BUILD)/fuzz/merged tests/fuzz/corpus tests/fuzz/seeds
	rm -rf tests/fuzz/corpus && mv $(BUILD)/fuzz/merged tests/fuzz/corpus

$(BUILD)/tests/bench_shell: $(BUILD)/tests/bench_shell.o $(POLICY_LIB)
	$(CC) $(ALL_LDFLAGS) $< $(POLICY_LIB) $(DEPS_LIBS) -o $@

bench-shell: $(BUILD)/tests/bench_shell
	$(BUILD)/tests/bench_shell tests/corpus/*.tsv

bench: bench-shell
