//! The A/B program of `benches/scripts/ab.sh`: one backend's kernel from two source trees
//! (`base`: a git revision, `work`: the working tree) in one process, call by call.
//!
//! Each sample times one `Kernel::xor` (or `fill`) call of each tree on the same buffer,
//! the order alternating, so a phase of the machine (the other hardware thread busy, a
//! clock change) hits both alike; the figure that matters is the per-sample ratio
//! `base / work` (above 1: the working tree is faster), given at its 10th, 50th and 90th
//! percentiles. Ticks are TSC ticks (`rdtsc` around each call, so a call of a few hundred
//! ticks carries the ~20-tick cost of reading the TSC).
//!
//! `mac` times a one-shot Poly1305 of the buffer on the backend (`Poly1305::new`,
//! `update_with`, `tag`: the report's Poly1305 rows), `seal` the AEAD's bulk step
//! (`Aead::xor_then_mac` of ChaCha20 on a fresh accumulator, then its tag: what
//! `encrypt_in_place_detached` spends on the message, without the AAD and the lengths),
//! `open` its twin (`Aead::mac_then_xor`, then the tag).
//!
//! `fresh` times the `chacha20` front instead, as the report's fresh-instance rows do: a
//! sample is a batch of [`FRESH_BATCH`] messages, each a new cipher (`with_backend`) and
//! one `apply_keystream`, one after the other. Consecutive fresh messages are independent
//! and overlap in the core; how much depends on how many instructions and stores each
//! makes (benches/README.md, "Noise on shared machines"), which one call per sample would
//! not show.
//!
//! Not a workspace member: the script copies it into a scratch crate next to the two
//! trees (see the script for why).

use std::arch::x86_64::_rdtsc;
use std::hint::black_box;
use std::process::ExitCode;

/// One kernel call of one tree, on a state of the layout `$v` (`Ietf`, or `Legacy`: the
/// RNGs' and XChaCha's, which the backends' entry points run on the `Ietf` kernels): TSC
/// ticks.
macro_rules! timer {
    ($name:ident, $krate:ident, $v:ident, $nonce:expr) => {
        fn $name(backend: &str, op: Op, buf: &mut [u8], blocks: &mut [[u8; 64]]) -> Option<u64> {
            // `.into()`: the buffer type of the tree's contract (`XorBuf`, or `InOutBuf` before it).
            use $krate::chacha_core::{Kernel, R8, R12, R20, State, $v};
            let b = $krate::Backend::by_name(backend)?;
            let state = State::<$v>::new(&[7; 32], &$nonce);
            let mut tail = [0u8; 64];
            // SAFETY: `rdtsc` has no preconditions (x86_64 only, which this program is).
            let t0 = unsafe { _rdtsc() };
            match (op.kind, op.rounds) {
                (Kind::Xor, 8) => b.xor::<R8, $v>(&state, (&mut *buf).into(), &mut tail),
                (Kind::Xor, 12) => b.xor::<R12, $v>(&state, (&mut *buf).into(), &mut tail),
                (Kind::Xor, _) => b.xor::<R20, $v>(&state, (&mut *buf).into(), &mut tail),
                (Kind::Fill, 8) => b.fill::<R8, $v>(&state, blocks),
                (Kind::Fill, 12) => b.fill::<R12, $v>(&state, blocks),
                (Kind::Fill, _) => b.fill::<R20, $v>(&state, blocks),
                (Kind::Mac | Kind::Seal | Kind::Open | Kind::Fresh | Kind::Warm | Kind::Rng, _) => {
                    unreachable!("timed by aead_timer, fresh_timer, warm_timer, rng_timer")
                }
            }
            // SAFETY: as above.
            let t1 = unsafe { _rdtsc() };
            black_box((&buf, &blocks, &tail));
            Some(t1 - t0)
        }
    };
}

