//! The contract's one enforcement point, [`State::xor`] and [`State::fill`] (and
//! [`State::fill_batch`]), with a kernel
//! built on [`chacha_core::reference`] that records every call: the bytes (RFC 8439
//! §2.4.2), the state's move past the blocks used, and the end of the stream — a request
//! that does not fit is refused before the kernel runs, so nothing is written past the end
//! (keystream reuse), and a request that fits exactly is served.
//!
//! Written against mutation testing (`scripts/mutants.sh`): each assertion here fails for
//! a mutant of `contract.rs`, `state.rs` or `reference.rs` that the other tests missed.

use std::cell::Cell;

use chacha_core::{
    Aead, BLOCK_LEN, Block, EndOfStream, Ietf, Kernel, Legacy, R20, Rounds, State, Variant, XorBuf, reference,
};
use chacha_testdata::get;

thread_local! {
    /// Kernel calls on this test's thread (the tests run on threads of their own).
    static CALLS: Cell<usize> = const { Cell::new(0) };
}

fn calls() -> usize {
    CALLS.with(Cell::get)
}

/// The reference, one block at a time, as a kernel.
#[derive(Clone, Copy, Debug)]
struct Recording;

impl Kernel for Recording {
    fn xor<R: Rounds, V: Variant>(self, state: &State<V>, mut buf: XorBuf<'_, '_>, tail: &mut Block) {
        CALLS.with(|c| c.set(c.get() + 1));
        let mut blocks = vec![[0u8; BLOCK_LEN]; buf.len().div_ceil(BLOCK_LEN)];
        reference::keystream::<R, V>(state, &mut blocks);
        let keystream = blocks.concat();
        buf.xor_in2out(&keystream[..buf.len()]);
        if !buf.len().is_multiple_of(BLOCK_LEN) {
            *tail = *blocks.last().unwrap();
        }
    }

    fn fill<R: Rounds, V: Variant>(self, state: &State<V>, out: &mut [Block]) {
        CALLS.with(|c| c.set(c.get() + 1));
        reference::keystream::<R, V>(state, out);
    }

    fn hchacha<R: Rounds>(self, key: &[u8; 32], input: &[u8; 16]) -> [u8; 32] {
        reference::hchacha::<R>(key, input)
    }
}

/// Every AEAD step the portable default.
impl Aead for Recording {}

/// RFC 8439 §2.4.2 ("Sunscreen"): 114 bytes, two blocks from counter 1, through
/// `State::xor` in place; the state moves on by two blocks and the partial block's whole
/// keystream is in `tail`.
#[test]
fn xor_gives_rfc8439_2_4_2_and_moves_past_the_blocks_used() {
    let v = get("rfc8439-2.4.2");
    let mut state = State::<Ietf>::new(&v.array("key"), &v.array("nonce"));
    state.seek(v.number("counter").into()).unwrap();
    let mut data = v.bytes("plaintext");
    let mut tail = [0u8; BLOCK_LEN];
    state.xor::<R20, _>(Recording, data.as_mut_slice().into(), &mut tail).unwrap();
    assert_eq!(data, v.bytes("ciphertext"));
    assert_eq!(state.counter(), v.number("counter") + 2);
    assert_eq!(tail[..50], v.bytes("keystream")[64..], "the partial block's keystream");
    assert_eq!(tail, reference::block::<R20, Ietf>(&state, 2));
}

/// `reference::keystream` is block after block, and wraps the counter as the state's
/// counter words do: in 32 bits for `Ietf`, carrying into word 13 for `Legacy`.
#[test]
fn reference_keystream_is_consecutive_blocks_across_the_counter_limits() {
    let v = get("rfc8439-2.4.2");
    let mut ietf = State::<Ietf>::new(&v.array("key"), &v.array("nonce"));
    ietf.seek(v.number("counter").into()).unwrap();
    let mut two = [[0u8; BLOCK_LEN]; 2];
    reference::keystream::<R20, Ietf>(&ietf, &mut two);
    assert_eq!(two.concat()[..114], v.bytes("keystream")[..]);

    ietf.seek(u128::from(u32::MAX)).unwrap();
    reference::keystream::<R20, Ietf>(&ietf, &mut two);
    assert_eq!(
        two,
        [reference::block::<R20, Ietf>(&ietf, u64::from(u32::MAX)), reference::block::<R20, Ietf>(&ietf, 0)]
    );

    let mut legacy = State::<Legacy>::new(&[3; 32], &[4; 8]);
    legacy.seek(u128::from(u32::MAX)).unwrap();
    reference::keystream::<R20, Legacy>(&legacy, &mut two);
    assert_eq!(two[1], reference::block::<R20, Legacy>(&legacy, 1 << 32));
    assert_ne!(two[1], reference::block::<R20, Legacy>(&legacy, 0));
}

