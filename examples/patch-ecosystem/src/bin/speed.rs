//! Speed of what a `rand` / `chacha20poly1305` user calls, in this build: `StdRng`
//! `fill_bytes` (64 KiB), `rand::rng()` drawing `u64`s, and `ChaCha20Poly1305` encryption
//! of 16 KiB and of 64 B (one message each, a new nonce per message as a protocol does).
//! Uses only `rand` and `chacha20poly1305`, so it builds with and without the patch;
//! `compare.sh` runs both builds in turn. Prints one `name ns-per-op` line per workload
//! (the median of 15 timed batches).

use std::hint::black_box;
use std::time::Instant;

use chacha20poly1305::ChaCha20Poly1305;
use chacha20poly1305::aead::{AeadInOut, KeyInit};
use rand::rngs::StdRng;
use rand::{Rng, RngExt, SeedableRng};

/// Median nanoseconds per call of `f` over 15 batches of `n` calls.
fn time(n: u32, mut f: impl FnMut()) -> f64 {
    for _ in 0..n {
        f(); // warm up
    }
    let mut batches: Vec<f64> = (0..15)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..n {
                f();
            }
            start.elapsed().as_nanos() as f64 / f64::from(n)
        })
        .collect();
    batches.sort_by(f64::total_cmp);
    batches[7]
}

fn main() {
    let mut std_rng = StdRng::from_seed([1; 32]);
    let mut buf = vec![0u8; 64 * 1024];
    println!("stdrng-fill-64k {:.1}", time(200, || std_rng.fill_bytes(black_box(&mut buf))));

    let mut thread = rand::rng();
    println!("thread-rng-u64 {:.2}", time(2_000_000, || {
        black_box(thread.random::<u64>());
    }));

    let aead = ChaCha20Poly1305::new(&[9; 32].into());
    let mut counter = 0u64;
    for (name, len, n) in [("aead-encrypt-16k", 16 * 1024, 2000), ("aead-encrypt-64", 64, 200_000)] {
        let mut msg = vec![0x5au8; len];
        let ns = time(n, || {
            counter += 1;
            let mut nonce = [0u8; 12];
            nonce[..8].copy_from_slice(&counter.to_le_bytes());
            let tag = aead.encrypt_inout_detached(&nonce.into(), b"", msg.as_mut_slice().into()).unwrap();
            black_box(tag);
        });
        println!("{name} {ns:.1}");
    }
}
