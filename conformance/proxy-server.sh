#!/usr/bin/env bash
# The official conformance suite's server scenarios against server-everything over Streamable
# HTTP, straight and through `tooldeck proxy --listen`: the two scores must be the same (the proxy
# passes every message unchanged). Needs Node 22+ (npx) and curl. See README.md.
#
#   conformance/proxy-server.sh            # prints both summaries and whether they match
#   SUITE=@modelcontextprotocol/conformance@0.2.0-alpha.12 conformance/proxy-server.sh
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tooldeck="${TOOLDECK:-}"
for built in "$here/../target/release/tooldeck" "$here/../target/debug/tooldeck"; do
    [ -z "$tooldeck" ] && [ -x "$built" ] && tooldeck="$built"
done
tooldeck="${tooldeck:-tooldeck}"
suite="${SUITE:-@modelcontextprotocol/conformance@0.2.0-alpha.12}"
everything="${EVERYTHING:-@modelcontextprotocol/server-everything}"
server_port="${SERVER_PORT:-3001}"
proxy_port="${PROXY_PORT:-3002}"

scratch="$(mktemp -d)"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$scratch"
}
trap cleanup EXIT

wait_for() { # URL: until it answers at all (any status), at most 30 s
    for _ in $(seq 300); do
        curl -s -o /dev/null "$1" && return 0
        sleep 0.1
    done
    echo "proxy-server.sh: $1 never answered" >&2
    exit 1
}

PORT="$server_port" npx -y "$everything" streamableHttp >"$scratch/everything.log" 2>&1 &
pids+=($!)
wait_for "http://127.0.0.1:$server_port/mcp"

"$tooldeck" proxy --listen "127.0.0.1:$proxy_port" --mcp-url "http://127.0.0.1:$server_port/mcp" \
    --record "$scratch/record.jsonl" 2>"$scratch/proxy.log" &
pids+=($!)
wait_for "http://127.0.0.1:$proxy_port/mcp"

run() { # NAME URL: the suite's server scenarios; its summary lines kept
    npx -y "$suite" server --url "$2" >"$scratch/$1.out" 2>&1
    echo "== $1 ($2): exit $?"
    # The suite's own summary: its last lines (a stack trace's lines would be minified code).
    tail -n 8 "$scratch/$1.out" | cut -c1-200
}
run straight "http://127.0.0.1:$server_port/mcp"
run proxied "http://127.0.0.1:$proxy_port/mcp"

summary() { grep -E "^ *(Passed|Failed|Total|Summary)" "$scratch/$1.out" | tail -3; }
if [ -z "$(summary straight)" ]; then
    echo "the suite gave no summary: see the output above"
    exit 1
elif [ "$(summary straight)" = "$(summary proxied)" ]; then
    echo "the same score straight and through the proxy ($(wc -l <"$scratch/record.jsonl") messages recorded)"
else
    echo "the scores differ: see above; the proxy's record is kept in $here/proxy-record.jsonl"
    cp "$scratch/record.jsonl" "$here/proxy-record.jsonl"
    exit 1
fi
