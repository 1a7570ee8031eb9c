//! The only `unsafe` of this package: OpenSSL's `libcrypto` (EVP ChaCha20,
//! ChaCha20-Poly1305 sealing and opening, and `EVP_MAC` Poly1305) and libsodium
//! (`crypto_stream_*_xor_ic`, the `_ietf` ChaCha20-Poly1305 and XChaCha20-Poly1305
//! `_encrypt_detached` / `_decrypt_detached`, `crypto_onetimeauth_poly1305`), loaded at run
//! time with `libloading`, behind a safe API; and, on Linux, pinning the process to one CPU
//! ([`pin_to_current_cpu`]).
//!
//! Nothing links against either library, so `cargo test --workspace` and the report build
//! on a machine with only the Rust toolchain; [`crypto`] and [`sodium`] say why a library
//! is missing and its peer is skipped. Each library is opened once and kept for the whole
//! process (it lives in a static), so the function pointers copied out of it stay valid.
//!
//! Every C signature is copied from the library's header next to the symbol it types; one
//! `unsafe` block per foreign call, each with its `// SAFETY:` argument.

use std::ffi::{CStr, c_char, c_int, c_uchar, c_ulonglong, c_void};
use std::ptr::{self, NonNull};
use std::sync::OnceLock;

use libloading::Library;

/// Opens the first of `names` that loads; the error names the package to `install`.
fn open(names: &[&str], install: &str) -> Result<Library, String> {
    let mut last = String::new();
    for &name in names {
        // SAFETY: loading a library runs its initialisers; libcrypto's and libsodium's only
        // set up their own state (CPU capability probes, tables), with no requirement on us.
        match unsafe { Library::new(name) } {
            Ok(lib) => return Ok(lib),
            Err(e) => last = e.to_string(),
        }
    }
    Err(format!("none of {} loads ({last}); install {install}", names.join(", ")))
}

/// The function `name` of `lib`, typed as `T`.
///
/// # Safety
/// `T` must be the `unsafe extern "C" fn` type of the symbol's C declaration, and `lib`
/// must stay loaded while the pointer is used (here: for ever, in a static).
unsafe fn function<T: Copy>(lib: &Library, name: &str) -> Result<T, String> {
    // SAFETY: the caller guarantees that `T` is the symbol's type.
    let symbol = unsafe { lib.get::<T>(name) }.map_err(|e| format!("{name}: {e}"))?;
    Ok(*symbol)
}

/// A C string returned by a version function, as UTF-8 (lossy), or `?` for null.
fn version_text(text: *const c_char) -> String {
    if text.is_null() {
        return "?".into();
    }
    // SAFETY: non-null; both version functions return a pointer to a static NUL-terminated
    // string that lives as long as the library (for ever, here).
    unsafe { CStr::from_ptr(text) }.to_string_lossy().into_owned()
}

/// `libcrypto`: the EVP functions that OpenSSL's ChaCha20 goes through.
pub struct Crypto {
    _lib: Library,
    /// `OpenSSL 3.0.19 27 Jan 2026`.
    pub version: String,
    /// `EVP_CIPHER_CTX *EVP_CIPHER_CTX_new(void);`
    ctx_new: unsafe extern "C" fn() -> *mut c_void,
    /// `void EVP_CIPHER_CTX_free(EVP_CIPHER_CTX *ctx);`
    ctx_free: unsafe extern "C" fn(*mut c_void),
    /// `const EVP_CIPHER *EVP_chacha20(void);`
    chacha20: unsafe extern "C" fn() -> *const c_void,
    /// `int EVP_EncryptInit_ex(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *type, ENGINE *impl,
    ///  const unsigned char *key, const unsigned char *iv);`
    encrypt_init: unsafe extern "C" fn(
        *mut c_void,
        *const c_void,
        *mut c_void,
        *const c_uchar,
        *const c_uchar,
    ) -> c_int,
    /// `int EVP_EncryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl,
    ///  const unsigned char *in, int inl);`
    encrypt_update:
        unsafe extern "C" fn(*mut c_void, *mut c_uchar, *mut c_int, *const c_uchar, c_int) -> c_int,
    /// `const EVP_CIPHER *EVP_chacha20_poly1305(void);`
    chacha20_poly1305: unsafe extern "C" fn() -> *const c_void,
    /// `int EVP_EncryptFinal_ex(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl);`
    encrypt_final: unsafe extern "C" fn(*mut c_void, *mut c_uchar, *mut c_int) -> c_int,
    /// `int EVP_CIPHER_CTX_ctrl(EVP_CIPHER_CTX *ctx, int type, int arg, void *ptr);`
    ctx_ctrl: unsafe extern "C" fn(*mut c_void, c_int, c_int, *mut c_void) -> c_int,
    /// `int EVP_DecryptInit_ex(EVP_CIPHER_CTX *ctx, const EVP_CIPHER *type, ENGINE *impl,
    ///  const unsigned char *key, const unsigned char *iv);`
    decrypt_init: unsafe extern "C" fn(
        *mut c_void,
        *const c_void,
        *mut c_void,
        *const c_uchar,
        *const c_uchar,
    ) -> c_int,
    /// `int EVP_DecryptUpdate(EVP_CIPHER_CTX *ctx, unsigned char *out, int *outl,
    ///  const unsigned char *in, int inl);`
    decrypt_update:
        unsafe extern "C" fn(*mut c_void, *mut c_uchar, *mut c_int, *const c_uchar, c_int) -> c_int,
    /// `int EVP_DecryptFinal_ex(EVP_CIPHER_CTX *ctx, unsigned char *outm, int *outl);`
    decrypt_final: unsafe extern "C" fn(*mut c_void, *mut c_uchar, *mut c_int) -> c_int,
    /// OpenSSL 3's `EVP_MAC` functions, for Poly1305; `None` in an older libcrypto (which
    /// then still offers the ciphers).
    mac: Option<MacFunctions>,
}

