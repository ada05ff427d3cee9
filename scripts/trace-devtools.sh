#!/bin/sh
# A screenshot of a vsched trace in a real trace viewer: the Performance panel of Chromium's
# DevTools (shipped with Debian's chromium package, so it works offline), started headless on a
# throwaway profile and driven by trace-devtools.mjs over the DevTools protocol. Not run by
# make check; docs/trace-devtools-*.png were made with it (docs/trace.md).
# usage: scripts/trace-devtools.sh TRACE.json OUT.png [FROM_MS TO_MS]   (needs chromium, node)
set -eu
usage="usage: trace-devtools.sh TRACE.json OUT.png [FROM_MS TO_MS]"
trace=$(realpath "${1:?$usage}")
out=${2:?$usage}
from=${3:-0}
to=${4:-100}
here=$(cd "$(dirname "$0")" && pwd)
for tool in chromium node; do
	command -v $tool >/dev/null || { echo "trace-devtools.sh: $tool missing" >&2; exit 1; }
done
# node 22 has WebSocket; node 20 and 21 have it behind a flag.
node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null && flag= ||
	flag=--experimental-websocket
prof=$(mktemp -d)
chromium --headless --no-sandbox --user-data-dir="$prof" --no-first-run \
	--use-angle=swiftshader --enable-unsafe-swiftshader --remote-debugging-port=0 \
	about:blank >"$prof/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; sleep 0.5; rm -rf "$prof"' EXIT
# Chromium writes the port it chose to DevToolsActivePort in the profile.
i=0
until [ -s "$prof/DevToolsActivePort" ]; do
	i=$((i + 1))
	[ $i -le 100 ] ||
		{ cat "$prof/log" >&2; echo "trace-devtools.sh: chromium did not start" >&2; exit 1; }
	sleep 0.1
done
port=$(head -1 "$prof/DevToolsActivePort")
node $flag "$here/trace-devtools.mjs" "$port" "$trace" "$out" "$from" "$to"