/// At `blocks_left` = 2 (`Ietf` at 2^32 − 2, `Legacy` at 2^64 − 2): a 3-block request is
/// refused before the kernel runs, with the buffer and the state untouched; a request of
/// exactly 2 blocks is served and ends the stream; then only empty requests pass.
fn end_of_stream<V: Variant>(nonce: &V::Nonce) {
    let mut state = State::<V>::new(&[9; 32], nonce);
    let near_end = V::BLOCKS - 2;
    state.seek(near_end).unwrap();
    let before = calls();
    let mut tail = [0x55u8; BLOCK_LEN];

    let mut data = vec![0xA5u8; 2 * BLOCK_LEN + 1];
    assert_eq!(state.xor::<R20, _>(Recording, data.as_mut_slice().into(), &mut tail), Err(EndOfStream));
    let mut out = [[0xA5u8; BLOCK_LEN]; 3];
    assert_eq!(state.fill::<R20, _>(Recording, &mut out), Err(EndOfStream));
    assert_eq!(state.fill_batch::<R20, _>(Recording, &mut out), Err(EndOfStream));
    assert_eq!(calls(), before, "a refused request never reaches the kernel");
    assert!(data.iter().chain(out.as_flattened()).all(|&b| b == 0xA5), "nothing written");
    assert_eq!(tail, [0x55; BLOCK_LEN]);
    assert_eq!((state.position(), state.blocks_left()), (near_end, 2), "the state is where it was");

    // Exactly what is left: served, and the stream ends.
    let mut fits = state.clone();
    let mut data = vec![0u8; 2 * BLOCK_LEN];
    fits.xor::<R20, _>(Recording, data.as_mut_slice().into(), &mut tail).unwrap();
    let mut want = [[0u8; BLOCK_LEN]; 2];
    reference::keystream::<R20, V>(&state, &mut want);
    assert_eq!(data, want.concat());
    assert_eq!((fits.blocks_left(), fits.position()), (0, V::BLOCKS));
    let mut two = [[0u8; BLOCK_LEN]; 2];
    let mut batch = state.clone();
    state.fill::<R20, _>(Recording, &mut two).unwrap();
    assert_eq!(two, want);
    assert_eq!(state.blocks_left(), 0);
    // `fill_batch`: the same bytes and move (the default method is `fill`).
    let mut two = [[0u8; BLOCK_LEN]; 2];
    batch.fill_batch::<R20, _>(Recording, &mut two).unwrap();
    assert_eq!((two, batch.blocks_left(), batch.position()), (want, 0, V::BLOCKS));
    assert_eq!(calls(), before + 3);

    // At the end: one byte is refused, nothing is accepted.
    let mut byte = [0u8; 1];
    assert_eq!(state.xor::<R20, _>(Recording, byte.as_mut_slice().into(), &mut tail), Err(EndOfStream));
    assert_eq!(state.fill::<R20, _>(Recording, &mut two[..1]), Err(EndOfStream));
    assert_eq!(batch.fill_batch::<R20, _>(Recording, &mut two[..1]), Err(EndOfStream));
    state.xor::<R20, _>(Recording, (&mut [][..]).into(), &mut tail).unwrap();
    state.fill::<R20, _>(Recording, &mut []).unwrap();
    batch.fill_batch::<R20, _>(Recording, &mut []).unwrap();
    assert_eq!(byte, [0]);
}

#[test]
fn ietf_requests_past_the_end_are_refused_before_the_kernel_runs() {
    end_of_stream::<Ietf>(&[7; 12]);
}

