#!/usr/bin/env bash
# Fills corpus/<target>/ with starting inputs made from the repository's own files: the sample
# definitions (each with the prefix bytes its target reads first) and the demo case file.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/json5 corpus/yaml_cases corpus/definitions corpus/envelope corpus/form
for f in ../sample-tools/*/*.json*; do
    name=$(basename "$f")
    cp "$f" "corpus/json5/$name"
    # format byte 0x07: detected (7 % 8 is past the seven formats); name byte 0xC0 + n: meta check,
    # named by the user, .json (n = 0) or .json5 (n = 1).
    for n in 0 1; do { printf "\\x07\\x$(printf %02x $((0xC0 + n)))"; cat "$f"; } > "corpus/definitions/$n-$name"; done
done
{ printf '\x00'; cat ../tests/cases/demo.yaml; } > corpus/yaml_cases/demo.yaml
printf '\x00cases:\n  - tool: t\n    args: {a: 1}\n    expect: {status: value}\n' > corpus/yaml_cases/small.yaml
printf '\x02{"cases": [{"tool": "t", "expect": {"value": 1}}]}' > corpus/yaml_cases/flow.json
printf '\x00\x00\x00{"call_id": "c-1", "success": true, "value": {"n": 1}}' > corpus/envelope/otc-value.json
printf '\x00\x00\x00{"result": {"call_id": "c-1", "success": false, "error": {"message": "no"}}}' > corpus/envelope/otc-error.json
printf '\x00\x00\x00{"invocation_id": "c-1", "finished_at": "2024-01-01T00:00:00Z", "success": true, "output": {"artifact": {"url": "https://x", "content_type": "text/plain", "size": 1, "meta": {"description": "d"}}}}' > corpus/envelope/envelope.json
printf '\x00\x03\x00{"message": "bad", "parameter_errors": {"a": "no"}}' > corpus/envelope/422.json
printf '\x00\x00\x00{"content": [{"type": "text", "text": "{\\"a\\": 1}"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}], "isError": false}' > corpus/envelope/mcp.json
printf '\x00\x00\x03<html><title>Bad gateway</title></html>' > corpus/envelope/html
printf '{"type": "object", "properties": {"s": {"type": "string", "minLength": 1}, "n": {"type": ["integer", "null"]}, "o": {"oneOf": [{"type": "object", "properties": {"a": {"enum": [1, 2]}}}, {"type": "array", "items": {"$ref": "#/$defs/x"}}]}}, "required": ["s"], "$defs": {"x": {"type": "boolean"}}}\x00{"s": "x", "n": 3, "o": [true]}' > corpus/form/mixed.json
# Recursive schemas with a default, and a variant of itself: both once overflowed the stack.
printf '{"type": "object", "properties": {"p": {"$ref": "#/$defs/node"}}, "$defs": {"node": {"type": "object", "properties": {"q": {"$ref": "#/$defs/node"}}, "default": {"q": {}}}}}' > corpus/form/tree-default.json
printf '{"type": "object", "properties": {"p": {"$ref": "#/$defs/node"}}, "$defs": {"node": {"anyOf": [{"$ref": "#/$defs/node"}]}}}\x00{"p": {"x": [1]}}' > corpus/form/self-variant.json
for f in ../sample-tools/jsonschema/*.json; do cp "$f" "corpus/form/$(basename "$f")"; done
echo "seeded: $(find corpus -type f | wc -l) files"
