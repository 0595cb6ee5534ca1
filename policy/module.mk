# policy/: the policy engine, built as build/libdcgpolicy.a
POLICY_SRCS := $(wildcard policy/*.c)
# Everything but the embedded default policy: what the build tool links.
POLICY_CORE_OBJS := $(filter-out $(BUILD)/policy/embedded.o,$(POLICY_SRCS:%.c=$(BUILD)/%.o))
POLICY_OBJS := $(POLICY_CORE_OBJS) $(BUILD)/policy/embedded.o $(BUILD)/policy/embed.o

# The embedded default policy: policy/default.yaml, checked (no diagnostic, every
# regex compiles) and turned into a portable snapshot at build time, then pulled
# into .rodata by embed.S.
EMBED_TOOL := $(BUILD)/gen/embed_snapshot
EMBED_SNAP := $(BUILD)/gen/default.snap
EMBED_CODES := $(BUILD)/gen/default.codes
# The snapshot as the binaries embed it: pre-split (pol_snapshot_split), loaded in place.
EMBED_SPLIT := $(BUILD)/gen/default.split
# Its rules as a lazy load makes them, pointers as offsets (pol_snapshot_image).
EMBED_RULES := $(BUILD)/gen/default.rules

$(EMBED_TOOL): $(BUILD)/policy/gen/embed_snapshot.o $(POLICY_CORE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $^ $(DEPS_LIBS) -o $@

$(EMBED_SNAP): policy/default.yaml $(EMBED_TOOL)
	@mkdir -p $(dir $@)
	$(EMBED_TOOL) policy/default.yaml $@.tmp $(EMBED_CODES).tmp $(EMBED_SPLIT).tmp \
		$(EMBED_RULES).tmp
	mv $(EMBED_CODES).tmp $(EMBED_CODES) && mv $(EMBED_SPLIT).tmp $(EMBED_SPLIT) && \
		mv $(EMBED_RULES).tmp $(EMBED_RULES) && mv $@.tmp $@

$(BUILD)/policy/embed.o: policy/embed.S $(EMBED_SNAP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DEMBED_SNAPSHOT='"$(EMBED_SPLIT)"' -DEMBED_CODES='"$(EMBED_CODES)"' \
		-DEMBED_RULES='"$(EMBED_RULES)"' -c $< -o $@

$(POLICY_LIB): $(POLICY_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

all: $(POLICY_LIB)
