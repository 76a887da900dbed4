/* The subcommands of vmbench, in the order `vmbench help` and the man page
 * list them (not the `list` command's header: the list of commands).
 * Adding a subcommand: one file src/cmd/NAME.c exporting `const struct
 * vmb_cmd cmd_NAME_desc` beside its NAME_opts[] table, one line here, one
 * line in meson.build. */
#define VMB_CMDS(X) \
	X(run) \
	X(list) \
	X(info) \
	X(results) \
	X(show) \
	X(compare) \
	X(calibrate) \
	X(report) \
	X(export) \
	X(import) \
	X(store) \
	X(agent) \
	X(serve) \
	X(lab) \
	X(help)
