//! `chacha-wasm-bench`: our backends and the published `chacha20` crate, timed in one
//! WebAssembly program. Built for `wasm32-wasip1` with `+simd128` and run under Node's WASI
//! by `wasm-bench/run.sh` (which says how); it also builds and runs natively.
//!
//! Workloads (`--workloads chacha20,chacha8-new` picks some; `--quick`: fewer rounds,
//! shorter batches):
//! - `chacha20`, `chacha8`: one instance, `apply_keystream` on 64 B, 1 KiB and 16 KiB;
//! - `chacha20-new`, `chacha8-new`: a fresh 64-byte message, a new instance per message
//!   (`new`/`with_backend` + one `apply_keystream`), timed 100 messages per call;
//! - `chacha20-rng`, `chacha8-rng`: `fill_bytes` of 1 KiB and 16 KiB.
//!
//! Implementations: every backend of ours that `Backend::available()` returns (in a
//! `+simd128` build `simd128` and `soft`), each through the public fronts
//! (`chacha20::ChaCha20::with_backend`, `ChaChaRng::with_backend`), and the published
//! `chacha20` 0.10.2 built for the same target with the same flags.
//!
//! How it measures: first every implementation must give the same bytes for each
//! workload (the program stops otherwise). Then, per workload and size, each
//! implementation runs a batch of calls (about 2 ms, 0.5 ms with `--quick`) in turn, the
//! starting one rotating, for 31 rounds (9 with `--quick`), so a noisy machine or a
//! tiering engine hits all alike; after a warm-up round (V8 compiles with its baseline
//! compiler first and tiers up hot functions) it prints the median throughput across the
//! rounds, the min–max, and the ratios of each to `soft` and to the published crate.
//! The clock is WASI's monotonic clock (Node: `process.hrtime`, nanoseconds).

use std::hint::black_box;
use std::time::Instant;

use chacha20::rand_core::{Rng, SeedableRng};
use chacha20::{Backend, ChaCha8, ChaCha8Rng, ChaCha20, ChaCha20Rng, KeyIvInit, StreamCipher};

const KEY: [u8; 32] = [
    0x1f, 0x2e, 0x3d, 0x4c, 0x5b, 0x6a, 0x79, 0x88, 0x97, 0xa6, 0xb5, 0xc4, 0xd3, 0xe2, 0xf1, 0x00, 0x0f,
    0x1e, 0x2d, 0x3c, 0x4b, 0x5a, 0x69, 0x78, 0x87, 0x96, 0xa5, 0xb4, 0xc3, 0xd2, 0xe1, 0xf0,
];
const NONCE: [u8; 12] = [0x00, 0x00, 0x00, 0x09, 0x00, 0x00, 0x00, 0x4a, 0x00, 0x00, 0x00, 0x07];
/// Messages per call of the fresh-message workloads.
const FRESH_BATCH: usize = 100;
const FRESH_LEN: usize = 64;
/// The peer's name in the table.
const PUBLISHED: &str = "chacha20-0.10.2";

/// One call of a workload: processes the buffer (its length is the size).
type Op = Box<dyn FnMut(&mut [u8])>;

/// An implementation of one workload.
struct Racer {
    name: String,
    op: Op,
}

/// A workload at one size: bytes per call and how to make a fresh racer set.
struct Workload {
    name: &'static str,
    size: usize,
    /// Bytes a call processes (the fresh workloads: `FRESH_BATCH` messages).
    bytes_per_call: usize,
    make: fn(usize) -> Vec<Racer>,
}

/// The racers of a workload: `$ours` makes the op of our front on backend `$b`, for every
/// backend `Backend::available()` returns, `$published` the published crate's.
macro_rules! racers {
    (|$b:ident| $ours:expr, $published:expr) => {
        |_size| {
            let mut racers: Vec<Racer> = Backend::available()
                .map(|$b| Racer { name: $b.name().into(), op: Box::new($ours) })
                .collect();
            racers.push(Racer { name: PUBLISHED.into(), op: Box::new($published) });
            racers
        }
    };
}

/// One instance per racer, `apply_keystream` on the whole buffer per call.
macro_rules! cipher_racers {
    ($ours:ident, $published:path) => {
        racers!(
            |backend| {
                let mut c = $ours::with_backend(&KEY, &NONCE, backend);
                move |buf: &mut [u8]| c.apply_keystream(black_box(buf))
            },
            {
                let mut c = <$published>::new(&KEY.into(), &NONCE.into());
                move |buf: &mut [u8]| c.apply_keystream(black_box(buf))
            }
        )
    };
}

