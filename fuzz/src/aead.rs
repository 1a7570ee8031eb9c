//! Target `aead`: the `chacha20poly1305` crate's ChaCha20-Poly1305 and XChaCha20-Poly1305
//! (and their 8- and 12-round variants) against a plain model of the construction built
//! from `chacha_core::reference` alone ([`reference_seal`], RFC 8439 §2.8 and
//! draft-irtf-cfrg-xchacha-03 §2.3), for any key, nonce, associated data and message, on
//! every backend of `Backend::available()` (`ChaChaPoly1305::with_backend`) and through
//! `new`: sealing in place and buffer to buffer must give the model's ciphertext and tag;
//! opening must give the message back; and a single flipped bit of the tag, the ciphertext
//! or the associated data, or another nonce, must be refused, with the buffer left as the
//! published crate leaves it (in place: the ciphertext as it was given; buffer to buffer:
//! the output untouched), so no unauthenticated plaintext ever comes out.
//!
//! Input layout (62 bytes, then the data):
//!
//! ```text
//! kind:u8 key[32] nonce[24] aad_len:u16 flip:u16 ignored:u8 data…
//! ```
//!
//! `kind` picks the nonce size (bit 0: XChaCha) and the rounds (`kind >> 1`, modulo 3:
//! 8, 12, 20); the first `aad_len` bytes of the data (fewer if the input ends) are the
//! associated data and the rest is the message; `flip` picks which bit each forgery flips
//! (modulo the length of what it flips).

use arbitrary::{Arbitrary, Unstructured};
use chacha_backends::Backend;
use chacha_core::{Ietf, Rounds, State, reference};
use chacha20::{ChaCha, XChaCha};
use chacha20poly1305::aead::{AeadInOut, KeyInit, inout::InOutBuf};
use chacha20poly1305::{AeadStream, ChaChaPoly1305, consts::U12, consts::U24};

use crate::{reference_bytes, rounds_of, take, u16_of, with_rounds};

/// One case of the `aead` target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    /// XChaCha (24-byte nonce) rather than ChaCha (the nonce's first 12 bytes).
    pub xchacha: bool,
    /// 8, 12 or 20.
    pub rounds: u32,
    pub key: [u8; 32],
    pub nonce: [u8; 24],
    pub aad: Vec<u8>,
    pub message: Vec<u8>,
    /// Which bit the forgeries flip.
    pub flip: u16,
}

/// The fixed-width fields' bytes before the data.
const HEADER_LEN: usize = 1 + 32 + 24 + 2 + 2 + 1;

impl<'a> Arbitrary<'a> for Case {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let [kind] = take(u);
        let key = take(u);
        let nonce = take(u);
        let aad_len = usize::from(u16_of(u));
        let flip = u16_of(u);
        // A spare byte, so that a later selector needs no change of the layout.
        let [_] = take(u);
        let data = u.bytes(u.len())?;
        let (aad, message) = data.split_at(aad_len.min(data.len()));
        Ok(Case {
            xchacha: kind & 1 == 1,
            rounds: rounds_of(kind >> 1),
            key,
            nonce,
            aad: aad.to_vec(),
            message: message.to_vec(),
            flip,
        })
    }
}

impl Case {
    /// The input bytes `arbitrary` reads back as this case.
    pub fn encode(&self) -> Vec<u8> {
        let rounds = [8, 12, 20].iter().position(|r| *r == self.rounds).expect("8, 12 or 20") as u8;
        let mut out = vec![u8::from(self.xchacha) | rounds << 1];
        out.extend_from_slice(&self.key);
        out.extend_from_slice(&self.nonce);
        out.extend_from_slice(&(self.aad.len() as u16).to_le_bytes());
        out.extend_from_slice(&self.flip.to_le_bytes());
        out.push(0);
        debug_assert_eq!(out.len(), HEADER_LEN);
        out.extend_from_slice(&self.aad);
        out.extend_from_slice(&self.message);
        out
    }
}

/// RFC 8439 §2.8.1's `pad16`: zeros up to a multiple of 16 bytes.
fn pad16(out: &mut Vec<u8>, len: usize) {
    out.resize(out.len() + (16 - len % 16) % 16, 0);
}

