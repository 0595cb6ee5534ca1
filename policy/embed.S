/* The embedded default policy: policy/default.yaml as bytes in .rodata. */
	.section .rodata
	.global pol_embedded_yaml
	.hidden pol_embedded_yaml
	.type pol_embedded_yaml, @object
	.balign 16
pol_embedded_yaml:
	.incbin "policy/default.yaml"
	.byte 0
	.global pol_embedded_yaml_end
	.hidden pol_embedded_yaml_end
pol_embedded_yaml_end:
	.section .note.GNU-stack,"",@progbits
