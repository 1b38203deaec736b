#!/usr/bin/env bash
# check_sarkit.sh: writes small CPHD files with Echoform and checks them with sarkit's cphdcheck --thorough.
# SPDX-License-Identifier: GPL-3.0-or-later
# Usage: check_sarkit.sh PATH/TO/cphd-write-demo [PYTHON]
# Exit 0: every file passes (warnings are listed); 1: cphdcheck found an error; 77: sarkit is missing.
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
  echo "cphd-write-demo failed"
  exit 1
fi

status=0
for file in $(cat "$dir/written.txt"); do
  # cphdcheck lives in the same environment as the module; run it through that interpreter.
  out=$("$python" -c "import sys; from sarkit.verification._cphdcheck import main; sys.exit(int(main()))" \
        "$file" --thorough -v 2>&1)
  errors=$(printf '%s\n' "$out" | grep -c '\[Error\]')
  warnings=$(printf '%s\n' "$out" | grep -c '\[Warning\]')
  echo "$(basename "$file"): $errors errors, $warnings warnings"
  if [ -n "$out" ]; then
    printf '%s\n' "$out" | sed 's/^/    /'
  fi
  if [ "$errors" -ne 0 ]; then
    status=1
  fi
done
exit $status