/// OpenSSL 3's `EVP_MAC` API (openssl/evp.h), what its Poly1305 is reached through.
struct MacFunctions {
    /// `EVP_MAC *EVP_MAC_fetch(OSSL_LIB_CTX *libctx, const char *algorithm,
    ///  const char *properties);`
    fetch: unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char) -> *mut c_void,
    /// `EVP_MAC_CTX *EVP_MAC_CTX_new(EVP_MAC *mac);`
    ctx_new: unsafe extern "C" fn(*mut c_void) -> *mut c_void,
    /// `void EVP_MAC_CTX_free(EVP_MAC_CTX *ctx);`
    ctx_free: unsafe extern "C" fn(*mut c_void),
    /// `int EVP_MAC_init(EVP_MAC_CTX *ctx, const unsigned char *key, size_t keylen,
    ///  const OSSL_PARAM params[]);`
    init: unsafe extern "C" fn(*mut c_void, *const c_uchar, usize, *const c_void) -> c_int,
    /// `int EVP_MAC_update(EVP_MAC_CTX *ctx, const unsigned char *data, size_t datalen);`
    update: unsafe extern "C" fn(*mut c_void, *const c_uchar, usize) -> c_int,
    /// `int EVP_MAC_final(EVP_MAC_CTX *ctx, unsigned char *out, size_t *outl,
    ///  size_t outsize);`
    finish: unsafe extern "C" fn(*mut c_void, *mut c_uchar, *mut usize, usize) -> c_int,
}

impl MacFunctions {
    fn load(lib: &Library) -> Result<MacFunctions, String> {
        Ok(MacFunctions {
            // SAFETY: the type is the declaration in openssl/evp.h quoted on the field.
            fetch: unsafe { function(lib, "EVP_MAC_fetch")? },
            // SAFETY: as above.
            ctx_new: unsafe { function(lib, "EVP_MAC_CTX_new")? },
            // SAFETY: as above.
            ctx_free: unsafe { function(lib, "EVP_MAC_CTX_free")? },
            // SAFETY: as above.
            init: unsafe { function(lib, "EVP_MAC_init")? },
            // SAFETY: as above.
            update: unsafe { function(lib, "EVP_MAC_update")? },
            // SAFETY: as above.
            finish: unsafe { function(lib, "EVP_MAC_final")? },
        })
    }
}

impl Crypto {
    fn load() -> Result<Crypto, String> {
        let lib = open(
            &["libcrypto.so.3", "libcrypto.so", "libcrypto.3.dylib", "libcrypto.dylib"],
            "OpenSSL 3 (Debian: libssl3)",
        )?;
        // SAFETY: `const char *OpenSSL_version(int type);` (openssl/crypto.h, OpenSSL ≥ 1.1).
        let version_fn: unsafe extern "C" fn(c_int) -> *const c_char =
            unsafe { function(&lib, "OpenSSL_version")? };
        // SAFETY: OPENSSL_VERSION (0) is a valid argument; the result is a static string.
        let version = version_text(unsafe { version_fn(0) });
        Ok(Crypto {
            version,
            // SAFETY: the type is the declaration in openssl/evp.h quoted on the field.
            ctx_new: unsafe { function(&lib, "EVP_CIPHER_CTX_new")? },
            // SAFETY: as above.
            ctx_free: unsafe { function(&lib, "EVP_CIPHER_CTX_free")? },
            // SAFETY: as above.
            chacha20: unsafe { function(&lib, "EVP_chacha20")? },
            // SAFETY: as above.
            encrypt_init: unsafe { function(&lib, "EVP_EncryptInit_ex")? },
            // SAFETY: as above.
            encrypt_update: unsafe { function(&lib, "EVP_EncryptUpdate")? },
            // SAFETY: as above.
            chacha20_poly1305: unsafe { function(&lib, "EVP_chacha20_poly1305")? },
            // SAFETY: as above.
            encrypt_final: unsafe { function(&lib, "EVP_EncryptFinal_ex")? },
            // SAFETY: as above.
            ctx_ctrl: unsafe { function(&lib, "EVP_CIPHER_CTX_ctrl")? },
            // SAFETY: as above.
            decrypt_init: unsafe { function(&lib, "EVP_DecryptInit_ex")? },
            // SAFETY: as above.
            decrypt_update: unsafe { function(&lib, "EVP_DecryptUpdate")? },
            // SAFETY: as above.
            decrypt_final: unsafe { function(&lib, "EVP_DecryptFinal_ex")? },
            mac: MacFunctions::load(&lib).ok(),
            _lib: lib,
        })
    }
}

/// OpenSSL's `libcrypto`, loaded on first use; the error says why it is not there.
pub fn crypto() -> Result<&'static Crypto, &'static str> {
    static CRYPTO: OnceLock<Result<Crypto, String>> = OnceLock::new();
    CRYPTO.get_or_init(Crypto::load).as_ref().map_err(String::as_str)
}

/// An `EVP_CIPHER_CTX` set up for ChaCha20 encryption. EVP's ChaCha20 IV is the 32-bit
/// block counter (little-endian) followed by the 12-byte nonce.
pub struct EvpChaCha20 {
    lib: &'static Crypto,
    ctx: NonNull<c_void>,
}

impl EvpChaCha20 {
    /// A new context keyed with `key` and `iv`.
    ///
    /// # Panics
    /// If OpenSSL cannot allocate or initialise the context.
    pub fn new(lib: &'static Crypto, key: &[u8; 32], iv: &[u8; 16]) -> EvpChaCha20 {
        // SAFETY: EVP_CIPHER_CTX_new takes nothing and returns a new context or null.
        let ctx = NonNull::new(unsafe { (lib.ctx_new)() }).expect("EVP_CIPHER_CTX_new");
        // SAFETY: EVP_chacha20 takes nothing and returns a static cipher description.
        let cipher = unsafe { (lib.chacha20)() };
        let evp = EvpChaCha20 { lib, ctx };
        // SAFETY: a live context, a valid cipher, no engine, and key/IV buffers of the
        // 32 and 16 bytes ChaCha20 reads.
        let ok = unsafe {
            (lib.encrypt_init)(evp.ctx.as_ptr(), cipher, ptr::null_mut(), key.as_ptr(), iv.as_ptr())
        };
        assert_eq!(ok, 1, "EVP_EncryptInit_ex");
        evp
    }

