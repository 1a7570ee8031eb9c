//! RNG benches: `fill_bytes` (1 KiB, 64 KiB), `next_u32`, `next_u64`.
//!
//! Only the peer baseline for now, `rand_chacha` 0.10's ChaCha8/12/20 RNGs: this
//! workspace's `chacha-rng` does not exist yet. When it lands, its RNGs join each group
//! under `Backend::name()` ids, like `apply_keystream`.
//!
//! Ids: `<Rng>/fill_bytes/rand_chacha-0.10/<bytes>`, `<Rng>/next_u32/rand_chacha-0.10`,
//! `<Rng>/next_u64/rand_chacha-0.10`; throughput in bytes (4 per `next_u32`, 8 per
//! `next_u64`).
#![forbid(unsafe_code)]

mod common;

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_core::{Rng, SeedableRng};

use common::Meter;

const PEER: &str = "rand_chacha-0.10";

fn bench_rng<R: Rng + SeedableRng<Seed = [u8; 32]>>(c: &mut Criterion<Meter>, name: &str) {
    let mut group = c.benchmark_group(format!("{name}/fill_bytes"));
    for size in [1024usize, 64 * 1024] {
        let mut rng = R::from_seed(chacha_bench::KEY);
        let mut buf = vec![0u8; size];
        group.throughput(Throughput::Bytes(size as u64));
        group
            .bench_function(BenchmarkId::new(PEER, size), |b| b.iter(|| rng.fill_bytes(black_box(&mut buf))));
    }
    group.finish();

    let mut group = c.benchmark_group(format!("{name}/next_u32"));
    let mut rng = R::from_seed(chacha_bench::KEY);
    group.throughput(Throughput::Bytes(4));
    group.bench_function(PEER, |b| b.iter(|| rng.next_u32()));
    group.finish();

    let mut group = c.benchmark_group(format!("{name}/next_u64"));
    let mut rng = R::from_seed(chacha_bench::KEY);
    group.throughput(Throughput::Bytes(8));
    group.bench_function(PEER, |b| b.iter(|| rng.next_u64()));
    group.finish();
}

fn rngs(c: &mut Criterion<Meter>) {
    bench_rng::<rand_chacha::ChaCha8Rng>(c, "ChaCha8Rng");
    bench_rng::<rand_chacha::ChaCha12Rng>(c, "ChaCha12Rng");
    bench_rng::<rand_chacha::ChaCha20Rng>(c, "ChaCha20Rng");
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = rngs
}
criterion_main!(benches);
