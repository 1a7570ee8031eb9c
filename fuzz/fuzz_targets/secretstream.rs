//! libsodium's secretstream on every backend against a model, every one-bit forgery
//! refused: see `chacha_fuzz::secretstream`.
#![no_main]

libfuzzer_sys::fuzz_target!(|case: chacha_fuzz::secretstream::Case| chacha_fuzz::secretstream::check(&case));
