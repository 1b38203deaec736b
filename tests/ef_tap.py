# ef_tap.py: what the echoform-cli Python tests share: running the program, and TAP lines for each check.
# SPDX-License-Identifier: GPL-3.0-or-later

import os
import subprocess

CLI = os.environ.get("EF_CLI", "echoform-cli")
_n_test = 0
_failed = 0


def run(*args):
    """echoform-cli with args: (exit status, standard output, standard error)."""
    p = subprocess.run([CLI] + list(args), capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    """One TAP line: ok when cond holds, not ok with detail otherwise."""
    global _n_test, _failed
    _n_test += 1
    if cond:
        print(f"ok {_n_test} {name}")
    else:
        _failed += 1
        print(f"not ok {_n_test} {name} {detail}")


def finish():
    """The TAP plan, and the exit status: 1 when any check failed."""
    print(f"1..{_n_test}")
    return 1 if _failed else 0
