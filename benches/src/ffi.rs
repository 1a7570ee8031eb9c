//! The only `unsafe` of this package: OpenSSL's `libcrypto` (EVP ChaCha20 and
//! ChaCha20-Poly1305) and libsodium (`crypto_stream_*_xor_ic`,
//! `crypto_aead_chacha20poly1305_ietf_encrypt_detached`), loaded at run time with
//! `libloading`, behind a safe API; and, on Linux, pinning the process to one CPU
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

/// An `EVP_CIPHER_CTX` set up for ChaCha20-Poly1305 (RFC 8439) encryption under one key;
/// each message gives its 12-byte nonce ([`EvpAead::seal`]).
pub struct EvpAead {
    lib: &'static Crypto,
    ctx: NonNull<c_void>,
}

impl EvpAead {
    /// A new context keyed with `key`.
    ///
    /// # Panics
    /// If OpenSSL cannot allocate or initialise the context.
    pub fn new(lib: &'static Crypto, key: &[u8; 32]) -> EvpAead {
        // SAFETY: EVP_CIPHER_CTX_new takes nothing and returns a new context or null.
        let ctx = NonNull::new(unsafe { (lib.ctx_new)() }).expect("EVP_CIPHER_CTX_new");
        // SAFETY: EVP_chacha20_poly1305 takes nothing and returns a static cipher description.
        let cipher = unsafe { (lib.chacha20_poly1305)() };
        let evp = EvpAead { lib, ctx };
        // SAFETY: a live context, a valid cipher, no engine, the 32-byte key it reads, and no
        // IV yet (null: each message sets its nonce).
        let ok = unsafe {
            (lib.encrypt_init)(evp.ctx.as_ptr(), cipher, ptr::null_mut(), key.as_ptr(), ptr::null())
        };
        assert_eq!(ok, 1, "EVP_EncryptInit_ex");
        evp
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
}

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
