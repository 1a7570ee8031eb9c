//! Poly1305: the MAC ([`Poly1305`], portable), the accumulator step and the tag against
//! the plain reference, and the reference itself against RFC 8439 §2.5.2 and Appendix
//! A.3 #1–#11 (`testdata/vectors.txt`). Written against mutation testing
//! (`scripts/mutants.sh`): each test fails for some mutant of `poly1305.rs` or of the
//! reference's Poly1305.

use chacha_core::poly1305::{Accumulator, BlockMac, Poly1305, Portable};
use chacha_core::reference;
use chacha_testdata::{Vector, all, filler};

fn vectors() -> Vec<&'static Vector> {
    let v: Vec<_> = all().iter().filter(|v| v.name.starts_with("rfc8439-poly1305-")).collect();
    assert_eq!(v.len(), 12, "§2.5.2 and A.3 #1–#11");
    v
}

#[test]
fn the_reference_and_the_mac_give_the_rfc_tags_fed_any_way() {
    for v in vectors() {
        let (key, msg, tag) = (v.array::<32>("key"), v.bytes("message"), v.array::<16>("tag"));
        assert_eq!(reference::poly1305(&key, &msg), tag, "{}: reference", v.name);
        for split in 0..=msg.len() {
            let mut mac = Poly1305::new(&key);
            mac.update(&msg[..split]);
            mac.update(&msg[split..]);
            assert_eq!(mac.tag(), tag, "{}: split at {split}", v.name);
        }
        let mut mac = Poly1305::new(&key);
        for piece in msg.chunks(7) {
            mac.update_with(Portable, piece);
        }
        assert_eq!(mac.tag(), tag, "{}: in pieces of 7", v.name);
    }
}

/// Keys with every bit that clamping keeps set (and all bits set), random keys, messages
/// of every length to 200 with all-ones and random bytes.
#[test]
fn the_mac_is_the_reference_on_extreme_and_random_inputs() {
    for seed in 0..40u64 {
        let mut key: [u8; 32] = filler(seed, 32).try_into().unwrap();
        if seed % 4 == 0 {
            key = [0xff; 32];
        }
        for len in (0..=200).step_by(1 + seed as usize % 5) {
            let msg = if seed % 3 == 0 { vec![0xff; len] } else { filler(seed * 1000 + len as u64, len) };
            let mut mac = Poly1305::new(&key);
            mac.update(&msg);
            assert_eq!(mac.tag(), reference::poly1305(&key, &msg), "seed {seed}, {len} bytes");
        }
    }
}

/// The step from any accumulator the invariant allows (`h[2] < 8`): the same value mod p
/// as the reference's, and the invariant kept.
#[test]
fn absorb_from_any_allowed_accumulator_is_the_reference_step() {
    for seed in 0..200u64 {
        let bytes = filler(seed, 16 + 24 + 16 * 4);
        let r: [u8; 16] = if seed % 5 == 0 { [0xff; 16] } else { bytes[..16].try_into().unwrap() };
        let limb = |i: usize| u64::from_le_bytes(bytes[16 + 8 * i..][..8].try_into().unwrap());
        let h = match seed % 4 {
            0 => [u64::MAX, u64::MAX, 7],
            1 => [limb(0), limb(1), limb(2) % 8],
            2 => [u64::MAX - 4, u64::MAX, 3], // p
            _ => [limb(0), u64::MAX, 4],
        };
        let blocks: Vec<[u8; 16]> = bytes[40..].chunks(16).map(|c| c.try_into().unwrap()).collect();
        let blocks = &blocks[..seed as usize % 5];
        let mut acc = Accumulator::new(&r);
        acc.set_h(h);
        Portable.absorb(&mut acc, blocks);
        assert!(acc.h()[2] < 8, "seed {seed}: h {:x?}", acc.h());
        let want = reference::poly1305_blocks(&r, h, blocks);
        assert_eq!(reduced(acc.h()), reduced(want), "seed {seed}");
        assert!(want[2] <= 3, "the reference reduces fully");
    }
}

