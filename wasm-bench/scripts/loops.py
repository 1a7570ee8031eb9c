#!/usr/bin/env python3
"""loops.py FILE.wat FUNC-SUBSTRING — the instructions of each loop of the functions whose
name contains FUNC-SUBSTRING, counted by opcode (a loop's count excludes its inner loops).

The wat is wasm2wat's flat text (Debian's `wabt`). Used for the instruction counts per
double round in chacha-backends/DECISIONS.md § simd128: the round loop of a kernel is the
loop whose body holds the rounds, its count divided by the double rounds per iteration
(one: the loop runs R::DOUBLE_ROUNDS times).
"""
import collections
import re
import sys

path, want = sys.argv[1], sys.argv[2]
funcs = []
cur = None
for line in open(path):
    m = re.match(r'\s*\(func \$(\S+)', line)
    if m:
        cur = (m.group(1), [])
        funcs.append(cur)
        continue
    if cur is not None:
        cur[1].append(line.strip())

for name, body in funcs:
    if want not in name:
        continue
    print(f'== {name}: {len(body)} lines')
    stack = []  # (kind, counter or None, start line)
    loops = []
    for i, ins in enumerate(body):
        op = ins.split()[0] if ins else ''
        if op in ('block', 'if'):
            stack.append(('block', None, i))
        elif op == 'loop':
            c = collections.Counter()
            stack.append(('loop', c, i))
        elif op == 'end':
            if stack:
                kind, c, start = stack.pop()
                if kind == 'loop':
                    loops.append((start, i, c))
        else:
            for kind, c, _ in reversed(stack):
                if kind == 'loop':
                    c[op] += 1
                    break
    for start, end, c in sorted(loops):
        total = sum(c.values())
        simd = {k: v for k, v in c.items() if re.match(r'(v128|i8x16|i16x8|i32x4|i64x2|u32x4)', k)}
        if total < 20:
            continue
        print(f'  loop at line {start}-{end}: {total} instructions, {sum(simd.values())} SIMD')
        for k, v in sorted(c.items(), key=lambda kv: -kv[1]):
            print(f'    {v:5d} {k}')
