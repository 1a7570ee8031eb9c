//! `apply_keystream` for ChaCha8/12/20, XChaCha20 and ChaCha20Legacy: ours on every
//! backend of `Backend::available()`, and every peer that offers the variant and runs in
//! this process (OpenSSL and libsodium where their library loads; the report alone has the
//! peers that need a second process: OpenSSL's AVX2 path, the published crate's AVX-512
//! build).
//!
//! Ids: `<Algorithm>/apply_keystream/<implementation>/<bytes>` for one instance streaming
//! message after message, and `<Algorithm>/new_apply/<implementation>/<bytes>` for a new
//! instance per message (key setup included). `<implementation>` is `Backend::name()` for
//! ours (`soft`, …) or the peer's label (`chacha20-0.10.2`, `c2-chacha-0.3`,
//! `openssl-3.0.19`, `libsodium-1.0.18`). Throughput is in bytes, so the cycles measurement reads as TSC
//! ticks per byte.
#![forbid(unsafe_code)]

mod common;

use std::hint::black_box;

use chacha_bench::{Algorithm, Backend, FRESH_SIZES, KEY, Peer, SIZES, cipher_implementations, nonce};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

use common::Meter;

/// Fewer samples for large messages, so each fits in the measuring time.
fn samples_for(size: usize) -> usize {
    if size >= 1 << 20 { 10 } else { 30 }
}

fn streaming(c: &mut Criterion<Meter>) {
    let backends: Vec<Backend> = Backend::available().collect();
    let peers = Peer::in_process_available();
    for variant in Algorithm::ALL {
        let impls = cipher_implementations(variant, &backends, &peers);
        let nonce = nonce(variant.nonce_len());
        let mut group = c.benchmark_group(format!("{}/apply_keystream", variant.title()));
        for &size in SIZES {
            group.throughput(Throughput::Bytes(size as u64)).sample_size(samples_for(size));
            for imp in &impls {
                let mut stream = imp.stream(&KEY, &nonce);
                let mut buf = vec![0u8; size];
                group.bench_function(BenchmarkId::new(&imp.name, size), |b| {
                    b.iter(|| stream.apply(black_box(&mut buf)))
                });
            }
        }
        group.finish();
    }
}

fn fresh_instance(c: &mut Criterion<Meter>) {
    let backends: Vec<Backend> = Backend::available().collect();
    let peers = Peer::in_process_available();
    for variant in Algorithm::ALL {
        let mut impls = cipher_implementations(variant, &backends, &peers);
        let nonce = nonce(variant.nonce_len());
        let mut group = c.benchmark_group(format!("{}/new_apply", variant.title()));
        for &size in FRESH_SIZES {
            group.throughput(Throughput::Bytes(size as u64));
            for imp in &mut impls {
                let mut buf = vec![0u8; size];
                let id = BenchmarkId::new(imp.name.clone(), size);
                group.bench_function(id, |b| {
                    b.iter(|| imp.fresh_once(black_box(&KEY), black_box(&nonce), black_box(&mut buf)))
                });
            }
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = streaming, fresh_instance
}
criterion_main!(benches);
