#!/usr/bin/env bash
# Compares JVM settings on the durable path: one OverheadHarness JVM per setting (the garbage
# collectors the JDK ships, default heap), each warmed, then bypass and exact hit at one rate
# and size in A B B A, with the JVM's safepoints and GC pauses recorded per window. Results go
# to pointsman-jmh/results/harness/jvm-<setting>/; BenchmarkPage renders them as one table.
# Run on a quiet machine from the repository root, after
#   mvn -B -q -pl pointsman-jmh -am package -DskipTests
# Usage: bash pointsman-jmh/jvm-choice.sh [rate] [size] [warm seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
RATE=${1:-500}
SIZE=${2:-150}
WARM=${3:-30}
JAR=pointsman-jmh/target/benchmarks.jar
declare -A FLAGS=(
  [g1]="-XX:+UseG1GC"
  [parallel]="-XX:+UseParallelGC"
  [serial]="-XX:+UseSerialGC"
  [zgc]="-XX:+UseZGC"
  [shenandoah]="-XX:+UseShenandoahGC"
)
for setting in ${SETTINGS:-g1 parallel serial zgc shenandoah}; do
  out=pointsman-jmh/results/harness/jvm-$setting
  rm -rf "$out"
  echo "== $setting (${FLAGS[$setting]}) -> $out"
  mkdir -p "$out"
  # shellcheck disable=SC2086
  java ${FLAGS[$setting]} -cp "$JAR" io.pointsman.jmh.harness.OverheadHarness \
    --paths=bypass,hit --rates="$RATE" --sizes="$SIZE" --transport=apache --warm="$WARM" \
    --warmup=2 --measure=8 --pauses --out="$out" > "$out/harness.log" 2>&1 || {
      tail -20 "$out/harness.log"; exit 1; }
  grep -E "ok .* err" "$out/harness.log"
done
