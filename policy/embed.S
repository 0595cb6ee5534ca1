/* The embedded default policy: the portable snapshot of policy/default.yaml made at
 * build time (EMBED_SNAPSHOT names the file), as bytes in .rodata. */
	.section .rodata
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
	.section .note.GNU-stack,"",@progbits
