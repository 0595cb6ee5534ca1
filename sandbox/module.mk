# sandbox/: `dcg sandbox`, the seccomp supervisor (linked into dcg through
# DCG_EXTRA_OBJS). The unit tests link the same objects.
SANDBOX_SRCS := sandbox/filter.c sandbox/walk.c sandbox/super.c sandbox/run.c
SANDBOX_OBJS := $(SANDBOX_SRCS:%.c=$(BUILD)/%.o)

DCG_EXTRA_OBJS += $(SANDBOX_OBJS)

$(BUILD)/tests/test_sandbox: $(SANDBOX_OBJS) $(RUNDIR_OBJ)
# Before the libraries, whose symbols the objects use.
$(BUILD)/tests/test_sandbox: TEST_LINK = $(SANDBOX_OBJS) $(RUNDIR_OBJ) $(HOOK_LIB) $(POLICY_LIB)

# A stand-alone `dcg sandbox` (sbx-run ARGS == dcg sandbox ARGS) for the benchmark
# and for debugging the supervisor without the rest of dcg.
$(BUILD)/sandbox/sbx-run: $(BUILD)/sandbox/main.o $(SANDBOX_OBJS) $(RUNDIR_OBJ) $(HOOK_LIB) $(POLICY_LIB)
	$(CC) $(ALL_LDFLAGS) $^ $(DEPS_LIBS) -o $@

# The cost of one notified call and of a real build under the sandbox, as ratios.
# The floor under a notified open: a minimal notify supervisor (no libseccomp).
$(BUILD)/sandbox/bench/notify_floor: sandbox/bench/notify_floor.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -D_GNU_SOURCE $< -o $@

.PHONY: bench-sandbox
bench-sandbox: $(BUILD)/dcg $(BUILD)/sandbox/bench/notify_floor
	@sandbox/bench.sh $(BUILD)
bench: bench-sandbox
