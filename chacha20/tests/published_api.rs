//! The probe: every public item of the published `chacha20` 0.10.2 (features `cipher`,
//! `legacy`, `xchacha`, `rng`, `zeroize`), used as a user would, in one body compiled twice —
//! against the published crate and against this one — and the two transcripts compared
//! byte for byte. An item that goes missing here stops this file from compiling.
//!
//! Left out, each with the row of the "published crate's API, item by item" table (this
//! crate's docs and README) that says why: `ChaChaCore<R, V>` as a `cipher` stream core
//! (`KeyIvInit`, `StreamCipherCore`, `StreamCipherSeekCore`, `.get_core()` of the
//! wrapper), `ChaCha20LegacyCore` (the row "`ChaChaCore<R, V>`, `ChaCha20LegacyCore`,
//! `XChaChaCore<R>` as `cipher` block-level cores"); a user-defined `Rounds` (the row "a
//! `Rounds` of your own"); `ChaChaCore::<_, Ietf>::from_seed` (the row of that name: it
//! panics in the published crate). `XChaChaCore` is not nameable in the published crate.

macro_rules! probe {
    ($name:ident, $c:ident) => {
        fn $name() -> Vec<u8> {
            use c::cipher::{KeyIvInit as _, StreamCipher, StreamCipherSeek};
            use c::rand_core::block::BlockRng;
            use c::rand_core::{Rng, SeedableRng};
            use c::variants::{Ietf, Legacy, Variant};
            use c::{R8, R12, R20, Rounds};
            use $c as c;
            // The wrapper type is re-exported with `cipher` (its `stream-wrapper` feature).
            #[allow(unused_imports)]
            use c::cipher::StreamCipherCoreWrapper as _;

            let mut out = Vec::new();
            let key = c::Key::from([0x42; 32]);

            // Ciphers, nonces, `KeyIvInit` at the root and in `cipher`.
            let nonce = c::Nonce::from([0x24; 12]);
            let mut buf = [0u8; 200];
            let mut chacha20: c::ChaCha20 = c::KeyIvInit::new(&key, &nonce);
            chacha20.apply_keystream(&mut buf);
            out.extend_from_slice(&buf);
            chacha20.seek(64u64 * 1000 + 7);
            let pos: u64 = chacha20.current_pos();
            out.extend_from_slice(&pos.to_le_bytes());
            chacha20.apply_keystream(&mut buf[..33]);
            out.extend_from_slice(&buf);
            for mut cipher in [c::ChaCha12::new(&key, &nonce)] {
                cipher.apply_keystream(&mut buf);
                out.extend_from_slice(&buf);
            }
            c::ChaCha8::new(&key, &nonce).apply_keystream(&mut buf);
            out.extend_from_slice(&buf);
            out.extend_from_slice(
                format!("{:?}", chacha20.try_apply_keystream(&mut buf[..1]).is_ok()).as_bytes(),
            );

            // `legacy`.
            let legacy_nonce = c::LegacyNonce::from([9; 8]);
            let mut legacy = c::ChaCha20Legacy::new(&key, &legacy_nonce);
            legacy.seek(64u64 * (1 << 33));
            legacy.apply_keystream(&mut buf);
            out.extend_from_slice(&buf);

            // `xchacha`.
            let xnonce = c::XNonce::from([5; 24]);
            c::XChaCha20::new(&key, &xnonce).apply_keystream(&mut buf);
            out.extend_from_slice(&buf);
            c::XChaCha12::new(&key, &xnonce).apply_keystream(&mut buf);
            out.extend_from_slice(&buf);
            c::XChaCha8::new(&key, &xnonce).apply_keystream(&mut buf);
            out.extend_from_slice(&buf);
            let input = c::cipher::array::Array::from([3u8; 16]);
            out.extend_from_slice(&c::hchacha::<R20>(&key, &input));
            out.extend_from_slice(&c::hchacha::<R12>(&key, &input));
            out.extend_from_slice(&c::hchacha::<R8>(&key, &input));

            // `Rounds::COUNT`: double rounds.
            for count in [R8::COUNT, R12::COUNT, R20::COUNT] {
                out.push(count as u8);
            }
            fn rounds_bound<R: Rounds + Copy>(_: R) {}
            rounds_bound(R8);
            rounds_bound(R12);
            rounds_bound(R20);

            // `variants`: the block-position functions on state words 12..16.
            let mut row = [0xAAAA_AAAAu32; 4];
            Ietf::set_block_pos(&mut row, 0x0102_0304);
            let ietf: u32 = Ietf::get_block_pos(&row);
            Legacy::set_block_pos(&mut row, 0x0506_0708_090A_0B0C);
            let legacy_pos: u64 = Legacy::get_block_pos(&row);
            out.extend_from_slice(&ietf.to_le_bytes());
            out.extend_from_slice(&legacy_pos.to_le_bytes());
            for w in row {
                out.extend_from_slice(&w.to_le_bytes());
            }
            out.extend_from_slice(format!("{:?}", Ietf::remaining_blocks(u32::MAX - 5)).as_bytes());
            out.extend_from_slice(format!("{:?}", Legacy::remaining_blocks(u64::MAX - 5)).as_bytes());
            out.extend_from_slice(format!("{:?}", Ietf::remaining_blocks(0)).as_bytes());
            fn variant_bound<V: Variant>() {}
            variant_bound::<Ietf>();
            variant_bound::<Legacy>();

            // `rng`: the generators and all their methods.
            let seed: c::Seed = [7; 32];
            let mut rng = c::ChaCha20Rng::from_seed(seed);
            chacha_testdata::probe_rng_methods!(c, rng, out);
            out.extend_from_slice(&rng.get_block_pos().to_le_bytes());
            rng.set_block_pos(12345);
            out.extend_from_slice(&rng.next_u32().to_le_bytes());
            rng.set_stream(98);
            out.extend_from_slice(&rng.get_word_pos().to_le_bytes());
            let state: c::SerializedRngState = rng.serialize_state();
            out.extend_from_slice(&state);
            let mut again = c::ChaCha20Rng::deserialize_state(&state);
            out.push(u8::from(again == rng));
            out.extend_from_slice(&again.next_u64().to_le_bytes());
            out.push(u8::from(again == rng));
            fn crypto_rng<T: c::rand_core::CryptoRng>(_: &T) {}
            crypto_rng(&rng);

            // `ChaChaCore<R, V>` as the rand_core block generator (`rand`'s `ThreadRng`).
            let mut core = c::ChaChaCore::<R12, Legacy>::from_seed([1; 32]);
            core.set_block_pos(1 << 40);
            let at: u64 = core.get_block_pos();
            out.extend_from_slice(&at.to_le_bytes());
            let _ = format!("{core:?}");
            let mut block_rng = BlockRng::new(core);
            for _ in 0..300 {
                out.extend_from_slice(&block_rng.next_word().to_le_bytes());
            }
            // (`ChaChaCore::<_, Ietf>::from_seed` panics in the published crate, which puts
            // an 8-byte nonce into the 12-byte layout; ours gives the zero-nonce stream.)

            // `zeroize`: the generators wipe themselves on drop. (The published ciphers are
            // `ZeroizeOnDrop` only with `cipher`'s own `zeroize` feature, which that crate
            // does not turn on; ours always are, checked in `src/chacha.rs`' tests.)
            #[cfg(feature = "zeroize")]
            {
                fn zeroize_on_drop<T: zeroize_crate::ZeroizeOnDrop>() {}
                zeroize_on_drop::<c::ChaCha20Rng>();
                zeroize_on_drop::<c::ChaChaCore<R12, Legacy>>();
            }
            out
        }
    };
}

#[cfg(feature = "zeroize")]
use chacha20::zeroize as zeroize_crate;

probe!(published, chacha20_published);
probe!(ours, chacha20);

#[test]
fn every_published_item_exists_here_and_gives_the_same_bytes() {
    chacha_testdata::assert_same_transcript(published, ours, 2000);
}