/// A new instance per 64-byte message, `FRESH_BATCH` messages per call (the buffer holds
/// them one after the other).
macro_rules! fresh_racers {
    ($ours:ident, $published:path) => {
        racers!(
            |backend| move |buf: &mut [u8]| {
                for msg in buf.chunks_exact_mut(FRESH_LEN) {
                    let mut c = $ours::with_backend(black_box(&KEY), black_box(&NONCE), backend);
                    c.apply_keystream(black_box(msg));
                }
            },
            |buf: &mut [u8]| {
                for msg in buf.chunks_exact_mut(FRESH_LEN) {
                    let mut c = <$published>::new(black_box(&KEY).into(), black_box(&NONCE).into());
                    c.apply_keystream(black_box(msg));
                }
            }
        )
    };
}

/// One generator per racer, `fill_bytes` of the whole buffer per call.
macro_rules! rng_racers {
    ($ours:ident, $published:path) => {
        racers!(
            |backend| {
                let mut r = $ours::with_backend(KEY, backend);
                move |buf: &mut [u8]| r.fill_bytes(black_box(buf))
            },
            {
                let mut r = <$published>::from_seed(KEY);
                move |buf: &mut [u8]| r.fill_bytes(black_box(buf))
            }
        )
    };
}

fn workloads() -> Vec<Workload> {
    type Make = fn(usize) -> Vec<Racer>;
    const SIZES: &[usize] = &[64, 1024, 16 * 1024];
    const FILLS: &[usize] = &[1024, 16 * 1024];
    let table: [(&str, &[usize], Make); 6] = [
        ("chacha20", SIZES, cipher_racers!(ChaCha20, chacha20_published::ChaCha20)),
        ("chacha8", SIZES, cipher_racers!(ChaCha8, chacha20_published::ChaCha8)),
        ("chacha20-new", &[FRESH_LEN], fresh_racers!(ChaCha20, chacha20_published::ChaCha20)),
        ("chacha8-new", &[FRESH_LEN], fresh_racers!(ChaCha8, chacha20_published::ChaCha8)),
        ("chacha20-rng", FILLS, rng_racers!(ChaCha20Rng, chacha20_published::ChaCha20Rng)),
        ("chacha8-rng", FILLS, rng_racers!(ChaCha8Rng, chacha20_published::ChaCha8Rng)),
    ];
    let mut w = Vec::new();
    for (name, sizes, make) in table {
        for &size in sizes {
            let bytes_per_call = if name.ends_with("-new") { FRESH_LEN * FRESH_BATCH } else { size };
            w.push(Workload { name, size, bytes_per_call, make });
        }
    }
    w
}

/// Every racer of `w` gives the same bytes: three calls from a fresh set, on a buffer of
/// the workload's size (so chunked output is compared too).
fn check(w: &Workload) {
    let mut outputs = Vec::new();
    for mut r in (w.make)(w.size) {
        let mut all = Vec::new();
        for call in 0..3u8 {
            let mut buf: Vec<u8> = (0..w.bytes_per_call).map(|i| (i as u8) ^ call).collect();
            (r.op)(&mut buf);
            all.extend_from_slice(&buf);
        }
        outputs.push((r.name, all));
    }
    let (first, want) = &outputs[0];
    for (name, got) in &outputs[1..] {
        assert!(got == want, "{} {} B: {name} and {first} give different bytes", w.name, w.size);
    }
}

/// Median of a non-empty list.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The figures of one racer at one workload and size: MB/s (10^6 B/s) per round.
struct Figures {
    name: String,
    mbps: Vec<f64>,
}