/// One Poly1305 (`mac`) or AEAD bulk step (`seal`, `open`) of one tree: TSC ticks.
macro_rules! aead_timer {
    ($name:ident, $krate:ident) => {
        fn $name(backend: &str, op: Op, buf: &mut [u8]) -> Option<u64> {
            use $krate::chacha_core::poly1305::{Accumulator, Poly1305};
            use $krate::chacha_core::{AeadDirection, Ietf, R20, State};
            let b = $krate::Backend::by_name(backend)?;
            let state = State::<Ietf>::new(&[7; 32], &[1; 12]);
            let mut tag = [0u8; 16];
            // SAFETY: `rdtsc` has no preconditions (x86_64 only, which this program is).
            let t0 = unsafe { _rdtsc() };
            if op.kind == Kind::Mac {
                let mut mac = Poly1305::new(black_box(&[7; 32]));
                mac.update_with(b, buf);
                tag = mac.tag();
            } else {
                let mut acc = Accumulator::new(black_box(&[7; 16]));
                // Through `State::xor_and_mac`, which both trees have with this signature.
                let direction = if op.kind == Kind::Open { AeadDirection::Open } else { AeadDirection::Seal };
                let mut at = state.clone();
                at.xor_and_mac::<R20, _>(b, direction, &mut acc, (&mut *buf).into()).expect("fits");
                tag = acc.tag(&tag);
            }
            // SAFETY: as above.
            let t1 = unsafe { _rdtsc() };
            black_box((&buf, &tag));
            Some(t1 - t0)
        }
    };
}

/// Messages per `fresh` sample.
const FRESH_BATCH: u64 = 100;

/// A batch of fresh messages of one tree's `chacha20` front: TSC ticks per message.
macro_rules! fresh_timer {
    ($name:ident, $krate:ident) => {
        fn $name(backend: &str, rounds: u32, buf: &mut [u8]) -> Option<u64> {
            use $krate::{ChaCha8, ChaCha12, ChaCha20, StreamCipher};
            let b = $krate::Backend::by_name(backend)?;
            let (key, nonce) = ([7u8; 32], [1u8; 12]);
            macro_rules! batch {
                ($cipher:ty) => {
                    for _ in 0..FRESH_BATCH {
                        let mut c = <$cipher>::with_backend(black_box(&key), black_box(&nonce).into(), b);
                        c.apply_keystream(black_box(&mut *buf));
                    }
                };
            }
            // SAFETY: `rdtsc` has no preconditions (x86_64 only, which this program is).
            let t0 = unsafe { _rdtsc() };
            match rounds {
                8 => batch!(ChaCha8),
                12 => batch!(ChaCha12),
                _ => batch!(ChaCha20),
            }
            // SAFETY: as above.
            let t1 = unsafe { _rdtsc() };
            black_box(&buf);
            Some((t1 - t0) / FRESH_BATCH)
        }
    };
}

/// One tree's `chacha20` front on a warm instance: a sample is one new cipher and
/// [`FRESH_BATCH`] calls of the buffer's length on it, the instance created outside the
/// timing (the short-call batches of a protocol sending short records): TSC ticks per call.
macro_rules! warm_timer {
    ($name:ident, $krate:ident) => {
        fn $name(backend: &str, rounds: u32, legacy: bool, buf: &mut [u8]) -> Option<u64> {
            use $krate::{ChaCha8, ChaCha12, ChaCha20, StreamCipher, XChaCha8, XChaCha12, XChaCha20};
            let b = $krate::Backend::by_name(backend)?;
            let (key, nonce, xnonce) = ([7u8; 32], [1u8; 12], [1u8; 24]);
            macro_rules! calls {
                ($cipher:ty, $nonce:expr) => {{
                    let mut c = <$cipher>::with_backend(black_box(&key), black_box($nonce).into(), b);
                    // SAFETY: `rdtsc` has no preconditions (x86_64 only, which this program is).
                    let t0 = unsafe { _rdtsc() };
                    for _ in 0..FRESH_BATCH {
                        c.apply_keystream(black_box(&mut *buf));
                    }
                    // SAFETY: as above.
                    let t1 = unsafe { _rdtsc() };
                    t1 - t0
                }};
            }
            let ticks = match (legacy, rounds) {
                (false, 8) => calls!(ChaCha8, &nonce),
                (false, 12) => calls!(ChaCha12, &nonce),
                (false, _) => calls!(ChaCha20, &nonce),
                (true, 8) => calls!(XChaCha8, &xnonce),
                (true, 12) => calls!(XChaCha12, &xnonce),
                (true, _) => calls!(XChaCha20, &xnonce),
            };
            black_box(&buf);
            Some(ticks / FRESH_BATCH)
        }
    };
}

