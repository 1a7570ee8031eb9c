//! RNG benches: `fill_bytes` (1 KiB, 64 KiB), `next_u32`, `next_u64`, for ChaCha8/12/20:
//! this workspace's `chacha-rng` on every backend of `Backend::available()`, and the peers
//! `rand_chacha` 0.10 and the published `chacha20` 0.10.2 (`rng` feature).
//!
//! Ids: `<Rng>/fill_bytes/<implementation>/<bytes>`, `<Rng>/next_u32/<implementation>`,
//! `<Rng>/next_u64/<implementation>`, where `<implementation>` is `Backend::name()` for
//! ours, `rand_chacha-0.10` or `chacha20-0.10.2`; throughput in bytes (4 per `next_u32`,
//! 8 per `next_u64`), so the cycles measurement reads as TSC ticks per byte.
#![forbid(unsafe_code)]

mod common;

use std::hint::black_box;

use chacha_bench::{Backend, KEY};
use chacha_rng::{ChaChaRng, R8, R12, R20, Rounds};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rand_core::{Rng, SeedableRng};

use common::Meter;

/// Makes one generator per call, all with the same seed: ours on a backend, or a peer's.
type Make<G> = Box<dyn Fn() -> G>;

/// Every workload of one RNG for one implementation `name`.
fn bench_one<G: Rng>(c: &mut Criterion<Meter>, title: &str, name: &str, make: Make<G>) {
    let mut group = c.benchmark_group(format!("{title}/fill_bytes"));
    for size in [1024usize, 64 * 1024] {
        let mut rng = make();
        let mut buf = vec![0u8; size];
        group.throughput(Throughput::Bytes(size as u64));
        group
            .bench_function(BenchmarkId::new(name, size), |b| b.iter(|| rng.fill_bytes(black_box(&mut buf))));
    }
    group.finish();

    let mut group = c.benchmark_group(format!("{title}/next_u32"));
    let mut rng = make();
    group.throughput(Throughput::Bytes(4));
    group.bench_function(name, |b| b.iter(|| rng.next_u32()));
    group.finish();

    let mut group = c.benchmark_group(format!("{title}/next_u64"));
    let mut rng = make();
    group.throughput(Throughput::Bytes(8));
    group.bench_function(name, |b| b.iter(|| rng.next_u64()));
    group.finish();
}

fn seeded<G: SeedableRng<Seed = [u8; 32]> + 'static>() -> Make<G> {
    Box::new(|| G::from_seed(KEY))
}

/// Ours on every available backend, then the two peers.
fn bench_rng<R: Rounds, Peer1, Peer2>(c: &mut Criterion<Meter>, title: &str)
where
    Peer1: Rng + SeedableRng<Seed = [u8; 32]> + 'static,
    Peer2: Rng + SeedableRng<Seed = [u8; 32]> + 'static,
{
    for backend in Backend::available() {
        bench_one(c, title, backend.name(), Box::new(move || ChaChaRng::<R>::with_backend(KEY, backend)));
    }
    bench_one(c, title, "rand_chacha-0.10", seeded::<Peer1>());
    bench_one(c, title, "chacha20-0.10.2", seeded::<Peer2>());
}

fn rngs(c: &mut Criterion<Meter>) {
    bench_rng::<R8, rand_chacha::ChaCha8Rng, chacha20_published::ChaCha8Rng>(c, "ChaCha8Rng");
    bench_rng::<R12, rand_chacha::ChaCha12Rng, chacha20_published::ChaCha12Rng>(c, "ChaCha12Rng");
    bench_rng::<R20, rand_chacha::ChaCha20Rng, chacha20_published::ChaCha20Rng>(c, "ChaCha20Rng");
}

criterion_group! {
    name = benches;
    config = common::config();
    targets = rngs
}
criterion_main!(benches);
