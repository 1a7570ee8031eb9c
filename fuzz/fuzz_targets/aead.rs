//! ChaCha20-Poly1305 and XChaCha20-Poly1305 on every backend against a reference
//! construction, forgeries refused: see `chacha_fuzz::aead`.
#![no_main]

libfuzzer_sys::fuzz_target!(|case: chacha_fuzz::aead::Case| chacha_fuzz::aead::check(&case));
