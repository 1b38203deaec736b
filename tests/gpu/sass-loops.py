#!/usr/bin/env python3
# tests/gpu/sass-loops.py: instructions per pixel in the backprojection kernels' pulse loops.
# SPDX-License-Identifier: GPL-3.0-or-later
#
#   cuobjdump -sass libef-compute-cuda.a > bp.sass
#   python3 tests/gpu/sass-loops.py bp.sass [NAME-SUBSTRING]...
#
# For each kernel whose mangled name holds one of the substrings (all kernels without any), finds the
# loops (backward branches) that contain MUFU.SIN, one per pixel and pulse in these kernels, and prints
# each loop's instruction count, the count per pixel and its most frequent instructions.
import re
import sys


def main():
    text = open(sys.argv[1]).read()
    want = sys.argv[2:]
    for m in re.finditer(r"Function : (\S+)\n(.*?)(?=\n\s*Function : |\Z)", text, re.S):
        name, body = m.group(1), m.group(2)
        if want and not any(w in name for w in want):
            continue
        ins = []
        for line in body.splitlines():
            mm = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
            if mm:
                ins.append((int(mm.group(1), 16), mm.group(2)))
        print(name, len(ins), "instructions")
        for addr, op in ins:
            b = re.search(r"\bBRA\b.*?0x([0-9a-f]+)", op)
            if not b or int(b.group(1), 16) >= addr:
                continue
            loop = [o for a, o in ins if int(b.group(1), 16) <= a <= addr]
            n_sin = sum("MUFU.SIN" in o for o in loop)
            if n_sin == 0:
                continue
            ops = {}
            for o in loop:
                k = re.sub(r"^@!?U?P\w+\s+", "", o).split()[0]
                ops[k] = ops.get(k, 0) + 1
            top = ", ".join("%s %d" % kv for kv in sorted(ops.items(), key=lambda kv: -kv[1])[:14])
            print("  loop %s-%x: %d instructions, %d pixels, %.2f a pixel; %s"
                  % (b.group(1), addr, len(loop), n_sin, len(loop) / n_sin, top))


if __name__ == "__main__":
    main()
