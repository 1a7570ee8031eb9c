//! `chacha20poly1305::secretstream` against libsodium's
//! `crypto_secretstream_xchacha20poly1305` (1.0.18, loaded at run time), on every backend:
//! ours pushes and libsodium pulls, libsodium pushes and ours pulls, and ours given
//! libsodium's header pushes the same bytes; over random chunk sizes (0 to 70 KiB), tags,
//! associated data and explicit rekeys. Then every way to break a stream — truncation,
//! a dropped, reordered or replayed chunk, a changed byte, tag, associated data, header or
//! key — refused with a clear error and no plaintext, by ours and by libsodium alike.
//!
//! Without libsodium the differential tests print why and pass, except under CI
//! (`CI=true`, as `.ci/run` and the workflows run them, with libsodium installed), where a
//! missing libsodium fails them; `benches/scripts/without-peer-libs.sh` hides the library
//! on purpose and says so (`CHACHA_PEER_LIBS_HIDDEN`). The refusal tests need no library.
#![forbid(unsafe_code)]

use chacha_bench::{Backend, Sodium, sodium};
use chacha20poly1305_ours::Key;
use chacha20poly1305_ours::secretstream::{ABYTES, Decryptor, Encryptor, Error, Header, Tag};

/// libsodium, or `None` (and a line saying why) where it is missing and may be.
fn libsodium() -> Option<&'static Sodium> {
    match sodium() {
        Ok(lib) => Some(lib),
        Err(why) => {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true");
            let hidden = std::env::var_os("CHACHA_PEER_LIBS_HIDDEN").is_some();
            assert!(!ci || hidden, "CI=true but libsodium is missing ({why}): install libsodium23");
            eprintln!("SKIPPED: the libsodium secretstream comparison ({why})");
            None
        }
    }
}

/// splitmix64: the tests' reproducible choices.
struct Choices(u64);

impl Choices {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.next() as u8).collect()
    }
}

/// One chunk of a planned stream: its message, associated data, tag, and whether both ends
/// rekey explicitly after it.
struct Planned {
    msg: Vec<u8>,
    aad: Vec<u8>,
    tag: Tag,
    rekey_after: bool,
}

/// A stream of `n` chunks: sizes mostly small and around the block edges, some up to
/// 70 KiB; the last one `Final`.
fn plan(choices: &mut Choices, n: usize) -> Vec<Planned> {
    (0..n)
        .map(|i| {
            let len = match choices.below(4) {
                0 => choices.below(70 * 1024),
                1 => 64 * choices.below(8) + choices.below(3),
                _ => choices.below(300),
            };
            let tag = if i + 1 == n {
                Tag::Final
            } else {
                [Tag::Message, Tag::Message, Tag::Push, Tag::Rekey][choices.below(4)]
            };
            let aad_len = [0, 0, 1, 15, 16, 17, 40][choices.below(7)];
            Planned {
                msg: choices.bytes(len),
                aad: choices.bytes(aad_len),
                tag,
                rekey_after: choices.below(8) == 0,
            }
        })
        .collect()
}

fn key_and_header(choices: &mut Choices) -> (Key, Header) {
    let key = Key::try_from(&choices.bytes(32)[..]).unwrap();
    let header = Header::try_from(&choices.bytes(24)[..]).unwrap();
    (key, header)
}

#[test]
fn ours_pushes_libsodium_pulls() {
    let Some(lib) = libsodium() else { return };
    let mut choices = Choices(1);
    for backend in Backend::available() {
        for _ in 0..4 {
            let (key, header) = key_and_header(&mut choices);
            let mut tx = Encryptor::with_backend(&key, &header, backend);
            let mut rx = lib.secretstream_init_pull(&key.0, &header.0);
            for chunk in plan(&mut choices, 24) {
                // Into a new buffer and in place, in turn.
                let sealed = if chunk.msg.len() % 2 == 0 {
                    tx.push(&chunk.msg, &chunk.aad, chunk.tag).unwrap()
                } else {
                    let mut sealed = [&[0][..], &chunk.msg, &[0; 16]].concat();
                    tx.push_in_place(&mut sealed, &chunk.aad, chunk.tag).unwrap();
                    sealed
                };
                let mut msg = vec![0; sealed.len() - ABYTES];
                assert_eq!(
                    lib.secretstream_pull(&mut rx, &mut msg, &sealed, &chunk.aad),
                    Some(chunk.tag as u8),
                    "{backend:?}"
                );
                assert_eq!(msg, chunk.msg, "{backend:?}");
                if chunk.rekey_after {
                    tx.rekey();
                    lib.secretstream_rekey(&mut rx);
                }
            }
        }
    }
}

