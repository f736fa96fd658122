#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/FuzzTarget.swift: the JSON parser + the engine; fuzz/osc: the
# OSC decoder and stream framing) and runs
# it for FUZZ_SECONDS (default 30), with AddressSanitizer. `FUZZ_SECONDS=3600 fuzz/run.sh`
# for a long run. Exits non-zero on a crash; the reproducer is left in fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_TO_RUN=${FUZZ_SECONDS:-30}
OUT=.build/fuzz
mkdir -p "$OUT" fuzz/corpus fuzz/artifacts
# The engine without its rendering (EventJSON.swift, EventID.swift): those import JSON and
# Platform as modules, and this target builds JSON's sources and the engine's as one (it fuzzes
# the parser and the machines, not the rendering).
ENGINE=()
for f in Sources/ButtonEngine/*.swift; do
    case "$(basename "$f")" in EventJSON.swift | EventID.swift) ;; *) ENGINE+=("$f") ;; esac
done
swiftc -sanitize=fuzzer,address -parse-as-library -O -g -package-name buttond \
    Sources/JSON/*.swift \
    "${ENGINE[@]}" fuzz/FuzzTarget.swift -o "$OUT/fuzz-buttond"
# Seeds: a few valid documents.
printf '{"id":"door","longPressMs":500,"faces":[{"label":"a"},{"label":"b"}]}' > fuzz/corpus/seed-button.json
printf '[{"button":"a","type":"down","t":1},{"button":"a","type":"up","t":20}]' > fuzz/corpus/seed-batch.json
"$OUT/fuzz-buttond" -max_total_time="$SECONDS_TO_RUN" -max_len=4096 -artifact_prefix=fuzz/artifacts/ \
    -print_final_stats=1 fuzz/corpus 2>&1 | tail -15

# The OSC input path (fuzz/osc/FuzzOSC.swift): OSC, ThreadSupport and Platform built as
# modules with coverage, liblo linked; FUZZ_OSC_SECONDS (default 20).
F=(-sanitize=fuzzer,address -parse-as-library -O -g -wmo -package-name buttond)
swiftc "${F[@]}" -c -module-name Platform -emit-module -emit-module-path "$OUT/Platform.swiftmodule" \
    Sources/Platform/*.swift -o "$OUT/Platform.o"
clang -fsanitize=fuzzer-no-link,address -O1 -c Sources/CProcessShims/process_shims.c \
    -I Sources/CProcessShims/include -o "$OUT/process_shims.o"
printf 'module CProcessShims {\n    header "%s/Sources/CProcessShims/include/process_shims.h"\n    export *\n}\n' "$PWD" > "$OUT/module.modulemap"
swiftc "${F[@]}" -c -module-name ThreadSupport -I "$OUT" -emit-module -emit-module-path "$OUT/ThreadSupport.swiftmodule" \
    Sources/ThreadSupport/*.swift -o "$OUT/ThreadSupport.o"
swiftc "${F[@]}" -enable-testing -c -module-name OSC -I "$OUT" -I Sources/COSC -emit-module \
    -emit-module-path "$OUT/OSC.swiftmodule" Sources/OSC/*.swift -o "$OUT/OSC.o"
swiftc "${F[@]}" -I "$OUT" -I Sources/COSC fuzz/osc/FuzzOSC.swift "$OUT/OSC.o" "$OUT/ThreadSupport.o" \
    "$OUT/Platform.o" "$OUT/process_shims.o" -llo -o "$OUT/fuzz-osc" 2> >(grep -v 'Cannot export local symbol' >&2)
mkdir -p fuzz/corpus-osc
printf '/buttond/button/door\0\0\0\0,f\0\0?\x80\0\0' > fuzz/corpus-osc/seed-message
printf '#bundle\0\0\0\0\0\0\0\0\x01\0\0\0\x10/buttond/x\0\0,i\0\0\0\0\0\x01' > fuzz/corpus-osc/seed-bundle
"$OUT/fuzz-osc" -max_total_time="${FUZZ_OSC_SECONDS:-20}" -max_len=2048 -artifact_prefix=fuzz/artifacts/ \
    -print_final_stats=1 fuzz/corpus-osc fuzz/osc/regressions 2>&1 | tail -8
