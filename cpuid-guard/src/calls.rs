//! Every public entry point of `chacha20`, `chacha-rng` and `chacha20poly1305` that a user
//! calls per message,
//! per instance or per seek, the way a user calls it: the defaults (`new`, `from_seed`,
//! `seed_from_u64`, …, on `Backend::detect()`), every backend of `Backend::available()`
//! (`with_backend`) and each backend's own kernel type (`with_kernel`, through
//! `Backend::with_kernel`), each followed by one call that uses the instance.

use std::hint::black_box;

use chacha_rng::rand_core::block::BlockRng;
use chacha_rng::rand_core::{Rng, SeedableRng};
use chacha_rng::{ChaChaCore, ChaChaRng};
use chacha20::cipher::{KeyIvInit, StreamCipher, StreamCipherSeek};
use chacha20::{
    Backend, ChaCha, ChaCha8, ChaCha12, ChaCha20, ChaCha20Legacy, Ietf, Legacy, R8, R12, R20, Rounds,
    XChaCha, XChaCha8, XChaCha12, XChaCha20,
};
use chacha20poly1305::aead::{AeadInOut, KeyInit};
use chacha20poly1305::{Aead, ChaCha20Poly1305, ChaChaPoly1305, XChaCha20Poly1305};

/// The marker the gdb fallback breaks on: from here on, CPUID must not execute.
#[inline(never)]
pub fn armed() {
    black_box(());
}

/// Runs every entry point `rounds` times; returns the number of calls made.
pub fn every_entry_point(rounds: usize) -> usize {
    let mut calls = 0;
    for round in 0..rounds {
        let i = round as u64;
        calls += defaults(i);
        let backends: Vec<Backend> = Backend::available().collect();
        calls += 1;
        black_box(Backend::by_name("soft"));
        calls += 1;
        for &backend in &backends {
            calls += pinned(backend, i);
            calls += backend.with_kernel(OwnKernel(i));
        }
    }
    calls
}

fn key(i: u64) -> [u8; 32] {
    let mut key = [0x42; 32];
    key[..8].copy_from_slice(&i.to_le_bytes());
    key
}

fn nonce<const N: usize>(i: u64) -> [u8; N] {
    let mut nonce = [0x24; N];
    nonce[..8].copy_from_slice(&i.to_le_bytes());
    nonce
}

/// One message of `len` bytes through a cipher.
fn message(cipher: &mut impl StreamCipher, len: usize) {
    let mut buf = [0u8; 130];
    cipher.apply_keystream(&mut buf[..len]);
    black_box(&buf);
}

/// The defaults a user writes: `KeyIvInit::new`, `new_from_slices`, `hchacha`,
/// `SeedableRng`'s constructors, `fork`, `deserialize_state`, `ChaChaCore` under `BlockRng`.
fn defaults(i: u64) -> usize {
    let (k, n12, n8, n24) = (key(i), nonce::<12>(i), nonce::<8>(i), nonce::<24>(i));
    black_box(Backend::detect());
    black_box(Backend::default());
    message(&mut ChaCha20::new(&k.into(), &n12.into()), 64);
    message(&mut ChaCha12::new(&k.into(), &n12.into()), 16);
    message(&mut ChaCha8::new(&k.into(), &n12.into()), 100);
    message(&mut ChaCha20Legacy::new(&k.into(), &n8.into()), 64);
    message(&mut ChaCha20::new_from_slices(&k, &n12).expect("right lengths"), 1);
    message(&mut XChaCha20::new(&k.into(), &n24.into()), 64);
    message(&mut XChaCha12::new(&k.into(), &n24.into()), 64);
    message(&mut XChaCha8::new_from_slices(&k, &n24).expect("right lengths"), 64);
    black_box(chacha20::hchacha::<R20>(&k.into(), &[7u8; 16].into()));

    let mut rng = chacha20::ChaCha20Rng::from_seed(k);
    black_box(rng.next_u32());
    black_box(chacha_rng::ChaCha8Rng::seed_from_u64(i).next_u32());
    black_box(chacha_rng::ChaCha12Rng::seed_from_u64(i).next_u64());
    black_box(chacha_rng::ChaCha12Rng::from_rng(&mut rng).next_u32());
    let Ok(mut tried) = chacha_rng::ChaCha8Rng::try_from_rng(&mut rng);
    black_box(tried.next_u32());
    black_box(rng.fork().next_u32());
    let state = rng.serialize_state();
    black_box(chacha_rng::ChaCha20Rng::deserialize_state(&state).next_u32());

    let mut thread_like = BlockRng::new(ChaChaCore::<R12, Legacy>::from_seed(k));
    black_box(thread_like.next_word());
    let mut ietf_core = BlockRng::new(ChaChaCore::<R20, Ietf>::seed_from_u64(i));
    black_box(ietf_core.next_u64_from_u32());

    seal_and_open(&ChaCha20Poly1305::new(&k.into()), &n12.into(), 64);
    seal_and_open(&ChaCha20Poly1305::new_from_slice(&k).expect("32 bytes"), &n12.into(), 1000);
    seal_and_open(&XChaCha20Poly1305::new(&k.into()), &n24.into(), 16);
    24
}

