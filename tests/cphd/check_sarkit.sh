#!/usr/bin/env bash
# check_sarkit.sh: writes small CPHD files with Echoform and checks them with sarkit's cphdcheck --thorough.
# SPDX-License-Identifier: GPL-3.0-or-later
# Usage: check_sarkit.sh PATH/TO/cphd-write-demo [PYTHON]
# Exit 0: cphdcheck ran on every file written and passed each (exit status 0, no [Error] line); 1: a file
# failed, the checker itself failed (a traceback, a bad option), or no file was checked; 77: sarkit is
# missing.
set -u

demo=${1:?usage: check_sarkit.sh PATH/TO/cphd-write-demo [PYTHON]}
python=${2:-python3}

if ! "$python" -c "import sarkit.verification" >/dev/null 2>&1; then
  echo "sarkit is not installed (pip install sarkit==1.8.1); skipping the cphdcheck test"
  exit 77
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/cphd-check-XXXXXX")
trap 'rm -rf "$dir"' EXIT

if ! "$demo" write "$dir" >"$dir/written.txt"; then
  echo "FAIL: cphd-write-demo failed"
  exit 1
fi

status=0
checked=0
while IFS= read -r file; do
  [ -n "$file" ] || continue
  if [ ! -s "$file" ]; then
    echo "FAIL: $file was listed but not written"
    status=1
    continue
  fi
  # cphdcheck lives in the same environment as the module; run it through that interpreter. Its exit
  # status is non-zero when a check fails and when it cannot run at all (an exception is a traceback
  # and status 1), so the status decides, not only what it prints.
  out=$("$python" -c "import sys; from sarkit.verification._cphdcheck import main; sys.exit(int(main()))" \
        "$file" --thorough -v --no-color 2>&1)
  rc=$?
  errors=$(printf '%s\n' "$out" | grep -c '\[Error\]')
  warnings=$(printf '%s\n' "$out" | grep -c '\[Warning\]')
  checked=$((checked + 1))
  echo "$(basename "$file"): cphdcheck exit $rc, $errors errors, $warnings warnings"
  if [ -n "$out" ]; then
    printf '%s\n' "$out" | sed 's/^/    /'
  fi
  if [ "$rc" -ne 0 ] || [ "$errors" -ne 0 ]; then
    echo "FAIL: $(basename "$file")"
    status=1
  fi
done <"$dir/written.txt"

if [ "$checked" -eq 0 ]; then
  echo "FAIL: cphd-write-demo listed no file, so nothing was checked"
  exit 1
fi
echo "$checked files checked"
exit $status
