# policy/: the policy engine, built as build/libdcgpolicy.a
POLICY_SRCS := $(wildcard policy/*.c)
# Everything but the embedded default policy: what the build tool links.
POLICY_CORE_OBJS := $(filter-out $(BUILD)/policy/embedded.o,$(POLICY_SRCS:%.c=$(BUILD)/%.o))
POLICY_OBJS := $(POLICY_CORE_OBJS) $(BUILD)/policy/embedded.o $(BUILD)/policy/embed.o

# The embedded default policy: policy/default.yaml and the packs, one file per family
# (policy/packs/*.yaml, loaded after it in name order), checked (no diagnostic, every
# regex compiles) and turned into a portable snapshot at build time, then pulled
# into .rodata by embed.S.
POLICY_PACKS := $(sort $(wildcard policy/packs/*.yaml))
EMBED_TOOL := $(BUILD)/gen/embed_snapshot
EMBED_SNAP := $(BUILD)/gen/default.snap
EMBED_CODES := $(BUILD)/gen/default.codes
# The snapshot as the binaries embed it: pre-split (pol_snapshot_split), loaded in place.
EMBED_SPLIT := $(BUILD)/gen/default.split
# Its rules as a lazy load makes them, pointers as offsets (pol_snapshot_image).
EMBED_RULES := $(BUILD)/gen/default.rules
# The files' text, for the rules' examples (dcg packs --verbose, dcg rules lint).
EMBED_SOURCES := $(BUILD)/gen/default.src

$(EMBED_TOOL): $(BUILD)/policy/gen/embed_snapshot.o $(POLICY_CORE_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) $^ $(DEPS_LIBS) -o $@

$(EMBED_SNAP): policy/default.yaml $(POLICY_PACKS) $(EMBED_TOOL)
	@mkdir -p $(dir $@)
	$(EMBED_TOOL) $@.tmp $(EMBED_CODES).tmp $(EMBED_SPLIT).tmp $(EMBED_RULES).tmp \
		$(EMBED_SOURCES).tmp policy/default.yaml $(POLICY_PACKS)
	mv $(EMBED_CODES).tmp $(EMBED_CODES) && mv $(EMBED_SPLIT).tmp $(EMBED_SPLIT) && \
		mv $(EMBED_RULES).tmp $(EMBED_RULES) && \
		mv $(EMBED_SOURCES).tmp $(EMBED_SOURCES) && mv $@.tmp $@

$(BUILD)/policy/embed.o: policy/embed.S $(EMBED_SNAP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DEMBED_SNAPSHOT='"$(EMBED_SPLIT)"' -DEMBED_CODES='"$(EMBED_CODES)"' \
		-DEMBED_RULES='"$(EMBED_RULES)"' -DEMBED_SOURCES='"$(EMBED_SOURCES)"' -c $< -o $@

$(POLICY_LIB): $(POLICY_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

all: $(POLICY_LIB)