#[test]
fn libsodium_pushes_ours_pulls_and_pushes_the_same_bytes() {
    let Some(lib) = libsodium() else { return };
    let mut choices = Choices(2);
    for backend in Backend::available() {
        for _ in 0..4 {
            let key = Key::try_from(&choices.bytes(32)[..]).unwrap();
            let (mut theirs, header) = lib.secretstream_init_push(&key.0);
            let header = Header::from(header);
            let mut rx = Decryptor::with_backend(&key, &header, backend);
            let mut tx = Encryptor::with_backend(&key, &header, backend);
            for chunk in plan(&mut choices, 24) {
                let mut sealed = vec![0; chunk.msg.len() + ABYTES];
                lib.secretstream_push(&mut theirs, &mut sealed, &chunk.msg, &chunk.aad, chunk.tag as u8);
                assert_eq!(
                    tx.push(&chunk.msg, &chunk.aad, chunk.tag).unwrap(),
                    sealed,
                    "{backend:?}: the same chunk"
                );
                if chunk.msg.len() % 2 == 0 {
                    let (msg, tag) = rx.pull(&sealed, &chunk.aad).unwrap();
                    assert_eq!((msg, tag), (chunk.msg, chunk.tag), "{backend:?}");
                } else {
                    let (msg, tag) = rx.pull_in_place(&mut sealed, &chunk.aad).unwrap();
                    assert_eq!((&*msg, tag), (&chunk.msg[..], chunk.tag), "{backend:?}");
                }
                if chunk.rekey_after {
                    lib.secretstream_rekey(&mut theirs);
                    tx.rekey();
                    rx.rekey();
                }
            }
            assert!(rx.is_finished());
            rx.finish().unwrap();
        }
    }
}

/// libsodium's counter wrap, which no API reaches (its state is set there: the struct's
/// layout is its header's), does what ours does at the wrap (checked against a reference
/// computation in `secretstream::tests::counter_wrap_rekeys_as_the_reference`): after the
/// chunk at counter 2^32 − 1, `n ^= mac[..8]`, then `k ‖ n` XORed with block 0 under the
/// wrapped nonce `0 ‖ n`, and the counter 1.
#[test]
fn libsodium_wraps_its_counter_as_ours() {
    let Some(lib) = libsodium() else { return };
    let key = [0x5a; 32];
    let mut tx = lib.secretstream_init_pull(&key, &[0xa5; 24]);
    tx.set_counter(u32::MAX);
    let mut rx = tx.clone();
    let (k, mut nonce) = tx.key_and_nonce();
    let mut sealed = vec![0; 10 + ABYTES];
    lib.secretstream_push(&mut tx, &mut sealed, b"0123456789", b"ad", Tag::Message as u8);
    let mac = &sealed[sealed.len() - 16..];
    nonce[..4].copy_from_slice(&0u32.to_le_bytes());
    nonce[4..].iter_mut().zip(mac).for_each(|(n, m)| *n ^= m);
    let mut k_n = [k.as_slice(), &nonce[4..]].concat();
    lib.chacha20_ietf_xor_ic(&mut k_n, &nonce, 0, &k);
    let mut expected = [0u8; 12];
    expected[..4].copy_from_slice(&1u32.to_le_bytes());
    expected[4..].copy_from_slice(&k_n[32..]);
    assert_eq!(tx.key_and_nonce(), (k_n[..32].try_into().unwrap(), expected));
    let mut msg = [0; 10];
    assert_eq!(lib.secretstream_pull(&mut rx, &mut msg, &sealed, b"ad"), Some(0));
    assert_eq!(rx.key_and_nonce(), tx.key_and_nonce());
}

/// A sealed chunk, its associated data and its tag.
type Sealed = (Vec<u8>, Vec<u8>, Tag);

/// A stream of ours: its header, key and chunks, the last `Final`.
fn a_stream(backend: Backend) -> (Key, Header, Vec<Sealed>) {
    let mut choices = Choices(3);
    let (key, header) = key_and_header(&mut choices);
    let mut tx = Encryptor::with_backend(&key, &header, backend);
    let chunks = [(5, Tag::Message), (64, Tag::Push), (0, Tag::Message), (130, Tag::Rekey), (33, Tag::Final)]
        .into_iter()
        .enumerate()
        .map(|(i, (len, tag))| {
            let msg = choices.bytes(len);
            let aad = vec![i as u8; i];
            (tx.push(&msg, &aad, tag).unwrap(), aad, tag)
        })
        .collect();
    (key, header, chunks)
}

