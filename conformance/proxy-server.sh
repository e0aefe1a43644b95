#!/usr/bin/env bash
# The official conformance suite's server scenarios against server-everything over Streamable
# HTTP, straight and through `tooldeck proxy --listen --mcp-url`: the two scores must be the same
# (the proxy passes every message unchanged). Needs Node 22+ and curl. See README.md.
#
#   conformance/proxy-server.sh                  # the suite and the server through npx
#   MODULES=/path/node_modules conformance/proxy-server.sh   # both installed there already
#   NODE=/path/to/node22 conformance/proxy-server.sh
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
tooldeck="${TOOLDECK:-}"
for built in "$here/../target/debug/tooldeck" "$here/../target/release/tooldeck"; do
    [ -z "$tooldeck" ] && [ -x "$built" ] && tooldeck="$built"
done
tooldeck="${tooldeck:-tooldeck}"
node="${NODE:-node}"
modules="${MODULES:-}"
suite="${SUITE:-@modelcontextprotocol/conformance}"
everything="${EVERYTHING:-@modelcontextprotocol/server-everything}"
server_port="${SERVER_PORT:-3001}"
proxy_port="${PROXY_PORT:-3002}"

# The suite loads nothing on Node 20 (it imports fs.globSync, new in 22): it dies before its first
# scenario, which is why this script once ran none.
major="$("$node" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$major" -lt 22 ]; then
    echo "proxy-server.sh: the suite needs Node 22 or later ($node is $("$node" --version 2>/dev/null || echo missing)); set NODE" >&2
    exit 1
fi
export PATH="$(dirname "$(command -v "$node")"):$PATH"

# PACKAGE BIN ARGS...: a package's program, from $MODULES when given, else through npx.
js() {
    local package="$1" bin="$2"
    shift 2
    if [ -n "$modules" ]; then
        "$node" "$modules/$package/$bin" "$@"
    else
        npx -y "$package" "$@"
    fi
}

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

# Started as the background job itself (not inside a function's subshell), so that the kill on
# the way out reaches the server and not only a shell around it.
if [ -n "$modules" ]; then
    PORT="$server_port" "$node" "$modules/$everything/dist/index.js" streamableHttp >"$scratch/everything.log" 2>&1 &
else
    PORT="$server_port" npx -y "$everything" streamableHttp >"$scratch/everything.log" 2>&1 &
fi
pids+=($!)
wait_for "http://127.0.0.1:$server_port/mcp"

"$tooldeck" proxy --listen "127.0.0.1:$proxy_port" --mcp-url "http://127.0.0.1:$server_port/mcp" \
    --record "$scratch/record.jsonl" 2>"$scratch/proxy.log" &
pids+=($!)
wait_for "http://127.0.0.1:$proxy_port/mcp"

run() { # NAME URL: the suite's server scenarios, each scenario's line and the total kept
    js "$suite" dist/index.js server --url "$2" >"$scratch/$1.out" 2>&1
    local code=$?
    sed -n '/=== SUMMARY ===/,$p' "$scratch/$1.out" >"$scratch/$1.summary"
    echo "== $1 ($2): exit $code, $(grep -E '^Total:' "$scratch/$1.summary")"
}
run straight "http://127.0.0.1:$server_port/mcp"
run proxied "http://127.0.0.1:$proxy_port/mcp"

# Also: server-everything's stdio mode over HTTP through `proxy --listen -- COMMAND` (told, not
# compared: another transport of the server, and the proxy refuses other hosts and origins, which
# server-everything's own HTTP mode does not: dns-rebinding-protection passes there).
bridge_port="${BRIDGE_PORT:-3003}"
if [ -n "$modules" ]; then
    stdio=("$node" "$modules/$everything/dist/index.js" stdio)
else
    stdio=(npx -y "$everything" stdio)
fi
"$tooldeck" proxy --listen "127.0.0.1:$bridge_port" -- "${stdio[@]}" 2>"$scratch/bridge.log" &
pids+=($!)
wait_for "http://127.0.0.1:$bridge_port/mcp"
run stdio-over-http "http://127.0.0.1:$bridge_port/mcp"

if ! grep -q '^Total:' "$scratch/straight.summary"; then
    echo "the suite gave no summary:"
    tail -n 20 "$scratch/straight.out" | cut -c1-300
    exit 1
elif diff -u "$scratch/straight.summary" "$scratch/proxied.summary" >"$scratch/diff"; then
    cat "$scratch/straight.summary"
    echo "the same score, scenario by scenario, straight and through the proxy ($(wc -l <"$scratch/record.jsonl") messages recorded)"
else
    cat "$scratch/diff"
    echo "the scores differ; the proxy's record is kept in $here/proxy-record.jsonl"
    cp "$scratch/record.jsonl" "$here/proxy-record.jsonl"
    exit 1
fi
