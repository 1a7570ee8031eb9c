#!/usr/bin/env node
// wasm-run.mjs PROGRAM.wasm [ARG...] — runs a wasm32-wasip1 program under Node's WASI
// (node:wasi, preview1) and exits with its exit code: the cargo runner for that target.
//
//   CARGO_TARGET_WASM32_WASIP1_RUNNER="node scripts/wasm-run.mjs" cargo test --target wasm32-wasip1 …
//
// (scripts/ci/wasm-test.sh sets it so, with an absolute path.) The program sees its
// arguments, the environment (plus CHACHA_WASM_ENGINE: the engine and its version, which
// wasm-bench prints) and the host's file system through one preopen, `/`, so absolute
// paths work (wasm-bench reads /proc/cpuinfo). WASI has no working directory: wasi-libc
// starts at `/`, and relative paths resolve from there, not from the package directory
// cargo runs a test in. (Preopening `.` as well does not help: with both, Node's WASI
// resolves either absolute or relative paths, whichever preopen came last.) Nothing in the
// library crates' tests opens a file; proptest only says it found no source file to keep
// failure seeds next to.
//
// Node prints an ExperimentalWarning for node:wasi; it is silenced here (the one warning we
// expect), every other warning still prints.
import { readFile } from 'node:fs/promises';
import process from 'node:process';

const emitWarning = process.emitWarning;
process.emitWarning = (warning, ...rest) => {
  const text = typeof warning === 'string' ? warning : warning?.message ?? '';
  if (/WASI/.test(text)) return;
  return emitWarning.call(process, warning, ...rest);
};
const { WASI } = await import('node:wasi');

const [program, ...args] = process.argv.slice(2);
if (!program) {
  console.error('usage: wasm-run.mjs PROGRAM.wasm [ARG...]');
  process.exit(2);
}

const wasi = new WASI({
  version: 'preview1',
  args: [program, ...args],
  // CHACHA_WASM_ENGINE names the engine for programs that report it (wasm-bench).
  // RUST_TEST_NOCAPTURE: a panic aborts on wasm32-wasip1, so output libtest captured for a
  // failing test would be lost with it, the panic message included (set it to 0 to capture).
  env: {
    RUST_TEST_NOCAPTURE: '1',
    ...process.env,
    CHACHA_WASM_ENGINE: `node ${process.version} (V8 ${process.versions.v8})`,
  },
  preopens: { '/': '/' },
  returnOnExit: true,
});
const module = await WebAssembly.compile(await readFile(program));
const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
let code;
try {
  code = wasi.start(instance);
} catch (e) {
  // A trap (`unreachable` after a panic with panic=abort, an out-of-bounds access): the
  // message has already been printed by the program's panic hook, if it had one.
  console.error(`wasm-run.mjs: ${program}: ${e instanceof WebAssembly.RuntimeError ? 'trap: ' : ''}${e.message}`);
  code = 134;
}
process.exit(code ?? 0);
