//! The `poly1305` front against two independent implementations loaded at run time:
//! OpenSSL 3's `EVP_MAC` "POLY1305" and libsodium's `crypto_onetimeauth_poly1305` (the
//! report's loaders, `src/ffi.rs`). Random keys (and all-ones keys), every length to 600
//! bytes and random lengths to 20 KiB, on every backend: `compute_unpadded` whole and after
//! `update` of a random whole-block prefix, and `update_padded` in random pieces against
//! the oracle's MAC of the padded pieces.
//!
//! Where a library is missing the test prints why and skips it, except for the oracles
//! that `CHACHA_REQUIRE_ORACLES` lists (`openssl`, `libsodium`, comma-separated): `.ci/run`
//! installs both and requires them, so CI cannot pass without them.
#![forbid(unsafe_code)]

use chacha_bench::{Backend, MacImplementation, Peer, mac_implementations};
use chacha_rng::ChaCha8Rng;
use poly1305_ours::universal_hash::{KeyInit, UniversalHash};
use poly1305_ours::{BLOCK_SIZE, Block, Key, Poly1305};
use rand_core::{Rng, SeedableRng};

/// The oracles that load here; a missing one is skipped with a message, or a failure when
/// `CHACHA_REQUIRE_ORACLES` names it.
fn oracles() -> Vec<MacImplementation> {
    let required = std::env::var("CHACHA_REQUIRE_ORACLES").unwrap_or_default();
    let required: Vec<&str> = required.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    let mut found = Vec::new();
    for peer in [Peer::OpenSsl, Peer::Sodium] {
        match peer.unavailable() {
            None => found.extend(mac_implementations(&[], &[peer])),
            Some(why) if required.contains(&peer.id()) => {
                panic!("CHACHA_REQUIRE_ORACLES lists {} and it is not available: {why}", peer.id())
            }
            Some(why) => eprintln!("SKIPPED the {} oracle: {why}", peer.id()),
        }
    }
    for id in &required {
        assert!(matches!(*id, "openssl" | "libsodium"), "CHACHA_REQUIRE_ORACLES: unknown oracle {id}");
    }
    found
}

/// The oracles (`None` when none loads), every backend, and a generator seeded with `seed`.
fn setup(seed: u64) -> Option<(Vec<MacImplementation>, Vec<Backend>, ChaCha8Rng)> {
    let oracles = oracles();
    if oracles.is_empty() {
        return None;
    }
    Some((oracles, Backend::available().collect(), ChaCha8Rng::seed_from_u64(seed)))
}

fn random_bytes(rng: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill_bytes(&mut v);
    v
}

/// The message lengths: every one to 600 bytes (around the 32-block threshold of the SIMD
/// kernels and their groups), then random ones to 20 KiB.
fn lengths(rng: &mut ChaCha8Rng) -> Vec<usize> {
    let mut lengths: Vec<usize> = (0..=600).collect();
    lengths.extend((0..200).map(|_| rng.next_u32() as usize % (20 * 1024 + 1)));
    lengths
}

#[test]
fn compute_unpadded_gives_the_oracles_tags() {
    let Some((mut oracles, backends, mut rng)) = setup(48) else { return };
    for (i, len) in lengths(&mut rng).into_iter().enumerate() {
        let key: [u8; 32] =
            if i % 7 == 0 { [0xff; 32] } else { random_bytes(&mut rng, 32).try_into().unwrap() };
        let msg = if i % 5 == 0 { vec![0xff; len] } else { random_bytes(&mut rng, len) };
        let head = (rng.next_u32() as usize % (len / BLOCK_SIZE + 1)) * BLOCK_SIZE;
        for oracle in &mut oracles {
            let want = oracle.mac(&key, &msg);
            assert_eq!(
                Poly1305::new(&Key::from(key)).compute_unpadded(&msg).as_slice(),
                want,
                "new() vs {}, {len} bytes",
                oracle.name
            );
            for &backend in &backends {
                let mut mac = Poly1305::with_backend(&Key::from(key), backend);
                mac.update(Block::slice_as_chunks(&msg[..head]).0);
                let tag = mac.compute_unpadded(&msg[head..]);
                assert_eq!(tag.as_slice(), want, "{backend:?} vs {}, {len} bytes, {head} first", oracle.name);
            }
        }
    }
}

#[test]
fn update_padded_gives_the_oracles_tag_of_the_padded_pieces() {
    let Some((mut oracles, backends, mut rng)) = setup(4848) else { return };
    for _ in 0..300 {
        let key: [u8; 32] = random_bytes(&mut rng, 32).try_into().unwrap();
        let pieces: Vec<Vec<u8>> = (0..rng.next_u32() % 5)
            .map(|_| {
                let len = rng.next_u32() as usize % 1100;
                random_bytes(&mut rng, len)
            })
            .collect();
        let mut padded = Vec::new();
        for piece in &pieces {
            padded.extend_from_slice(piece);
            padded.resize(padded.len().next_multiple_of(BLOCK_SIZE), 0);
        }
        for oracle in &mut oracles {
            let want = oracle.mac(&key, &padded);
            for &backend in &backends {
                let mut mac = Poly1305::with_backend(&Key::from(key), backend);
                for piece in &pieces {
                    mac.update_padded(piece);
                }
                assert_eq!(mac.finalize().as_slice(), want, "{backend:?} vs {}", oracle.name);
            }
        }
    }
}
