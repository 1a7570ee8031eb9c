//! Known answers: RFC 8439 §2.5.2 "Poly1305 Example and Test Vector" and Appendix A.3
//! "Test Vectors for Poly1305" #1–#11 (`testdata/vectors.txt`, each with its source), on
//! every backend this CPU runs, through every call of the API and split at every byte.
//! And the API's promises: `verify` refuses every one-bit change of the tag, a clone is
//! independent, `Debug` shows no key byte, the published crate's constants and types.

use chacha_testdata::{Vector, all};
use poly1305::universal_hash::{KeyInit, UniversalHash};
use poly1305::{BLOCK_SIZE, Backend, Block, KEY_SIZE, Key, Poly1305, Tag};

fn backends() -> Vec<Backend> {
    let backends: Vec<Backend> = Backend::available().collect();
    assert!(!backends.is_empty(), "no backend available");
    backends
}

fn vectors() -> Vec<&'static Vector> {
    let v: Vec<_> = all().iter().filter(|v| v.name.starts_with("rfc8439-poly1305-")).collect();
    assert_eq!(v.len(), 12, "§2.5.2 and A.3 #1–#11");
    v
}

/// `compute_unpadded` is RFC 8439's Poly1305 of the message; after `update` of the whole
/// blocks of any prefix it continues the same message.
#[test]
fn rfc_vectors_on_every_backend_and_split() {
    for v in vectors() {
        let (key, msg, tag) = (Key::from(v.array::<32>("key")), v.bytes("message"), v.array::<16>("tag"));
        assert_eq!(Poly1305::new(&key).compute_unpadded(&msg), Tag::from(tag), "{}: new()", v.name);
        for backend in backends() {
            let mac = Poly1305::with_backend(&key, backend);
            assert_eq!(mac.backend(), backend);
            assert_eq!(mac.compute_unpadded(&msg), Tag::from(tag), "{} on {backend:?}", v.name);
            for blocks in 0..=msg.len() / BLOCK_SIZE {
                let (head, rest) = msg.split_at(blocks * BLOCK_SIZE);
                let mut mac = Poly1305::with_backend(&key, backend);
                mac.update(Block::slice_as_chunks(head).0);
                assert_eq!(
                    mac.compute_unpadded(rest),
                    Tag::from(tag),
                    "{} on {backend:?}, {blocks} blocks first",
                    v.name
                );
            }
        }
    }
}

/// Vectors whose message is whole blocks are the same through `update`, `update_padded`
/// and `finalize` (nothing is padded), in any grouping of the blocks, and `verify` accepts
/// the tag and refuses each one-bit change of it.
#[test]
fn rfc_vectors_of_whole_blocks_through_update_and_verify() {
    let mut whole = 0;
    for v in vectors().into_iter().filter(|v| v.bytes("message").len() % BLOCK_SIZE == 0) {
        whole += 1;
        let (key, msg, tag) =
            (Key::from(v.array::<32>("key")), v.bytes("message"), Tag::from(v.array::<16>("tag")));
        let blocks = Block::slice_as_chunks(&msg).0;
        for backend in backends() {
            for split in 0..=blocks.len() {
                let mut mac = Poly1305::with_backend(&key, backend);
                mac.update(&blocks[..split]);
                mac.update_padded(&msg[split * BLOCK_SIZE..]);
                assert_eq!(mac.clone().finalize(), tag, "{} on {backend:?}, split at block {split}", v.name);
                assert_eq!(mac.clone().verify(&tag), Ok(()));
                for bit in 0..128 {
                    let mut forged = tag;
                    forged[bit / 8] ^= 1 << (bit % 8);
                    assert!(mac.clone().verify(&forged).is_err(), "{}: bit {bit} of the tag", v.name);
                }
            }
        }
    }
    assert!(whole >= 8, "only {whole} vectors of whole blocks");
}

/// RFC 8439 §2.8.2's MAC input (AAD, ciphertext, each padded, then the lengths) through
/// `update_padded`, as an AEAD feeds it: the RFC's tag.
#[test]
fn rfc_aead_vector_through_update_padded() {
    let v = chacha_testdata::get("rfc8439-aead-2.8.2");
    let one_time = chacha_core::reference::block::<chacha_core::R20, chacha_core::Ietf>(
        &chacha_core::State::new(&v.array("key"), &v.array("nonce")),
        0,
    );
    let (aad, ciphertext) = (v.bytes("aad"), v.bytes("ciphertext"));
    let mut lengths = [0u8; 16];
    lengths[..8].copy_from_slice(&(aad.len() as u64).to_le_bytes());
    lengths[8..].copy_from_slice(&(ciphertext.len() as u64).to_le_bytes());
    for backend in backends() {
        let mut mac = Poly1305::with_backend(&Key::try_from(&one_time[..32]).unwrap(), backend);
        mac.update_padded(&aad);
        mac.update_padded(&ciphertext);
        mac.update(&[Block::from(lengths)]);
        assert_eq!(mac.finalize().as_slice(), v.bytes("tag"), "on {backend:?}");
    }
}

#[test]
fn the_published_crates_names_and_sizes() {
    assert_eq!((KEY_SIZE, BLOCK_SIZE), (32, 16));
    assert_eq!(Key::default().len(), KEY_SIZE);
    assert_eq!(Block::default().len(), BLOCK_SIZE);
    assert_eq!(Tag::default().len(), 16);
    // KeyInit's slice constructor: the wrong length is an error, not a panic.
    assert!(Poly1305::new_from_slice(&[0; 31]).is_err());
    assert!(Poly1305::new_from_slice(&[0; 32]).is_ok());
    fn traits<T: Clone + Send + Sync + core::fmt::Debug + UniversalHash + KeyInit>() {}
    traits::<Poly1305>();
}

/// A clone continues on its own: what the original absorbs after it does not reach it.
#[test]
fn a_clone_is_independent() {
    let key = Key::from([7; 32]);
    let mut a = Poly1305::new(&key);
    a.update_padded(&[1; 40]);
    let b = a.clone();
    a.update_padded(&[2; 40]);
    let mut fresh = Poly1305::new(&key);
    fresh.update_padded(&[1; 40]);
    assert_eq!(b.finalize(), fresh.clone().finalize());
    fresh.update_padded(&[2; 40]);
    assert_eq!(a.finalize(), fresh.finalize());
}

/// `Debug` shows that it is a Poly1305 and nothing of the key or the accumulator.
#[test]
fn debug_hides_the_key() {
    let mut mac = Poly1305::new(&Key::from([0xab; 32]));
    mac.update_padded(&[0xcd; 100]);
    let shown = format!("{mac:?} {mac:#?}");
    assert!(shown.starts_with("Poly1305 { .. }"), "{shown}");
    for secret in ["ab", "AB", "171", "cd", "205"] {
        assert!(!shown.contains(secret), "{shown}");
    }
}
