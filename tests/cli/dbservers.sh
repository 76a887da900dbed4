# Throwaway PostgreSQL and MariaDB servers for tests/cli/app.sh and
# bench/oltp-vs-sysbench.sh (sourced): data directories in new temporary
# directories, unix sockets only, run by an unprivileged user when the
# caller is root (CI), stopped and removed by db_stop_all.
#
# pg_start: sets pg_dir and pg_url (database vmb), or returns 1
# my_start: sets my_dir and my_url (database vmb), or returns 1
# pgq SQL / myq SQL: run SQL as the admin, in another database than vmb

db_as=""
[ "$(id -u)" -ne 0 ] || db_as="runuser -u nobody --"
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | tail -n 1)
pg_dir="" my_dir=""

pg_start() {
	[ -n "$pg_bin" ] && [ -x "$pg_bin/initdb" ] || return 1
	pg_dir=$(mktemp -d /tmp/vmbench-pg-XXXXXX)
	[ -z "$db_as" ] || chown nobody "$pg_dir"
	$db_as "$pg_bin/initdb" -D "$pg_dir/data" -U vmb --auth=trust -N >"$pg_dir/initdb.log" 2>&1 || return 1
	# autovacuum off: its transactions would count in the database's counters
	$db_as "$pg_bin/pg_ctl" -D "$pg_dir/data" -w -l "$pg_dir/log" -o "-c listen_addresses='' \
		-c unix_socket_directories=$pg_dir -c autovacuum=off -p 5432" start >/dev/null || return 1
	pgq "create database vmb" >/dev/null || return 1
	pg_url="postgresql:///vmb?host=$pg_dir&port=5432&user=vmb"
}

pgq() {
	psql=$pg_bin/psql
	[ -x "$psql" ] || psql=psql
	"$psql" "postgresql:///postgres?host=$pg_dir&port=5432&user=vmb" -Atc "$1"
}

my_start() {
	command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] || return 1
	PATH="$PATH:/usr/sbin"
	my_dir=$(mktemp -d /tmp/vmbench-my-XXXXXX)
	[ -z "$db_as" ] || chown nobody "$my_dir"
	$db_as mariadb-install-db --no-defaults --datadir="$my_dir/data" --auth-root-authentication-method=normal \
		--skip-test-db >"$my_dir/install.log" 2>&1 || return 1
	$db_as mariadbd --no-defaults --datadir="$my_dir/data" --socket="$my_dir/sock" --skip-networking \
		--pid-file="$my_dir/pid" --log-error="$my_dir/err" >/dev/null 2>&1 &
	# ready when it answers; bounded, and no sleep: each ping takes a few ms
	i=0
	until mariadb-admin --no-defaults -uroot --socket="$my_dir/sock" ping >/dev/null 2>&1; do
		i=$((i + 1))
		[ $i -lt 5000 ] || return 1
	done
	myq "create database vmb" || return 1
	my_url="mysql://root@localhost/vmb?socket=$my_dir/sock"
}

myq() {
	mariadb --no-defaults -uroot --socket="$my_dir/sock" -N -e "$1"
}

db_stop_all() {
	if [ -n "$pg_dir" ]; then
		$db_as "$pg_bin/pg_ctl" -D "$pg_dir/data" -m immediate stop >/dev/null 2>&1
		rm -rf "$pg_dir"
	fi
	if [ -n "$my_dir" ]; then
		if [ -s "$my_dir/pid" ]; then
			p=$(cat "$my_dir/pid")
			kill "$p" 2>/dev/null
			while kill -0 "$p" 2>/dev/null; do :; done
		fi
		rm -rf "$my_dir"
	fi
}
