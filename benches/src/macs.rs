//! Poly1305 alone (RFC 8439 §2.5), the MAC under the AEADs: ours (this workspace's
//! `poly1305` front, `compute_unpadded`: through `KeyInit::new`, which runs on
//! [`Backend::detect`]'s kernel, as [`OURS`], and on each backend with `with_backend`)
//! against the published `poly1305` crate (RustCrypto, the one under the published
//! `chacha20poly1305`), OpenSSL 3's `EVP_MAC` "POLY1305" and libsodium's
//! `crypto_onetimeauth_poly1305`.
//!
//! Every call is a one-shot MAC of one message: the key set up (r clamped, s kept), the
//! message absorbed, the tag produced — since a Poly1305 key is a one-time key, a new one
//! per message, nothing keyed can be kept between messages. The timed loop gives every
//! call the same key ([`KEY`]) through `black_box`, so nothing of the key setup can be
//! hoisted out of it while the key bytes themselves cost nothing to make; the agreement
//! check ([`mac_transcript`]) uses a different key per message.

use core::fmt;
use std::hint::black_box;

use chacha_backends::Backend;
use poly1305_ours::universal_hash::KeyInit;

use crate::impls::{Origin, Peer};
use crate::placed::{at_four, pad};
use crate::{KEY, OURS};

/// Computes tags: one with [`Mac::mac`], a batch with [`Mac::run`].
trait Mac {
    fn mac(&mut self, key: &[u8; 32], msg: &[u8]) -> [u8; 16];
    fn run(&mut self, key: &[u8; 32], msg: &[u8], messages: u64);
}

struct Macer<F>(F);

impl<F: FnMut(&[u8; 32], &[u8]) -> [u8; 16]> Mac for Macer<F> {
    fn mac(&mut self, key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        (self.0)(key, msg)
    }

    fn run(&mut self, key: &[u8; 32], msg: &[u8], messages: u64) {
        at_four!(0, messages, |_first, n, P| mac_loop::<F, P>(&mut self.0, key, msg, n));
    }
}

#[inline(never)]
fn mac_loop<F: FnMut(&[u8; 32], &[u8]) -> [u8; 16], const P: usize>(
    mac: &mut F,
    key: &[u8; 32],
    msg: &[u8],
    messages: u64,
) {
    pad::<P>();
    for _ in 0..messages {
        black_box(mac(black_box(key), black_box(msg)));
    }
}

/// One Poly1305 implementation.
pub struct MacImplementation {
    /// [`OURS`], [`Backend::name`] or [`Peer::label`].
    pub name: String,
    /// Ours (on which backend) or a peer.
    pub origin: Origin,
    mac: Box<dyn Mac>,
}

impl fmt::Debug for MacImplementation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MacImplementation")
            .field("name", &self.name)
            .field("origin", &self.origin)
            .finish_non_exhaustive()
    }
}

impl MacImplementation {
    /// The tag of `msg` under the one-time key `key`.
    pub fn mac(&mut self, key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        self.mac.mac(key, msg)
    }

    /// The tag of `msg` under [`KEY`], `messages` times (the timed loop).
    pub fn run(&mut self, msg: &[u8], messages: u64) {
        self.mac.run(&KEY, msg, messages)
    }
}

fn macer<F>(name: String, origin: Origin, f: F) -> MacImplementation
where
    F: FnMut(&[u8; 32], &[u8]) -> [u8; 16] + 'static,
{
    MacImplementation { name, origin, mac: Box::new(Macer(f)) }
}

/// Ours as users call it: `Poly1305::new` ([`Backend::detect`]'s kernel, [`OURS`]).
fn ours_new() -> MacImplementation {
    macer(OURS.to_string(), Origin::OursNew, |key: &[u8; 32], msg: &[u8]| {
        poly1305_ours::Poly1305::new(key.into()).compute_unpadded(msg).into()
    })
}

/// Ours on `backend`'s kernel (`Poly1305::with_backend`).
fn ours(backend: Backend) -> MacImplementation {
    macer(backend.name().to_string(), Origin::Ours(backend), move |key: &[u8; 32], msg: &[u8]| {
        poly1305_ours::Poly1305::with_backend(key.into(), backend).compute_unpadded(msg).into()
    })
}

fn rustcrypto(peer: Peer) -> MacImplementation {
    use poly1305::universal_hash::KeyInit;
    macer(peer.label(), Origin::Peer(peer), |key: &[u8; 32], msg: &[u8]| {
        poly1305::Poly1305::new(key.into()).compute_unpadded(msg).into()
    })
}

fn openssl_peer(peer: Peer) -> Option<MacImplementation> {
    let mut ctx = crate::ffi::EvpPoly1305::new(crate::ffi::crypto().ok()?).ok()?;
    Some(macer(peer.label(), Origin::Peer(peer), move |key: &[u8; 32], msg: &[u8]| ctx.mac(key, msg)))
}

fn sodium_peer(peer: Peer) -> Option<MacImplementation> {
    let lib = crate::ffi::sodium().ok()?;
    Some(macer(peer.label(), Origin::Peer(peer), move |key: &[u8; 32], msg: &[u8]| lib.poly1305(key, msg)))
}

/// Ours on [`Backend::detect`]'s kernel ([`OURS`]) and on each of `backends` (none without
/// `backends`), then each of `peers` that has Poly1305 and runs in this process.
pub fn mac_implementations(backends: &[Backend], peers: &[Peer]) -> Vec<MacImplementation> {
    let mut all = Vec::new();
    if !backends.is_empty() {
        all.push(ours_new());
    }
    all.extend(backends.iter().map(|&b| ours(b)));
    all.extend(peers.iter().filter_map(|&peer| match peer {
        Peer::Poly1305 => Some(rustcrypto(peer)),
        Peer::OpenSsl => openssl_peer(peer),
        Peer::Sodium => sodium_peer(peer),
        _ => None,
    }));
    all
}

/// Whether OpenSSL's Poly1305 can be set up here (OpenSSL 3's `EVP_MAC`), or why not.
pub fn openssl_poly1305_unavailable() -> Option<String> {
    match crate::ffi::crypto() {
        Err(e) => Some(format!("OpenSSL's libcrypto: {e}")),
        Ok(lib) => crate::ffi::EvpPoly1305::new(lib).err(),
    }
}

/// The message lengths of [`mac_transcript`]: empty, around one 16-byte block, around the
/// SIMD kernels' multi-block strides, long.
const CHECK_LENGTHS: [usize; 12] = [0, 1, 15, 16, 17, 63, 64, 65, 100, 257, 1024, 4103];

/// How many bytes [`mac_transcript`] produces: a tag per message.
pub const MAC_CHECK_LEN: usize = CHECK_LENGTHS.len() * 16;

/// The tags of messages of 0 to 4103 bytes (`CHECK_LENGTHS`, a fixed pattern), the `i`-th
/// under a key of its own ([`KEY`] with byte `i` and byte `16 + i` changed, so both r and
/// s differ), concatenated.
pub fn mac_transcript(imp: &mut MacImplementation) -> Vec<u8> {
    let mut out = Vec::with_capacity(MAC_CHECK_LEN);
    for (i, len) in CHECK_LENGTHS.into_iter().enumerate() {
        let msg: Vec<u8> = (0..len).map(|j| (j as u8).wrapping_mul(29).wrapping_add(i as u8)).collect();
        let mut key = KEY;
        key[i] ^= 0xff;
        key[16 + i] ^= 0xa5;
        out.extend_from_slice(&imp.mac(&key, &msg));
    }
    out
}
