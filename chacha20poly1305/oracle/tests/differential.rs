//! Against the published `chacha20poly1305` 0.11.0 (over the published `chacha20` and
//! `poly1305`), on every backend: all six variants, every message length 0..=460 and the
//! lengths around the one-pass pieces (4 KiB) and beyond, associated data of every
//! padding class, in place and buffer to buffer, with guard bytes around each buffer.
//! Then forgeries: every bit of the tag, of the associated data and of the nonce, and a
//! bit in every byte of the ciphertext, flipped; each must be refused, with the buffer
//! left as the published crate leaves it. And a wrong tag at every length of the short path
//! and past it (0..=460), for both AEADs: refused, nothing released.

use chacha_testdata::{Guarded, filler};
use chacha20poly1305::aead::{AeadCore, AeadInOut, KeyInit, inout::InOutBuf};
use chacha20poly1305::{
    Backend, ChaCha8Poly1305, ChaCha12Poly1305, ChaCha20Poly1305, XChaCha8Poly1305, XChaCha12Poly1305,
    XChaCha20Poly1305,
};
use chacha20poly1305_published as published;

fn backends() -> Vec<Backend> {
    let backends: Vec<Backend> = Backend::available().collect();
    assert!(!backends.is_empty(), "no backend available");
    backends
}

/// Every length to 460 (the short path's 0–7 blocks and the bulk path's first pieces),
/// then around the 4 KiB pieces of the one-pass step, and longer; under miri, one length
/// of each kind (the one past a 4 KiB piece for ChaCha20Poly1305 only: `agree`).
fn lengths() -> Vec<usize> {
    if cfg!(miri) {
        return vec![0, 1, 64, 65, 193, 4097];
    }
    (0..=460)
        .chain([1023, 1024, 1025, 4095, 4096, 4097, 8191, 8193, 16384 + 17, 65536 + 5, 100_003])
        .collect()
}

const AAD_LENGTHS: [usize; 6] = [0, 1, 15, 16, 17, 100];

/// Seals with ours (on `backend`) and with the published crate; both must agree, and
/// ours must open what both sealed. `N` is the nonce length.
fn agree<Ours, Published, const N: usize>(
    backend: Backend,
    what: &str,
    ours: impl Fn(Backend, &[u8; 32]) -> Ours,
) where
    Ours: AeadInOut + AeadCore,
    Published: AeadInOut + KeyInit<KeySize = aead::consts::U32>,
    for<'a> &'a aead::Nonce<Ours>: From<&'a [u8; N]>,
    for<'a> &'a aead::Nonce<Published>: From<&'a [u8; N]>,
{
    // Under miri the pieces' loop is the same code for every variant: one is enough.
    let lengths =
        lengths().into_iter().filter(|&len| !cfg!(miri) || len < 4096 || what == "ChaCha20Poly1305");
    for (i, len) in lengths.enumerate() {
        let aad_len = AAD_LENGTHS[i % AAD_LENGTHS.len()];
        let seed = (len * 7 + aad_len) as u64;
        let data = filler(seed, 32 + N + aad_len + len);
        let key: [u8; 32] = data[..32].try_into().unwrap();
        let nonce: [u8; N] = data[32..32 + N].try_into().unwrap();
        let aad = &data[32 + N..][..aad_len];
        let plaintext = &data[32 + N + aad_len..];
        let at = format!("{what} on {backend:?}, {len} bytes, {aad_len} of aad");

        let theirs_aead = Published::new(&key.into());
        let mut theirs = plaintext.to_vec();
        let their_tag =
            theirs_aead.encrypt_inout_detached((&nonce).into(), aad, theirs.as_mut_slice().into()).unwrap();

        let aead = ours(backend, &key);
        // In place, guarded.
        let mut buf = Guarded::new(plaintext, len % 7);
        let tag = aead.encrypt_inout_detached((&nonce).into(), aad, buf.get_mut().into()).unwrap();
        buf.check(&at);
        assert_eq!(buf.get(), theirs.as_slice(), "{at}: ciphertext");
        assert_eq!(tag.as_slice(), their_tag.as_slice(), "{at}: tag");
        aead.decrypt_inout_detached((&nonce).into(), aad, buf.get_mut().into(), &tag).unwrap();
        buf.check(&at);
        assert_eq!(buf.get(), plaintext, "{at}: opened in place");
        // Buffer to buffer, guarded.
        let mut out = Guarded::new(&vec![0u8; len], 3);
        let tag = aead
            .encrypt_inout_detached((&nonce).into(), aad, InOutBuf::new(plaintext, out.get_mut()).unwrap())
            .unwrap();
        out.check(&at);
        assert_eq!(out.get(), theirs.as_slice(), "{at}: ciphertext, buffer to buffer");
        assert_eq!(tag.as_slice(), their_tag.as_slice(), "{at}: tag, buffer to buffer");
        let mut opened = Guarded::new(&vec![0u8; len], 5);
        aead.decrypt_inout_detached(
            (&nonce).into(),
            aad,
            InOutBuf::new(&theirs, opened.get_mut()).unwrap(),
            &tag,
        )
        .unwrap();
        opened.check(&at);
        assert_eq!(opened.get(), plaintext, "{at}: opened buffer to buffer");
    }
}

