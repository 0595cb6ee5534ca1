/* The embedded default policy: the portable snapshot of policy/default.yaml made at
 * build time, pre-split (EMBED_SNAPSHOT names the file, see pol_snapshot_split()), as
 * bytes in .rodata. Its rule image comes first and the split form right after it: a
 * hook call's load reads the image's head and tail and the split form's head and a
 * few of its records, which then lie in two 64 KiB windows of the page cache's fault-
 * around, not three or four; the regex codes, read at the first regex, come last. */
	.section .rodata
	/* Its rule image (EMBED_RULES, pol_snapshot_image()): 8-byte words and pointers.
	 * A build that does not name one (the SAN=1 preload's copy of this object) embeds
	 * none: its loads build the rules from the split form. */
	.global pol_embedded_rules
	.hidden pol_embedded_rules
	.balign 16
pol_embedded_rules:
#ifdef EMBED_RULES
	.incbin EMBED_RULES
#endif
	.global pol_embedded_rules_end
	.hidden pol_embedded_rules_end
pol_embedded_rules_end:
	.global pol_embedded_snapshot
	.hidden pol_embedded_snapshot
	.type pol_embedded_snapshot, @object
	.balign 16
pol_embedded_snapshot:
	.incbin EMBED_SNAPSHOT
	.byte 0
	.global pol_embedded_snapshot_end
	.hidden pol_embedded_snapshot_end
pol_embedded_snapshot_end:
	/* The same policy's regexes, compiled and serialized by PCRE2 (EMBED_CODES). */
	.global pol_embedded_codes
	.hidden pol_embedded_codes
	.balign 16
pol_embedded_codes:
	.incbin EMBED_CODES
	.global pol_embedded_codes_end
	.hidden pol_embedded_codes_end
pol_embedded_codes_end:
	/* The policy files' text (EMBED_SOURCES: each name and text ended by a NUL, the
	 * list by an empty name), read only for the rules' examples (dcg packs --verbose,
	 * dcg rules lint): last, where no decision's page lies. A build that names none
	 * (the SAN=1 preload's copy) embeds an empty list. */
	.global pol_embedded_sources
	.hidden pol_embedded_sources
pol_embedded_sources:
#ifdef EMBED_SOURCES
	.incbin EMBED_SOURCES
#endif
	.byte 0
	.global pol_embedded_sources_end
	.hidden pol_embedded_sources_end
pol_embedded_sources_end:
	.section .note.GNU-stack,"",@progbits
