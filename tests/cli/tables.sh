#!/bin/sh
# The lab's tables are the one copy (issue 42): `vmbench list --lab` prints
# their rows, and every list of them elsewhere (the README's and
# docs/methodology.md's lists of disk and NIC models, shares, profiles, back
# ends; the fuzz seeds that mean to use every model) is checked against it
# (tests/cli/check_tables.py says how).
. "$(dirname "$0")/lib.sh"

expect 0 "list --lab" "$VMB" list --lab
cp "$T/out" "$T/listing"
has "$T/listing" "  nic=pcnet " "the device models are listed, one a line"
has "$T/listing" "  disk=mptsas1068 " "a model of the last rows of the table is listed"
has "$T/listing" "vmw_pvscsi sd_mod" "a model's modules are listed"
has "$T/listing" "  nic      tap+vhost " "the back ends are listed"
has "$T/listing" "  image=debian-apps " "the images are listed"
has "$T/listing" "  cache=none,writeback,writethrough,directsync,unsafe (default none)" "a key's values, as a matrix gives them"
expect 0 "list still lists the suites without --lab" "$VMB" list
lacks "$T/out" "Device models" "list without --lab lists no lab table"

# check DESCRIPTION CHECK FILE ARGS...: one list of the docs against the listing
doc() {
	desc=$1
	shift
	check "$desc" python3 "$SRC/tests/cli/check_tables.py" "$T/listing" "$@"
}
R=$SRC/README.md
M=$SRC/docs/methodology.md
C=$SRC/tests/fuzz/corpus/matrix

doc "README lists every NIC model" list "$R" nic "a NIC ("
doc "README lists every disk model" list "$R" disk "controller ("
doc "README lists every share model" list "$R" share
doc "README lists every filesystem" list "$R" fs
doc "README lists every profile" list "$R" profile
doc "README lists both architectures" list "$R" arch
doc "README's KEY=V1,V2 lists and --matrix examples name keys and values that exist" valid "$R"
doc "methodology lists every disk model (Disk models)" words "$M" disk "**Disk models.** Beside" \
	"the key \`disk\` takes" "| \`disk=\` |"
doc "methodology lists every share model (the share key)" words "$M" share "The matrix key \`share\` (" ")"
doc "methodology lists every profile (Profiles)" words "$M" profile "**Profiles.**" "(default" "| \`profile=\` |"
doc "methodology lists every cache mode" list "$M" cache
doc "methodology's table of NIC back ends is LAB_BACKENDS' (The network path)" backends "$M" nic "| back end |"
doc "methodology's KEY=V1,V2 lists and --matrix examples name keys and values that exist" valid "$M"
doc "fuzz seed every-nic has every NIC model" list "$C/every-nic" nic
doc "fuzz seed every-disk has every disk model" list "$C/every-disk" disk
finish
