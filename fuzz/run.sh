#!/usr/bin/env bash
# Builds the libFuzzer target (fuzz/FuzzTarget.swift + the JSON parser + the engine) and runs
# it for FUZZ_SECONDS (default 30), with AddressSanitizer. `FUZZ_SECONDS=3600 fuzz/run.sh`
# for a long run. Exits non-zero on a crash; the reproducer is left in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${FUZZ_SECONDS:-30}
OUT=.build/fuzz
mkdir -p "$OUT" fuzz/corpus fuzz/artifacts
swiftc -sanitize=fuzzer,address -parse-as-library -O -g \
    Sources/JSON/JSONValue.swift Sources/JSON/JSONParser.swift Sources/JSON/JSONWriter.swift \
    Sources/ButtonEngine/*.swift fuzz/FuzzTarget.swift -o "$OUT/fuzz-buttond"
# Seeds: a few valid documents.
printf '{"id":"door","longPressMs":500,"faces":[{"label":"a"},{"label":"b"}]}' > fuzz/corpus/seed-button.json
printf '[{"button":"a","type":"down","t":1},{"button":"a","type":"up","t":20}]' > fuzz/corpus/seed-batch.json
"$OUT/fuzz-buttond" -max_total_time="$SECONDS_TO_RUN" -max_len=4096 -artifact_prefix=fuzz/artifacts/ \
    -print_final_stats=1 fuzz/corpus 2>&1 | tail -15
