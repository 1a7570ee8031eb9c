//! The probe: every public item of `rand_chacha` 0.10, used as a user would, in one body
//! compiled twice — against `rand_chacha` and against this crate — and the two transcripts
//! compared byte for byte. An item that goes missing here stops this file from compiling.
//!
//! Left out, with the row of the crate docs' `rand_chacha` table that says why: the
//! non-generic `ChaChaRng` (= `ChaCha20Rng`) and `ChaChaCore` (= `ChaCha20Core`) aliases
//! (the row "`ChaChaRng` = `ChaCha20Rng`, `ChaChaCore` = `ChaCha20Core`"); `PartialEq` on
//! the cores (the row "`ChaCha8Core`, `ChaCha12Core`, `ChaCha20Core`"); the position
//! after `set_stream` (the row "`set_stream`"). `serde` is
//! compared in `published.rs` and `hostile.rs`.

macro_rules! probe {
    ($name:ident, $c:ident) => {
        fn $name() -> Vec<u8> {
            use c::rand_core::block::{BlockRng, Generator};
            use c::rand_core::{CryptoRng, Rng, SeedableRng};
            use $c as c;

            fn crypto_rng<T: CryptoRng + Clone + core::fmt::Debug + Eq>(_: &T) {}
            fn generator<G: Generator + SeedableRng<Seed = [u8; 32]> + Clone + core::fmt::Debug>() {}
            generator::<c::ChaCha8Core>();
            generator::<c::ChaCha12Core>();
            generator::<c::ChaCha20Core>();

            let mut out = Vec::new();
            let mut rng = c::ChaCha20Rng::from_seed([7; 32]);
            crypto_rng(&rng);
            // `set_stream` is followed by `set_word_pos` there: `rand_chacha` keeps the
            // position across `set_stream`, this crate (as the published `chacha20`) resets
            // it to 0 — the row "`set_stream`" of the crate docs' `rand_chacha` table.
            chacha_testdata::probe_rng_methods!(c, rng, out);
            let mut copy = rng.clone();
            out.push(u8::from(copy == rng));
            out.extend_from_slice(&copy.next_u64().to_le_bytes());
            out.push(u8::from(copy == rng));

            // The cores: under `BlockRng`, and `From<Core> for Rng`.
            let core = c::ChaCha12Core::from_seed([1; 32]);
            let _ = format!("{core:?}");
            let mut block_rng = BlockRng::new(core.clone());
            let mut from_core = c::ChaCha12Rng::from(core);
            for _ in 0..300 {
                out.extend_from_slice(&block_rng.next_word().to_le_bytes());
                out.extend_from_slice(&from_core.next_u32().to_le_bytes());
            }
            let mut from8 = c::ChaCha8Rng::from(c::ChaCha8Core::seed_from_u64(5));
            let mut from20 = c::ChaCha20Rng::from(c::ChaCha20Core::seed_from_u64(5));
            let mut buf = [0u8; 1000];
            from8.fill_bytes(&mut buf);
            out.extend_from_slice(&buf);
            from20.fill_bytes(&mut buf);
            out.extend_from_slice(&buf);
            out
        }
    };
}

probe!(published, rand_chacha);
probe!(ours, chacha_rng);

#[test]
fn every_rand_chacha_item_exists_here_and_gives_the_same_bytes() {
    chacha_testdata::assert_same_transcript(published, ours, 4000);
}
