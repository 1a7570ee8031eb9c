//! The report's command line. Hand-parsed (a dozen options need no parser crate); every
//! unknown option or value is an error that lists what is known.

use std::path::PathBuf;

use chacha_bench::{
    AEAD_SIZES, Backend, FRESH_SIZES, MAC_SIZES, PAR_SIZES, Peer, Point, RNG_SIZES, SIZES, Workload,
    parse_size,
};

/// What to measure and where to write it.
#[derive(Debug)]
pub struct Options {
    /// `--worker`: serve measurements to the report over stdin/stdout (see `worker`).
    pub worker: bool,
    pub quick: bool,
    /// `--sizes`; `None` for the defaults ([`SIZES`], [`FRESH_SIZES`] for `-new`,
    /// [`RNG_SIZES`], [`AEAD_SIZES`]).
    pub sizes: Option<Vec<usize>>,
    pub workloads: Vec<Workload>,
    pub backends: Vec<Backend>,
    pub peers: Vec<Peer>,
    pub out: PathBuf,
    pub rounds: usize,
    /// Measuring time to aim for, spread over all batches.
    pub seconds: f64,
}

impl Options {
    /// The points to measure `workload` at: message sizes, and for an RNG `next_u32` and
    /// `next_u64` first, then `fill_bytes` at each size; for an RNG set up per work item,
    /// the seed and the seek (no sizes).
    pub fn points_for(&self, workload: Workload) -> Vec<Point> {
        let sizes = match (&self.sizes, self.quick, workload) {
            (_, _, Workload::RngSetup(_)) => Vec::new(),
            (Some(sizes), _, _) => sizes.clone(),
            (None, false, Workload::Cipher { fresh: false, .. }) => SIZES.to_vec(),
            (None, false, Workload::Cipher { fresh: true, .. }) => FRESH_SIZES.to_vec(),
            (None, false, Workload::Rng(_)) => RNG_SIZES.to_vec(),
            (None, true, Workload::Cipher { fresh: false, .. }) => vec![64, 1024, 16 * 1024],
            (None, true, Workload::Cipher { fresh: true, .. }) => vec![64, 1024],
            (None, true, Workload::Rng(_)) => vec![1024, 64 * 1024],
            (None, false, Workload::Aead { .. }) => AEAD_SIZES.to_vec(),
            (None, true, Workload::Aead { .. }) => vec![64, 16 * 1024],
            (None, false, Workload::Poly1305) => MAC_SIZES.to_vec(),
            (None, true, Workload::Poly1305) => vec![64, 16 * 1024],
            (None, false, Workload::ParCipher(_) | Workload::ParRng(_)) => PAR_SIZES.to_vec(),
            (None, false, Workload::Chunked(_)) => vec![64 * 1024, 1024 * 1024],
            (None, true, Workload::Chunked(_)) => vec![1024 * 1024],
            (None, true, Workload::ParCipher(_) | Workload::ParRng(_)) => vec![64 * 1024, 1024 * 1024],
        };
        let mut points = match workload {
            Workload::Rng(_) => vec![Point::NextU32, Point::NextU64],
            Workload::RngSetup(_) => vec![Point::SeedU32, Point::SeekU32],
            Workload::Cipher { .. }
            | Workload::Aead { .. }
            | Workload::Poly1305
            | Workload::Chunked(_)
            | Workload::ParCipher(_)
            | Workload::ParRng(_) => Vec::new(),
        };
        points.extend(sizes.into_iter().map(Point::Bytes));
        points
    }
}

pub const HELP: &str = "\
chacha-bench: every chacha backend against the peers, side by side

USAGE: cargo run --release -p chacha-bench -- [OPTIONS]

OPTIONS:
  --quick             a few seconds: 3 sizes, 7 rounds (the CI smoke test)
  --sizes LIST        message sizes, e.g. 16,64,100,256,1K,16K,1M (suffixes B, K/KiB, M/MiB)
  --variants LIST     chacha20, chacha12, chacha8, xchacha20, chacha20-legacy, each also as
                      NAME-new (a new instance per message); the RNGs chacha20-rng,
                      chacha12-rng, chacha8-rng (next_u32, next_u64, then fill_bytes at
                      each size), each also as NAME-setup (seed_from_u64 + next_u32, and
                      set_word_pos + next_u32; --sizes does not apply); chacha20poly1305
                      and xchacha20poly1305 (sealing with a new nonce per message), each
                      also as NAME-open (opening an authentic message in place); poly1305
                      (a one-shot MAC per message); secretstream-push, secretstream-pull
                      and stream-be32 (a stream in 64 KiB chunks: libsodium's
                      secretstream, and aead-stream's STREAM over ChaCha20Poly1305)
                      [sizes: 64K,1M]; chacha20-par, chacha8-par
                      (par_apply_keystream on rayon's global pool beside apply_keystream
                      and OpenSSL), chacha20-rng-par, chacha8-rng-par (par_fill_bytes
                      beside fill_bytes), all four as `parallel` [sizes: 64K,1M,16M]; or
                      `all`
                      [default: the five variants, chacha20-new, xchacha20-new, the RNGs and
                      their -setup, the four AEAD workloads, poly1305, the three chunked]
  --backends LIST     backends of ours, as Backend::name() spells them, or `none`; the rows
                      `ours` (the constructors users call: new(), from_seed, seed_from_u64)
                      come with any backend [default: every backend this CPU runs]
  --peers LIST        chacha20 (the published crate), chacha20-avx512 (its --cfg
                      chacha20_avx512 build, a second binary the report builds), c2-chacha,
                      openssl, openssl-avx2 (OpenSSL with AVX-512 masked, in a second
                      process), libsodium, rand_chacha, chacha20poly1305 (0.11, over the
                      published chacha20), chacha20poly1305-patched (over our chacha20
                      and poly1305, a second binary the report builds in benches/patched),
                      ring, poly1305 (the published RustCrypto crate), or `none`; a peer
                      whose library is missing is skipped with the reason [default: all]
  --out DIR           where report.md, report.csv and the SVG plots go
                      [default: target/chacha-report/]
  --rounds N          interleaved rounds per size; the median is reported [default: 31, quick: 7]
  --seconds S         measuring time to spread over all batches [default: 30, quick: 2]
  --worker            (internal) serve measurements to a parent report on stdin/stdout
  -h, --help          this text
";

fn list(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim).filter(|s| !s.is_empty())
}