/// One tree's generator (`chacha-rng`): a sample is one generator made outside the timing
/// and [`FRESH_BATCH`] `fill_bytes` calls of the buffer's length on it (its refills are
/// `Legacy` fills of its batch): TSC ticks per call.
macro_rules! rng_timer {
    ($name:ident, $krate:ident) => {
        fn $name(backend: &str, rounds: u32, buf: &mut [u8]) -> Option<u64> {
            use $krate::rand_core::Rng;
            use $krate::{ChaCha8Rng, ChaCha12Rng, ChaCha20Rng};
            let b = $krate::Backend::by_name(backend)?;
            macro_rules! calls {
                ($rng:ty) => {{
                    let mut rng = <$rng>::with_backend(black_box([7u8; 32]), b);
                    // SAFETY: `rdtsc` has no preconditions (x86_64 only, which this program is).
                    let t0 = unsafe { _rdtsc() };
                    for _ in 0..FRESH_BATCH {
                        rng.fill_bytes(black_box(&mut *buf));
                    }
                    // SAFETY: as above.
                    let t1 = unsafe { _rdtsc() };
                    t1 - t0
                }};
            }
            let ticks = match rounds {
                8 => calls!(ChaCha8Rng),
                12 => calls!(ChaCha12Rng),
                _ => calls!(ChaCha20Rng),
            };
            black_box(&buf);
            Some(ticks / FRESH_BATCH)
        }
    };
}

timer!(time_ietf_base, base_backends, Ietf, [1; 12]);
timer!(time_ietf_work, work_backends, Ietf, [1; 12]);
timer!(time_legacy_base, base_backends, Legacy, [1; 8]);
timer!(time_legacy_work, work_backends, Legacy, [1; 8]);
fresh_timer!(time_fresh_base, base);
fresh_timer!(time_fresh_work, work);
warm_timer!(time_warm_base, base);
warm_timer!(time_warm_work, work);
rng_timer!(time_rng_work, work_rng);
aead_timer!(time_aead_work, work_backends);
// A base tree older than chacha-rng or Poly1305 (the revisions decisions.sh names) builds
// without them (ab.sh sets these features from what the tree has).
#[cfg(feature = "base-rng")]
rng_timer!(time_rng_base, base_rng);
#[cfg(not(feature = "base-rng"))]
fn time_rng_base(_: &str, _: u32, _: &mut [u8]) -> Option<u64> {
    missing_in_base("chacha-rng (the rng operation)")
}
#[cfg(feature = "base-aead")]
aead_timer!(time_aead_base, base_backends);
#[cfg(not(feature = "base-aead"))]
fn time_aead_base(_: &str, _: Op, _: &mut [u8]) -> Option<u64> {
    missing_in_base("Poly1305 (the mac, seal and open operations)")
}

#[cfg(not(all(feature = "base-rng", feature = "base-aead")))]
fn missing_in_base(what: &str) -> ! {
    eprintln!("ab: the base revision has no {what}");
    std::process::exit(2)
}

fn time_base(backend: &str, op: Op, buf: &mut [u8], blocks: &mut [[u8; 64]]) -> Option<u64> {
    match op {
        Op { kind: Kind::Fresh, rounds, .. } => time_fresh_base(backend, rounds, buf),
        Op { kind: Kind::Warm, rounds, legacy } => time_warm_base(backend, rounds, legacy, buf),
        Op { kind: Kind::Rng, rounds, .. } => time_rng_base(backend, rounds, buf),
        Op { kind: Kind::Mac | Kind::Seal | Kind::Open, .. } => time_aead_base(backend, op, buf),
        Op { legacy: false, .. } => time_ietf_base(backend, op, buf, blocks),
        Op { legacy: true, .. } => time_legacy_base(backend, op, buf, blocks),
    }
}

fn time_work(backend: &str, op: Op, buf: &mut [u8], blocks: &mut [[u8; 64]]) -> Option<u64> {
    match op {
        Op { kind: Kind::Fresh, rounds, .. } => time_fresh_work(backend, rounds, buf),
        Op { kind: Kind::Warm, rounds, legacy } => time_warm_work(backend, rounds, legacy, buf),
        Op { kind: Kind::Rng, rounds, .. } => time_rng_work(backend, rounds, buf),
        Op { kind: Kind::Mac | Kind::Seal | Kind::Open, .. } => time_aead_work(backend, op, buf),
        Op { legacy: false, .. } => time_ietf_work(backend, op, buf, blocks),
        Op { legacy: true, .. } => time_legacy_work(backend, op, buf, blocks),
    }
}