#[test]
fn legacy_requests_past_the_end_are_refused_before_the_kernel_runs() {
    end_of_stream::<Legacy>(&[7; 8]);
}

/// `seek` takes every block of `0..=V::BLOCKS` (the last is the end of the stream) and
/// refuses the one after, leaving the state alone.
#[test]
fn seek_reaches_the_end_of_the_stream_and_no_further() {
    fn check<V: Variant>(nonce: &V::Nonce) {
        let mut state = State::<V>::new(&[1; 32], nonce);
        state.seek(V::BLOCKS).unwrap();
        assert_eq!((state.blocks_left(), state.position()), (0, V::BLOCKS));
        state.seek(3).unwrap();
        assert_eq!(state.seek(V::BLOCKS + 1), Err(EndOfStream));
        assert_eq!(state.position(), 3);
    }
    check::<Ietf>(&[2; 12]);
    check::<Legacy>(&[2; 8]);
}

#[test]
fn end_of_stream_says_what_happened() {
    assert_eq!(EndOfStream.to_string(), "end of the ChaCha keystream for this key and nonce");
}

/// The blocks `counters` of `state`'s key and nonce, from the reference.
fn blocks_at<V: Variant>(state: &State<V>, counters: &[u64]) -> Vec<Block> {
    counters.iter().map(|&c| reference::block::<R20, V>(state, c)).collect()
}

/// `fill_cyclic` across the end of the stream: the last two blocks, then blocks 0, 1, 2,
/// in one kernel call on each side of the end; up to the end exactly, the next call starts
/// at block 0; away from the end it is `fill`; an empty request does nothing, at the end
/// too.
fn cyclic<V: Variant>(nonce: &V::Nonce) {
    let last = V::MAX_COUNTER;
    let mut state = State::<V>::new(&[5; 32], nonce);
    state.seek(V::BLOCKS - 2).unwrap();
    let mut out = [[0u8; BLOCK_LEN]; 5];
    let before = calls();
    state.fill_cyclic::<R20, _>(Recording, &mut out);
    assert_eq!(out.to_vec(), blocks_at(&state, &[last - 1, last, 0, 1, 2]));
    assert_eq!((calls() - before, state.position()), (2, 3));

    state.seek(V::BLOCKS - 2).unwrap();
    state.fill_cyclic::<R20, _>(Recording, &mut out[..2]);
    assert_eq!((state.blocks_left(), state.position()), (0, V::BLOCKS), "up to the end exactly");
    let before = calls();
    state.fill_cyclic::<R20, _>(Recording, &mut []);
    assert_eq!((calls(), state.position()), (before, V::BLOCKS), "nothing asked, nothing done");
    state.fill_cyclic::<R20, _>(Recording, &mut out[..1]);
    assert_eq!(out[0], reference::block::<R20, V>(&state, 0));
    assert_eq!(state.position(), 1);

    state.seek(1000).unwrap();
    let mut want = [[0u8; BLOCK_LEN]; 3];
    state.clone().fill::<R20, _>(Recording, &mut want).unwrap();
    let before = calls();
    state.fill_cyclic::<R20, _>(Recording, &mut out[..3]);
    assert_eq!((out[..3].to_vec(), calls() - before, state.position()), (want.to_vec(), 1, 1003));
}

#[test]
fn fill_cyclic_goes_on_from_block_0_after_the_last_block() {
    cyclic::<Ietf>(&[3; 12]);
    cyclic::<Legacy>(&[3; 8]);
}

fn not_called<'b>() -> &'b mut Block {
    panic!("seek_into asked for the buffer")
}

