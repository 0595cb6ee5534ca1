# runtime/: the core both runtime layers share (the syscall table, open flags, the
# refusal and audit lines, the terminal ask). Linked into the preload's .so (built
# there with the guard's flags, see preload/module.mk) and into libdcgsandbox.a.
RUNTIME_SRCS := runtime/rt.c
RUNTIME_OBJS := $(RUNTIME_SRCS:%.c=$(BUILD)/%.o)
ALL_CFLAGS += -Iruntime

$(BUILD)/tests/test_runtime: $(RUNTIME_OBJS)
$(BUILD)/tests/test_runtime: TEST_LINK = $(RUNTIME_OBJS) $(POLICY_LIB)
