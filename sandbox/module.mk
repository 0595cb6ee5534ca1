# sandbox/: the seccomp filter and supervisor, as $(BUILD)/libdcgsandbox.a, whose entry
# sbx_run() `dcg sandbox` (cli/cmd_sandbox.c) calls. The unit tests link the same library.
SANDBOX_SRCS := sandbox/filter.c sandbox/seccomp_dl.c sandbox/walk.c sandbox/super.c sandbox/run.c
SANDBOX_OBJS := $(SANDBOX_SRCS:%.c=$(BUILD)/%.o)

$(SANDBOX_LIB): $(SANDBOX_OBJS) $(RUNTIME_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

all: $(SANDBOX_LIB)

# The sandbox's tests need the supervisor and the engine only.
$(BUILD)/tests/test_sandbox: $(SANDBOX_LIB)
$(BUILD)/tests/test_sandbox: TEST_LINK = $(SANDBOX_LIB) $(POLICY_LIB)

# The cost of one notified call and of a real build under the sandbox, as ratios.
# SBX_BIN=build/sandbox/sbx-run (cli/module.mk) measures a dcg holding `dcg sandbox` only.
# The floor under a notified open: a minimal notify supervisor (no libseccomp).
$(BUILD)/sandbox/bench/notify_floor: sandbox/bench/notify_floor.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE $< -o $@

.PHONY: bench-sandbox
bench-sandbox: $(BUILD)/dcg $(BUILD)/sandbox/bench/notify_floor
	@sandbox/bench.sh $(BUILD)
bench: bench-sandbox

# The sandbox reaches libseccomp through its own loader (seccomp_dl.c): its tests link
# no libseccomp, so a seccomp_* call that bypassed the loader would not link.
$(BUILD)/tests/test_sandbox: DEPS_LIBS := $(filter-out -lseccomp,$(DEPS_LIBS))