/// The AEAD construction written out plainly, from the reference block function and the
/// reference Poly1305 alone (RFC 8439 §2.8; XChaCha per draft-irtf-cfrg-xchacha-03 §2.3:
/// the same over the HChaCha subkey of the nonce's first 16 bytes and the nonce
/// `0⁴ ‖ nonce[16..24]`): the ciphertext and the tag.
pub fn reference_seal<R: Rounds>(
    xchacha: bool,
    key: &[u8; 32],
    nonce: &[u8; 24],
    aad: &[u8],
    message: &[u8],
) -> (Vec<u8>, [u8; 16]) {
    let (key, nonce) = if xchacha {
        let subkey = reference::hchacha::<R>(key, nonce[..16].try_into().expect("16 bytes"));
        let mut ietf = [0u8; 12];
        ietf[4..].copy_from_slice(&nonce[16..]);
        (subkey, ietf)
    } else {
        (*key, nonce[..12].try_into().expect("12 bytes"))
    };
    let state = State::<Ietf>::new(&key, &nonce);
    // §2.6: the one-time Poly1305 key is the first 32 bytes of block 0.
    let one_time_key: [u8; 32] = reference::block::<R, Ietf>(&state, 0)[..32].try_into().expect("32 bytes");
    // §2.8: the message is encrypted from block 1.
    let keystream = reference_bytes::<R, Ietf>(&state, 64, message.len());
    let ciphertext: Vec<u8> = message.iter().zip(&keystream).map(|(m, k)| m ^ k).collect();
    // aad ‖ pad16 ‖ ciphertext ‖ pad16 ‖ len(aad) ‖ len(ciphertext), lengths as 64-bit LE.
    let mut mac_data = aad.to_vec();
    pad16(&mut mac_data, aad.len());
    mac_data.extend_from_slice(&ciphertext);
    pad16(&mut mac_data, ciphertext.len());
    mac_data.extend_from_slice(&(aad.len() as u64).to_le_bytes());
    mac_data.extend_from_slice(&(ciphertext.len() as u64).to_le_bytes());
    (ciphertext, reference::poly1305(&one_time_key, &mac_data))
}

/// What one AEAD value is checked against.
struct Expected<'a> {
    nonce: &'a [u8],
    /// The same nonce with one bit flipped.
    other_nonce: &'a [u8],
    aad: &'a [u8],
    message: &'a [u8],
    ciphertext: &'a [u8],
    tag: [u8; 16],
    flip: usize,
}

/// `bytes` with bit `flip` (modulo its length in bits) flipped; `None` for no bytes.
fn flipped(bytes: &[u8], flip: usize) -> Option<Vec<u8>> {
    if bytes.is_empty() {
        return None;
    }
    let bit = flip % (bytes.len() * 8);
    let mut out = bytes.to_vec();
    out[bit / 8] ^= 1 << (bit % 8);
    Some(out)
}