/// The one step whose last carry reaches `h[2]`: with `r = 1` the product is the sum
/// itself, `h + 2^128 = 2^130 - 1 + 2^128`, and folding its `2^130` (+5) carries through
/// both 64-bit limbs: `2^128 + 4`.
#[test]
fn absorb_carries_the_fold_through_both_limbs() {
    let mut r = [0u8; 16];
    r[0] = 1;
    let h = [u64::MAX, u64::MAX, 3];
    let mut acc = Accumulator::new(&r);
    acc.set_h(h);
    acc.absorb(&[[0; 16]]);
    assert_eq!(acc.h(), [4, 0, 1]);
    assert_eq!(reduced(acc.h()), reduced(reference::poly1305_blocks(&r, h, &[[0; 16]])));
}

/// `h` mod p, through the tag with `s = 0`.
fn reduced(h: [u64; 3]) -> [u8; 16] {
    let mut acc = Accumulator::new(&[0; 16]);
    acc.set_h(h);
    acc.tag(&[0; 16])
}

#[test]
fn the_tag_reduces_fully_and_adds_s_mod_2_128() {
    let p = [u64::MAX - 4, u64::MAX, 3];
    let mut expected = [0u8; 16];
    assert_eq!(reduced(p), expected, "p is 0");
    expected[0] = 4;
    assert_eq!(reduced([u64::MAX, u64::MAX, 3]), expected, "2^130 - 1 = p + 4");
    expected[0] = 9;
    assert_eq!(reduced([u64::MAX, u64::MAX, 7]), expected, "2^131 - 1 = 2p + 9");
    let mut p_minus_1 = [0xffu8; 16];
    p_minus_1[0] = 0xfa;
    assert_eq!(reduced([u64::MAX - 5, u64::MAX, 3]), p_minus_1, "p - 1 stays");
    // s with carries across the 64-bit halves, wrapping at 2^128.
    let mut acc = Accumulator::new(&[0; 16]);
    acc.set_h([u64::MAX, 1, 0]);
    let mut s = [0u8; 16];
    s[0] = 1;
    s[8..].copy_from_slice(&u64::MAX.to_le_bytes());
    let mut want = [0u8; 16];
    want[8] = 1; // (2^64 + 2^64 - 1) + (2^128 - 2^64 + 1) = 2^128 + 2^64 → 2^64
    assert_eq!(acc.tag(&s), want);
}

#[test]
fn new_clamps_r_and_starts_from_zero() {
    let acc = Accumulator::new(&[0xff; 16]);
    assert_eq!(acc.r(), [0x0fff_fffc_0fff_ffff, 0x0fff_fffc_0fff_fffc]);
    assert_eq!(acc.h(), [0; 3]);
    let mut acc = acc;
    acc.set_h([1, 2, 7]);
    assert_eq!(acc.h(), [1, 2, 7]);
}

#[test]
#[should_panic(expected = "must be < 8")]
fn set_h_refuses_a_broken_invariant() {
    Accumulator::new(&[0; 16]).set_h([0, 0, 8]);
}

/// `pad16`: a partial last block with zeros, every block with the pad bit, so the same
/// as the reference over the padded bytes.
#[test]
fn absorb_padded_is_the_mac_of_the_zero_padded_data() {
    let key: [u8; 32] = filler(7, 32).try_into().unwrap();
    for len in 0..=70 {
        let data = filler(len as u64, len);
        let mut acc = Accumulator::new(key[..16].try_into().unwrap());
        acc.absorb_padded(Portable, &data);
        let mut padded = data.clone();
        padded.resize(len.div_ceil(16) * 16, 0);
        assert_eq!(acc.tag(key[16..].try_into().unwrap()), reference::poly1305(&key, &padded), "{len} bytes");
    }
}

#[test]
fn debug_shows_no_secret() {
    let key = [0x5a; 32];
    assert_eq!(format!("{:?}", Accumulator::new(&[0x5a; 16])), "Accumulator { .. }");
    assert_eq!(format!("{:?}", Poly1305::new(&key)), "Poly1305 { .. }");
}

#[cfg(feature = "zeroize")]
#[test]
fn zeroize_wipes_r_and_h() {
    use zeroize::Zeroize;
    let mut acc = Accumulator::new(&[0xff; 16]);
    acc.set_h([1, 2, 3]);
    acc.zeroize();
    assert_eq!((acc.r(), acc.h()), ([0; 2], [0; 3]));
}