/// Pulls `order` (indices into `chunks`) and returns the index and error of the first
/// refusal, checking that a refused in-place pull leaves the chunk as it was.
fn first_refusal(
    key: &Key,
    header: &Header,
    backend: Backend,
    chunks: &[Sealed],
    order: &[usize],
) -> Option<(usize, Error)> {
    let mut rx = Decryptor::with_backend(key, header, backend);
    for (at, &i) in order.iter().enumerate() {
        let (chunk, aad, _) = &chunks[i];
        let mut copy = chunk.clone();
        match rx.pull_in_place(&mut copy, aad) {
            Ok(_) => {}
            Err(e) => {
                assert_eq!(&copy, chunk, "a refused chunk is left as it was");
                assert_eq!(rx.pull(chunk, aad).map(|_| ()), Err(e), "pull refuses as pull_in_place");
                if let Some(len) = chunk.len().checked_sub(ABYTES) {
                    let mut out = vec![0xee; len];
                    assert_eq!(rx.pull_to(chunk, &mut out, aad), Err(e), "pull_to refuses as pull_in_place");
                    assert!(
                        out.iter().all(|&b| b == 0xee || b == 0),
                        "a refused pull_to writes no plaintext"
                    );
                }
                return Some((at, e));
            }
        }
    }
    match rx.finish() {
        Ok(()) => None,
        Err(e) => Some((order.len(), e)),
    }
}

#[test]
fn every_broken_stream_is_refused() {
    for backend in Backend::available() {
        let (key, header, chunks) = a_stream(backend);
        let n = chunks.len();
        let all: Vec<usize> = (0..n).collect();
        assert_eq!(first_refusal(&key, &header, backend, &chunks, &all), None, "the whole stream opens");
        // Truncated: the final chunk (or more) dropped; only `finish` can tell.
        for keep in 0..n {
            let order: Vec<usize> = (0..keep).collect();
            assert_eq!(
                first_refusal(&key, &header, backend, &chunks, &order),
                Some((keep, Error::Truncated)),
                "{keep} kept"
            );
        }
        // One chunk dropped, two swapped, one replayed: refused where the stream diverges.
        for drop in 0..n - 1 {
            let order: Vec<usize> = (0..n).filter(|&i| i != drop).collect();
            assert_eq!(
                first_refusal(&key, &header, backend, &chunks, &order),
                Some((drop, Error::Forged)),
                "chunk {drop} dropped"
            );
            let mut order = all.clone();
            order.swap(drop, drop + 1);
            assert_eq!(
                first_refusal(&key, &header, backend, &chunks, &order),
                Some((drop, Error::Forged)),
                "{drop} swapped"
            );
            let mut order = all.clone();
            order.insert(drop + 1, drop);
            assert_eq!(
                first_refusal(&key, &header, backend, &chunks, &order),
                Some((drop + 1, Error::Forged)),
                "{drop} replayed"
            );
        }
        // After the final chunk nothing more is pulled, not even a genuine one again.
        let mut order = all.clone();
        order.push(0);
        assert_eq!(first_refusal(&key, &header, backend, &chunks, &order), Some((n, Error::Finished)));
        // Every bit of every chunk (the tag byte, ciphertext and MAC) and of the AAD.
        for i in 0..n {
            for byte in 0..chunks[i].0.len() + chunks[i].1.len() {
                for bit in [0, 3, 7] {
                    let mut changed = chunks.to_vec();
                    let (chunk, aad, _) = &mut changed[i];
                    let len = chunk.len();
                    if byte < len {
                        chunk[byte] ^= 1 << bit
                    } else {
                        aad[byte - len] ^= 1 << bit
                    }
                    assert_eq!(
                        first_refusal(&key, &header, backend, &changed, &all),
                        Some((i, Error::Forged)),
                        "chunk {i} byte {byte}"
                    );
                }
            }
        }
        // AAD added to a chunk that had none, a chunk cut by a byte, one too short to be one.
        let mut changed = chunks.to_vec();
        changed[0].1.push(0);
        assert_eq!(first_refusal(&key, &header, backend, &changed, &all), Some((0, Error::Forged)));
        let mut changed = chunks.to_vec();
        changed[1].0.pop();
        assert_eq!(first_refusal(&key, &header, backend, &changed, &all), Some((1, Error::Forged)));
        let mut changed = chunks.to_vec();
        changed[2].0.truncate(ABYTES - 1);
        assert_eq!(first_refusal(&key, &header, backend, &changed, &all), Some((2, Error::TooShort)));
        // Another header or key: the first chunk.
        for i in 0..24 {
            let mut other = header;
            other[i] ^= 0x80;
            assert_eq!(
                first_refusal(&key, &other, backend, &chunks, &all),
                Some((0, Error::Forged)),
                "header byte {i}"
            );
        }
        let mut other = key;
        other[31] ^= 1;
        assert_eq!(first_refusal(&other, &header, backend, &chunks, &all), Some((0, Error::Forged)));
    }
}