/// What one sample times.
#[derive(Clone, Copy)]
struct Op {
    kind: Kind,
    /// 8, 12 or 20.
    rounds: u32,
    /// A `Legacy` state (64-bit counter) for `xor`/`fill`.
    legacy: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `xor` of the whole buffer.
    Xor,
    /// `fill` of the buffer's whole blocks.
    Fill,
    /// A one-shot Poly1305 of the whole buffer.
    Mac,
    /// ChaCha20-Poly1305's bulk step (`xor_then_mac`) over the whole buffer, and the tag.
    Seal,
    /// Its opening twin (`mac_then_xor`), and the tag.
    Open,
    /// A batch of fresh `chacha20` ciphers, each applied to the whole buffer.
    Fresh,
    /// One `chacha20` cipher applied to the whole buffer, a batch of times.
    Warm,
    /// One `chacha-rng` generator's `fill_bytes` of the whole buffer, a batch of times.
    Rng,
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [backend, op, sizes, rounds, samples] = &args[..] else {
        eprintln!(
            "usage: ab BACKEND xor|fill|xor-legacy|fill-legacy|mac|seal|open|fresh|warm|warm-xchacha|rng SIZES ROUNDS SAMPLES (see benches/scripts/ab.sh)"
        );
        return ExitCode::from(2);
    };
    let rounds: u32 = rounds.parse().expect("ROUNDS: 8, 12 or 20");
    let samples: usize = samples.parse().expect("SAMPLES: a number");
    let (kind, legacy) = match op.as_str() {
        "xor" => (Kind::Xor, false),
        "fill" => (Kind::Fill, false),
        "xor-legacy" => (Kind::Xor, true),
        "fill-legacy" => (Kind::Fill, true),
        "fresh" => (Kind::Fresh, false),
        "warm" => (Kind::Warm, false),
        "warm-xchacha" => (Kind::Warm, true),
        "rng" => (Kind::Rng, false),
        "mac" => (Kind::Mac, false),
        "seal" => (Kind::Seal, false),
        "open" => (Kind::Open, false),
        _ => {
            eprintln!(
                "ab: the operation is xor, fill, xor-legacy, fill-legacy, mac, seal, open, fresh, warm, warm-xchacha or rng, not {op}"
            );
            return ExitCode::from(2);
        }
    };
    let op = Op { kind, rounds, legacy };
    for size in sizes.split(',') {
        let len: usize = size.parse().expect("SIZES: byte counts, e.g. 64,1024,16384");
        let mut buf = vec![0u8; len];
        let mut blocks = vec![[0u8; 64]; len / 64];
        let (mut base, mut work, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..samples.max(10) {
            let (tb, tw) = if i % 2 == 0 {
                let tb = time_base(backend, op, &mut buf, &mut blocks);
                (tb, time_work(backend, op, &mut buf, &mut blocks))
            } else {
                let tw = time_work(backend, op, &mut buf, &mut blocks);
                (time_base(backend, op, &mut buf, &mut blocks), tw)
            };
            let (Some(tb), Some(tw)) = (tb, tw) else {
                eprintln!("ab: backend {backend} is not available in both trees on this CPU");
                return ExitCode::from(2);
            };
            base.push(tb as f64);
            work.push(tw as f64);
            ratio.push(tb as f64 / tw.max(1) as f64);
        }
        let q = |v: &mut Vec<f64>, p: usize| {
            v.sort_by(f64::total_cmp);
            v[(v.len() - 1) * p / 100]
        };
        let per_byte = |t: f64| t / len.max(1) as f64;
        println!(
            "{backend} {} R{rounds} {len:>8} B: base min {:7.3} med {:7.3} | work min {:7.3} med {:7.3} ticks/B | \
             base/work p10 {:.3} med {:.3} p90 {:.3}",
            match (op.kind, op.legacy) {
                (Kind::Xor, false) => "xor  ",
                (Kind::Fill, false) => "fill ",
                (Kind::Xor, true) => "xor-legacy ",
                (Kind::Fill, true) => "fill-legacy",
                (Kind::Mac, _) => "mac  ",
                (Kind::Seal, _) => "seal ",
                (Kind::Open, _) => "open ",
                (Kind::Fresh, _) => "fresh",
                (Kind::Warm, false) => "warm ",
                (Kind::Warm, true) => "warm-xchacha",
                (Kind::Rng, _) => "rng  ",
            },
            per_byte(q(&mut base, 0)),
            per_byte(q(&mut base, 50)),
            per_byte(q(&mut work, 0)),
            per_byte(q(&mut work, 50)),
            q(&mut ratio, 10),
            q(&mut ratio, 50),
            q(&mut ratio, 90),
        );
    }
    ExitCode::SUCCESS
}
