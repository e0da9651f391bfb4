#!/usr/bin/env bash
# Smoke check of one lock driver against redis-servers this script starts
# itself on free loopback ports, and kills afterwards (trap).
#
#   drivers/smoke.sh FOLDER NAME [MODE]
#   drivers/smoke.sh drivers/redis-py redis-py
#   drivers/smoke.sh drivers/redis-py redis-py sentinel    # 1 master + 1 sentinel
#   drivers/smoke.sh drivers/redis-py redis-py cluster     # 3 masters, cluster mode
#   drivers/smoke.sh drivers/node-redlock node-redlock masters   # 3 independent masters
#   drivers/smoke.sh drivers/sesame-redlock sesame-redlock-using
#
# MODE defaults to single. Prints PASS/FAIL per check (drivers/smoke.py does
# the talking) and exits 1 when any failed. Needs redis-server and
# redis-cli on PATH, python3 (standard library only) and the driver's own
# runtime (make drivers installs those).
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 FOLDER NAME [single|masters|sentinel|cluster]" >&2
	exit 2
fi
FOLDER=$(cd "$1" && pwd)
NAME=$2
MODE=${3:-single}
HERE=$(cd "$(dirname "$0")" && pwd)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

TMP=$(mktemp -d /tmp/lockbench-smoke.XXXXXX)
PIDS="$TMP/pids"
: >"$PIDS"
cleanup() {
	# every process this script started: redis-servers, sentinels, drivers
	while read -r pid; do
		[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
	done <"$PIDS"
	if [ -n "${SMOKE_KEEP:-}" ]; then echo "kept $TMP" >&2; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free_port() {
	"$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# a free port P <= 55535 whose cluster bus port P+10000 is free too
free_cluster_port() {
	"$PY" -c '
import random, socket
while True:
    p = random.randrange(20000, 55000)
    try:
        for q in (p, p + 10000):
            s = socket.socket(); s.bind(("127.0.0.1", q)); s.close()
    except OSError:
        continue
    print(p); break'
}

# start_redis PORT [extra args...]: a throwaway redis-server on 127.0.0.1:PORT
start_redis() {
	local port=$1
	shift
	mkdir -p "$TMP/$port"
	redis-server --bind 127.0.0.1 --port "$port" --save '' --appendonly no --daemonize no \
		--dir "$TMP/$port" --logfile "$TMP/$port/log" "$@" &
	echo $! >>"$PIDS"
	disown $! 2>/dev/null || true
}

wait_ping() {
	local port=$1 i
	for i in $(seq 1 100); do
		if [ "$(redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null)" = PONG ]; then return 0; fi
		sleep 0.05
	done
	echo "redis-server on port $port did not answer" >&2
	return 1
}

MASTER_NAME=""
DATA=""
case "$MODE" in
single)
	P=$(free_port)
	start_redis "$P"
	wait_ping "$P"
	ADDRS="127.0.0.1:$P"
	;;
masters)
	ADDRS=""
	for _ in 1 2 3; do
		P=$(free_port)
		start_redis "$P"
		wait_ping "$P"
		ADDRS="${ADDRS:+$ADDRS,}127.0.0.1:$P"
	done
	;;
sentinel)
	P=$(free_port)
	start_redis "$P"
	wait_ping "$P"
	S=$(free_port)
	mkdir -p "$TMP/sentinel"
	cat >"$TMP/sentinel/sentinel.conf" <<EOF
bind 127.0.0.1
port $S
dir $TMP/sentinel
logfile $TMP/sentinel/log
sentinel monitor smoke 127.0.0.1 $P 1
EOF
	redis-server "$TMP/sentinel/sentinel.conf" --sentinel &
	echo $! >>"$PIDS"
	disown $! 2>/dev/null || true
	wait_ping "$S"
	ADDRS="127.0.0.1:$S"
	DATA="127.0.0.1:$P"
	MASTER_NAME=smoke
	;;
cluster)
	NODES=""
	for _ in 1 2 3; do
		P=$(free_cluster_port)
		start_redis "$P" --cluster-enabled yes --cluster-config-file "$TMP/$P/nodes.conf"
		wait_ping "$P"
		NODES="$NODES 127.0.0.1:$P"
	done
	# shellcheck disable=SC2086
	redis-cli --cluster create $NODES --cluster-replicas 0 --cluster-yes >"$TMP/cluster-create.log" 2>&1
	for _ in $(seq 1 100); do
		ok=1
		for n in $NODES; do
			redis-cli -h 127.0.0.1 -p "${n##*:}" cluster info 2>/dev/null | grep -q 'cluster_state:ok' || ok=0
		done
		[ $ok = 1 ] && break
		sleep 0.1
	done
	ADDRS=$(echo $NODES | tr ' ' ',')
	;;
*)
	echo "unknown mode $MODE" >&2
	exit 2
	;;
esac

echo "smoke: $NAME ($FOLDER) mode=$MODE redis=$ADDRS"
"$PY" "$HERE/smoke.py" "$FOLDER" "$NAME" "$MODE" "$ADDRS" "$MASTER_NAME" "$PIDS" "$DATA"
