//! The two [`RotateForm`] forms against the reference on every CPU with AVX-512, whichever
//! one `detect` chose here (the differential tests run the chosen one over the whole
//! matrix): every request that reaches a one-chain row kernel, 1 to 128 bytes, fused
//! XOR in place (aligned and not) and buffer to buffer, the raw keystream of one and two
//! blocks, at the counter edges of both layouts, every round count; and HChaCha.

extern crate std;

use super::*;
use chacha_core::{Ietf, Legacy, R8, R12, R20, reference};
use chacha_testdata::filler;
use std::{format, vec, vec::Vec};

/// Both forms, if this CPU runs the module (nothing to test otherwise).
fn both_forms() -> impl Iterator<Item = Avx512> {
    Avx512::detect()
        .into_iter()
        .flat_map(|k| [RotateForm::Rotate, RotateForm::Split].map(|rotate_form| Avx512 { rotate_form, ..k }))
}

fn check<R: Rounds, V: Variant>(kernel: Avx512, counter: u64, len: usize) {
    let key: [u8; 32] = filler(counter ^ 0x55, 32).try_into().unwrap();
    let mut nonce = V::Nonce::default();
    let nonce_len = nonce.as_ref().len();
    nonce.as_mut().copy_from_slice(&filler(len as u64, nonce_len));
    let mut start = State::<V>::new(&key, &nonce);
    start.seek(u128::from(counter)).unwrap();
    let blocks = len.div_ceil(BLOCK_LEN);
    let mut ks = vec![[0u8; BLOCK_LEN]; blocks];
    reference::keystream::<R, V>(&start, &mut ks);
    let ks = ks.concat();
    let data = filler(counter.wrapping_add(len as u64), len + 1);
    let want: Vec<u8> = data[..len].iter().zip(&ks).map(|(d, k)| d ^ k).collect();
    let ctx = format!("{kernel:?} R{} {:?} counter {counter} len {len}", R::ROUNDS, V::default());
    let tail_ok = |tail: &Block| {
        if len.is_multiple_of(BLOCK_LEN) {
            tail == &[0xA5; BLOCK_LEN]
        } else {
            tail[..] == ks[(blocks - 1) * BLOCK_LEN..]
        }
    };

    for offset in [0, 1] {
        let mut state = start.clone();
        let mut buf = data.clone();
        let region = &mut buf[offset..offset + len];
        region.copy_from_slice(&data[..len]);
        let mut tail = [0xA5; BLOCK_LEN];
        state.xor::<R, _>(kernel, XorBuf::from(&mut *region), &mut tail).unwrap();
        assert_eq!(region, &want[..], "{ctx}: in place, offset {offset}");
        assert!(tail_ok(&tail), "{ctx}: tail");
        assert_eq!(state.position(), start.position() + blocks as u128, "{ctx}: position");
    }

    let mut state = start.clone();
    let mut out = vec![0x5A; len + 1];
    let mut tail = [0xA5; BLOCK_LEN];
    state.xor::<R, _>(kernel, XorBuf::new(&data[..len], &mut out[1..]).unwrap(), &mut tail).unwrap();
    assert_eq!(out[1..], want[..], "{ctx}: buffer to buffer");
    assert_eq!(out[0], 0x5A, "{ctx}: wrote before the output");
    assert!(tail_ok(&tail), "{ctx}: tail");

    let mut state = start.clone();
    let mut raw = vec![[0u8; BLOCK_LEN]; len / BLOCK_LEN];
    state.fill::<R, _>(kernel, &mut raw).unwrap();
    assert_eq!(raw.concat(), ks[..len / BLOCK_LEN * BLOCK_LEN], "{ctx}: fill");
}

fn check_all_rounds<V: Variant>(kernel: Avx512, counter: u64, len: usize) {
    check::<R8, V>(kernel, counter, len);
    check::<R12, V>(kernel, counter, len);
    check::<R20, V>(kernel, counter, len);
}

#[test]
fn both_row_step_forms_match_reference_to_two_blocks() {
    // Under miri, a few lengths at the edges of the pieces a block is cut into.
    let lengths: Vec<usize> = if cfg!(miri) { vec![1, 16, 63, 64, 65, 128] } else { (1..=128).collect() };
    for kernel in both_forms() {
        for &len in &lengths {
            let blocks = len.div_ceil(BLOCK_LEN) as u64;
            // Ietf: the start and a request ending on the last block (2^32 - 1);
            // Legacy: across the carry into word 13 and ending on block 2^64 - 1.
            for counter in [0, (1 << 32) - blocks] {
                check_all_rounds::<Ietf>(kernel, counter, len);
            }
            for counter in [(1 << 32) - 1, u64::MAX - blocks + 1] {
                check_all_rounds::<Legacy>(kernel, counter, len);
            }
        }
    }
}

#[test]
fn both_row_step_forms_match_reference_hchacha() {
    for kernel in both_forms() {
        for seed in 0..if cfg!(miri) { 2 } else { 20u64 } {
            let key: [u8; 32] = filler(seed, 32).try_into().unwrap();
            let input: [u8; 16] = filler(seed + 1000, 16).try_into().unwrap();
            assert_eq!(kernel.hchacha::<R8>(&key, &input), reference::hchacha::<R8>(&key, &input));
            assert_eq!(kernel.hchacha::<R12>(&key, &input), reference::hchacha::<R12>(&key, &input));
            assert_eq!(kernel.hchacha::<R20>(&key, &input), reference::hchacha::<R20>(&key, &input));
        }
    }
}
