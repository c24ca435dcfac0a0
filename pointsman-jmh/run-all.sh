#!/usr/bin/env bash
# Runs every per-stage JMH benchmark, one after another, writing JMH JSON and the raw text
# output under pointsman-jmh/results/<area>/, then regenerates docs/benchmarks.md from them.
# Takes about an hour on a 2-core machine; run it on a quiet machine. Usage (from the
# repository root): bash pointsman-jmh/run-all.sh [extra JMH options, e.g. -wi 1 -i 3]
set -euo pipefail
cd "$(dirname "$0")/.."
mvn -B -q -pl pointsman-jmh -am package -DskipTests
JAR=pointsman-jmh/target/benchmarks.jar
run() { # area name class [class options...]
  local area=$1 name=$2 cls=$3; shift 3
  mkdir -p "pointsman-jmh/results/$area"
  echo "== $cls -> results/$area/$name.json"
  java -jar "$JAR" "$cls" "$@" "${EXTRA[@]}" -rf json -rff "pointsman-jmh/results/$area/$name.json" \
    | tee "pointsman-jmh/results/$area/$name.txt"
}
EXTRA=("$@")
run pipeline pipeline GatewayPipelineBenchmark
run limits admission AdmissionBenchmark
run guardrail input-chain InputChainBenchmark
run guardrail literal-matcher LiteralMatcherBenchmark
run cache exact ExactCacheBenchmark
run cache embedding EmbeddingBenchmark
run cache index VectorIndexBenchmark
run router select RouterSelectBenchmark
run provider sse-parse SseParseBenchmark
run provider adapter-overhead AdapterOverheadBenchmark
java -cp "$JAR" io.pointsman.jmh.provider.AdapterInterleaved \
  | tee pointsman-jmh/results/provider/adapter-interleaved-run1.txt
run ledger settlement SettlementBenchmark
for t in 1 8 64 128; do run journal "journal-t$t-thrpt" JournalAppendBenchmark -t "$t" -bm thrpt; done
run journal journal-t1-sample JournalAppendBenchmark -t 1 -bm sample
java -cp "$JAR" io.pointsman.jmh.report.BenchmarkPage write
