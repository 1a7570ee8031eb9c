//! The `chacha20` cipher API against one reference keystream: see `chacha_fuzz::cipher_api`.
#![no_main]

libfuzzer_sys::fuzz_target!(|case: chacha_fuzz::cipher_api::Case| chacha_fuzz::cipher_api::check(&case));