    /// A new key and IV on the same context (`EVP_EncryptInit_ex(ctx, NULL, NULL, key,
    /// iv)`), as a program that encrypts many messages does.
    pub fn rekey(&mut self, key: &[u8; 32], iv: &[u8; 16]) {
        // SAFETY: a live context that already has its cipher (null keeps it), no engine,
        // key/IV buffers of 32 and 16 bytes.
        let ok = unsafe {
            (self.lib.encrypt_init)(
                self.ctx.as_ptr(),
                ptr::null(),
                ptr::null_mut(),
                key.as_ptr(),
                iv.as_ptr(),
            )
        };
        assert_eq!(ok, 1, "EVP_EncryptInit_ex");
    }

    /// XORs the next `buf.len()` keystream bytes into `buf`, in place.
    pub fn apply(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(1 << 30) {
            let len = c_int::try_from(chunk.len()).expect("chunks fit an int");
            let mut written: c_int = 0;
            let p = chunk.as_mut_ptr();
            // SAFETY: a live context; `p` points to `len` writable bytes, used as both input
            // and output, which EVP allows for a stream cipher (exact overlap); `written`
            // is a valid int to write to.
            let ok = unsafe { (self.lib.encrypt_update)(self.ctx.as_ptr(), p, &mut written, p, len) };
            assert!(ok == 1 && written == len, "EVP_EncryptUpdate");
        }
    }
}

impl Drop for EvpChaCha20 {
    fn drop(&mut self) {
        // SAFETY: the context came from EVP_CIPHER_CTX_new and is freed once, here.
        unsafe { (self.lib.ctx_free)(self.ctx.as_ptr()) }
    }
}

/// `EVP_CTRL_AEAD_GET_TAG` (openssl/evp.h): copies the tag out after `EVP_EncryptFinal_ex`.
const EVP_CTRL_AEAD_GET_TAG: c_int = 0x10;
/// `EVP_CTRL_AEAD_SET_TAG` (openssl/evp.h): the tag `EVP_DecryptFinal_ex` checks.
const EVP_CTRL_AEAD_SET_TAG: c_int = 0x11;

/// An `EVP_CIPHER_CTX` set up for ChaCha20-Poly1305 (RFC 8439) under one key, for sealing
/// ([`EvpAead::new`], [`EvpAead::seal`]) or opening ([`EvpAead::new_open`],
/// [`EvpAead::open`]); each message gives its 12-byte nonce.
pub struct EvpAead {
    lib: &'static Crypto,
    ctx: NonNull<c_void>,
}

impl EvpAead {
    /// A new context keyed with `key`, for sealing.
    ///
    /// # Panics
    /// If OpenSSL cannot allocate or initialise the context.
    pub fn new(lib: &'static Crypto, key: &[u8; 32]) -> EvpAead {
        Self::keyed(lib, key, lib.encrypt_init, "EVP_EncryptInit_ex")
    }

    /// A new context keyed with `key`, for opening: EVP fixes the direction when a context
    /// is set up, so a program that seals and opens keeps one of each.
    ///
    /// # Panics
    /// If OpenSSL cannot allocate or initialise the context.
    pub fn new_open(lib: &'static Crypto, key: &[u8; 32]) -> EvpAead {
        Self::keyed(lib, key, lib.decrypt_init, "EVP_DecryptInit_ex")
    }

    fn keyed(
        lib: &'static Crypto,
        key: &[u8; 32],
        init: unsafe extern "C" fn(
            *mut c_void,
            *const c_void,
            *mut c_void,
            *const c_uchar,
            *const c_uchar,
        ) -> c_int,
        what: &str,
    ) -> EvpAead {
        // SAFETY: EVP_CIPHER_CTX_new takes nothing and returns a new context or null.
        let ctx = NonNull::new(unsafe { (lib.ctx_new)() }).expect("EVP_CIPHER_CTX_new");
        // SAFETY: EVP_chacha20_poly1305 takes nothing and returns a static cipher description.
        let cipher = unsafe { (lib.chacha20_poly1305)() };
        let evp = EvpAead { lib, ctx };
        // SAFETY: `init` is EVP_EncryptInit_ex or EVP_DecryptInit_ex (one signature); a live
        // context, a valid cipher, no engine, the 32-byte key it reads, and no IV yet (null:
        // each message sets its nonce).
        let ok = unsafe { init(evp.ctx.as_ptr(), cipher, ptr::null_mut(), key.as_ptr(), ptr::null()) };
        assert_eq!(ok, 1, "{what}");
        evp
    }

