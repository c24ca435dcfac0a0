#!/usr/bin/env bash
# Runs one harness of io.pointsman.examples.bench (test scope of pointsman-examples) from the
# repository root; the remaining arguments go to the harness, e.g.
#   bash pointsman-examples/bench/run-bench.sh SlowlorisLatency --out=pointsman-examples/bench/slowloris
# Set MVN_OFFLINE=1 to build offline.
set -euo pipefail
cd "$(dirname "$0")/../.."
main="$1"
shift
mvn -B -q -ntp -pl pointsman-examples -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test ${MVN_OFFLINE:+-o}
CP="pointsman-examples/target/test-classes:pointsman-examples/target/classes:$(cat pointsman-examples/target/bench-classpath.txt)"
exec java -cp "$CP" "io.pointsman.examples.bench.$main" "$@"