#[test]
fn every_variant_agrees_with_the_published_crate_on_every_backend() {
    for backend in backends() {
        agree::<_, published::ChaCha20Poly1305, 12>(backend, "ChaCha20Poly1305", |b, k| {
            ChaCha20Poly1305::with_backend(&(*k).into(), b)
        });
        agree::<_, published::XChaCha20Poly1305, 24>(backend, "XChaCha20Poly1305", |b, k| {
            XChaCha20Poly1305::with_backend(&(*k).into(), b)
        });
        agree::<_, published::ChaCha12Poly1305, 12>(backend, "ChaCha12Poly1305", |b, k| {
            ChaCha12Poly1305::with_backend(&(*k).into(), b)
        });
        agree::<_, published::ChaCha8Poly1305, 12>(backend, "ChaCha8Poly1305", |b, k| {
            ChaCha8Poly1305::with_backend(&(*k).into(), b)
        });
        agree::<_, published::XChaCha12Poly1305, 24>(backend, "XChaCha12Poly1305", |b, k| {
            XChaCha12Poly1305::with_backend(&(*k).into(), b)
        });
        agree::<_, published::XChaCha8Poly1305, 24>(backend, "XChaCha8Poly1305", |b, k| {
            XChaCha8Poly1305::with_backend(&(*k).into(), b)
        });
    }
}

/// One forgery: `open` must refuse it; in place the buffer must hold the ciphertext again,
/// buffer to buffer the output must be as it was.
fn refused(
    aead: &ChaCha20Poly1305,
    nonce: &[u8; 12],
    aad: &[u8],
    ciphertext: &[u8],
    tag: &[u8; 16],
    what: &str,
) {
    let mut buf = ciphertext.to_vec();
    let result = aead.decrypt_inout_detached(nonce.into(), aad, buf.as_mut_slice().into(), tag.into());
    assert!(result.is_err(), "{what}: accepted in place");
    assert_eq!(buf, ciphertext, "{what}: in place, the buffer is not the ciphertext");
    let mut out = vec![0xa5u8; ciphertext.len()];
    let result = aead.decrypt_inout_detached(
        nonce.into(),
        aad,
        InOutBuf::new(ciphertext, &mut out).unwrap(),
        tag.into(),
    );
    assert!(result.is_err(), "{what}: accepted buffer to buffer");
    assert!(out.iter().all(|&b| b == 0xa5), "{what}: buffer to buffer, the output was written");
}

#[test]
fn every_forgery_is_refused_and_nothing_is_released() {
    for backend in backends() {
        let lengths: &[usize] =
            if cfg!(miri) { &[0, 65] } else { &[0, 1, 63, 64, 65, 192, 193, 300, 448, 449, 4097, 20_000] };
        for &len in lengths {
            let data = filler(len as u64 + 99, 32 + 12 + 20 + len);
            let key: [u8; 32] = data[..32].try_into().unwrap();
            let nonce: [u8; 12] = data[32..44].try_into().unwrap();
            let aad = &data[44..64];
            let aead = ChaCha20Poly1305::with_backend(&key.into(), backend);
            let mut ciphertext = data[64..].to_vec();
            let tag: [u8; 16] = aead
                .encrypt_inout_detached((&nonce).into(), aad, ciphertext.as_mut_slice().into())
                .unwrap()
                .into();
            let at = format!("{backend:?}, {len} bytes");
            // Under miri, every ninth bit of the tag, the AAD and the nonce (each byte's
            // bits in turn), every 13th byte of the ciphertext.
            let step = if cfg!(miri) { 9 } else { 1 };
            for bit in (0..128).step_by(step) {
                let mut t = tag;
                t[bit / 8] ^= 1 << (bit % 8);
                refused(&aead, &nonce, aad, &ciphertext, &t, &format!("{at}: tag bit {bit}"));
            }
            for i in (0..ciphertext.len()).step_by(if cfg!(miri) { 13 } else { 1 }) {
                let mut c = ciphertext.clone();
                c[i] ^= 1 << (i % 8);
                refused(&aead, &nonce, aad, &c, &tag, &format!("{at}: ciphertext byte {i}"));
            }
            for bit in (0..aad.len() * 8).step_by(step) {
                let mut a = aad.to_vec();
                a[bit / 8] ^= 1 << (bit % 8);
                refused(&aead, &nonce, &a, &ciphertext, &tag, &format!("{at}: aad bit {bit}"));
            }
            for bit in (0..96).step_by(step) {
                let mut n = nonce;
                n[bit / 8] ^= 1 << (bit % 8);
                refused(&aead, &n, aad, &ciphertext, &tag, &format!("{at}: nonce bit {bit}"));
            }
            // Truncated or extended associated data, and a ciphertext one byte short.
            refused(&aead, &nonce, &aad[..19], &ciphertext, &tag, &format!("{at}: aad one byte short"));
            refused(
                &aead,
                &nonce,
                &[aad, &[0]].concat(),
                &ciphertext,
                &tag,
                &format!("{at}: aad with a zero byte more"),
            );
            if let Some((_, short)) = ciphertext.split_last() {
                refused(&aead, &nonce, aad, short, &tag, &format!("{at}: ciphertext one byte short"));
            }
        }
    }
}