    /// Decrypts `buf` in place under `nonce` with `aad` authenticated, checking `tag`;
    /// whether the tag matched. The context must come from [`EvpAead::new_open`]. On a
    /// wrong tag EVP has already written the unauthenticated plaintext into `buf` (it
    /// checks the tag at the end): the report opens only messages that are authentic.
    pub fn open(&mut self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8], tag: &[u8; 16]) -> bool {
        let ctx = self.ctx.as_ptr();
        // SAFETY: a live decryption context with its cipher and key (null keeps both), no
        // engine, and the 12-byte nonce, the cipher's default IV length.
        let ok = unsafe {
            (self.lib.decrypt_init)(ctx, ptr::null(), ptr::null_mut(), ptr::null(), nonce.as_ptr())
        };
        assert_eq!(ok, 1, "EVP_DecryptInit_ex (nonce)");
        let mut tag = *tag;
        // SAFETY: SET_TAG reads `arg` = 16 bytes from `ptr`, the 16-byte copy of the tag.
        let ok = unsafe { (self.lib.ctx_ctrl)(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag.as_mut_ptr().cast()) };
        assert_eq!(ok, 1, "EVP_CIPHER_CTX_ctrl(EVP_CTRL_AEAD_SET_TAG)");
        let mut written: c_int = 0;
        let aad_len = c_int::try_from(aad.len()).expect("the AAD fits an int");
        // SAFETY: a null output makes this call take `aad` (`aad_len` readable bytes) as
        // associated data; `written` is a valid int to write to.
        let ok =
            unsafe { (self.lib.decrypt_update)(ctx, ptr::null_mut(), &mut written, aad.as_ptr(), aad_len) };
        assert_eq!(ok, 1, "EVP_DecryptUpdate (AAD)");
        for chunk in buf.chunks_mut(1 << 30) {
            let len = c_int::try_from(chunk.len()).expect("chunks fit an int");
            let p = chunk.as_mut_ptr();
            // SAFETY: `p` points to `len` writable bytes, used as both input and output
            // (exact overlap, which EVP allows for this stream-based cipher); `written` is a
            // valid int to write to.
            let ok = unsafe { (self.lib.decrypt_update)(ctx, p, &mut written, p, len) };
            assert!(ok == 1 && written == len, "EVP_DecryptUpdate");
        }
        let mut end = [0u8; 16];
        // SAFETY: a live context; `end` has room for a block, more than this cipher writes.
        // The result is the tag check: 1 when it matched, 0 when not.
        let ok = unsafe { (self.lib.decrypt_final)(ctx, end.as_mut_ptr(), &mut written) };
        ok == 1
    }

    /// Encrypts `buf` in place under `nonce` with `aad` authenticated; returns the tag.
    /// The key stays (`EVP_EncryptInit_ex(ctx, NULL, NULL, NULL, nonce)`), as a program
    /// sealing many messages under one key does.
    pub fn seal(&mut self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> [u8; 16] {
        let ctx = self.ctx.as_ptr();
        // SAFETY: a live context with its cipher and key (null keeps both), no engine, and
        // the 12-byte nonce, the cipher's default IV length.
        let ok = unsafe {
            (self.lib.encrypt_init)(ctx, ptr::null(), ptr::null_mut(), ptr::null(), nonce.as_ptr())
        };
        assert_eq!(ok, 1, "EVP_EncryptInit_ex (nonce)");
        let mut written: c_int = 0;
        let aad_len = c_int::try_from(aad.len()).expect("the AAD fits an int");
        // SAFETY: a null output makes this call take `aad` (`aad_len` readable bytes) as
        // associated data; `written` is a valid int to write to.
        let ok =
            unsafe { (self.lib.encrypt_update)(ctx, ptr::null_mut(), &mut written, aad.as_ptr(), aad_len) };
        assert_eq!(ok, 1, "EVP_EncryptUpdate (AAD)");
        for chunk in buf.chunks_mut(1 << 30) {
            let len = c_int::try_from(chunk.len()).expect("chunks fit an int");
            let p = chunk.as_mut_ptr();
            // SAFETY: `p` points to `len` writable bytes, used as both input and output
            // (exact overlap, which EVP allows for this stream-based cipher); `written` is a
            // valid int to write to.
            let ok = unsafe { (self.lib.encrypt_update)(ctx, p, &mut written, p, len) };
            assert!(ok == 1 && written == len, "EVP_EncryptUpdate");
        }
        // ChaCha20-Poly1305 writes nothing at the end; the buffer is there for the contract.
        let mut end = [0u8; 16];
        // SAFETY: a live context; `end` has room for a block, more than this cipher writes.
        let ok = unsafe { (self.lib.encrypt_final)(ctx, end.as_mut_ptr(), &mut written) };
        assert!(ok == 1 && written == 0, "EVP_EncryptFinal_ex");
        let mut tag = [0u8; 16];
        // SAFETY: after the final call, GET_TAG copies `arg` = 16 bytes into `ptr`, the
        // 16-byte `tag`.
        let ok = unsafe { (self.lib.ctx_ctrl)(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag.as_mut_ptr().cast()) };
        assert_eq!(ok, 1, "EVP_CIPHER_CTX_ctrl(EVP_CTRL_AEAD_GET_TAG)");
        tag
    }
}

impl Drop for EvpAead {
    fn drop(&mut self) {
        // SAFETY: the context came from EVP_CIPHER_CTX_new and is freed once, here.
        unsafe { (self.lib.ctx_free)(self.ctx.as_ptr()) }
    }
}

/// An `EVP_MAC_CTX` of OpenSSL 3's Poly1305 (`EVP_MAC_fetch(NULL, "POLY1305", NULL)`),
/// keyed afresh for each message ([`EvpPoly1305::mac`]), as a one-time key is.
pub struct EvpPoly1305 {
    functions: &'static MacFunctions,
    ctx: NonNull<c_void>,
}

impl EvpPoly1305 {
    /// A new context, or why not (a libcrypto without `EVP_MAC`, or without Poly1305).
    ///
    /// # Errors
    /// The reason, for the report's list of skipped peers.
    pub fn new(lib: &'static Crypto) -> Result<EvpPoly1305, String> {
        let functions = lib.mac.as_ref().ok_or("this libcrypto has no EVP_MAC (OpenSSL 3)")?;
        // SAFETY: default library context (null), a NUL-terminated algorithm name, no
        // properties (null); returns a new reference to the MAC or null. The reference is
        // kept for the process's life (the context below refers to it).
        let mac = unsafe { (functions.fetch)(ptr::null_mut(), c"POLY1305".as_ptr(), ptr::null()) };
        if mac.is_null() {
            return Err("EVP_MAC_fetch(\"POLY1305\") found no Poly1305".into());
        }
        // SAFETY: a live MAC from EVP_MAC_fetch; returns a new context or null.
        let ctx = NonNull::new(unsafe { (functions.ctx_new)(mac) }).ok_or("EVP_MAC_CTX_new failed")?;
        Ok(EvpPoly1305 { functions, ctx })
    }

    /// The Poly1305 tag of `msg` under the one-time key `key`: `EVP_MAC_init` with the
    /// key, one `EVP_MAC_update`, `EVP_MAC_final`.
    pub fn mac(&mut self, key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        let ctx = self.ctx.as_ptr();
        // SAFETY: a live context; `key` has the 32 bytes given as its length; no parameters
        // (null).
        let ok = unsafe { (self.functions.init)(ctx, key.as_ptr(), key.len(), ptr::null()) };
        assert_eq!(ok, 1, "EVP_MAC_init");
        // SAFETY: `msg` has `msg.len()` readable bytes.
        let ok = unsafe { (self.functions.update)(ctx, msg.as_ptr(), msg.len()) };
        assert_eq!(ok, 1, "EVP_MAC_update");
        let mut tag = [0u8; 16];
        let mut written = 0usize;
        // SAFETY: `tag` has the 16 bytes given as `outsize`; `written` is a valid size_t.
        let ok = unsafe { (self.functions.finish)(ctx, tag.as_mut_ptr(), &mut written, tag.len()) };
        assert!(ok == 1 && written == 16, "EVP_MAC_final");
        tag
    }
}

