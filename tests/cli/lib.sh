# Shared helpers for the CLI tests: each test script runs the real binary
# ($1) from the source tree ($2) in a private temporary directory and store.
set -u
VMB=$1
SRC=$2
T=$(mktemp -d /tmp/vmbench-cli-XXXXXX)
trap 'rm -rf "$T"' EXIT
export VMBENCH_DB="$T/results.db" HOME="$T" XDG_DATA_HOME="" XDG_STATE_HOME=""
unset NO_COLOR || true
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
# skip DESCRIPTION REASON: a check that cannot run here, shown as a TAP skip
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $1"; }

# expect CODE DESCRIPTION CMD...: run CMD, stdout in $T/out, stderr in $T/err
expect() {
	want=$1 desc=$2
	shift 2
	"$@" >"$T/out" 2>"$T/err" </dev/null
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		ok "$desc (exit $rc)"
	else
		not_ok "$desc: exit $rc, expected $want"
		sed 's/^/#   stderr: /' "$T/err" | head -5
	fi
}

# has FILE TEXT DESCRIPTION: FILE contains TEXT (fixed string)
has() {
	if grep -qF -- "$2" "$1"; then
		ok "$3"
	else
		not_ok "$3: '$2' not in $(basename "$1")"
		sed 's/^/#   /' "$1" | head -5
	fi
}

# lacks FILE TEXT DESCRIPTION
lacks() {
	if grep -qF -- "$2" "$1"; then
		not_ok "$3: '$2' found in $(basename "$1")"
	else
		ok "$3"
	fi
}

# shared_images ARCH...: make "$T/imgs" a link to this build's images.
# A guest test's lab runs find their images in "$T/imgs" (--image-dir).
# The images live in $(dirname "$VMB")/test-images, one set per build.
# They are built there first, under a lock, when they are not up to date.
# So the guest tests of one build boot the same images, built once,
# instead of one set each (3.6 s each on x86_64).
# Nothing writes there while a test runs: its lab runs find them up to date.
# When the build fails, "$T/imgs" stays the test's own, as before.
shared_images() {
	imgs="$(dirname "$VMB")/test-images"
	mkdir -p "$imgs" || return 0
	for a in "$@"; do
		if ! flock "$imgs.lock" "$VMB" lab image --arch "$a" --cache "$SRC/build-lab-cache" \
			--image-dir "$imgs/$a" >"$T/images.out" 2>&1; then
			sed 's/^/#   shared images: /' "$T/images.out" | tail -3
			return 0
		fi
	done
	[ -e "$T/imgs" ] || ln -s "$imgs" "$T/imgs"
}

# start_fake FD SCRIPT MODE: a fake server of tests/cli/ (net_fake.py,
# mc_fake.py) on a free port, its first line read through FD; sets FAKE
# (its PID) and PORT
start_fake() {
	rm -f "$T/fifo$1"
	mkfifo "$T/fifo$1"
	python3 "$SRC/tests/cli/$2" "$3" >"$T/fifo$1" 2>"$T/fake$1.err" &
	FAKE=$!
	eval "exec $1<\"\$T/fifo$1\""
	read -r -t 20 line <&"$1"
	PORT=${line##*:}
}

# tap_or_skip WHAT: tap needs a network namespace and /dev/net/tun; where
# they are refused the lab falls back to user networking and says so
# before anything runs: then WHAT is skipped and the script ends
tap_or_skip() {
	: >"$T/exists.html"
	"$VMB" lab run --matrix "accel=tcg nic=e1000" -o "$T/exists.html" --db "$T/none.db" 2>"$T/pick" </dev/null
	if ! grep -q "NICs on the tap" "$T/pick"; then
		skip "$1" "tap devices in a network namespace are not permitted here: $(cat "$T/pick")"
		finish
		exit $?
	fi
}

check() { # check DESCRIPTION CMD...
	desc=$1
	shift
	if "$@" >"$T/check.out" 2>&1; then
		ok "$desc"
	else
		not_ok "$desc"
		sed 's/^/#   /' "$T/check.out" | head -10
	fi
}

finish() {
	echo "1..$n"
	[ "$fails" -eq 0 ]
}
