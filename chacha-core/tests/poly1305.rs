//! Poly1305: the MAC ([`Poly1305`], portable), the accumulator step and the tag against
//! the plain reference, and the reference itself against RFC 8439 §2.5.2 and Appendix
//! A.3 #1–#11 (`testdata/vectors.txt`). Written against mutation testing
//! (`scripts/mutants.sh`): each test fails for some mutant of `poly1305.rs` or of the
//! reference's Poly1305.

use chacha_core::poly1305::{Accumulator, BlockMac, Poly1305, Portable, from_limbs, to_limbs};
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

/// `r^1 … r^8` mod p for two keys, from Python's `pow(r, k, 2**130 - 5)` on the clamped
/// key half: the RFC 8439 §2.5.2 key and the all-ones key (every bit clamping keeps).
#[test]
fn r_powers_are_python_s() {
    let cases: [([u8; 16], [[u64; 3]; 8]); 2] = [
        (
            [0x85, 0xd6, 0xbe, 0x78, 0x57, 0x55, 0x6d, 0x33, 0x7f, 0x44, 0x52, 0xfe, 0x42, 0xd5, 0x06, 0xa8],
            [
                [0x036d_5554_08be_d685, 0x0806_d540_0e52_447c, 0],
                [0x0aa7_7611_f4ca_0455, 0x9106_a3da_f02b_23c5, 1],
                [0x3a6e_26a1_d3e4_f5fc, 0x8fe8_441b_541c_d67c, 1],
                [0x3b7b_8081_75c6_f42d, 0x3e4c_06f7_7417_4d1b, 2],
                [0xcd2e_91d8_88b2_0978, 0xdb79_55e6_42ea_6cf9, 2],
                [0x78ac_bee3_8f3e_ecf2, 0x39b3_bf64_ade8_fe21, 0],
                [0x4fe6_d916_dd01_8856, 0xabf1_9f9a_2feb_6065, 1],
                [0x0447_77d4_8ebf_0423, 0xf9b1_2e1d_dbc6_9dc6, 3],
            ],
        ),
        (
            [0xff; 16],
            [
                [0x0fff_fffc_0fff_ffff, 0x0fff_fffc_0fff_fffc, 0],
                [0x24c0_002e_0500_0038, 0x6440_0026_4480_002a, 2],
                [0x53dd_fd61_87f1_fd57, 0x7978_fd99_4f0a_fd7f, 3],
                [0x5c7c_ecf5_2afa_b775, 0x3346_44c9_9fbf_72d8, 1],
                [0x3ae1_7f5a_1e89_dcc3, 0x0a52_4cfa_42f6_9028, 3],
                [0x8916_a8e4_61a8_6940, 0xbaba_8ea9_4360_e579, 2],
                [0x2e68_de38_c08e_1815, 0x363e_2570_ba84_1ece, 1],
                [0xfa0b_ac65_6514_b425, 0x06aa_1258_2027_e97a, 1],
            ],
        ),
    ];
    for (r, want) in cases {
        assert_eq!(Accumulator::new(&r).r_powers::<8>(), want, "r = {r:02x?}");
        assert_eq!(Accumulator::new(&r).r_powers::<3>(), want[..3], "r = {r:02x?}, three");
    }
}