/// `seek_into`: to a block boundary it is `seek` and never asks for the buffer; inside a
/// block it buffers that block and moves past it; past the end it errs and changes
/// nothing; the last block of the stream is reachable at every offset.
fn into_block<V: Variant>(nonce: &V::Nonce) {
    let mut state = State::<V>::new(&[6; 32], nonce);
    state.seek_into::<R20, _>(Recording, 7, 0, not_called).unwrap();
    assert_eq!(state.position(), 7);

    let mut buf = [0u8; BLOCK_LEN];
    let before = calls();
    state.seek_into::<R20, _>(Recording, 9, 5, || &mut buf).unwrap();
    assert_eq!((buf, state.position(), calls() - before), (reference::block::<R20, V>(&state, 9), 10, 1));

    state.seek(3).unwrap();
    assert_eq!(state.seek_into::<R20, _>(Recording, V::BLOCKS, 1, not_called), Err(EndOfStream));
    assert_eq!(state.seek_into::<R20, _>(Recording, V::BLOCKS + 1, 0, not_called), Err(EndOfStream));
    assert_eq!(state.position(), 3, "a refused seek leaves the state alone");

    state.seek_into::<R20, _>(Recording, V::BLOCKS - 1, 63, || &mut buf).unwrap();
    assert_eq!((buf, state.blocks_left()), (reference::block::<R20, V>(&state, V::MAX_COUNTER), 0));
    state.seek(3).unwrap();
    state.seek_into::<R20, _>(Recording, V::BLOCKS, 0, not_called).unwrap();
    assert_eq!(state.blocks_left(), 0);
}

#[test]
fn seek_into_buffers_the_block_it_lands_in() {
    into_block::<Ietf>(&[4; 12]);
    into_block::<Legacy>(&[4; 8]);
}

#[test]
#[should_panic(expected = "an offset inside a block: 64")]
fn seek_into_refuses_an_offset_past_the_block() {
    let mut state = State::<Ietf>::new(&[6; 32], &[4; 12]);
    let mut buf = [0u8; BLOCK_LEN];
    let _ = state.seek_into::<R20, _>(Recording, 7, BLOCK_LEN, || &mut buf);
}

