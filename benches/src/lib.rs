//! # chacha-bench
//!
//! What the criterion benches, the report (`cargo run --release -p chacha-bench`) and the
//! agreement test share: the list of implementations to race ([`cipher_implementations`]: ours
//! through `new()` ([`OURS`]) and on every backend of [`Backend::available`], and every
//! peer, per [`Algorithm`]), the check that they all produce the same bytes
//! ([`check_agreement`]), and what the machine is ([`cpu`]).
//!
//! A [`CipherImplementation`] hides its concrete cipher behind a trait object, but the loop
//! that runs a batch of messages ([`Stream::run`], [`CipherImplementation::run_fresh`]) is
//! monomorphised inside it, so timing pays one indirect call per batch, not per message;
//! [`RngImplementation`], [`AeadImplementation`] and [`MacImplementation`] do the same for
//! the RNGs, (X)ChaCha20-Poly1305 and Poly1305, and [`race`] puts them in one shape for the report ([`Workload`],
//! [`Implementation`], [`Runner`], [`transcript`]).
//!
//! Words: an *implementation* is code under test (ours on one backend, or a peer's); the
//! report races them as *entrants* (its `Entrant` trait: an implementation here or in a
//! worker process), each a [`Runner`] at a time, prepared for one point of a workload.
//!
//! `unsafe` is denied everywhere but in two modules: `ffi` (OpenSSL's libcrypto and
//! libsodium, loaded at run time: nothing links them, so this crate builds with only the
//! Rust toolchain and a missing library skips its peer) and `placed` (one `asm!` of
//! alignment padding that places the timed loops).
#![deny(unsafe_code)]

mod aeads;
mod chunked;
pub mod cpu;
#[allow(unsafe_code)]
mod ffi;
mod impls;
mod macs;
#[allow(unsafe_code)]
mod placed;
pub mod race;
mod rngs;

pub use aeads::{
    AAD, AEAD_CHECK_LEN, AEAD_OPEN_CHECK_LEN, AeadAlgorithm, AeadImplementation, aead_implementations,
    aead_on_ours, aead_open_transcript, aead_transcript, seal_nonce, xseal_nonce,
};
pub use chacha_backends::Backend;
pub use chunked::{
    CHUNK, ChunkedImplementation, ChunkedOp, Slot, chunked_check_len, chunked_implementations,
    chunked_transcript,
};
pub use ffi::{SecretStreamState, Sodium, sodium};
pub use impls::{
    Algorithm, CipherImplementation, OPENSSL_AVX2_CAP, OURS, Origin, Peer, Stream, cipher_implementations,
    ours_par_name, par_cipher_implementations, par_threads,
};
pub use macs::{MAC_CHECK_LEN, MacImplementation, mac_implementations, mac_transcript};
pub use race::{
    Implementation, PAR_CHECK_LEN, Point, Runner, Workload, compare, implementations, transcript,
};
pub use rngs::{
    RNG_CHECK_LEN, RNG_SETUP_CHECK_LEN, RngImplementation, RngStream, RngVariant, SEEK_STRIDE,
    par_rng_implementations, rng_implementations, rng_setup_transcript, rng_transcript, seek_pos,
};

/// The message sizes of the streaming benches and the report, in bytes.
pub const SIZES: &[usize] = &[16, 64, 100, 256, 1024, 16 * 1024, 1024 * 1024];

/// The sizes of the fresh-instance-per-message (new + apply) benches, in bytes: one block
/// (16, 64), two blocks in one chain (100), four (256), sixteen (1024).
pub const FRESH_SIZES: &[usize] = &[16, 64, 100, 256, 1024];

/// The `fill_bytes` sizes of the report's RNG workloads, in bytes (after `next_u32` and
/// `next_u64`): a key, one block and four (under the buffer: served from it), the RNG
/// benches' 1 KiB and 64 KiB, and bulk.
pub const RNG_SIZES: &[usize] = &[32, 64, 256, 1024, 64 * 1024, 1024 * 1024];

/// The sizes of the parallel workloads (`par_apply_keystream`, `par_fill_bytes`), in bytes:
/// under the threshold (`par_min_len`, 2 MiB for ChaCha20, 5 MiB for ChaCha8: the
/// sequential call) at 64 KiB and 1 MiB, and over it at 16 MiB.
pub const PAR_SIZES: &[usize] = &[64 * 1024, 1024 * 1024, 16 * 1024 * 1024];

/// The message sizes of the AEAD workloads, in bytes: a short packet, a KiB, a TLS record's
/// 16 KiB, bulk.
pub const AEAD_SIZES: &[usize] = &[64, 1024, 16 * 1024, 1024 * 1024];

/// The message sizes of the Poly1305 workload, in bytes: a short packet, a KiB, a TLS
/// record's 16 KiB (beyond that it is the AEADs' bulk case again).
pub const MAC_SIZES: &[usize] = &[64, 1024, 16 * 1024];