/// Values given as limbs back to the accumulator's form: extreme limbs (every one at its
/// bound, so the sum passes 2^130 and folds) and ordinary ones, checked against Python's
/// `sum(l << bits·i) % (2**130 - 5)` through the full reduction of the tag (`s = 0`).
#[test]
fn from_limbs_is_python_s_sum() {
    let cases: [(&[u64], u32, [u64; 3]); 7] = [
        // Sums that pass 2^128 inside the last step (the carry into the top word).
        (
            &[(1 << 58) - 1, (1 << 26) - 1, (1 << 26) - 1, (1 << 26) - 1, (1 << 24) - 1],
            26,
            [0x03ff_ffff_fbff_ffff, 0, 1],
        ),
        (&[(1 << 58) - 1, (1 << 44) - 1, (1 << 40) - 1], 44, [0x03ff_efff_ffff_ffff, 0, 1]),
        // The top limb at 2^128 exactly, the furthest allowed.
        (
            &[(1 << 58) - 1, 0x123_4567_89ab_cdef, (1 << 58) - 1, 0x2aa_aaaa_aaaa_aaaa, (1 << 58) - 1],
            32,
            [0x92ab_cdef_0355_5551, 0xaeaa_aaaa_0123_4566, 1],
        ),
        (&[(1 << 58) - 1; 3], 44, [0x03ff_f000_0004_ffff, 0x3f_ff00_0000, 0]),
        (&[(1 << 58) - 1; 5], 26, [0x03f0_0004_fc00_013f, 0x3f00_000f_c000, 0]),
        (
            &[0x123_4567_89ab, 0xfed_cba9_8765, 0x3ff_ffff_ffff],
            44,
            [0x9876_5123_4567_89ab, 0xffff_ffff_fffe_dcba, 3],
        ),
        (
            &[0x3ff_ffff, 0x123_4567, 0x3ff_ffff, 0, 0x7ff_ffff],
            26,
            [0xfff4_8d15_a000_0004, 0xffff_ff00_0000_3fff, 3],
        ),
    ];
    for (limbs, bits, want) in cases {
        let h = from_limbs(limbs, bits);
        assert!(h[2] < 8, "{limbs:x?}: {h:x?}");
        assert_eq!(reduced(h), reduced(want), "{limbs:x?} of {bits} bits");
    }
}

/// Any value the accumulator may hold splits into limbs and comes back the same mod p (the
/// same limbs below 2^130, where there is nothing to fold), for the SIMD kernels' two limb
/// sizes; the limbs are within their sizes but the last.
#[test]
fn to_limbs_and_back_is_the_identity() {
    let mut values = vec![[0, 0, 0], [u64::MAX, u64::MAX, 7], [1, 0, 4], [u64::MAX, 0, 0], [0, u64::MAX, 0]];
    for seed in 0..50u64 {
        let bytes = filler(seed, 24);
        let word = |i: usize| u64::from_le_bytes(bytes[i * 8..i * 8 + 8].try_into().unwrap());
        values.push([word(0), word(1), word(2) % 8]);
    }
    for h in values {
        let l44 = to_limbs::<3>(h, 44);
        assert!(l44[..2].iter().all(|&l| l < 1 << 44), "{h:x?}: {l44:x?}");
        assert_eq!(l44[2], (h[1] >> 24) | (h[2] << 40), "{h:x?}: the top limb");
        let back = from_limbs(&l44, 44);
        assert_eq!(reduced(back), reduced(h), "44-bit limbs of {h:x?}");
        if h[2] < 4 {
            assert_eq!(back, h, "44-bit limbs of {h:x?}, below 2^130: nothing to fold");
        }
        let l26 = to_limbs::<5>(h, 26);
        assert!(l26[..4].iter().all(|&l| l < 1 << 26), "{h:x?}: {l26:x?}");
        assert_eq!(l26[4], (h[1] >> 40) | (h[2] << 24), "{h:x?}: the top limb");
        let back = from_limbs(&l26, 26);
        assert_eq!(reduced(back), reduced(h), "26-bit limbs of {h:x?}");
        if h[2] < 4 {
            assert_eq!(back, h, "26-bit limbs of {h:x?}, below 2^130: nothing to fold");
        }
    }
}

#[test]
#[should_panic(expected = "3 limbs of 32 bits")]
fn to_limbs_refuses_other_layouts() {
    to_limbs::<3>([0; 3], 32);
}

#[test]
#[should_panic(expected = "5 limbs of 44 bits")]
fn to_limbs_refuses_the_other_layout_s_count() {
    to_limbs::<5>([0; 3], 44);
}

/// A debug assertion (the limb bound is the kernels' invariant, checked per limb): only
/// builds that have them.
#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "limb 1")]
fn from_limbs_refuses_a_limb_past_its_bound() {
    from_limbs(&[0, 1 << 58], 44);
}

#[test]
#[should_panic(expected = "6 limbs of 26 bits")]
fn from_limbs_refuses_limbs_past_2_to_the_128() {
    from_limbs(&[0; 6], 26);
}

#[test]
#[should_panic(expected = "limbs of 64 bits")]
fn from_limbs_refuses_64_bit_limbs() {
    from_limbs(&[0; 2], 64);
}