/// The key and nonce read back as `new` took them, at every counter (the counter's high
/// word, in `Legacy` word 13, is not part of the nonce).
#[test]
fn key_words_and_nonce_read_back_what_new_took() {
    let v = get("rfc8439-2.3.2");
    let key: [u8; 32] = v.array("key");
    let state = State::<Ietf>::new(&key, &v.array("nonce"));
    assert_eq!(state.key_words()[..], v.words("setup")[4..12]);
    assert_eq!(state.nonce(), v.array("nonce"));

    let key: [u8; 32] = core::array::from_fn(|i| 0xa0 ^ i as u8);
    let mut ietf = State::<Ietf>::new(&key, &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    let mut legacy = State::<Legacy>::new(&key, &[1, 2, 3, 4, 5, 6, 7, 8]);
    ietf.seek(0xdead_beef).unwrap();
    legacy.seek(0x0123_4567_89ab_cdef).unwrap();
    let words: [u32; 8] =
        core::array::from_fn(|i| u32::from_le_bytes(key[4 * i..4 * i + 4].try_into().unwrap()));
    assert_eq!((ietf.key_words(), legacy.key_words()), (&words, &words));
    assert_eq!(ietf.nonce(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert_eq!(legacy.nonce(), [1, 2, 3, 4, 5, 6, 7, 8]);
}

/// The one-pass AEAD steps' defaults through [`State::xor_and_mac`]: the keystream XOR of
/// `State::xor` and the MAC of the zero-padded ciphertext (the output when sealing, the
/// input when opening), across the 4 KiB pieces, with the state moved past the blocks.
#[test]
fn xor_and_mac_is_xor_plus_the_padded_ciphertexts_mac_piece_after_piece() {
    use chacha_core::{AEAD_CHUNK, AeadDirection, poly1305::Accumulator};
    let key = [0x42u8; 32];
    for len in [0, 1, 15, 16, 17, 64, 65, AEAD_CHUNK - 1, AEAD_CHUNK, AEAD_CHUNK + 1, 2 * AEAD_CHUNK + 100] {
        let data: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
        let mut expected_state = State::<Ietf>::new(&key, &[9; 12]);
        expected_state.seek(5).unwrap();
        let start = expected_state.clone();
        let mut ciphertext = data.clone();
        expected_state
            .xor::<R20, _>(Recording, ciphertext.as_mut_slice().into(), &mut [0; BLOCK_LEN])
            .unwrap();
        let mut padded = ciphertext.clone();
        padded.resize(len.div_ceil(16) * 16, 0);
        let mac_key = [0x17u8; 32];
        let want_tag = reference::poly1305(&mac_key, &padded);
        for direction in [AeadDirection::Seal, AeadDirection::Open] {
            let mut state = start.clone();
            let mut acc = Accumulator::new(mac_key[..16].try_into().unwrap());
            let mut buf = if direction == AeadDirection::Seal { data.clone() } else { ciphertext.clone() };
            let before = calls();
            state.xor_and_mac::<R20, _>(Recording, direction, &mut acc, buf.as_mut_slice().into()).unwrap();
            let want_buf = if direction == AeadDirection::Seal { &ciphertext } else { &data };
            assert_eq!(&buf, want_buf, "{direction:?}, {len} bytes");
            assert_eq!(
                acc.tag(mac_key[16..].try_into().unwrap()),
                want_tag,
                "{direction:?}, {len} bytes: tag"
            );
            assert_eq!(state.counter(), expected_state.counter(), "{direction:?}, {len} bytes: position");
            assert_eq!(
                calls() - before,
                len.div_ceil(4096),
                "{direction:?}, {len} bytes: one call a 4 KiB piece"
            );
        }
    }
}

/// A request past the end is refused before anything runs; one that ends exactly at the
/// end is served.
#[test]
fn xor_and_mac_refuses_past_the_end_and_serves_up_to_it() {
    use chacha_core::{AeadDirection, poly1305::Accumulator};
    let mut state = State::<Ietf>::new(&[1; 32], &[2; 12]);
    state.seek((1u128 << 32) - 2).unwrap();
    let mut acc = Accumulator::new(&[3; 16]);
    let mut buf = vec![0x55u8; 129];
    let before = calls();
    assert_eq!(
        state.xor_and_mac::<R20, _>(Recording, AeadDirection::Seal, &mut acc, buf.as_mut_slice().into()),
        Err(EndOfStream)
    );
    assert_eq!(calls(), before, "the kernel did not run");
    assert!(buf.iter().all(|&b| b == 0x55), "nothing written");
    assert_eq!(acc.h(), [0; 3], "nothing absorbed");
    assert_eq!(state.blocks_left(), 2);
    state.xor_and_mac::<R20, _>(Recording, AeadDirection::Open, &mut acc, (&mut buf[..128]).into()).unwrap();
    assert_eq!(state.blocks_left(), 0);
    assert_ne!(acc.h(), [0; 3]);
}

/// RFC 8439 §2.8.2 through [`State::aead_message`] on the defaults: sealing gives the
/// vector's ciphertext and tag and moves past the key block and the message's two blocks;
/// opening the ciphertext gives the same tag and the plaintext.
#[test]
fn aead_message_gives_rfc8439_2_8_2_both_ways() {
    use chacha_core::AeadDirection;
    let v = get("rfc8439-aead-2.8.2");
    let start = State::<Ietf>::new(&v.array("key"), &v.array("nonce"));
    let aad = v.bytes("aad");
    for direction in [AeadDirection::Seal, AeadDirection::Open] {
        let (from, to) = match direction {
            AeadDirection::Seal => ("plaintext", "ciphertext"),
            AeadDirection::Open => ("ciphertext", "plaintext"),
        };
        let mut buf = v.bytes(from);
        let mut state = start.clone();
        let tag =
            state.aead_message::<R20, _>(Recording, direction, &aad, buf.as_mut_slice().into()).unwrap();
        assert_eq!(buf, v.bytes(to), "{direction:?}");
        assert_eq!(tag.to_vec(), v.bytes("tag"), "{direction:?}: tag");
        assert_eq!(state.counter(), 1 + buf.len().div_ceil(BLOCK_LEN) as u64, "{direction:?}: position");
    }
}

/// The default [`Aead::message`] is the key block's first 32 bytes as the one-time key,
/// the AAD and the ciphertext each padded, then the lengths: checked against the reference
/// Poly1305 over that layout, for lengths around the block and the 4 KiB piece, from a
/// counter other than 0 (the key block is whichever the state is at).
#[test]
fn aead_message_is_the_rfc_layout_from_the_key_block() {
    use chacha_core::{AEAD_CHUNK, AeadDirection, message_in_steps};
    let aad = [0xa5u8; 21];
    for len in [0, 1, 63, 64, 65, AEAD_CHUNK + 1] {
        let data: Vec<u8> = (0..len).map(|i| (i * 5 + 1) as u8).collect();
        let mut start = State::<Ietf>::new(&[0x24; 32], &[3; 12]);
        start.seek(7).unwrap();
        let mut block0 = [[0u8; BLOCK_LEN]];
        reference::keystream::<R20, Ietf>(&start, &mut block0);
        let mut after = start.clone();
        after.seek(8).unwrap();
        let mut ciphertext = data.clone();
        after.xor::<R20, _>(Recording, ciphertext.as_mut_slice().into(), &mut [0; BLOCK_LEN]).unwrap();
        let pad = |b: &[u8]| {
            let mut v = b.to_vec();
            v.resize(b.len().div_ceil(16) * 16, 0);
            v
        };
        let mut mac_data = pad(&aad);
        mac_data.extend(pad(&ciphertext));
        mac_data.extend((aad.len() as u64).to_le_bytes());
        mac_data.extend((len as u64).to_le_bytes());
        let want_tag = reference::poly1305(block0[0][..32].try_into().unwrap(), &mac_data);
        for direction in [AeadDirection::Seal, AeadDirection::Open] {
            let mut buf = if direction == AeadDirection::Seal { data.clone() } else { ciphertext.clone() };
            let tag = Recording.message::<R20>(&start, direction, &aad, buf.as_mut_slice().into());
            assert_eq!(tag, want_tag, "{direction:?}, {len} bytes: tag");
            let want = if direction == AeadDirection::Seal { &ciphertext } else { &data };
            assert_eq!(&buf, want, "{direction:?}, {len} bytes");
            // The default as a function of its own, for kernels that override `message`.
            let mut again = if direction == AeadDirection::Seal { data.clone() } else { ciphertext.clone() };
            let tag =
                message_in_steps::<R20, _>(Recording, &start, direction, &aad, again.as_mut_slice().into());
            assert_eq!((tag, &again), (want_tag, want), "{direction:?}, {len} bytes: message_in_steps");
        }
    }
}

/// A message whose key block and blocks do not all fit is refused before the kernel runs;
/// one that ends exactly at the end of the stream is served.
#[test]
fn aead_message_refuses_past_the_end_and_serves_up_to_it() {
    use chacha_core::AeadDirection;
    let mut state = State::<Ietf>::new(&[1; 32], &[2; 12]);
    state.seek((1u128 << 32) - 3).unwrap(); // 3 blocks: the key block and two
    let mut buf = vec![0x55u8; 129];
    let before = calls();
    assert_eq!(
        state.aead_message::<R20, _>(Recording, AeadDirection::Seal, &[], buf.as_mut_slice().into()),
        Err(EndOfStream)
    );
    assert_eq!(calls(), before, "the kernel did not run");
    assert!(buf.iter().all(|&b| b == 0x55), "nothing written");
    assert_eq!(state.blocks_left(), 3);
    state.aead_message::<R20, _>(Recording, AeadDirection::Open, &[], (&mut buf[..128]).into()).unwrap();
    assert_eq!(state.blocks_left(), 0);
    assert!(buf[..128].iter().any(|&b| b != 0x55), "decrypted");
}

/// An `AeadMac` shows no key: `Debug` names the type only.
#[test]
fn aead_mac_debug_hides_the_key() {
    let mac = chacha_core::AeadMac::new(&[0x5a; BLOCK_LEN]);
    assert_eq!(format!("{mac:?}"), "AeadMac { .. }");
}

/// `wipe_keystream` zeroes the blocks it is given with `zeroize` (what the AEAD's key block
/// and short messages' keystream rely on).
#[cfg(feature = "zeroize")]
#[test]
fn wipe_keystream_zeroes_the_blocks() {
    let mut blocks = [[0x37u8; BLOCK_LEN]; 3];
    chacha_core::wipe_keystream(&mut blocks[..2]);
    assert_eq!(blocks, [[0; BLOCK_LEN], [0; BLOCK_LEN], [0x37; BLOCK_LEN]]);
}