/// Seals and opens with `aead` (named `who`) every way, against `e`.
fn check_one<A: AeadInOut>(aead: &A, e: &Expected<'_>, who: &str) {
    let nonce = chacha20poly1305::aead::Nonce::<A>::try_from(e.nonce).expect("the nonce size");
    let other_nonce = chacha20poly1305::aead::Nonce::<A>::try_from(e.other_nonce).expect("the nonce size");
    let tag_of = |t: &[u8; 16]| chacha20poly1305::aead::Tag::<A>::try_from(&t[..]).expect("16 bytes");

    // Seal in place and buffer to buffer.
    let mut buf = e.message.to_vec();
    let tag = aead.encrypt_inout_detached(&nonce, e.aad, buf.as_mut_slice().into()).expect("a short message");
    assert_eq!(buf, e.ciphertext, "{who}: ciphertext, in place");
    assert_eq!(tag.as_slice(), e.tag, "{who}: tag, in place");
    let mut out = vec![0x5a; e.message.len()];
    let tag = aead
        .encrypt_inout_detached(&nonce, e.aad, InOutBuf::new(e.message, &mut out).expect("equal lengths"))
        .expect("a short message");
    assert_eq!(out, e.ciphertext, "{who}: ciphertext, buffer to buffer");
    assert_eq!(tag.as_slice(), e.tag, "{who}: tag, buffer to buffer");

    // Open: the message back, both ways.
    let mut buf = e.ciphertext.to_vec();
    aead.decrypt_inout_detached(&nonce, e.aad, buf.as_mut_slice().into(), &tag_of(&e.tag))
        .unwrap_or_else(|_| panic!("{who}: the authentic message was refused, in place"));
    assert_eq!(buf, e.message, "{who}: opened in place");
    let mut out = vec![0x5a; e.message.len()];
    aead.decrypt_inout_detached(
        &nonce,
        e.aad,
        InOutBuf::new(e.ciphertext, &mut out).expect("equal lengths"),
        &tag_of(&e.tag),
    )
    .unwrap_or_else(|_| panic!("{who}: the authentic message was refused, buffer to buffer"));
    assert_eq!(out, e.message, "{who}: opened buffer to buffer");

    // Forgeries: one bit of the tag, of the ciphertext, of the associated data; another
    // nonce. Each refused, the in-place buffer holding the ciphertext it was given, the
    // output buffer untouched.
    let tag: [u8; 16] = flipped(&e.tag, e.flip).expect("16 bytes").try_into().expect("16 bytes");
    let mut forgeries = vec![("tag", &nonce, e.aad.to_vec(), e.ciphertext.to_vec(), tag)];
    if let Some(ciphertext) = flipped(e.ciphertext, e.flip) {
        forgeries.push(("ciphertext", &nonce, e.aad.to_vec(), ciphertext, e.tag));
    }
    if let Some(aad) = flipped(e.aad, e.flip) {
        forgeries.push(("associated data", &nonce, aad, e.ciphertext.to_vec(), e.tag));
    }
    forgeries.push(("nonce", &other_nonce, e.aad.to_vec(), e.ciphertext.to_vec(), e.tag));
    for (what, nonce, aad, ciphertext, tag) in forgeries {
        let mut buf = ciphertext.clone();
        let result = aead.decrypt_inout_detached(nonce, &aad, buf.as_mut_slice().into(), &tag_of(&tag));
        assert!(result.is_err(), "{who}: a flipped bit of the {what} opened, in place");
        assert_eq!(buf, ciphertext, "{who}: a refused {what} changed the buffer, in place");
        let mut out = vec![0x5a; ciphertext.len()];
        let result = aead.decrypt_inout_detached(
            nonce,
            &aad,
            InOutBuf::new(&ciphertext, &mut out).expect("equal lengths"),
            &tag_of(&tag),
        );
        assert!(result.is_err(), "{who}: a flipped bit of the {what} opened, buffer to buffer");
        assert!(out.iter().all(|&b| b == 0x5a), "{who}: a refused {what} wrote the output");
    }
}

/// The case on `ChaChaPoly1305<C, N>`: every backend, then `new`; the ciphertext and tag
/// are the model's, so the backends agree with each other too.
fn check_type<C, N>(case: &Case, e: &Expected<'_>)
where
    C: AeadStream<Kernel = Backend, NonceSize = N>,
    N: chacha20poly1305::aead::array::ArraySize,
{
    let key = case.key.into();
    let backends: Vec<Backend> = Backend::available().collect();
    assert!(!backends.is_empty(), "no backend available");
    for backend in backends {
        check_one(
            &ChaChaPoly1305::<C, N>::with_backend(&key, backend),
            e,
            &format!("{case:?} on {backend:?}"),
        );
    }
    check_one(&ChaChaPoly1305::<C, N>::new(&key), e, &format!("{case:?} with new()"));
}

fn check_rounds<R: Rounds>(case: &Case) {
    let (ciphertext, tag) =
        reference_seal::<R>(case.xchacha, &case.key, &case.nonce, &case.aad, &case.message);
    let flip = usize::from(case.flip);
    let len = if case.xchacha { 24 } else { 12 };
    let nonce = &case.nonce[..len];
    let other_nonce = flipped(nonce, flip).expect("a nonce");
    let e = Expected {
        nonce,
        other_nonce: &other_nonce,
        aad: &case.aad,
        message: &case.message,
        ciphertext: &ciphertext,
        tag,
        flip,
    };
    if case.xchacha {
        check_type::<XChaCha<R>, U24>(case, &e);
    } else {
        check_type::<ChaCha<R, Ietf>, U12>(case, &e);
    }
}

/// Checks the case on its AEAD type, on every backend and through `new`.
pub fn check(case: &Case) {
    with_rounds!(case.rounds, R => check_rounds::<R>(case));
}
