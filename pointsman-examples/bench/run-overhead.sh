#!/usr/bin/env bash
# The facade beside direct calls and beside Portkey's gateway on one loopback fixture
# (FacadeOverhead). Run from the repository root; arguments go to the harness, e.g.
#   bash pointsman-examples/bench/run-overhead.sh --rates=50,500,2000 --warmup=2 --measure=5
# Re-render the table from the committed runs.csv without load:
#   bash pointsman-examples/bench/run-overhead.sh --table
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ " $* " != *" --table "* ]]; then
  npm ci --prefix pointsman-jmh/portkey --no-audit --no-fund --silent
fi
mvn -B -q -ntp -pl pointsman-examples -am test-compile dependency:build-classpath \
  -Dmdep.outputFile=target/bench-classpath.txt -Dmdep.includeScope=test ${MVN_OFFLINE:+-o}
CP="pointsman-examples/target/test-classes:pointsman-examples/target/classes:$(cat pointsman-examples/target/bench-classpath.txt)"
exec java -cp "$CP" io.pointsman.examples.bench.FacadeOverhead \
  --out=pointsman-examples/bench/overhead "$@"
