# policy/: the policy engine, built as build/libdcgpolicy.a
POLICY_SRCS := $(wildcard policy/*.c)
POLICY_OBJS := $(POLICY_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/policy/embed.o
POLICY_LIB := $(BUILD)/libdcgpolicy.a

# The embedded default policy is policy/default.yaml, pulled in by embed.S.
$(BUILD)/policy/embed.o: policy/embed.S policy/default.yaml

$(POLICY_LIB): $(POLICY_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

all: $(POLICY_LIB)