/// One message sealed and opened (and a forgery refused) by an AEAD.
fn seal_and_open<A: AeadInOut>(aead: &A, nonce: &chacha20poly1305::aead::Nonce<A>, len: usize) {
    let mut buf = [0u8; 5000];
    let tag = aead.encrypt_inout_detached(nonce, b"aad", (&mut buf[..len]).into()).expect("short");
    black_box(aead.decrypt_inout_detached(nonce, b"aad", (&mut buf[..len]).into(), &tag)).expect("authentic");
    black_box(aead.decrypt_inout_detached(nonce, b"bad", (&mut buf[..len]).into(), &tag))
        .expect_err("forged");
}

/// The same entry points on one backend, held as `Backend` (`with_backend`), with the
/// seeks a user makes per work item.
fn pinned(backend: Backend, i: u64) -> usize {
    let (k, n12, n8, n24) = (key(i), nonce::<12>(i), nonce::<8>(i), nonce::<24>(i));
    let mut c = ChaCha20::with_backend(&k, &n12, backend);
    message(&mut c, 64);
    c.seek(64 * i + 5);
    message(&mut c, 16);
    message(&mut ChaCha::<R8, Legacy>::with_backend(&k, &n8, backend), 130);
    message(&mut XChaCha20::with_backend(&k, &n24, backend), 64);

    let mut rng = ChaChaRng::<R8>::with_backend(k, backend);
    black_box(rng.next_u32());
    rng.set_word_pos(u128::from(i) * 1000 + 3);
    black_box(rng.next_u32());
    rng.set_stream(i);
    black_box(rng.next_u64());
    let mut buf = [0u8; 100];
    rng.fill_bytes(&mut buf);
    black_box(&buf);
    let core = ChaChaCore::<R20, Legacy>::with_kernel(k, backend);
    black_box(BlockRng::new(core).next_word());
    seal_and_open(&ChaCha20Poly1305::with_backend(&k.into(), backend), &n12.into(), 300);
    seal_and_open(&XChaCha20Poly1305::with_backend(&k.into(), backend), &n24.into(), 5000);
    12
}

/// The same on each backend's own kernel type (`with_kernel`).
struct OwnKernel(u64);

impl chacha20::backends::WithKernel for OwnKernel {
    type Output = usize;

    fn call<K: Aead>(self, kernel: K) -> usize {
        let i = self.0;
        ciphers::<R20, K>(kernel, i) + ciphers::<R12, K>(kernel, i) + ciphers::<R8, K>(kernel, i)
    }
}

fn ciphers<R: Rounds, K: Aead>(kernel: K, i: u64) -> usize {
    let (k, n12, n24) = (key(i), nonce::<12>(i), nonce::<24>(i));
    message(&mut ChaCha::<R, Ietf, K>::with_kernel(&k, &n12, kernel), 64);
    message(&mut XChaCha::<R, K>::with_kernel(&k, &n24, kernel), 16);
    let mut rng = ChaChaRng::<R, K>::with_kernel(k, kernel);
    rng.set_word_pos(u128::from(i) * 77);
    black_box(rng.next_u32());
    black_box(kernel.hchacha::<R>(&k, &[1; 16]));
    let aead = ChaChaPoly1305::<ChaCha<R, Ietf, K>>::with_kernel(&k.into(), kernel);
    seal_and_open(&aead, &n12.into(), 200);
    5
}