impl Drop for EvpPoly1305 {
    fn drop(&mut self) {
        // SAFETY: the context came from EVP_MAC_CTX_new and is freed once, here.
        unsafe { (self.functions.ctx_free)(self.ctx.as_ptr()) }
    }
}

/// `int crypto_stream_*_xor_ic(unsigned char *c, const unsigned char *m,
/// unsigned long long mlen, const unsigned char *n, uint{32,64}_t ic, const unsigned char *k);`
type XorIc<Counter> = unsafe extern "C" fn(
    *mut c_uchar,
    *const c_uchar,
    c_ulonglong,
    *const c_uchar,
    Counter,
    *const c_uchar,
) -> c_int;

/// libsodium's ChaCha20 stream functions.
pub struct Sodium {
    _lib: Library,
    /// `1.0.18`.
    pub version: String,
    /// `crypto_stream_chacha20_ietf_xor_ic` (sodium/crypto_stream_chacha20.h).
    ietf: XorIc<u32>,
    /// `crypto_stream_chacha20_xor_ic`: the original layout, 8-byte nonce.
    original: XorIc<u64>,
    /// `crypto_stream_xchacha20_xor_ic` (sodium/crypto_stream_xchacha20.h).
    xchacha: XorIc<u64>,
    /// `int crypto_aead_chacha20poly1305_ietf_encrypt_detached(unsigned char *c,
    ///  unsigned char *mac, unsigned long long *maclen_p, const unsigned char *m,
    ///  unsigned long long mlen, const unsigned char *ad, unsigned long long adlen,
    ///  const unsigned char *nsec, const unsigned char *npub, const unsigned char *k);`
    /// (sodium/crypto_aead_chacha20poly1305.h)
    aead_ietf: unsafe extern "C" fn(
        *mut c_uchar,
        *mut c_uchar,
        *mut c_ulonglong,
        *const c_uchar,
        c_ulonglong,
        *const c_uchar,
        c_ulonglong,
        *const c_uchar,
        *const c_uchar,
        *const c_uchar,
    ) -> c_int,
    /// `crypto_aead_xchacha20poly1305_ietf_encrypt_detached`
    /// (sodium/crypto_aead_xchacha20poly1305.h): the declaration of `aead_ietf`, with a
    /// 24-byte `npub`.
    aead_xchacha: AeadSeal,
    /// `crypto_aead_chacha20poly1305_ietf_decrypt_detached`.
    aead_ietf_open: AeadOpen,
    /// `crypto_aead_xchacha20poly1305_ietf_decrypt_detached`.
    aead_xchacha_open: AeadOpen,
    /// `int crypto_onetimeauth_poly1305(unsigned char *out, const unsigned char *in,
    ///  unsigned long long inlen, const unsigned char *k);`
    /// (sodium/crypto_onetimeauth_poly1305.h)
    poly1305: unsafe extern "C" fn(*mut c_uchar, *const c_uchar, c_ulonglong, *const c_uchar) -> c_int,
    /// `int crypto_secretstream_xchacha20poly1305_init_push
    ///  (crypto_secretstream_xchacha20poly1305_state *state, unsigned char header[24],
    ///  const unsigned char k[32]);` (sodium/crypto_secretstream_xchacha20poly1305.h)
    stream_init_push: unsafe extern "C" fn(*mut SecretStreamState, *mut c_uchar, *const c_uchar) -> c_int,
    /// `int crypto_secretstream_xchacha20poly1305_init_pull(... *state,
    ///  const unsigned char header[24], const unsigned char k[32]);`
    stream_init_pull: unsafe extern "C" fn(*mut SecretStreamState, *const c_uchar, *const c_uchar) -> c_int,
    /// `int crypto_secretstream_xchacha20poly1305_push(... *state, unsigned char *c,
    ///  unsigned long long *clen_p, const unsigned char *m, unsigned long long mlen,
    ///  const unsigned char *ad, unsigned long long adlen, unsigned char tag);`
    stream_push: unsafe extern "C" fn(
        *mut SecretStreamState,
        *mut c_uchar,
        *mut c_ulonglong,
        *const c_uchar,
        c_ulonglong,
        *const c_uchar,
        c_ulonglong,
        c_uchar,
    ) -> c_int,
    /// `int crypto_secretstream_xchacha20poly1305_pull(... *state, unsigned char *m,
    ///  unsigned long long *mlen_p, unsigned char *tag_p, const unsigned char *c,
    ///  unsigned long long clen, const unsigned char *ad, unsigned long long adlen);`
    stream_pull: unsafe extern "C" fn(
        *mut SecretStreamState,
        *mut c_uchar,
        *mut c_ulonglong,
        *mut c_uchar,
        *const c_uchar,
        c_ulonglong,
        *const c_uchar,
        c_ulonglong,
    ) -> c_int,
    /// `void crypto_secretstream_xchacha20poly1305_rekey(... *state);`
    stream_rekey: unsafe extern "C" fn(*mut SecretStreamState),
}

/// `crypto_secretstream_xchacha20poly1305_state` (sodium/crypto_secretstream_xchacha20poly1305.h):
/// `unsigned char k[32]; unsigned char nonce[12]; unsigned char _pad[8];` — bytes only, so
/// alignment 1 and no padding between them. The nonce starts with the 32-bit
/// little-endian counter.
#[derive(Clone)]
#[repr(C)]
pub struct SecretStreamState {
    k: [u8; 32],
    nonce: [u8; 12],
    pad: [u8; 8],
}

/// The counter only: a test's key is no secret, but a printed state is noise.
impl std::fmt::Debug for SecretStreamState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretStreamState").field("counter", &self.counter()).finish_non_exhaustive()
    }
}

/// The version: the rest is function pointers.
impl std::fmt::Debug for Sodium {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sodium").field("version", &self.version).finish_non_exhaustive()
    }
}

impl SecretStreamState {
    fn zeroed() -> Self {
        SecretStreamState { k: [0; 32], nonce: [0; 12], pad: [0; 8] }
    }

    /// The chunk counter, which the next chunk uses (1 after `init_*`; 0 after it wraps).
    pub fn counter(&self) -> u32 {
        u32::from_le_bytes(self.nonce[..4].try_into().expect("4 bytes"))
    }

