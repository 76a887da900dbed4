#!/bin/sh
# The man page is generated from the tables and committed: it must match.
. "$(dirname "$0")/lib.sh"

expect 0 "help --man" "$VMB" help --man
check "docs/vmbench.1 is up to date (regenerate: build/vmbench help --man > docs/vmbench.1)" \
	cmp -s "$T/out" "$SRC/docs/vmbench.1"
for opt in quick time warmup budget threads cpus repeat precision min-reps max-reps label json db no-store; do
	has "$T/out" "\\-\\-$(echo "$opt" | sed 's/-/\\-/g')" "man page documents --$opt"
done
has "$T/out" "\\-\\-cpu.max\\-prime" "man page documents suite options"
has "$T/out" ".SH EXIT STATUS" "man page has exit status"
finish
