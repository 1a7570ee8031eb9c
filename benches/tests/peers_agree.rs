//! Every peer gives the same bytes as ours, on every available backend, for every variant:
//! the check the report makes before measuring. No timing here: speed lives in the benches
//! and the report.
#![forbid(unsafe_code)]

use chacha_bench::{Backend, CHECK_LEN, Peer, Variant, check_agreement, implementations};

#[test]
fn every_peer_and_backend_gives_our_bytes() {
    let backends: Vec<Backend> = Backend::available().collect();
    assert!(!backends.is_empty());
    for variant in Variant::ALL {
        let mut impls = implementations(variant, &backends, Peer::ALL);
        assert!(impls.len() > backends.len(), "{variant:?}: no peer offers it");
        assert_eq!(check_agreement(&mut impls), Ok(CHECK_LEN), "{variant:?}");
    }
}

#[test]
fn each_peer_offers_what_it_claims() {
    let backends: Vec<Backend> = Backend::available().collect();
    for variant in Variant::ALL {
        let impls = implementations(variant, &backends, Peer::ALL);
        for &peer in Peer::ALL {
            let present = impls.iter().any(|i| i.name == peer.label());
            assert_eq!(present, peer.offers(variant), "{peer:?} {variant:?}");
        }
    }
}

#[test]
fn a_disagreement_is_reported() {
    // ChaCha12 where ChaCha20 is expected: same nonce size, different bytes.
    let backends: Vec<Backend> = Backend::available().collect();
    let mut mixed = implementations(Variant::ChaCha20, &backends[..1], &[]);
    mixed.extend(implementations(Variant::ChaCha12, &backends[..1], &[]));
    let err = check_agreement(&mut mixed).expect_err("ChaCha12 is not ChaCha20");
    assert!(err.contains("differs from"), "{err}");
}