/// A wrong tag at every length to 460 (the short path, which verifies before it XORs, and
/// the first lengths of the bulk path), for both nonce sizes, on every backend: refused, the
/// buffer in place still the ciphertext, the output buffer to buffer untouched (guarded).
fn wrong_tags_release_nothing<A: AeadInOut, const N: usize>(aead: impl Fn(&[u8; 32]) -> A, what: &str)
where
    for<'a> &'a aead::Nonce<A>: From<&'a [u8; N]>,
    for<'a> &'a aead::Tag<A>: From<&'a [u8; 16]>,
{
    let lengths =
        if cfg!(miri) { vec![0, 1, 63, 64, 65, 191, 192, 193, 447, 448, 449] } else { (0..=460).collect() };
    for len in lengths {
        let data = filler(len as u64 + 1000, 32 + N + 13 + len);
        let key: [u8; 32] = data[..32].try_into().unwrap();
        let nonce: [u8; N] = data[32..32 + N].try_into().unwrap();
        let aad = &data[32 + N..][..13];
        let aead = aead(&key);
        let mut ciphertext = data[32 + N + 13..].to_vec();
        let tag: [u8; 16] = aead
            .encrypt_inout_detached((&nonce).into(), aad, ciphertext.as_mut_slice().into())
            .unwrap()
            .as_slice()
            .try_into()
            .unwrap();
        // A bit of the first and of the last tag byte, and one in the middle.
        for bit in [0, 61, 127] {
            let at = format!("{what}, {len} bytes, tag bit {bit}");
            let mut forged = tag;
            forged[bit / 8] ^= 1 << (bit % 8);
            let mut buf = Guarded::new(&ciphertext, len % 5);
            let result =
                aead.decrypt_inout_detached((&nonce).into(), aad, buf.get_mut().into(), (&forged).into());
            assert!(result.is_err(), "{at}: accepted in place");
            buf.check(&at);
            assert_eq!(buf.get(), ciphertext.as_slice(), "{at}: in place, the buffer is not the ciphertext");
            let mut out = Guarded::new(&vec![0xa5u8; len], 2);
            let result = aead.decrypt_inout_detached(
                (&nonce).into(),
                aad,
                InOutBuf::new(&ciphertext, out.get_mut()).unwrap(),
                (&forged).into(),
            );
            assert!(result.is_err(), "{at}: accepted buffer to buffer");
            out.check(&at);
            assert!(out.get().iter().all(|&b| b == 0xa5), "{at}: buffer to buffer, the output was written");
        }
        // The right tag still opens (the forgeries left nothing behind).
        let mut buf = ciphertext.clone();
        aead.decrypt_inout_detached((&nonce).into(), aad, buf.as_mut_slice().into(), (&tag).into()).unwrap();
        assert_eq!(buf, &data[32 + N + 13..], "{what}, {len} bytes: opened");
    }
}

#[test]
fn a_wrong_tag_releases_nothing_at_every_short_length() {
    for backend in backends() {
        wrong_tags_release_nothing::<_, 12>(
            |k| ChaCha20Poly1305::with_backend(&(*k).into(), backend),
            &format!("ChaCha20Poly1305 on {backend:?}"),
        );
        wrong_tags_release_nothing::<_, 24>(
            |k| XChaCha20Poly1305::with_backend(&(*k).into(), backend),
            &format!("XChaCha20Poly1305 on {backend:?}"),
        );
    }
}
