//! The AEADs to race: ChaCha20-Poly1305 (RFC 8439) — ours (this workspace's
//! `chacha20poly1305` front, through `new` and on each backend), the published
//! `chacha20poly1305` 0.11 over the `chacha20` that Cargo gives it (the published 0.10.2 in
//! this package's build, ours in the report's `patched/` build of the same binary) — and
//! its peers OpenSSL (EVP), libsodium and `ring`.
//!
//! Every message is sealed in place under a nonce of its own ([`seal_nonce`]) with [`AAD`]
//! authenticated, the tag kept apart; the key ([`KEY`]) is set up once per implementation,
//! as a program sealing many messages under one key does (libsodium takes it per call: its
//! API has no key object). Like the ciphers, each implementation's batch loop is
//! monomorphised behind one trait object.

use core::fmt;
use std::any::TypeId;
use std::hint::black_box;

use chacha_backends::Backend;

use crate::impls::{Origin, Peer};
use crate::{KEY, OURS};

/// The associated data of every message: 13 bytes, as long as a TLS 1.2 record header.
pub const AAD: &[u8; 13] = b"chacha-bench\x01";

/// The nonce of message `message`: a fixed 4-byte prefix, then the message number
/// (little-endian), as a protocol's per-message counter.
pub fn seal_nonce(message: u64) -> [u8; 12] {
    let mut nonce = [0xa3, 0x5c, 0x11, 0x07, 0, 0, 0, 0, 0, 0, 0, 0];
    nonce[4..].copy_from_slice(&message.to_le_bytes());
    nonce
}

/// Whether `chacha20poly1305::ChaCha20Poly1305` runs on this workspace's `chacha20` in this
/// build: true only where a `[patch.crates-io]` put ours under it (the report's `patched/`
/// build), since its cipher type is then our `chacha20::ChaCha20`.
pub fn aead_on_ours() -> bool {
    TypeId::of::<chacha20poly1305::ChaCha20Poly1305>()
        == TypeId::of::<chacha20poly1305::ChaChaPoly1305<chacha20::ChaCha20>>()
}

/// Seals messages: one with [`Seal::seal`], a batch with [`Seal::run`].
trait Seal {
    fn seal(&mut self, nonce: &[u8; 12], buf: &mut [u8]) -> [u8; 16];
    fn run(&mut self, buf: &mut [u8], first: u64, messages: u64);
}

struct Sealer<F>(F);

impl<F: FnMut(&[u8; 12], &mut [u8]) -> [u8; 16]> Seal for Sealer<F> {
    fn seal(&mut self, nonce: &[u8; 12], buf: &mut [u8]) -> [u8; 16] {
        (self.0)(nonce, buf)
    }

    #[inline(never)]
    fn run(&mut self, buf: &mut [u8], first: u64, messages: u64) {
        for message in first..first + messages {
            black_box((self.0)(&seal_nonce(black_box(message)), black_box(&mut *buf)));
        }
    }
}

/// One ChaCha20-Poly1305 implementation, keyed with [`KEY`].
pub struct AeadImplementation {
    /// [`Peer::label`].
    pub name: String,
    /// Whose it is (a peer, also for the published AEAD over ours: its rows come from the
    /// worker process of the `patched/` build).
    pub origin: Origin,
    seal: Box<dyn Seal>,
}

impl fmt::Debug for AeadImplementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AeadImplementation")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl AeadImplementation {
    /// Encrypts `buf` in place under `nonce` (with [`AAD`]); the tag.
    pub fn seal(&mut self, nonce: &[u8; 12], buf: &mut [u8]) -> [u8; 16] {
        self.seal.seal(nonce, buf)
    }

    /// Seals `buf` `messages` times, message `first` onwards, each under its own nonce (the
    /// timed loop).
    pub fn run(&mut self, buf: &mut [u8], first: u64, messages: u64) {
        self.seal.run(buf, first, messages)
    }
}

fn sealer<F>(peer: Peer, seal: F) -> AeadImplementation
where
    F: FnMut(&[u8; 12], &mut [u8]) -> [u8; 16] + 'static,
{
    AeadImplementation { name: peer.label(), origin: Origin::Peer(peer), seal: Box::new(Sealer(seal)) }
}

