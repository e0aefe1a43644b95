#!/usr/bin/env bash
# The client adapter for the official MCP conformance suite (@modelcontextprotocol/conformance):
# the suite runs `client.sh URL` with MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_CONTEXT,
# MCP_CONFORMANCE_PROTOCOL_VERSION) in the environment. Each scenario becomes ordinary tooldeck
# commands and flags; tooldeck itself knows nothing of the scenarios. See README.md.
set -u

url="${!#}"
scenario="${MCP_CONFORMANCE_SCENARIO:-}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# The tooldeck to test: $TOOLDECK, else the repository's own build, else the one on PATH.
tooldeck="${TOOLDECK:-}"
for built in "$here/../target/release/tooldeck" "$here/../target/debug/tooldeck"; do
    [ -z "$tooldeck" ] && [ -x "$built" ] && tooldeck="$built"
done
tooldeck="${tooldeck:-tooldeck}"

# Each run signs in from scratch: tokens go to a store of its own, removed at the end.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export TOOLDECK_TOKENS="$scratch/tokens.json"
# The suite's authorization endpoint redirects at once: a "browser" that follows redirects
# brings the code back to tooldeck's loopback listener.
export BROWSER="$here/follow-redirect.sh"

server=(--mcp-url "$url" --timeout 20)
if [ -n "${MCP_CONFORMANCE_PROTOCOL_VERSION:-}" ]; then
    server+=(--protocol "$MCP_CONFORMANCE_PROTOCOL_VERSION")
fi

# A pre-registered client, when the scenario gives one.
context="${MCP_CONFORMANCE_CONTEXT:-}"
field() { printf '%s' "$context" | sed -n "s/.*\"$1\" *: *\"\([^\"]*\)\".*/\1/p"; }
signin=(--login --client-metadata-url https://conformance-test.local/client-metadata.json)
client_id="$(field client_id)"
client_secret="$(field client_secret)"
[ -n "$client_id" ] && signin+=(--client-id "$client_id")
[ -n "$client_secret" ] && signin+=(--client-secret "$client_secret")

# Lists the server's tools, then calls each with no arguments.
list_and_call() {
    local ids status=0
    ids="$("$tooldeck" list --ids "${server[@]}" "${signin[@]}")" || return $?
    for id in $ids; do
        "$tooldeck" call "$id" "${server[@]}" "${signin[@]}" "$@" || status=$?
    done
    return $status
}

case "$scenario" in
    initialize)
        "$tooldeck" list "${server[@]}"
        ;;
    tools_call)
        "$tooldeck" call add_numbers --arg a=2 --arg b=3 "${server[@]}"
        ;;
    elicitation-sep1034-client-defaults)
        "$tooldeck" call test_client_elicitation_defaults --elicit accept "${server[@]}"
        ;;
    json-schema-2020-12-preservation)
        # Echo back the input schema of one tool exactly as tooldeck read it.
        schema="$("$tooldeck" list --json "${server[@]}" | node -e '
            let text = ""; process.stdin.on("data", d => text += d).on("end", () => {
                const tool = JSON.parse(text).find(t => (t.name || t.id) === "json_schema_2020_12_tool");
                process.stdout.write(JSON.stringify(tool.inputSchema ?? tool.input_schema));
            });')" || exit 1
        "$tooldeck" call json_schema_echo --args-json "{\"schema\": $schema}" "${server[@]}"
        ;;
    http-custom-headers)
        # Values of every kind an x-mcp-header parameter may carry (SEP-2243).
        "$tooldeck" call test_custom_headers "${server[@]}" --no-validate --args-json '{
            "region": "us-west-2", "priority": 5, "verbose": false, "debug": true, "empty_val": "",
            "method_val": "GET", "float_val": 1.5, "non_ascii_val": "Zürich", "whitespace_val": " padded ",
            "leading_space_val": " lead", "trailing_space_val": "trail ", "internal_space_val": "a b c",
            "control_char_val": "bell\u0007", "crlf_val": "line\r\nnext", "tab_val": "\tindent", "query": "q"}'
        "$tooldeck" call test_custom_headers_null "${server[@]}" --no-validate \
            --args-json '{"region": "eu", "priority": 1, "verbose": null, "query": "q"}'
        ;;
    http-invalid-tool-headers)
        "$tooldeck" list "${server[@]}" && "$tooldeck" call valid_tool --arg region=us-east-1 "${server[@]}"
        ;;
    auth/*)
        list_and_call
        ;;
    *)
        list_and_call --elicit accept
        ;;
esac