/// A refused chunk leaves the decryptor as it was (libsodium's `pull` does not touch the
/// state on failure): the genuine chunk still opens after a forged one. And after `Final`
/// the encryptor refuses to push.
#[test]
fn a_refused_chunk_leaves_the_decryptor_usable_and_final_ends_pushing() {
    let backend = Backend::detect();
    let (key, header, chunks) = a_stream(backend);
    let mut rx = Decryptor::with_backend(&key, &header, backend);
    let mut forged = chunks[0].0.clone();
    forged[3] ^= 1;
    assert_eq!(rx.pull(&forged, &chunks[0].1), Err(Error::Forged));
    assert_eq!(rx.pull(&chunks[1].0, &chunks[1].1), Err(Error::Forged));
    for (chunk, aad, tag) in &chunks {
        assert_eq!(rx.pull(chunk, aad).unwrap().1, *tag);
    }
    let mut tx = Encryptor::with_backend(&key, &header, backend);
    tx.push(b"", b"", Tag::Final).unwrap();
    assert!(tx.is_finished());
    assert_eq!(tx.push(b"more", b"", Tag::Message), Err(Error::Finished));
    let mut tx = Encryptor::with_backend(&key, &header, backend);
    assert_eq!(tx.push_to(b"abc", &mut [0; 3 + ABYTES - 1], b"", Tag::Message), Err(Error::OutputLength));
    let mut chunk = [0; 3 + ABYTES];
    tx.push_to(b"abc", &mut chunk, b"", Tag::Message).unwrap();
    let mut rx2 = Decryptor::with_backend(&key, &header, backend);
    assert_eq!(rx2.pull_to(&chunk, &mut [0; 4], b""), Err(Error::OutputLength));
    let mut msg = [0; 3];
    assert_eq!(rx2.pull_to(&chunk, &mut msg, b""), Ok(Tag::Message));
    assert_eq!(&msg, b"abc");
    let text = format!("{tx:?} {rx:?}");
    assert!(!text.contains(&format!("{:?}", &key.0[..4])), "{text}");
    // And libsodium refuses what ours refuses: a changed byte of a chunk of ours.
    let Some(lib) = libsodium() else { return };
    let mut theirs = lib.secretstream_init_pull(&key.0, &header.0);
    let mut msg = vec![0; chunks[0].0.len() - ABYTES];
    assert_eq!(lib.secretstream_pull(&mut theirs, &mut msg, &forged, &chunks[0].1), None);
    assert_eq!(lib.secretstream_pull(&mut theirs, &mut msg, &chunks[0].0, &chunks[0].1), Some(0));
}

/// A chunk libsodium pushes with a tag byte that is none of the four (its `push` takes any
/// byte): authentic, but ours refuses it as `UnknownTag` and releases nothing.
#[test]
fn an_unknown_tag_is_refused_without_plaintext() {
    let Some(lib) = libsodium() else { return };
    let key = [0x33; 32];
    let header = [0x44; 24];
    let mut theirs = lib.secretstream_init_pull(&key, &header);
    let mut sealed = vec![0; 100 + ABYTES];
    lib.secretstream_push(&mut theirs, &mut sealed, &[0x5a; 100], b"", 0x10);
    for backend in Backend::available() {
        let mut rx = Decryptor::with_backend(&Key::from(key), &Header::from(header), backend);
        let mut copy = sealed.clone();
        assert_eq!(rx.pull_in_place(&mut copy, b"").map(|_| ()), Err(Error::UnknownTag(0x10)), "{backend:?}");
        assert_eq!(copy, sealed, "{backend:?}: the chunk is left as it was");
        let mut out = vec![0xee; 100];
        assert_eq!(rx.pull_to(&sealed, &mut out, b""), Err(Error::UnknownTag(0x10)));
        assert!(out.iter().all(|&b| b == 0xee || b == 0), "{backend:?}: no plaintext");
    }
}
