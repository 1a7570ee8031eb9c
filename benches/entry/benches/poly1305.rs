//! Poly1305 alone: a one-time key, a message of whole blocks, the tag. Ours through each
//! backend's `Aead::poly1305_blocks` (`Poly1305::update_with`), ours on the portable
//! 64-bit-limb step (`Poly1305::update`), and the published `poly1305` crate (its AVX2
//! backend where the CPU has AVX2).
//!
//! Ids: `poly1305/<implementation>/<bytes>`, `<implementation>` being `Backend::name()`,
//! `portable` or `poly1305-0.9.1`. Throughput is in bytes, so the cycles measurement reads
//! as TSC ticks per byte. The sizes step through a few blocks to find where a backend's
//! vector path starts to pay (`chacha-backends/DECISIONS.md`).
#![forbid(unsafe_code)]

mod common;

use std::hint::black_box;

use chacha_backends::chacha_core::poly1305::Poly1305;
use chacha_bench::{Backend, KEY};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use poly1305::universal_hash::KeyInit;

use common::Meter;

/// Message sizes in bytes, all whole blocks: 4 blocks to 16 KiB.
const SIZES: &[usize] = &[64, 128, 192, 256, 384, 512, 1024, 16 * 1024];

fn mac(c: &mut Criterion<Meter>) {
    let mut group = c.benchmark_group("poly1305");
    for &size in SIZES {
        let msg: Vec<u8> = (0..size).map(|i| (i as u8).wrapping_mul(13)).collect();
        group.throughput(Throughput::Bytes(size as u64));
        for backend in Backend::available() {
            group.bench_function(BenchmarkId::new(backend.name(), size), |b| {
                b.iter(|| {
                    let mut mac = Poly1305::new(black_box(&KEY));
                    mac.update_with(backend, black_box(&msg));
                    mac.tag()
                })
            });
        }
        group.bench_function(BenchmarkId::new("portable", size), |b| {
            b.iter(|| {
                let mut mac = Poly1305::new(black_box(&KEY));
                mac.update(black_box(&msg));
                mac.tag()
            })
        });
        group.bench_function(BenchmarkId::new("poly1305-0.9.1", size), |b| {
            b.iter(|| poly1305::Poly1305::new(black_box(&KEY.into())).compute_unpadded(black_box(&msg)))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = mac
}
criterion_main!(benches);
