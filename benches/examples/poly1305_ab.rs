//! Poly1305 alone, interleaved: ours on a backend's `poly1305_blocks`, ours on the
//! portable step and the published `poly1305` crate, a batch of each in turn, TSC ticks per
//! call (key, message of whole blocks, tag); prints min and median over the batches.
//! Where there is no TSC (not x86), nanoseconds instead of ticks.
//!
//! Decides a Poly1305 kernel's threshold and bulk speed on shared machines, where the
//! criterion bench (`entry/benches/poly1305.rs`) blurs small differences: every implementation
//! is timed in the same batches' turn.
//!
//! usage: cd benches && cargo run --release --example poly1305_ab -- BACKEND SIZES [BATCHES]
//! e.g.   cd benches && cargo run --release --example poly1305_ab -- avx2 64,1024,16384 300
use std::hint::black_box;

use chacha_backends::chacha_core::poly1305::Poly1305;
use chacha_bench::{Backend, KEY, cpu::tsc};
use poly1305::universal_hash::KeyInit;

/// TSC ticks, or nanoseconds since the first call where this build cannot read the TSC.
fn now() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    tsc().unwrap_or_else(|| START.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let backend = Backend::available().find(|b| b.name() == args[1]).expect("backend");
    let sizes: Vec<usize> = args[2].split(',').map(|s| s.parse().unwrap()).collect();
    let batches: usize = args.get(3).map_or(300, |s| s.parse().unwrap());
    println!("size,impl,min_ticks_per_call,median_ticks_per_call,min_ticks_per_byte");
    for size in sizes {
        let msg: Vec<u8> = (0..size).map(|i| (i as u8).wrapping_mul(13)).collect();
        let calls = (40_000 / size).max(4);
        let mut t = [vec![], vec![], vec![]];
        for _ in 0..batches {
            for (k, times) in t.iter_mut().enumerate() {
                let t0 = now();
                for _ in 0..calls {
                    let tag = match k {
                        0 => {
                            let mut mac = Poly1305::new(black_box(&KEY));
                            mac.update_with(backend, black_box(&msg));
                            mac.tag()
                        }
                        1 => {
                            let mut mac = Poly1305::new(black_box(&KEY));
                            mac.update(black_box(&msg));
                            mac.tag()
                        }
                        _ => poly1305::Poly1305::new(black_box(&KEY.into()))
                            .compute_unpadded(black_box(&msg))
                            .into(),
                    };
                    black_box(tag);
                }
                times.push((now() - t0) as f64 / calls as f64);
            }
        }
        for (k, name) in [backend.name(), "portable", "poly1305-0.9.1"].iter().enumerate() {
            let v = &mut t[k];
            v.sort_by(f64::total_cmp);
            println!("{size},{name},{:.0},{:.0},{:.3}", v[0], v[v.len() / 2], v[0] / size as f64);
        }
    }
}
