# cli/: the dcg binary (the agent hook, the launchers of dcg run and dcg sandbox, the
# everyday commands).
#   $(BUILD)/libdcgcli.a   every cli/*.c but the two mains and the hook's allocator
#                          (hook_alloc.c, dcg's own malloc), so that tests link it directly
#   $(BUILD)/dcg           main.o + libdcgcli.a + libdcgsandbox.a + libdcgpolicy.a
#   $(BUILD)/sandbox/sbx-run  `dcg sandbox` alone (sbx_main.c), for sandbox/bench.sh
CLI_SRCS := $(filter-out cli/main.c cli/sbx_main.c cli/hook_alloc.c,$(wildcard cli/*.c cli/agents/*.c))
CLI_OBJS := $(CLI_SRCS:%.c=$(BUILD)/%.o)

# `dcg hook` starts once per tool call: link PCRE2 (BSD) and libyaml (MIT) statically
# when their archives exist (Debian's -dev packages ship them; cJSON has none), which
# saves the dynamic loader a library search, mapping and relocation at every start.
# libseccomp is LGPL-2.1: it stays a shared library, so that a user can replace it
# (LICENSE, "Libraries"). HOOK_STATIC_DEPS=0 links everything dynamically.
HOOK_STATIC_DEPS ?= 1
ifeq ($(HOOK_STATIC_DEPS),1)
hook_archive = $(wildcard $(shell $(CC) -print-file-name=lib$(1).a))
HOOK_STATIC_NAMES := $(foreach n,pcre2-8 yaml,$(if $(call hook_archive,$(n)),$(n)))
DCG_LIBS := $(foreach n,$(HOOK_STATIC_NAMES),$(call hook_archive,$(n))) \
	$(filter-out $(HOOK_STATIC_NAMES:%=-l%),$(DEPS_LIBS))
else
DCG_LIBS := $(DEPS_LIBS)
endif

$(CLI_LIB): $(CLI_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# dcg itself does not map libseccomp at start: the sandbox loads it at the first call
# of `dcg sandbox` (sandbox/seccomp_dl.c), so dcg does not link it at all.
# libc is named first, so that it comes before libcjson in the loader's search order:
# libc's own symbols, bound at every start, are found before libcjson is searched (no
# symbol is in both). 5 k instructions of the hook's 369 k.
DCG_BIN_LIBS := -Wl,--no-as-needed -lc $(filter-out -lseccomp,$(DCG_LIBS))

# The functions a hook call runs, side by side: each object of dcg and of the policy
# engine is compiled with a section per function (which changes no code), and dcg is
# linked with lld when the compiler can use it, in the order of cli/hook.order
# (cli/bench/hook_order.sh makes it), so that a call touches a few pages of dcg's
# text instead of a dozen spread over its 750 KB: 5 page faults and a few % of a
# call's time. Each segment starts on a page of its own (separate-loadable-segments,
# 8 KiB more of file): .data, .got.plt and the .bss a call writes then share one page
# instead of two, one copy-on-write fault less at every start.
# HOOK_ORDER=0, or no lld, links as before with the default linker.
DCG_OBJS := $(BUILD)/cli/main.o $(BUILD)/cli/hook_alloc.o $(CLI_LIB) $(SANDBOX_LIB) $(POLICY_LIB)
# The few libc and cJSON functions every hook call runs, bound at start rather than
# lazily (cli/hook_bind.h). HOOK_BIND=0: every function lazily, as before.
HOOK_BIND ?= 1
HOOK_BIND_CFLAGS := $(if $(filter 1,$(HOOK_BIND)),-include cli/hook_bind.h)
# A section per variable too, so that the few a call writes in .bss come first, on the
# page the loader already writes (the end of .got.plt), in the order of the list's
# last lines: 4 page faults fewer.
$(BUILD)/cli/main.o $(CLI_OBJS) $(POLICY_CORE_OBJS): ALL_CFLAGS += -ffunction-sections \
	-fdata-sections $(HOOK_BIND_CFLAGS)
# The hook's allocator (cli/hook_alloc.c) defines malloc itself: a section per function
# and variable for the order, without hook_bind.h's declarations of libc's.
$(BUILD)/cli/hook_alloc.o: ALL_CFLAGS += -ffunction-sections -fdata-sections
# main.c's switch of commands as compares, not a jump table: a table lands in .rodata
# where hook.order cannot place it, one more page fault at every start.
$(BUILD)/cli/main.o: ALL_CFLAGS += -fno-jump-tables
HOOK_ORDER ?= $(if $(shell $(CC) -fuse-ld=lld -Wl,--version 2>/dev/null | grep -w LLD),1,0)
ifeq ($(HOOK_ORDER),1)
DCG_LDFLAGS := -fuse-ld=lld -Wl,--symbol-ordering-file=cli/hook.order \
	-Wl,--no-warn-symbol-ordering -Wl,-z,separate-loadable-segments -Wl,-T,cli/hook.ld
endif

$(BUILD)/dcg: $(DCG_OBJS) cli/hook.order cli/hook.ld
	$(CC) $(ALL_LDFLAGS) $(DCG_LDFLAGS) $(DCG_OBJS) $(DCG_BIN_LIBS) -o $@

$(BUILD)/sandbox/sbx-run: $(BUILD)/cli/sbx_main.o $(CLI_LIB) $(SANDBOX_LIB) $(POLICY_LIB)
	$(CC) $(ALL_LDFLAGS) $^ $(DCG_LIBS) -o $@

all: $(BUILD)/dcg

# Whole-process latency of `dcg hook` per kind of call, against /bin/true and against
# the floor of the same run: dcg built to exit right after reading the call
# (cmd_hook.c with HOOK_BENCH_FLOOR), what starting this binary at all costs.
# BENCH_HOOK_CALLS per kind (300); BENCH_HOOK_OTHERS: other builds to compare.
BENCH_HOOK_CALLS ?= 300
$(BUILD)/bench_hook: $(BUILD)/cli/bench/bench_hook.o
	$(CC) $(ALL_LDFLAGS) $^ -o $@

# Paired A/B of builds on one allowed call, for differences of a few microseconds
# (cli/bench/hook_ab.c): build/hook_ab 3000 OLD/dcg NEW/dcg.
$(BUILD)/hook_ab: $(BUILD)/cli/bench/hook_ab.o
	$(CC) $(ALL_LDFLAGS) $^ -o $@

bench-hook: $(BUILD)/hook_ab

$(BUILD)/bench/cmd_hook_floor.o: cli/cmd_hook.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -ffunction-sections -fdata-sections $(HOOK_BIND_CFLAGS) -DHOOK_BENCH_FLOOR \
		-c $< -o $@

$(BUILD)/bench/dcg-floor: $(BUILD)/bench/cmd_hook_floor.o $(DCG_OBJS) cli/hook.order cli/hook.ld
	$(CC) $(ALL_LDFLAGS) $(DCG_LDFLAGS) $(BUILD)/bench/cmd_hook_floor.o $(DCG_OBJS) \
		$(DCG_BIN_LIBS) -o $@

# The floor below dcg's own: a program that only loads libcjson, reads the call and
# parses it (cli/bench/cjson_floor.c), what any hook reading its call with cJSON pays.
$(BUILD)/bench/cjson-floor: $(BUILD)/cli/bench/cjson_floor.o
	$(CC) $(ALL_LDFLAGS) $^ $(shell $(PKG_CONFIG) --libs libcjson) -o $@

.PHONY: bench-hook
bench-hook: $(BUILD)/dcg $(BUILD)/bench_hook $(BUILD)/bench/dcg-floor $(BUILD)/bench/cjson-floor
	$(BUILD)/bench_hook $(BUILD)/dcg $(BENCH_HOOK_CALLS) $(BUILD)/bench/dcg-floor \
		$(BUILD)/bench/cjson-floor $(BENCH_HOOK_OTHERS)

bench: bench-hook

# tests/test_cli.c runs the binary itself.
$(BUILD)/tests/test_cli $(BUILD)/tests/test_registration: $(BUILD)/dcg
