//! RustCrypto's `aead-stream` 0.6 (STREAM: one AEAD message per chunk, the nonce a prefix,
//! a chunk counter and a last-chunk flag) on ours and on the published `chacha20poly1305`
//! 0.11.0: `EncryptorBE32`/`DecryptorBE32` and `EncryptorLE31`/`DecryptorLE31` over
//! `ChaCha20Poly1305` and `XChaCha20Poly1305`, on every backend. Ours encrypts what the
//! published crate encrypts, byte for byte, and each decrypts the other's stream; the
//! refusals STREAM promises (a chunk dropped, swapped or replayed, the last one dropped
//! or a middle one passed off as the last) hold on ours.

use aead_stream::{DecryptorBE32, DecryptorLE31, EncryptorBE32, EncryptorLE31};
use chacha_testdata::filler;
use chacha20poly1305::aead::KeyInit;
use chacha20poly1305::{Backend, ChaCha20Poly1305, XChaCha20Poly1305};
use chacha20poly1305_published as published;

/// Chunk sizes: empty, around the short path and the one-pass pieces, and age's 64 KiB;
/// the last chunk shorter (a STREAM's last chunk may be any size).
fn chunk_lengths() -> Vec<usize> {
    if cfg!(miri) {
        return vec![0, 65, 600];
    }
    vec![0, 1, 63, 64, 65, 448, 449, 4096, 4097, 65536, 65536, 100, 12_345]
}

/// Encrypts `chunks` with `aad`, the last with the last-chunk flag.
macro_rules! encrypt_all {
    ($encryptor:ident, $aead:expr, $nonce:expr, $chunks:expr) => {{
        let mut enc = $encryptor::from_aead($aead, $nonce.as_slice().try_into().unwrap());
        let (last, init) = $chunks.split_last().unwrap();
        let mut out: Vec<Vec<u8>> =
            init.iter().map(|(msg, aad)| enc.encrypt_next(aead::Payload { msg, aad }).unwrap()).collect();
        out.push(enc.encrypt_last(aead::Payload { msg: &last.0, aad: &last.1 }).unwrap());
        out
    }};
}

/// Decrypts `sealed` (the last with the flag) with the chunks' `aad`s; the plaintexts, or
/// the index of the first chunk refused.
macro_rules! decrypt_all {
    ($decryptor:ident, $aead:expr, $nonce:expr, $sealed:expr, $aads:expr) => {{
        let mut dec = $decryptor::from_aead($aead, $nonce.as_slice().try_into().unwrap());
        let n = $sealed.len();
        let mut opened = Vec::new();
        let mut refused = None;
        for (i, (ct, aad)) in $sealed.iter().zip($aads).enumerate() {
            let payload = aead::Payload { msg: ct.as_slice(), aad: aad.as_slice() };
            if i + 1 == n {
                match dec.decrypt_last(payload) {
                    Ok(msg) => opened.push(msg),
                    Err(_) => refused = Some(i),
                }
                break;
            }
            match dec.decrypt_next(payload) {
                Ok(msg) => opened.push(msg),
                Err(_) => {
                    refused = Some(i);
                    break;
                }
            }
        }
        match refused {
            None => Ok(opened),
            Some(i) => Err(i),
        }
    }};
}

/// One test per AEAD and STREAM flavour: `$prefix` is the nonce prefix length (the AEAD's
/// nonce less the flavour's 5 (BE32) or 4 (LE31) bytes).
macro_rules! stream_test {
    ($name:ident, $ours:ty, $published:ty, $enc:ident, $dec:ident, $prefix:expr) => {
        #[test]
        fn $name() {
            let lengths = chunk_lengths();
            let data = filler(
                lengths.len() as u64 + $prefix,
                32 + $prefix + lengths.iter().sum::<usize>() + 17 * lengths.len(),
            );
            let key: [u8; 32] = data[..32].try_into().unwrap();
            let nonce = data[32..32 + $prefix].to_vec();
            let mut rest = &data[32 + $prefix..];
            let chunks: Vec<(Vec<u8>, Vec<u8>)> = lengths
                .iter()
                .enumerate()
                .map(|(i, &len)| {
                    let (msg, tail) = rest.split_at(len);
                    let (aad, tail) = tail.split_at(i % 17);
                    rest = tail;
                    (msg.to_vec(), aad.to_vec())
                })
                .collect();
            let msgs: Vec<Vec<u8>> = chunks.iter().map(|c| c.0.clone()).collect();
            let aads: Vec<Vec<u8>> = chunks.iter().map(|c| c.1.clone()).collect();
            let theirs = encrypt_all!($enc, <$published>::new(&key.into()), nonce, chunks);
            let opened = decrypt_all!($dec, <$published>::new(&key.into()), nonce, theirs, &aads);
            assert_eq!(opened, Ok(msgs.clone()), "the published crate opens its own stream");
            for backend in Backend::available() {
                let ours = || <$ours>::with_backend(&key.into(), backend);
                let sealed = encrypt_all!($enc, ours(), nonce, chunks);
                assert!(sealed == theirs, "{backend:?}: ours encrypts the published crate's bytes");
                assert_eq!(decrypt_all!($dec, ours(), nonce, theirs, &aads), Ok(msgs.clone()), "{backend:?}");
                let opened = decrypt_all!($dec, <$published>::new(&key.into()), nonce, sealed, &aads);
                assert_eq!(opened, Ok(msgs.clone()), "{backend:?}: the published crate opens ours");
                // Refusals, each at the first chunk out of place.
                let n = sealed.len();
                let open = |order: &[usize]| {
                    let picked: Vec<Vec<u8>> = order.iter().map(|&i| sealed[i].clone()).collect();
                    let picked_aads: Vec<Vec<u8>> = order.iter().map(|&i| aads[i].clone()).collect();
                    decrypt_all!($dec, ours(), nonce, picked, &picked_aads)
                };
                let all: Vec<usize> = (0..n).collect();
                assert_eq!(open(&all[..n - 1]), Err(n - 2), "{backend:?}: the last chunk dropped");
                for i in 0..n - 1 {
                    let mut order = all.clone();
                    order.remove(i);
                    assert_eq!(open(&order), Err(i), "{backend:?}: chunk {i} dropped");
                    let mut order = all.clone();
                    order.swap(i, i + 1);
                    assert_eq!(open(&order), Err(i), "{backend:?}: chunks {i} and {} swapped", i + 1);
                    let mut order = all.clone();
                    order.insert(i + 1, i);
                    assert_eq!(open(&order), Err(i + 1), "{backend:?}: chunk {i} replayed");
                }
            }
        }
    };
}

stream_test!(
    be32_chacha20poly1305,
    ChaCha20Poly1305,
    published::ChaCha20Poly1305,
    EncryptorBE32,
    DecryptorBE32,
    7
);
stream_test!(
    le31_chacha20poly1305,
    ChaCha20Poly1305,
    published::ChaCha20Poly1305,
    EncryptorLE31,
    DecryptorLE31,
    8
);
stream_test!(
    be32_xchacha20poly1305,
    XChaCha20Poly1305,
    published::XChaCha20Poly1305,
    EncryptorBE32,
    DecryptorBE32,
    19
);
stream_test!(
    le31_xchacha20poly1305,
    XChaCha20Poly1305,
    published::XChaCha20Poly1305,
    EncryptorLE31,
    DecryptorLE31,
    20
);