/// The key every check and bench uses (also the RNGs' seed).
pub const KEY: [u8; 32] = {
    let mut key = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        key[i] = (i as u8).wrapping_mul(7).wrapping_add(1);
        i += 1;
    }
    key
};

/// A nonce of `len` bytes (8, 12 or 24) with every byte non-zero, so a peer that ignored
/// or misplaced part of it would give different bytes.
pub fn nonce(len: usize) -> Vec<u8> {
    (0..len).map(|i| 0xa0 ^ (i as u8).wrapping_mul(13).wrapping_add(3)).collect()
}

/// A size for people: `16 B`, `1 KiB`, `16 KiB`, `1 MiB`, `100 B`.
pub fn format_size(bytes: usize) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else if bytes >= 1 << 10 && bytes.is_multiple_of(1 << 10) {
        format!("{} KiB", bytes >> 10)
    } else {
        format!("{bytes} B")
    }
}

/// Parses `16`, `100B`, `1K`, `1KiB`, `16k`, `1M`, `1MiB` into bytes.
///
/// # Errors
/// A message naming the text that is not a size (or is zero).
pub fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let unit = unit.trim().to_ascii_lowercase();
    let scale = match unit.as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        _ => return Err(format!("`{text}` is not a size (examples: 16, 100B, 1KiB, 16K, 1MiB)")),
    };
    let n: usize = digits
        .parse()
        .map_err(|_| format!("`{text}` is not a size (examples: 16, 100B, 1KiB, 16K, 1MiB)"))?;
    match n.checked_mul(scale) {
        Some(0) => Err(format!("`{text}`: a message size must be at least 1 byte")),
        Some(bytes) if bytes <= 1 << 30 => Ok(bytes),
        _ => Err(format!("`{text}`: sizes above 1 GiB are not supported")),
    }
}

/// How many bytes [`check_agreement`] compares per implementation.
pub const CHECK_LEN: usize = 1 + 63 + 64 + 65 + 100 + 1024 + 4096 + 7;

/// Runs every implementation of `impls` (all of one [`Algorithm`]) over [`CHECK_LEN`] bytes of
/// keystream in uneven chunks (1, 63, 64, 65, 100, 1024, 4103 bytes, so partial blocks and
/// multi-block calls meet), and through the fresh-instance path at each chunk length, and
/// compares them with the first implementation's bytes.
///
/// # Errors
/// The names of the implementations that disagree, with the first differing offset.
pub fn check_agreement(impls: &mut [CipherImplementation]) -> Result<usize, String> {
    let Some(first) = impls.first() else { return Ok(0) };
    let chunks = [1, 63, 64, 65, 100, 1024, 4103];
    let key = KEY;
    let nonce = nonce(first.variant.nonce_len());
    let stream_of = |imp: &CipherImplementation| {
        let mut out = vec![0u8; CHECK_LEN];
        let mut stream = imp.stream(&key, &nonce);
        let mut rest = &mut out[..];
        for len in chunks {
            let (head, tail) = rest.split_at_mut(len);
            stream.apply(head);
            rest = tail;
        }
        out
    };
    let expected = stream_of(first);
    let mut problems = Vec::new();
    let first_name = first.name.clone();
    for imp in impls.iter_mut() {
        let got = stream_of(imp);
        if let Some(at) = expected.iter().zip(&got).position(|(a, b)| a != b) {
            problems.push(format!("{} (streaming) differs from {first_name} at byte {at}", imp.name));
        }
        for len in chunks {
            let mut buf = vec![0u8; len];
            imp.fresh_once(&key, &nonce, &mut buf);
            if let Some(at) = expected[..len].iter().zip(&buf).position(|(a, b)| a != b) {
                problems.push(format!(
                    "{} (new + apply, {len} B) differs from {first_name} at byte {at}",
                    imp.name
                ));
                break;
            }
        }
    }
    if problems.is_empty() { Ok(CHECK_LEN) } else { Err(problems.join("; ")) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!(parse_size("16"), Ok(16));
        assert_eq!(parse_size("100B"), Ok(100));
        assert_eq!(parse_size("1K"), Ok(1024));
        assert_eq!(parse_size("16KiB"), Ok(16 * 1024));
        assert_eq!(parse_size("1m"), Ok(1 << 20));
        for bad in ["", "K", "0", "1X", "-3", "2G", "2048M"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        let printed: Vec<String> = SIZES.iter().map(|&s| format_size(s)).collect();
        assert_eq!(printed, ["16 B", "64 B", "100 B", "256 B", "1 KiB", "16 KiB", "1 MiB"]);
        for &s in SIZES {
            assert_eq!(parse_size(&format_size(s).replace(' ', "")), Ok(s));
        }
    }
}