fn parse_backends(value: &str) -> Result<Vec<Backend>, String> {
    let available: Vec<&str> = Backend::available().map(Backend::name).collect();
    if value.trim() == "none" {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for name in list(value) {
        match Backend::by_name(name) {
            Some(b) if !out.contains(&b) => out.push(b),
            Some(_) => {}
            None if Backend::COMPILED.contains(&name) => {
                return Err(format!(
                    "--backends: this CPU cannot run `{name}`; it runs: {}",
                    available.join(", ")
                ));
            }
            None => {
                return Err(format!(
                    "--backends: unknown backend `{name}`; this build has: {} (this CPU runs: {})",
                    Backend::COMPILED.join(", "),
                    available.join(", ")
                ));
            }
        }
    }
    Ok(out)
}

fn parse_peers(value: &str) -> Result<Vec<Peer>, String> {
    if value.trim() == "none" {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for id in list(value) {
        match Peer::by_id(id) {
            Some(p) if !out.contains(&p) => out.push(p),
            Some(_) => {}
            None => {
                return Err(format!(
                    "--peers: unknown peer `{id}`; known: {}",
                    Peer::ALL.iter().map(|p| p.id()).collect::<Vec<_>>().join(", ")
                ));
            }
        }
    }
    Ok(out)
}

fn parse_workloads(value: &str) -> Result<Vec<Workload>, String> {
    if value.trim() == "all" {
        return Ok(Workload::all());
    }
    let mut out = Vec::new();
    for id in list(value) {
        if id == "parallel" {
            out.extend(Workload::parallel().into_iter().filter(|w| !out.contains(w)).collect::<Vec<_>>());
            continue;
        }
        let Some(w) = Workload::by_id(id) else {
            return Err(format!(
                "--variants: unknown variant `{id}`; known: {}, parallel, or all",
                Workload::all().into_iter().map(Workload::id).collect::<Vec<_>>().join(", ")
            ));
        };
        if !out.contains(&w) {
            out.push(w);
        }
    }
    if out.is_empty() {
        return Err("--variants: the list is empty".into());
    }
    Ok(out)
}

fn parse_number<T: std::str::FromStr>(option: &str, value: &str) -> Result<T, String> {
    value.trim().parse().map_err(|_| format!("{option}: `{value}` is not a number"))
}

/// Parses the arguments after the program name. `Ok(None)` means `--help` was printed.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    default_out: PathBuf,
) -> Result<Option<Options>, String> {
    let mut args = args.into_iter();
    let mut quick = false;
    let mut worker = false;
    let mut sizes = None;
    let mut workloads = None;
    let mut backends = None;
    let mut peers = None;
    let mut out = None;
    let mut rounds = None;
    let mut seconds = None;
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || -> Result<String, String> {
            inline.clone().or_else(|| args.next()).ok_or_else(|| format!("{name} needs a value"))
        };
        match name.as_str() {
            "-h" | "--help" => {
                print!("{HELP}");
                return Ok(None);
            }
            "--quick" => quick = true,
            "--worker" => worker = true,
            "--sizes" => {
                let v = value()?;
                let mut list: Vec<usize> = list(&v)
                    .map(parse_size)
                    .collect::<Result<_, _>>()
                    .map_err(|e| format!("--sizes: {e}"))?;
                list.sort_unstable();
                list.dedup();
                if list.is_empty() {
                    return Err("--sizes: the list is empty".into());
                }
                sizes = Some(list);
            }
            "--variants" => workloads = Some(parse_workloads(&value()?)?),
            "--backends" => backends = Some(parse_backends(&value()?)?),
            "--peers" => peers = Some(parse_peers(&value()?)?),
            "--out" => out = Some(PathBuf::from(value()?)),
            "--rounds" => {
                let n: usize = parse_number("--rounds", &value()?)?;
                if n == 0 {
                    return Err("--rounds: at least 1".into());
                }
                rounds = Some(n);
            }
            "--seconds" => {
                let s: f64 = parse_number("--seconds", &value()?)?;
                if !(s > 0.0 && s <= 3600.0) {
                    return Err("--seconds: between 0 and 3600".into());
                }
                seconds = Some(s);
            }
            other => return Err(format!("unknown option `{other}`")),
        }
    }
    // A worker runs only the peers it is given.
    let backends =
        backends.unwrap_or_else(|| if worker { Vec::new() } else { Backend::available().collect() });
    let peers = peers.unwrap_or_else(|| Peer::ALL.to_vec());
    if backends.is_empty() && peers.is_empty() && !worker {
        return Err("nothing to measure: --backends none and --peers none".into());
    }
    Ok(Some(Options {
        worker,
        quick,
        sizes,
        workloads: workloads.unwrap_or_else(Workload::default_set),
        backends,
        peers,
        out: out.unwrap_or(default_out),
        rounds: rounds.unwrap_or(if quick { 7 } else { 31 }),
        seconds: seconds.unwrap_or(if quick { 2.0 } else { 30.0 }),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_args(args: &[&str]) -> Result<Option<Options>, String> {
        parse(args.iter().map(|s| s.to_string()), PathBuf::from("out"))
    }

    #[test]
    fn defaults_and_values() {
        let o = parse_args(&[]).unwrap().unwrap();
        assert_eq!(o.workloads.len(), 21);
        assert_eq!(o.backends, Backend::available().collect::<Vec<_>>());
        assert_eq!(o.peers, Peer::ALL);
        assert_eq!(o.points_for(o.workloads[0]), SIZES.iter().map(|&s| Point::Bytes(s)).collect::<Vec<_>>());
        let rng = o.points_for(Workload::Rng(chacha_bench::RngVariant::ChaCha8));
        assert_eq!(rng[..2], [Point::NextU32, Point::NextU64]);
        assert_eq!(rng.len(), 2 + RNG_SIZES.len());
        let o = parse_args(&[
            "--quick",
            "--sizes=1K,16",
            "--variants",
            "chacha8,xchacha20-new,chacha12-rng",
            "--peers",
            "none",
        ])
        .unwrap()
        .unwrap();
        assert_eq!(o.sizes, Some(vec![16, 1024]));
        assert_eq!(
            o.workloads[1],
            Workload::Cipher { variant: chacha_bench::Algorithm::XChaCha20, fresh: true }
        );
        assert_eq!(o.workloads[2], Workload::Rng(chacha_bench::RngVariant::ChaCha12));
        assert_eq!(
            o.points_for(o.workloads[2]),
            [Point::NextU32, Point::NextU64, Point::Bytes(16), Point::Bytes(1024)]
        );
        assert!(o.peers.is_empty());
        assert_eq!(o.rounds, 7);
        assert_eq!(parse_args(&["--variants", "all"]).unwrap().unwrap().workloads.len(), 28);
        let par = parse_args(&["--variants", "parallel,chacha8-par"]).unwrap().unwrap();
        assert_eq!(par.workloads, Workload::parallel());
        assert_eq!(
            par.points_for(par.workloads[2]),
            PAR_SIZES.iter().map(|&s| Point::Bytes(s)).collect::<Vec<_>>()
        );
        let setup = parse_args(&["--variants", "chacha8-rng-setup", "--sizes", "1K"]).unwrap().unwrap();
        assert_eq!(setup.points_for(setup.workloads[0]), [Point::SeedU32, Point::SeekU32]);
        let aead =
            parse_args(&["--variants", "chacha20poly1305,xchacha20poly1305-open,poly1305"]).unwrap().unwrap();
        assert_eq!(
            aead.points_for(aead.workloads[0]),
            AEAD_SIZES.iter().map(|&s| Point::Bytes(s)).collect::<Vec<_>>()
        );
        assert_eq!(
            aead.workloads[1],
            Workload::Aead { algorithm: chacha_bench::AeadAlgorithm::XChaCha20Poly1305, open: true }
        );
        assert_eq!(
            aead.points_for(aead.workloads[2]),
            MAC_SIZES.iter().map(|&s| Point::Bytes(s)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn unknown_values_are_clear_errors() {
        let err = |args: &[&str]| parse_args(args).unwrap_err();
        assert!(err(&["--variants", "chacha21"]).contains("unknown variant `chacha21`"));
        assert!(err(&["--backends", "avx9"]).contains("unknown backend `avx9`"));
        assert!(err(&["--peers", "boringssl"]).contains("unknown peer `boringssl`"));
        assert!(err(&["--sizes", "12X"]).contains("`12X` is not a size"));
        assert!(err(&["--frobnicate"]).contains("unknown option `--frobnicate`"));
        assert!(err(&["--out"]).contains("--out needs a value"));
        assert!(err(&["--rounds", "0"]).contains("at least 1"));
    }
}