/// Ours through `new` ([`Backend::detect`]) or on `backend`.
fn ours(backend: Option<Backend>) -> AeadImplementation {
    use chacha20poly1305_ours::ChaCha20Poly1305;
    use chacha20poly1305_ours::aead::{AeadInOut, KeyInit};
    let (name, origin, aead) = match backend {
        None => (OURS.to_string(), Origin::OursNew, ChaCha20Poly1305::new(&KEY.into())),
        Some(b) => (b.name().to_string(), Origin::Ours(b), ChaCha20Poly1305::with_backend(&KEY.into(), b)),
    };
    let seal = Sealer(move |nonce: &[u8; 12], buf: &mut [u8]| -> [u8; 16] {
        aead.encrypt_inout_detached(nonce.into(), AAD, buf.into()).expect("a message below 256 GiB").into()
    });
    AeadImplementation { name, origin, seal: Box::new(seal) }
}

fn rustcrypto(peer: Peer) -> AeadImplementation {
    use chacha20poly1305::ChaCha20Poly1305;
    use chacha20poly1305::aead::{AeadInOut, KeyInit};
    let aead = ChaCha20Poly1305::new(&KEY.into());
    sealer(peer, move |nonce: &[u8; 12], buf: &mut [u8]| {
        aead.encrypt_inout_detached(nonce.into(), AAD, buf.into()).expect("a message below 256 GiB").into()
    })
}

fn ring_peer(peer: Peer) -> AeadImplementation {
    use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, Nonce, UnboundKey};
    let key = LessSafeKey::new(UnboundKey::new(&CHACHA20_POLY1305, &KEY).expect("a 32-byte key"));
    sealer(peer, move |nonce: &[u8; 12], buf: &mut [u8]| {
        let tag = key
            .seal_in_place_separate_tag(Nonce::assume_unique_for_key(*nonce), Aad::from(AAD), buf)
            .expect("a message below 256 GiB");
        tag.as_ref().try_into().expect("a 16-byte tag")
    })
}

fn openssl_peer(peer: Peer) -> Option<AeadImplementation> {
    let lib = crate::ffi::crypto().ok()?;
    let mut ctx = crate::ffi::EvpAead::new(lib, &KEY);
    Some(sealer(peer, move |nonce: &[u8; 12], buf: &mut [u8]| ctx.seal(nonce, AAD, buf)))
}

fn sodium_peer(peer: Peer) -> Option<AeadImplementation> {
    let lib = crate::ffi::sodium().ok()?;
    Some(sealer(peer, move |nonce: &[u8; 12], buf: &mut [u8]| lib.aead_ietf_seal(nonce, AAD, buf, &KEY)))
}

/// Ours through `new` and on each of `backends` (none without `backends`), then each of
/// `peers` that has ChaCha20-Poly1305 and runs in this process.
pub fn aead_implementations(backends: &[Backend], peers: &[Peer]) -> Vec<AeadImplementation> {
    let mut all = Vec::new();
    if !backends.is_empty() {
        all.push(ours(None));
    }
    all.extend(backends.iter().map(|&b| ours(Some(b))));
    let peers = peers.iter().filter_map(|&peer| match peer {
        Peer::ChaCha20Poly1305 => Some(rustcrypto(peer)),
        Peer::Ring => Some(ring_peer(peer)),
        Peer::OpenSsl => openssl_peer(peer),
        Peer::Sodium => sodium_peer(peer),
        _ => None,
    });
    all.extend(peers);
    all
}

/// The message lengths of [`aead_transcript`]: empty, partial blocks, multi-block messages.
const CHECK_LENGTHS: [usize; 8] = [0, 1, 63, 64, 65, 100, 1024, 4103];

/// How many bytes [`aead_transcript`] produces: each message's ciphertext and tag.
pub const AEAD_CHECK_LEN: usize = {
    let mut total = 0;
    let mut i = 0;
    while i < CHECK_LENGTHS.len() {
        total += CHECK_LENGTHS[i] + 16;
        i += 1;
    }
    total
};

/// Messages of 0, 1, 63, 64, 65, 100, 1024 and 4103 bytes (`CHECK_LENGTHS`, a fixed pattern), the `i`-th sealed under
/// `seal_nonce(i)`: ciphertext then tag of each, concatenated.
pub fn aead_transcript(imp: &mut AeadImplementation) -> Vec<u8> {
    let mut out = Vec::with_capacity(AEAD_CHECK_LEN);
    for (i, len) in CHECK_LENGTHS.into_iter().enumerate() {
        let mut buf: Vec<u8> = (0..len).map(|j| (j as u8).wrapping_mul(31).wrapping_add(7)).collect();
        let tag = imp.seal(&seal_nonce(i as u64), &mut buf);
        out.extend_from_slice(&buf);
        out.extend_from_slice(&tag);
    }
    out
}
