//! `wasm-bench/ab.sh`'s program: two versions of `chacha-backends/src/simd128.rs` (`base`,
//! a revision's, and `work`, the working tree's) compiled as two modules of one wasm32
//! program, their kernels timed call by call, interleaved, under Node. Prints per workload
//! both medians and the per-round ratio base/work (above 1: the working tree is faster).
#![allow(dead_code, unused_imports, missing_docs, unexpected_cfgs)]

// Each tree's `simd128.rs`, and its `rows128.rs` (the row-layout output `simd128.rs` takes
// as `super::rows128`; empty for revisions before it), in `src/base/` and `src/work/`.
// The output cursor of both versions (`crate::cursor`), the working tree's.
mod cursor;

mod base {
    pub mod rows128;
    pub mod simd128;
    pub use simd128::Simd128;
}
mod work {
    pub mod rows128;
    pub mod simd128;
    pub use simd128::Simd128;
}

use std::hint::black_box;
use std::time::Instant;

use chacha_core::{Ietf, Kernel, R8, R20, Rounds, State, XorBuf};

const KEY: [u8; 32] = [7; 32];
const NONCE: [u8; 12] = [1; 12];

/// Seconds per call of `calls` calls of `len` bytes: on one state, or (`fresh`) a new
/// state per call.
fn time<K: Kernel, R: Rounds>(k: K, len: usize, fresh: bool, calls: usize, buf: &mut [u8]) -> f64 {
    let mut tail = [0u8; 64];
    let mut state = State::<Ietf>::new(&KEY, &NONCE);
    let start = Instant::now();
    for _ in 0..calls {
        if fresh {
            state = State::<Ietf>::new(black_box(&KEY), black_box(&NONCE));
        }
        state.xor::<R, _>(k, XorBuf::from(&mut buf[..len]), &mut tail).unwrap();
    }
    black_box(&tail);
    start.elapsed().as_secs_f64() / calls as f64
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(41);
    let (a, b) = (base::Simd128::detect().unwrap(), work::Simd128::detect().unwrap());
    for len in [1usize, 63, 64, 65, 200, 256, 257, 1000, 4096] {
        let (mut x, mut y, mut t) = (vec![3u8; len], vec![3u8; len], [0u8; 64]);
        State::<Ietf>::new(&KEY, &NONCE).xor::<R20, _>(a, XorBuf::from(&mut x[..]), &mut t).unwrap();
        State::<Ietf>::new(&KEY, &NONCE).xor::<R20, _>(b, XorBuf::from(&mut y[..]), &mut t).unwrap();
        assert_eq!(x, y, "base and work differ at {len} bytes");
    }
    println!("engine: {}", std::env::var("CHACHA_WASM_ENGINE").unwrap_or_default());
    let mut buf = vec![0u8; 16384];
    for (name, len, fresh, r8) in [
        ("ChaCha20 16 KiB", 16384, false, false),
        ("ChaCha8 16 KiB", 16384, false, true),
        ("ChaCha20 256 B", 256, false, false),
        ("ChaCha20 fresh 64 B", 64, true, false),
        ("ChaCha8 fresh 64 B", 64, true, true),
    ] {
        let calls = (400_000 / len).max(20) * if fresh { 10 } else { 1 };
        let run = |k: u8, buf: &mut [u8]| match (k, r8) {
            (0, false) => time::<_, R20>(a, len, fresh, calls, buf),
            (0, true) => time::<_, R8>(a, len, fresh, calls, buf),
            (_, false) => time::<_, R20>(b, len, fresh, calls, buf),
            (_, true) => time::<_, R8>(b, len, fresh, calls, buf),
        };
        let (mut ratios, mut ta, mut tb) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..=rounds {
            // The first round warms the engine up (V8 tiers hot functions up); the order
            // alternates.
            let (x, y) = if round % 2 == 0 {
                let x = run(0, &mut buf);
                (x, run(1, &mut buf))
            } else {
                let y = run(1, &mut buf);
                (run(0, &mut buf), y)
            };
            if round > 0 {
                ratios.push(x / y);
                ta.push(x);
                tb.push(y);
            }
        }
        for v in [&mut ratios, &mut ta, &mut tb] {
            v.sort_by(f64::total_cmp);
        }
        let n = ratios.len();
        let mbps = |t: f64| len as f64 / t / 1e6;
        println!(
            "{name:>20}: base {:6.0} MB/s  work {:6.0} MB/s  base/work p10 {:.3} med {:.3} p90 {:.3}",
            mbps(ta[n / 2]),
            mbps(tb[n / 2]),
            ratios[n / 10],
            ratios[n / 2],
            ratios[n * 9 / 10]
        );
    }
}