    /// The key and the nonce (the counter, then 8 bytes).
    pub fn key_and_nonce(&self) -> ([u8; 32], [u8; 12]) {
        (self.k, self.nonce)
    }

    /// Sets the chunk counter (libsodium has no call for it): the tests reach its wrap so.
    pub fn set_counter(&mut self, counter: u32) {
        self.nonce[..4].copy_from_slice(&counter.to_le_bytes());
    }
}

/// `int crypto_aead_*_encrypt_detached(unsigned char *c, unsigned char *mac,
/// unsigned long long *maclen_p, const unsigned char *m, unsigned long long mlen,
/// const unsigned char *ad, unsigned long long adlen, const unsigned char *nsec,
/// const unsigned char *npub, const unsigned char *k);`
type AeadSeal = unsafe extern "C" fn(
    *mut c_uchar,
    *mut c_uchar,
    *mut c_ulonglong,
    *const c_uchar,
    c_ulonglong,
    *const c_uchar,
    c_ulonglong,
    *const c_uchar,
    *const c_uchar,
    *const c_uchar,
) -> c_int;

/// `int crypto_aead_*_decrypt_detached(unsigned char *m, unsigned char *nsec,
/// const unsigned char *c, unsigned long long clen, const unsigned char *mac,
/// const unsigned char *ad, unsigned long long adlen, const unsigned char *npub,
/// const unsigned char *k);` (0 when the tag matched; -1 when not, with `m` zeroed)
type AeadOpen = unsafe extern "C" fn(
    *mut c_uchar,
    *mut c_uchar,
    *const c_uchar,
    c_ulonglong,
    *const c_uchar,
    *const c_uchar,
    c_ulonglong,
    *const c_uchar,
    *const c_uchar,
) -> c_int;

impl Sodium {
    fn load() -> Result<Sodium, String> {
        let lib = open(
            &["libsodium.so.23", "libsodium.so.26", "libsodium.so", "libsodium.dylib"],
            "libsodium (Debian: libsodium23)",
        )?;
        // SAFETY: `int sodium_init(void);` (sodium/core.h).
        let init: unsafe extern "C" fn() -> c_int = unsafe { function(&lib, "sodium_init")? };
        // SAFETY: sodium_init may be called any number of times, from any thread.
        if unsafe { init() } < 0 {
            return Err("sodium_init failed".into());
        }
        // SAFETY: `const char *sodium_version_string(void);` (sodium/version.h).
        let version_fn: unsafe extern "C" fn() -> *const c_char =
            unsafe { function(&lib, "sodium_version_string")? };
        // SAFETY: takes nothing; returns a static string.
        let version = version_text(unsafe { version_fn() });
        Ok(Sodium {
            version,
            // SAFETY: the type is the header's declaration quoted on `XorIc` (uint32_t ic).
            ietf: unsafe { function(&lib, "crypto_stream_chacha20_ietf_xor_ic")? },
            // SAFETY: as above, with uint64_t ic.
            original: unsafe { function(&lib, "crypto_stream_chacha20_xor_ic")? },
            // SAFETY: as above, with uint64_t ic.
            xchacha: unsafe { function(&lib, "crypto_stream_xchacha20_xor_ic")? },
            // SAFETY: the type is the header's declaration quoted on the field.
            aead_ietf: unsafe { function(&lib, "crypto_aead_chacha20poly1305_ietf_encrypt_detached")? },
            // SAFETY: the type is the header's declaration quoted on `AeadSeal`.
            aead_xchacha: unsafe { function(&lib, "crypto_aead_xchacha20poly1305_ietf_encrypt_detached")? },
            // SAFETY: the type is the header's declaration quoted on `AeadOpen`.
            aead_ietf_open: unsafe { function(&lib, "crypto_aead_chacha20poly1305_ietf_decrypt_detached")? },
            // SAFETY: as above.
            aead_xchacha_open: unsafe {
                function(&lib, "crypto_aead_xchacha20poly1305_ietf_decrypt_detached")?
            },
            // SAFETY: the type is the header's declaration quoted on the field.
            poly1305: unsafe { function(&lib, "crypto_onetimeauth_poly1305")? },
            // SAFETY: each type is the header's declaration quoted on its field.
            stream_init_push: unsafe { function(&lib, "crypto_secretstream_xchacha20poly1305_init_push")? },
            // SAFETY: as above.
            stream_init_pull: unsafe { function(&lib, "crypto_secretstream_xchacha20poly1305_init_pull")? },
            // SAFETY: as above.
            stream_push: unsafe { function(&lib, "crypto_secretstream_xchacha20poly1305_push")? },
            // SAFETY: as above.
            stream_pull: unsafe { function(&lib, "crypto_secretstream_xchacha20poly1305_pull")? },
            // SAFETY: as above.
            stream_rekey: unsafe { function(&lib, "crypto_secretstream_xchacha20poly1305_rekey")? },
            _lib: lib,
        })
    }

    /// RFC 8439 ChaCha20 from block `counter`, XORed into `buf` in place.
    pub fn chacha20_ietf_xor_ic(&self, buf: &mut [u8], nonce: &[u8; 12], counter: u32, key: &[u8; 32]) {
        let p = buf.as_mut_ptr();
        // SAFETY: `p` points to `buf.len()` writable bytes, used as input and output
        // (libsodium allows c == m); nonce and key have the 12 and 32 bytes it reads.
        let rc =
            unsafe { (self.ietf)(p, p, buf.len() as c_ulonglong, nonce.as_ptr(), counter, key.as_ptr()) };
        assert_eq!(rc, 0, "crypto_stream_chacha20_ietf_xor_ic");
    }

    /// ChaCha20 in the original layout (8-byte nonce, 64-bit counter) from block `counter`.
    pub fn chacha20_xor_ic(&self, buf: &mut [u8], nonce: &[u8; 8], counter: u64, key: &[u8; 32]) {
        let p = buf.as_mut_ptr();
        // SAFETY: as in `chacha20_ietf_xor_ic`, with the 8-byte nonce this function reads.
        let rc =
            unsafe { (self.original)(p, p, buf.len() as c_ulonglong, nonce.as_ptr(), counter, key.as_ptr()) };
        assert_eq!(rc, 0, "crypto_stream_chacha20_xor_ic");
    }

