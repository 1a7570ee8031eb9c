//! Ours against two oracles on random keys, messages and splits, on every backend this CPU
//! runs: the workspace's RFC 8439 reference (`chacha_core::reference::poly1305`, written
//! from the RFC's text and never optimised) and the published `poly1305` 0.9.1, through
//! the same calls. Message lengths reach past the SIMD kernels' 32-block threshold and
//! their 4- and 8-block groups; the padded calls are checked against the reference of the
//! padded message (a partial block padded with zeros then is a whole block).

use chacha_core::reference;
use poly1305::universal_hash::{
    KeyInit, UhfBackend, UhfClosure, UniversalHash, array::Array, common::BlockSizeUser, consts::U16,
};
use poly1305::{BLOCK_SIZE, Backend, Block, Key, Poly1305, Tag};
use poly1305_published as published;
use proptest::prelude::*;

fn backends() -> Vec<Backend> {
    let backends: Vec<Backend> = Backend::available().collect();
    assert!(!backends.is_empty(), "no backend available");
    backends
}

/// `data` padded with zeros to whole blocks, as `update_padded` reads it.
fn padded(data: &[u8]) -> Vec<u8> {
    let mut v = data.to_vec();
    v.resize(data.len().next_multiple_of(BLOCK_SIZE), 0);
    v
}

/// Keys: random, or with every bit set (every bit clamping keeps in r, s all ones, what
/// the final addition must wrap).
fn key() -> impl Strategy<Value = [u8; 32]> {
    prop_oneof![any::<[u8; 32]>(), Just([0xff; 32])]
}

/// Messages up to 40 blocks and a bit, random or all ones (the largest h).
fn message() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => proptest::collection::vec(any::<u8>(), 0..700),
        1 => (0usize..700).prop_map(|len| vec![0xff; len]),
    ]
}

proptest! {
    /// `compute_unpadded` of the whole message, and after `update` of any whole-block
    /// prefix: the reference's tag and the published crate's.
    #[test]
    fn compute_unpadded_is_the_reference(key in key(), msg in message(), cut in any::<prop::sample::Index>()) {
        let want = reference::poly1305(&key, &msg);
        let k = Key::from(key);
        prop_assert_eq!(published::Poly1305::new(&k).compute_unpadded(&msg), Tag::from(want));
        let head = cut.index(msg.len() / BLOCK_SIZE + 1) * BLOCK_SIZE;
        for backend in backends() {
            prop_assert_eq!(Poly1305::with_backend(&k, backend).compute_unpadded(&msg), Tag::from(want), "{:?}", backend);
            let mut mac = Poly1305::with_backend(&k, backend);
            mac.update(Block::slice_as_chunks(&msg[..head]).0);
            let mut theirs = published::Poly1305::new(&k);
            theirs.update(Block::slice_as_chunks(&msg[..head]).0);
            prop_assert_eq!(mac.compute_unpadded(&msg[head..]), theirs.compute_unpadded(&msg[head..]));
        }
    }

    /// `update_padded` over random pieces (each padded on its own), then `finalize` and
    /// `verify`: the reference's tag of the padded pieces and the published crate's.
    #[test]
    fn update_padded_in_pieces_is_the_reference(
        key in key(),
        msg in message(),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..5),
    ) {
        let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(msg.len() + 1)).collect();
        cuts.push(0);
        cuts.push(msg.len());
        cuts.sort_unstable();
        let pieces: Vec<&[u8]> = cuts.windows(2).map(|w| &msg[w[0]..w[1]]).collect();
        let mut whole = Vec::new();
        for piece in &pieces {
            whole.extend(padded(piece));
        }
        let want = Tag::from(reference::poly1305(&key, &whole));
        let k = Key::from(key);
        let mut theirs = published::Poly1305::new(&k);
        for piece in &pieces {
            theirs.update_padded(piece);
        }
        prop_assert_eq!(theirs.finalize(), want);
        for backend in backends() {
            let mut mac = Poly1305::with_backend(&k, backend);
            for piece in &pieces {
                mac.update_padded(piece);
            }
            prop_assert_eq!(mac.clone().finalize(), want, "{:?}", backend);
            prop_assert!(mac.clone().verify(&want).is_ok());
            let mut forged = want;
            forged[msg.len() % 16] ^= 1 << (msg.len() % 8);
            prop_assert!(mac.verify(&forged).is_err());
        }
    }

    /// `update_with_backend` with a closure that mixes single blocks and parallel groups
    /// (how generic code drives a `UhfBackend`): the same tag as `update` of the blocks.
    #[test]
    fn update_with_backend_is_update(key in key(), msg in message(), singles in 0usize..40) {
        let blocks = Block::slice_as_chunks(&msg).0;
        let k = Key::from(key);
        for backend in backends() {
            let mut mac = Poly1305::with_backend(&k, backend);
            mac.update_with_backend(Mixed { blocks, singles });
            let mut want = Poly1305::with_backend(&k, backend);
            want.update(blocks);
            prop_assert_eq!(mac.finalize(), want.finalize(), "{:?}", backend);
        }
    }
}

/// A closure that feeds `singles` blocks one by one, then the rest in parallel groups of
/// the backend's size, and the remainder one by one.
struct Mixed<'a> {
    blocks: &'a [Block],
    singles: usize,
}

impl BlockSizeUser for Mixed<'_> {
    type BlockSize = U16;
}

impl UhfClosure for Mixed<'_> {
    fn call<B: UhfBackend<BlockSize = U16>>(self, backend: &mut B) {
        let (first, rest) = self.blocks.split_at(self.singles.min(self.blocks.len()));
        for block in first {
            backend.proc_block(block);
        }
        let (groups, tail) = Array::slice_as_chunks(rest);
        for group in groups {
            backend.proc_par_blocks(group);
        }
        for block in tail {
            backend.proc_block(block);
        }
    }
}

/// Every length from 0 to 1,100 bytes (past 64 blocks, every remainder around the SIMD
/// groups), deterministic data, every backend: the reference's tag. Under miri every 61st
/// length (the interpreter is slow; the values are checked natively).
#[test]
fn every_length_to_1100_bytes() {
    let key: [u8; 32] = chacha_testdata::filler(7, 32).try_into().unwrap();
    let data = chacha_testdata::filler(8, 1100);
    let step = if cfg!(miri) { 61 } else { 1 };
    for backend in backends() {
        for len in (0..=data.len()).step_by(step) {
            let tag = Poly1305::with_backend(&Key::from(key), backend).compute_unpadded(&data[..len]);
            assert_eq!(tag, Tag::from(reference::poly1305(&key, &data[..len])), "{backend:?}, {len} bytes");
        }
    }
}
