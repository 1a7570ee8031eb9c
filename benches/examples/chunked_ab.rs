//! Chunked encryption, interleaved, in 64 KiB chunks: our secretstream's push (in place),
//! pull (`pull_to`, into a buffer of its own) and pull in place, and STREAM
//! (`aead-stream`'s `EncryptorBE32`, in place) over our `ChaCha20Poly1305` and over the
//! published `chacha20poly1305` 0.11; a whole stream of each in turn, TSC ticks per byte;
//! prints min and median over the rounds. Where there is no TSC (not x86), nanoseconds.
//!
//! The report's chunked rows are medians of rounds, which a host that loads the core's
//! other hardware thread moves by up to 2× (more for our AVX2 loop than for libsodium's);
//! here every implementation is timed in the same rounds' turn, so their ratios (push
//! against pull, STREAM over ours against over the published crate) hold across phases.
//!
//! usage: cd benches && cargo run --release --example chunked_ab -- BACKEND STREAM_BYTES [ROUNDS]
//! e.g.   cd benches && cargo run --release --example chunked_ab -- avx2 65536,1048576 60
use std::hint::black_box;

use chacha_bench::{Backend, CHUNK, KEY, Slot, cpu::tsc};
use chacha20poly1305::aead::KeyInit as _;
use chacha20poly1305_ours::aead::{self, AeadInOut};
use chacha20poly1305_ours::secretstream::{ABYTES, Decryptor, Encryptor, Header, Tag};

/// TSC ticks, or nanoseconds since the first call where this build cannot read the TSC.
fn now() -> u64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    tsc().unwrap_or_else(|| START.get_or_init(std::time::Instant::now).elapsed().as_nanos() as u64)
}

/// One STREAM over `aead`, in place in `area` (chunks of `CHUNK + 16` bytes).
fn stream<A>(aead: A, area: &mut [u8])
where
    A: AeadInOut,
    A::NonceSize: core::ops::Sub<aead::consts::U5>,
    <A::NonceSize as core::ops::Sub<aead::consts::U5>>::Output: aead::array::ArraySize,
{
    let chunks = area.len() / (CHUNK + 16);
    let mut enc = Some(aead_stream::EncryptorBE32::from_aead(aead, &Default::default()));
    for (i, chunk) in area.chunks_mut(CHUNK + 16).enumerate() {
        let mut slot = Slot::new(chunk, CHUNK);
        let sealed = if i + 1 == chunks {
            enc.take().expect("one last chunk").encrypt_last_in_place(&[], &mut slot)
        } else {
            enc.as_mut().expect("before the last").encrypt_next_in_place(&[], &mut slot)
        };
        sealed.expect("sealed");
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let backend = Backend::available().find(|b| b.name() == args[1]).expect("backend");
    let sizes: Vec<usize> = args[2].split(',').map(|s| s.parse().unwrap()).collect();
    let rounds: usize = args.get(3).map_or(60, |s| s.parse().unwrap());
    let (key, header) = (KEY.into(), Header::from([9; 24]));
    let names = [
        "secretstream push",
        "secretstream pull_to",
        "secretstream pull_in_place",
        "STREAM ours",
        "STREAM 0.11",
    ];
    println!("bytes,impl,min_ticks_per_byte,median_ticks_per_byte");
    for size in sizes {
        let chunks = (size / CHUNK).max(1);
        let push = |area: &mut [u8]| {
            let mut tx = Encryptor::with_backend(&key, &header, backend);
            for (i, chunk) in area.chunks_mut(CHUNK + ABYTES).enumerate() {
                let tag = if i + 1 == chunks { Tag::Final } else { Tag::Message };
                tx.push_in_place(chunk, &[], tag).expect("pushed");
            }
        };
        let mut area = vec![0u8; chunks * (CHUNK + ABYTES)];
        push(&mut area);
        let sealed = area.clone();
        let mut copy = sealed.clone();
        let mut out = vec![0u8; chunks * CHUNK];
        let mut streamed = vec![0u8; chunks * (CHUNK + 16)];
        let mut t: [Vec<f64>; 5] = Default::default();
        for _ in 0..rounds {
            copy.copy_from_slice(&sealed);
            for (k, times) in t.iter_mut().enumerate() {
                let t0 = now();
                match k {
                    0 => push(black_box(&mut area)),
                    1 => {
                        let mut rx = Decryptor::with_backend(&key, &header, backend);
                        for (chunk, msg) in sealed.chunks(CHUNK + ABYTES).zip(out.chunks_mut(CHUNK)) {
                            rx.pull_to(black_box(chunk), msg, &[]).expect("authentic");
                        }
                    }
                    2 => {
                        let mut rx = Decryptor::with_backend(&key, &header, backend);
                        for chunk in copy.chunks_mut(CHUNK + ABYTES) {
                            rx.pull_in_place(black_box(chunk), &[]).expect("authentic");
                        }
                    }
                    3 => stream(
                        chacha20poly1305_ours::ChaCha20Poly1305::with_backend(&key, backend),
                        &mut streamed,
                    ),
                    _ => stream(chacha20poly1305::ChaCha20Poly1305::new(&KEY.into()), &mut streamed),
                }
                times.push((now() - t0) as f64 / (chunks * CHUNK) as f64);
            }
        }
        for (name, v) in names.iter().zip(t.iter_mut()) {
            v.sort_by(f64::total_cmp);
            println!("{},{name},{:.3},{:.3}", chunks * CHUNK, v[0], v[v.len() / 2]);
        }
    }
}