fn measure(w: &Workload, rounds: usize, batch_seconds: f64) -> Vec<Figures> {
    let mut racers = (w.make)(w.size);
    let mut buf = vec![0x5au8; w.bytes_per_call];
    // Calls per batch, each racer its own, from a calibration run (also a first warm-up).
    let calls: Vec<usize> = racers
        .iter_mut()
        .map(|r| {
            let start = Instant::now();
            let mut n = 0usize;
            while start.elapsed().as_secs_f64() < batch_seconds {
                (r.op)(&mut buf);
                n += 1;
            }
            n.max(1)
        })
        .collect();
    let mut figures: Vec<Figures> =
        racers.iter().map(|r| Figures { name: r.name.clone(), mbps: Vec::new() }).collect();
    let n = racers.len();
    // Round 0 is the warm-up (not kept).
    for round in 0..=rounds {
        for k in 0..n {
            let i = (round + k) % n;
            let r = &mut racers[i];
            let start = Instant::now();
            for _ in 0..calls[i] {
                (r.op)(&mut buf);
            }
            let secs = start.elapsed().as_secs_f64();
            if round > 0 {
                figures[i].mbps.push((calls[i] * w.bytes_per_call) as f64 / secs / 1e6);
            }
        }
    }
    black_box(&buf);
    figures
}

/// What the program runs on: the engine (the runner script says), the CPU (Linux's
/// /proc/cpuinfo, through WASI's preopened `/` under Node), and the build.
fn describe() {
    let engine = std::env::var("CHACHA_WASM_ENGINE").unwrap_or_else(|_| {
        if cfg!(target_family = "wasm") {
            "unknown (run by wasm-bench/run.sh to name it)".into()
        } else {
            "native".into()
        }
    });
    println!("engine: {engine}");
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let field = |key: &str| {
        cpuinfo
            .lines()
            .find(|l| l.split(':').next().is_some_and(|k| k.trim() == key))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    match (field("model name"), field("cpu family"), field("model")) {
        (Some(name), Some(family), Some(model)) => println!("CPU: {name} (family {family}, model {model})"),
        (Some(name), ..) => println!("CPU: {name}"),
        _ => println!("CPU: unknown (no /proc/cpuinfo)"),
    }
    println!(
        "build: {}{}; backends available: {}",
        std::env::consts::ARCH,
        if cfg!(target_feature = "simd128") { " +simd128" } else { "" },
        Backend::available().map(Backend::name).collect::<Vec<_>>().join(", ")
    );
}

fn main() {
    let usage = "usage: chacha-wasm-bench [--quick] [--workloads NAME,…]";
    let mut quick = false;
    let mut only: Option<Vec<String>> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--quick" => quick = true,
            "--workloads" => only = args.next().map(|l| l.split(',').map(str::to_string).collect()),
            other => {
                eprintln!("{usage}   (unknown argument {other:?})");
                std::process::exit(2);
            }
        }
    }
    let (rounds, batch) = if quick { (9, 0.0005) } else { (31, 0.002) };
    describe();
    let mut workloads = workloads();
    if let Some(only) = &only {
        let known: Vec<&str> = workloads.iter().map(|w| w.name).collect();
        if let Some(unknown) = only.iter().find(|n| !known.contains(&n.as_str())) {
            eprintln!("{usage}   (unknown workload {unknown:?}; known: {})", known.join(", "));
            std::process::exit(2);
        }
        workloads.retain(|w| only.iter().any(|n| n == w.name));
    }
    for w in &workloads {
        check(w);
    }
    println!("every implementation gives the same bytes for every workload\n");
    println!("| workload | size | implementation | MB/s | min–max MB/s | vs soft | vs chacha20-0.10.2 |");
    println!("| :-- | --: | :-- | --: | --: | --: | --: |");
    for w in &workloads {
        let mut figures = measure(w, rounds, batch);
        let medians: Vec<f64> = figures.iter_mut().map(|f| median(&mut f.mbps)).collect();
        let of = |name: &str| figures.iter().position(|f| f.name == name).map(|i| medians[i]);
        let (soft, published) = (of("soft"), of(PUBLISHED));
        let size = match w.size {
            s if s >= 1024 => format!("{} KiB", s / 1024),
            s => format!("{s} B"),
        };
        for (f, &m) in figures.iter().zip(&medians) {
            let (lo, hi) = f.mbps.iter().fold((f64::MAX, 0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
            let ratio = |base: Option<f64>| base.map_or("–".to_string(), |b| format!("{:.2}×", m / b));
            let ours = if f.name == PUBLISHED { String::new() } else { " (ours)".into() };
            println!(
                "| {} | {size} | {}{ours} | {m:.0} | {lo:.0}–{hi:.0} | {} | {} |",
                w.name,
                f.name,
                ratio(soft),
                ratio(published)
            );
        }
    }
}
