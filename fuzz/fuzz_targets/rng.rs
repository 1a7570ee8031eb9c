//! The `chacha-rng` generators against a reference model: see `chacha_fuzz::rng`.
#![no_main]

libfuzzer_sys::fuzz_target!(|case: chacha_fuzz::rng::Case| chacha_fuzz::rng::check(&case));