    /// XChaCha20 (24-byte nonce) from block `counter`.
    pub fn xchacha20_xor_ic(&self, buf: &mut [u8], nonce: &[u8; 24], counter: u64, key: &[u8; 32]) {
        let p = buf.as_mut_ptr();
        // SAFETY: as in `chacha20_ietf_xor_ic`, with the 24-byte nonce this function reads.
        let rc =
            unsafe { (self.xchacha)(p, p, buf.len() as c_ulonglong, nonce.as_ptr(), counter, key.as_ptr()) };
        assert_eq!(rc, 0, "crypto_stream_xchacha20_xor_ic");
    }

    /// ChaCha20-Poly1305 (RFC 8439, libsodium's `_ietf`): encrypts `buf` in place under
    /// `nonce` and `key` with `aad` authenticated; returns the tag.
    pub fn aead_ietf_seal(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8], key: &[u8; 32]) -> [u8; 16] {
        let mut tag = [0u8; 16];
        let mut tag_len: c_ulonglong = 0;
        let p = buf.as_mut_ptr();
        // SAFETY: `p` points to `buf.len()` writable bytes, used as input and output
        // (libsodium allows c == m); `tag` has the 16 bytes it writes and `tag_len` is a
        // valid integer to write to; `aad` has `aad.len()` readable bytes; nsec is unused
        // (null); nonce and key have the 12 and 32 bytes it reads.
        let rc = unsafe {
            (self.aead_ietf)(
                p,
                tag.as_mut_ptr(),
                &mut tag_len,
                p,
                buf.len() as c_ulonglong,
                aad.as_ptr(),
                aad.len() as c_ulonglong,
                ptr::null(),
                nonce.as_ptr(),
                key.as_ptr(),
            )
        };
        assert!(rc == 0 && tag_len == 16, "crypto_aead_chacha20poly1305_ietf_encrypt_detached");
        tag
    }

    /// XChaCha20-Poly1305 (libsodium's `_xchacha20poly1305_ietf`): as
    /// [`Sodium::aead_ietf_seal`] with a 24-byte nonce.
    pub fn aead_xchacha_seal(
        &self,
        nonce: &[u8; 24],
        aad: &[u8],
        buf: &mut [u8],
        key: &[u8; 32],
    ) -> [u8; 16] {
        let mut tag = [0u8; 16];
        let mut tag_len: c_ulonglong = 0;
        let p = buf.as_mut_ptr();
        // SAFETY: as in `aead_ietf_seal`, with the 24-byte nonce this function reads.
        let rc = unsafe {
            (self.aead_xchacha)(
                p,
                tag.as_mut_ptr(),
                &mut tag_len,
                p,
                buf.len() as c_ulonglong,
                aad.as_ptr(),
                aad.len() as c_ulonglong,
                ptr::null(),
                nonce.as_ptr(),
                key.as_ptr(),
            )
        };
        assert!(rc == 0 && tag_len == 16, "crypto_aead_xchacha20poly1305_ietf_encrypt_detached");
        tag
    }

    /// Opens `buf` in place (`_ietf_decrypt_detached`: the nonce is 12 bytes for
    /// ChaCha20-Poly1305, 24 for XChaCha20-Poly1305); whether `tag` matched (if not,
    /// libsodium zeroes `buf`).
    pub fn aead_open(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8; 16],
        key: &[u8; 32],
    ) -> bool {
        let open = match nonce.len() {
            12 => self.aead_ietf_open,
            24 => self.aead_xchacha_open,
            n => panic!("a {n}-byte nonce is neither ChaCha20-Poly1305's nor XChaCha20-Poly1305's"),
        };
        let p = buf.as_mut_ptr();
        // SAFETY: `p` points to `buf.len()` bytes, read as the ciphertext and written as the
        // plaintext (libsodium allows m == c); nsec is unused (null); `tag` has the 16 bytes
        // it reads, `aad` `aad.len()`; the nonce has the length of the function picked for
        // it (checked above), the key 32 bytes.
        let rc = unsafe {
            open(
                p,
                ptr::null_mut(),
                p,
                buf.len() as c_ulonglong,
                tag.as_ptr(),
                aad.as_ptr(),
                aad.len() as c_ulonglong,
                nonce.as_ptr(),
                key.as_ptr(),
            )
        };
        rc == 0
    }

    /// The Poly1305 tag of `msg` under the one-time key `key` (`crypto_onetimeauth_poly1305`).
    pub fn poly1305(&self, key: &[u8; 32], msg: &[u8]) -> [u8; 16] {
        let mut tag = [0u8; 16];
        // SAFETY: `tag` has the 16 bytes it writes, `msg` `msg.len()` readable bytes, the
        // key 32.
        let rc = unsafe {
            (self.poly1305)(tag.as_mut_ptr(), msg.as_ptr(), msg.len() as c_ulonglong, key.as_ptr())
        };
        assert_eq!(rc, 0, "crypto_onetimeauth_poly1305");
        tag
    }

    /// `crypto_secretstream_xchacha20poly1305_init_push`: a stream under `key` and the
    /// random header libsodium drew for it.
    pub fn secretstream_init_push(&self, key: &[u8; 32]) -> (SecretStreamState, [u8; 24]) {
        let mut state = SecretStreamState::zeroed();
        let mut header = [0u8; 24];
        // SAFETY: `state` is the C struct (repr(C), the header's fields), `header` has the
        // 24 bytes it writes, the key the 32 it reads.
        let rc = unsafe { (self.stream_init_push)(&mut state, header.as_mut_ptr(), key.as_ptr()) };
        assert_eq!(rc, 0, "crypto_secretstream_xchacha20poly1305_init_push");
        (state, header)
    }

    /// `crypto_secretstream_xchacha20poly1305_init_pull`.
    pub fn secretstream_init_pull(&self, key: &[u8; 32], header: &[u8; 24]) -> SecretStreamState {
        let mut state = SecretStreamState::zeroed();
        // SAFETY: as in `secretstream_init_push`; the header is read, 24 bytes.
        let rc = unsafe { (self.stream_init_pull)(&mut state, header.as_ptr(), key.as_ptr()) };
        assert_eq!(rc, 0, "crypto_secretstream_xchacha20poly1305_init_pull");
        state
    }

    /// `crypto_secretstream_xchacha20poly1305_push` of `msg` into `chunk`, which must be
    /// `msg.len() + 17` bytes.
    pub fn secretstream_push(
        &self,
        state: &mut SecretStreamState,
        chunk: &mut [u8],
        msg: &[u8],
        aad: &[u8],
        tag: u8,
    ) {
        assert_eq!(chunk.len(), msg.len() + 17, "a chunk is the message and 17 bytes");
        let mut len: c_ulonglong = 0;
        // SAFETY: `chunk` has the `msg.len() + 17` writable bytes push writes (checked
        // above) and does not overlap `msg` (a `&mut` and a `&`); `msg` and `aad` have
        // their lengths of readable bytes; `len` is a valid integer to write to.
        let rc = unsafe {
            (self.stream_push)(
                state,
                chunk.as_mut_ptr(),
                &mut len,
                msg.as_ptr(),
                msg.len() as c_ulonglong,
                aad.as_ptr(),
                aad.len() as c_ulonglong,
                tag,
            )
        };
        assert!(rc == 0 && len as usize == chunk.len(), "crypto_secretstream_xchacha20poly1305_push");
    }

    /// `crypto_secretstream_xchacha20poly1305_push` in place: `chunk` holds the message at
    /// `chunk[1..len − 16]` and becomes the chunk.
    pub fn secretstream_push_in_place(
        &self,
        state: &mut SecretStreamState,
        chunk: &mut [u8],
        aad: &[u8],
        tag: u8,
    ) {
        let mlen = chunk.len().checked_sub(17).expect("a chunk is the message and 17 bytes");
        let c = chunk.as_mut_ptr();
        let mut len: c_ulonglong = 0;
        // SAFETY: `c` points to `mlen + 17` writable bytes. libsodium writes the tag byte to
        // c[0] first, then encrypts m = c + 1 into c + 1 (its ChaCha20 allows c == m),
        // authenticates that ciphertext and writes the MAC after it: the message is read
        // only where it is then overwritten by its own ciphertext. `aad` has `aad.len()`
        // readable bytes; `len` is a valid integer to write to.
        let rc = unsafe {
            (self.stream_push)(
                state,
                c,
                &mut len,
                c.wrapping_add(1),
                mlen as c_ulonglong,
                aad.as_ptr(),
                aad.len() as c_ulonglong,
                tag,
            )
        };
        assert!(rc == 0 && len as usize == chunk.len(), "crypto_secretstream_xchacha20poly1305_push");
    }

    /// `crypto_secretstream_xchacha20poly1305_pull` of `chunk` into `msg` (`chunk.len() −
    /// 17` bytes): the tag, or `None` if libsodium refused the chunk.
    pub fn secretstream_pull(
        &self,
        state: &mut SecretStreamState,
        msg: &mut [u8],
        chunk: &[u8],
        aad: &[u8],
    ) -> Option<u8> {
        assert_eq!(msg.len() + 17, chunk.len(), "a chunk is the message and 17 bytes");
        let mut len: c_ulonglong = 0;
        let mut tag: c_uchar = 0;
        // SAFETY: `msg` has the `chunk.len() − 17` writable bytes pull writes (checked
        // above) and does not overlap `chunk`; `chunk` and `aad` have their lengths of
        // readable bytes; `len` and `tag` are valid to write to.
        let rc = unsafe {
            (self.stream_pull)(
                state,
                msg.as_mut_ptr(),
                &mut len,
                &mut tag,
                chunk.as_ptr(),
                chunk.len() as c_ulonglong,
                aad.as_ptr(),
                aad.len() as c_ulonglong,
            )
        };
        (rc == 0).then(|| {
            assert_eq!(len as usize, msg.len(), "crypto_secretstream_xchacha20poly1305_pull");
            tag
        })
    }

    /// `crypto_secretstream_xchacha20poly1305_rekey`.
    pub fn secretstream_rekey(&self, state: &mut SecretStreamState) {
        // SAFETY: `state` is the C struct, initialised by `init_push` or `init_pull`.
        unsafe { (self.stream_rekey)(state) };
    }
}

