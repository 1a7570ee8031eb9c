#!/usr/bin/env bash
# v8-code.sh FUNC-SUBSTRING [BENCH-ARGS...] — the x86-64 code V8's optimising compiler
# (TurboFan) made of the wasm-bench functions whose name contains FUNC-SUBSTRING, from
# node --print-wasm-code (Node's release builds carry V8's disassembler), and the hot loops
# in it: each backward jump's body with its instructions counted by mnemonic.
# Builds nothing: run wasm-bench/run.sh first.
set -euo pipefail
cd "$(dirname "$0")/../.."
want=${1:?usage: $0 FUNC-SUBSTRING [BENCH-ARGS...]}
shift
wasm=target/wasm-bench/wasm32-wasip1/release/chacha-wasm-bench.wasm
out=$(mktemp)
trap 'rm -f "$out"' EXIT
node --print-wasm-code scripts/wasm-run.mjs "$wasm" --quick "$@" >"$out" 2>&1
read -r -d '' py <<'PY' || true

import collections, re, sys
want = sys.argv[1]
cur, funcs = None, []
for line in sys.stdin:
    if line.startswith("name: "):
        cur = [line[6:].strip(), None, []]
        funcs.append(cur)
    elif cur is not None and line.startswith("compiler: "):
        cur[1] = line.split()[1]
    elif cur is not None:
        m = re.match(r"0x[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+(.*)$", line)
        if m:
            cur[2].append((int(m.group(1), 16), m.group(2).strip()))
for name, compiler, code in funcs:
    if want not in name or compiler != "TurboFan":
        continue
    print(f"== {name} ({compiler}, {len(code)} instructions)")
    for i, (off, ins) in enumerate(code):
        m = re.match(r"j\w+ 0x[0-9a-f]+\s+<\+0x([0-9a-f]+)>", ins)
        if not m or int(m.group(1), 16) >= off:
            continue
        start = int(m.group(1), 16)
        body = [x for o, x in code[: i + 1] if o >= start]
        if len(body) < 40:
            continue
        c = collections.Counter(re.sub(r"^REX\.W ", "", x).split()[0] for x in body)
        mem = sum(1 for x in body if "[" in x and x.split()[0].startswith("vmov"))
        print(f"  loop +0x{start:x}..+0x{off:x}: {len(body)} instructions, {mem} vector moves to or from memory")
        print("    " + ", ".join(f"{k} {v}" for k, v in c.most_common()))
PY
python3 -c "$py" "$want" <"$out"
