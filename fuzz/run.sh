#!/usr/bin/env bash
# Usage: ./run.sh TARGET SECONDS — one niced libFuzzer job on TARGET for SECONDS, from its own folder
# logs/TARGET-SECONDS/ (libFuzzer writes its job log, fuzz-0.log, to the current folder, so two
# targets may run at once). The whole output: logs/TARGET-SECONDS.log. An input taking over 10 s
# is a finding (timeout-… in artifacts/TARGET/).
set -euo pipefail
fuzz=$(cd "$(dirname "$0")" && pwd)
target=$1 seconds=$2
dict=$fuzz/dicts/json.dict
[ "$target" = yaml_cases ] && dict=$fuzz/dicts/yaml.dict
mkdir -p "$fuzz/logs/$target-$seconds"
cd "$fuzz/logs/$target-$seconds"
exec nice -n 19 cargo +nightly fuzz run --fuzz-dir "$fuzz" -s none "$target" -- \
    -max_total_time="$seconds" -jobs=1 -timeout=10 -dict="$dict" > "$fuzz/logs/$target-$seconds.log" 2>&1
