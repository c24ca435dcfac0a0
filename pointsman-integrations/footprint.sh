#!/usr/bin/env bash
# What a user downloads, written to pointsman-integrations/footprint/ (docs/modules.md cites it):
#   runtime.tsv     per published artifact: the third-party jars a user's project gets with it
#                   (compile and runtime scope, optional dependencies left out) and their bytes
#   quickstart.tsv  the bytes a first run of README's quickstart puts into an empty local
#                   repository (needs Maven Central; skipped with --offline)
# Run from anywhere: bash pointsman-integrations/footprint.sh [--offline]
set -euo pipefail
cd "$(dirname "$0")/.."
out=pointsman-integrations/footprint
mkdir -p "$out"

modules=(pointsman-core pointsman-core/pointsman-core-testing pointsman-journal pointsman-ledger
  pointsman-ledger/pointsman-ledger-testing pointsman-cache pointsman-cache/pointsman-cache-semantic
  pointsman-cache/pointsman-redis pointsman-cache/pointsman-redis-testing pointsman-router)
list=$(IFS=,; echo "${modules[*]}")
# test-compile, not compile: pointsman-cache-semantic's tests use pointsman-cache's test-jar.
mvn -q -B -ntp -o -pl "$list" -am test-compile dependency:tree -Dscope=runtime \
  -DoutputFile=target/footprint-tree.txt
repo=${M2_REPO:-$HOME/.m2/repository}
python3 - "$repo" "${modules[@]}" > "$out/runtime.tsv" <<'PY'
import os, re, sys
repo, modules = sys.argv[1], sys.argv[2:]
print("artifact\tthird_party_jars\tbytes\tonnxruntime\tjedis")
for m in modules:
    lines = open(os.path.join(m, "target", "footprint-tree.txt")).read().splitlines()[1:]
    jars, skip_below = set(), None
    for line in lines:
        depth = len(re.match(r"^[| +\\-]*", line).group(0)) // 3
        if skip_below is not None and depth > skip_below:
            continue
        skip_below = None
        node = line[depth * 3:]
        if node.endswith("(optional)"):   # a user's project does not get optional dependencies
            skip_below = depth
            continue
        g, a, t, v = node.split(" ")[0].split(":")[:4]
        if g != "io.pointsman" and t == "jar":
            jars.add(os.path.join(repo, *g.split("."), a, v, f"{a}-{v}.jar"))
    size = sum(os.path.getsize(j) for j in jars)
    has = lambda word: "yes" if any(word in os.path.basename(j) for j in jars) else "no"
    print(f"{os.path.basename(m)}\t{len(jars)}\t{size}\t{has('onnxruntime')}\t{has('jedis')}")
PY
cat "$out/runtime.tsv"

if [ "${1:-}" != "--offline" ]; then
  repo=$(mktemp -d)
  trap 'rm -rf "$repo"' EXIT
  mvn -q -B -ntp -Dmaven.repo.local="$repo" -pl pointsman-examples -am compile exec:java > /dev/null
  printf 'command\tbytes\nmvn -q -B -pl pointsman-examples -am compile exec:java\t%s\n' \
    "$(du -sb "$repo" | cut -f1)" > "$out/quickstart.tsv"
  cat "$out/quickstart.tsv"
fi
