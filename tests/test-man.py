#!/usr/bin/env python3
# test-man.py: the manual pages against the programs' --help, so that neither can drift from the other.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-man.py MAN_DIR [ECHOFORM]. EF_CLI names echoform-cli. Every option that `echoform-cli
# COMMAND --help` lists (short and long names) must be in that command's section of echoform-cli.1.scd,
# and every option the section lists must be in --help; likewise the command list, and echoform.1.scd
# against `echoform --help-all` when the desktop program is built. Where scdoc is installed each page must
# also convert. Exits 77 (skipped) when echoform-cli is missing.

import os
import re
import shutil
import subprocess
import sys

OPTION_LINE = re.compile(r"^\s{2,}(?:(-[A-Za-z?]), )?(--[A-Za-z0-9][A-Za-z0-9-]*)")
MAN_OPTION = re.compile(r"^\*(?:(-[A-Za-z?])\*, \*)?(--[A-Za-z0-9][A-Za-z0-9-]*)\*")

failures = 0
count = 0


def ok(cond, name, detail=""):
    global failures, count
    count += 1
    if cond:
        print(f"ok {count} - {name}")
    else:
        failures += 1
        print(f"not ok {count} - {name}")
        for line in detail.splitlines():
            print(f"# {line}")


def help_options(text):
    """Pairs (short or None, long) of the option lines in --help's "... Options:" sections."""
    opts = set()
    inside = False
    for line in text.splitlines():
        if re.match(r"^\S.*[Oo]ptions:?$", line):
            inside = True
            continue
        if not line.strip():
            inside = False
            continue
        if inside:
            m = OPTION_LINE.match(line)
            if m:
                opts.add((m.group(1), m.group(2)))
    return opts


def man_options(lines):
    return {(m.group(1), m.group(2)) for m in (MAN_OPTION.match(line) for line in lines) if m}


def sections(source, level):
    """The page's sections at a heading level ('#' or '##'): name -> its lines."""
    out, name = {}, None
    for line in source.splitlines():
        m = re.match(r"^(#+) (.+)$", line)
        if m and len(m.group(1)) <= len(level):
            name = m.group(2).strip() if m.group(1) == level else None
            if name is not None:
                out[name] = []
            continue
        if name is not None:
            out[name].append(line)
    return out


def describe(opts):
    return ", ".join(sorted((f"{s}, {l}" if s else l) for s, l in opts)) or "(none)"


def compare(name, from_help, from_man):
    ok(from_help == from_man, f"{name}: --help and the manual list the same options",
       f"only in --help: {describe(from_help - from_man)}\nonly in the manual: {describe(from_man - from_help)}")


def run_help(argv):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, LC_ALL="C.UTF-8"))
    return r.returncode, r.stdout


def main():
    if len(sys.argv) < 2:
        print("Bail out! usage: test-man.py MAN_DIR [ECHOFORM]")
        return 99
    man_dir = sys.argv[1]
    app = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
    cli = os.environ.get("EF_CLI")
    if not cli or not os.access(cli, os.X_OK):
        print("1..0 # SKIP EF_CLI does not name echoform-cli")
        return 77

    with open(os.path.join(man_dir, "echoform-cli.1.scd"), encoding="utf-8") as f:
        cli_src = f.read()
    rc, top = run_help([cli, "--help"])
    ok(rc == 0, "echoform-cli --help exits 0")
    listed = re.findall(r"^  ([a-z]+)\s{2,}\S", top.split("Commands:", 1)[-1], re.M)
    commands = [c for c in listed if c != "help"]
    ok(len(commands) >= 5, "echoform-cli --help lists its commands", top)
    top_sections = sections(cli_src, "#")
    man_commands = set(re.findall(r"^\*([a-z]+)\*", "\n".join(top_sections.get("COMMANDS", [])), re.M))
    ok(set(listed) == man_commands, "the manual's COMMANDS are --help's",
       f"--help: {sorted(listed)}\nmanual: {sorted(man_commands)}")
    subs = sections(cli_src, "##")
    ok(set(subs) == set(commands), "the manual has one section per command, and no other",
       f"sections: {sorted(subs)}\ncommands: {sorted(commands)}")
    for needed in ("EXIT STATUS", "EXAMPLES", "MPI"):
        ok(needed in top_sections, f"echoform-cli.1.scd has a {needed} section")
    # The exit codes the tool states in its --help are the ones the manual explains.
    codes = set(re.findall(r"(\d+) (?:on success|when|for bad)", top))
    man_codes = set(re.findall(r"^\*(\d+)\*$", "\n".join(top_sections.get("EXIT STATUS", [])), re.M))
    ok(codes and codes == man_codes, "the exit codes of --help are the manual's",
       f"--help: {sorted(codes)}\nmanual: {sorted(man_codes)}")

    for cmd in commands:
        rc, text = run_help([cli, cmd, "--help"])
        ok(rc == 0, f"echoform-cli {cmd} --help exits 0")
        from_help = help_options(text)
        ok(len(from_help) >= 2, f"{cmd}: --help lists options", text)
        compare(f"echoform-cli {cmd}", from_help, man_options(subs.get(cmd, [])))

    app_page = os.path.join(man_dir, "echoform.1.scd")
    with open(app_page, encoding="utf-8") as f:
        app_src = f.read()
    if app and os.access(app, os.X_OK):
        rc, text = run_help([app, "--help-all"])
        if rc == 0 and "Application Options" in text:
            compare("echoform", help_options(text), man_options(sections(app_src, "#").get("OPTIONS", [])))
        else:
            print(f"ok {count + 1} - echoform --help-all # SKIP it did not run here (status {rc})")
            globals()["count"] += 1
    # A build without the desktop program (-Dgui=disabled) has no echoform options to compare: its page is
    # only converted below.

    scdoc = shutil.which("scdoc")
    for page, src in (("echoform-cli.1.scd", cli_src), ("echoform.1.scd", app_src)):
        if scdoc is None:
            print(f"ok {count + 1} - {page} converts # SKIP scdoc is not installed")
            globals()["count"] += 1
            continue
        r = subprocess.run([scdoc], input=src, capture_output=True, text=True, timeout=60)
        ok(r.returncode == 0 and ".TH" in r.stdout, f"scdoc converts {page}", r.stderr)

    print(f"1..{count}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
