#!/usr/bin/env bash
# The document is the single truth (issue 22): rename one response field of the real
# `openapi/v1.yaml` (Charge.amount_due → balance_due) in a copy of the repository, check it,
# and expect the build to fail where a handler writes that field.
#
#   bench/document_drift.sh        # prints the compiler's errors and PASS, or FAIL
#
# The copy is `git archive HEAD`, checked with the repository's own target directory (the
# dependencies are not built again).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=$(cd "$root" && cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
copy=$(mktemp -d)
trap 'rm -rf "$copy"' EXIT
git -C "$root" archive HEAD | tar -x -C "$copy"
python3 - "$copy/openapi/v1.yaml" <<'PY'
import sys
path = sys.argv[1]
lines = open(path).read().split("\n")
start = lines.index("    Charge:")
end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith("    ") and not lines[i].startswith("     "))
renamed = 0
for i in range(start, end):
    if lines[i].strip() in ("- amount_due", "amount_due:"):
        lines[i] = lines[i].replace("amount_due", "balance_due")
        renamed += 1
assert renamed == 2, f"expected the required entry and the property, renamed {renamed}"
open(path, "w").write("\n".join(lines))
PY
echo "renamed Charge.amount_due to balance_due in a copy of openapi/v1.yaml; cargo check ..."
if out=$(cd "$copy" && CARGO_TARGET_DIR="$target/document-drift" cargo check --locked -p kobana-dunning --lib --message-format short 2>&1); then
  echo "FAIL: the server still compiles with the field renamed"
  exit 1
fi
echo "$out" | grep -E "^(server|crates)/.*error" || true
if echo "$out" | grep -q "server/api/answers/wire.rs.*amount_due"; then
  echo "PASS: the build fails where the charge view writes amount_due (server/api/answers/wire.rs)"
else
  echo "FAIL: the build failed, but not at the charge view:"
  echo "$out" | tail -20
  exit 1
fi