/// libsodium, loaded on first use; the error says why it is not there.
pub fn sodium() -> Result<&'static Sodium, &'static str> {
    static SODIUM: OnceLock<Result<Sodium, String>> = OnceLock::new();
    SODIUM.get_or_init(Sodium::load).as_ref().map_err(String::as_str)
}

/// Pins this process's calling thread and the processes `others` (by pid) to the CPU the
/// calling thread runs on now; returns that CPU. Threads and processes started afterwards
/// inherit the mask.
#[cfg(target_os = "linux")]
pub fn pin_to_current_cpu(others: &[u32]) -> Result<usize, String> {
    // SAFETY: `int sched_getcpu(void);` (sched.h) has no preconditions.
    let cpu = unsafe { libc::sched_getcpu() };
    let cpu =
        usize::try_from(cpu).map_err(|_| format!("sched_getcpu: {}", std::io::Error::last_os_error()))?;
    // `cpu_set_t` is a fixed bit array; CPU_SET would index past it for a larger number.
    if cpu >= libc::CPU_SETSIZE as usize {
        return Err(format!("CPU {cpu} is beyond CPU_SETSIZE"));
    }
    // SAFETY: `cpu_set_t` is plain data (an array of integers); all zeros is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `cpu < CPU_SETSIZE` (checked above), so the bit lies inside `set`.
    unsafe { libc::CPU_SET(cpu, &mut set) };
    for pid in others.iter().map(|&p| libc::pid_t::try_from(p).map_err(|_| format!("pid {p}"))).chain([Ok(0)])
    {
        let pid = pid?;
        // SAFETY: `int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t
        // *mask);` pid 0 is the calling thread, another a process of ours; the size and
        // pointer are those of `set`, which lives across the call.
        let rc = unsafe { libc::sched_setaffinity(pid, size_of::<libc::cpu_set_t>(), &set) };
        if rc != 0 {
            return Err(format!("sched_setaffinity({pid}): {}", std::io::Error::last_os_error()));
        }
    }
    Ok(cpu)
}

/// Not on this OS: the report runs unpinned and says so.
#[cfg(not(target_os = "linux"))]
pub fn pin_to_current_cpu(_others: &[u32]) -> Result<usize, String> {
    Err("pinning to a CPU is only implemented for Linux".into())
}
