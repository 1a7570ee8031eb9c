//! The parent's side of the worker processes (see `worker` for the protocol): starting
//! them (building the second binaries first: the published crate's AVX-512 build, and the
//! `benches/patched/` project's, whose `chacha20poly1305` runs on our `chacha20`), the
//! same-bytes check through them, and [`Remote`], an entrant whose batches run in a worker.

use std::cell::RefCell;
use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use chacha_bench::{OPENSSL_AVX2_CAP, Peer, Point, Workload};

use crate::measure::Entrant;

/// A worker process running one peer.
pub struct WorkerProcess {
    /// The peer as the parent names it (`openssl-avx2`, `chacha20-avx512`).
    pub peer: Peer,
    child: Child,
    /// `None` once dropped: end of input ends the worker.
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_slot: u64,
}

impl WorkerProcess {
    fn start(peer: Peer, mut command: Command) -> Result<WorkerProcess, String> {
        command
            .arg("--worker")
            .arg("--peers")
            .arg(peer.base().id())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child =
            command.spawn().map_err(|e| format!("cannot start {:?}: {e}", command.get_program()))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        let mut worker = WorkerProcess { peer, child, stdin: Some(stdin), stdout, next_slot: 0 };
        let hello = worker.request("hello")?;
        let says = |word: &str| hello.iter().any(|w| w == word);
        if peer == Peer::PublishedAvx512 && !says("avx512_cfg=true") {
            return Err("the second binary was built without --cfg chacha20_avx512".into());
        }
        if peer == Peer::ChaCha20Poly1305Patched && !says("aead_on_ours=true") {
            return Err("in the patched binary, chacha20poly1305 does not run on our chacha20".into());
        }
        Ok(worker)
    }

    /// The worker process's id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// One request, one reply: the reply's words after `ok`.
    pub fn request(&mut self, line: &str) -> Result<Vec<String>, String> {
        let who = self.peer.id();
        let stdin = self.stdin.as_mut().ok_or_else(|| format!("worker {who}: closed"))?;
        writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .map_err(|e| format!("worker {who}: sending `{line}`: {e}"))?;
        let mut reply = String::new();
        let n =
            self.stdout.read_line(&mut reply).map_err(|e| format!("worker {who}: reading the reply: {e}"))?;
        if n == 0 {
            return Err(format!("worker {who} ended (request `{line}`)"));
        }
        let mut words = reply.split_whitespace();
        match words.next() {
            Some("ok") => Ok(words.map(String::from).collect()),
            _ => Err(format!("worker {who}: `{line}`: {}", reply.trim())),
        }
    }

    /// The worker's implementations of `workload`: how many.
    pub fn entrant_count(&mut self, workload: Workload) -> Result<usize, String> {
        Ok(self.request(&format!("implementations {}", workload.id()))?.len())
    }

    /// Each implementation's transcript of `workload`.
    pub fn transcripts(&mut self, workload: Workload) -> Result<Vec<Vec<u8>>, String> {
        let words = self.request(&format!("check {}", workload.id()))?;
        words
            .iter()
            .map(|hex| {
                (0..hex.len())
                    .step_by(2)
                    .map(|i| hex.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok()))
                    .collect::<Option<Vec<u8>>>()
                    .ok_or_else(|| "a transcript that is not hex".to_string())
            })
            .collect()
    }
}

impl Drop for WorkerProcess {
    fn drop(&mut self) {
        // End of input ends the worker; wait for it, so no zombie is left.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// The repository root, the parent of the report's workspace (`benches/`): where `cargo
/// build` of the second binary runs, and whose `target/` the builds use.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap_or(Path::new(".")).to_path_buf()
}

/// A second build of the report's binary: the published crate's AVX-512 one, or the
/// `benches/patched/` project's.
#[derive(Clone, Copy)]
enum Build {
    /// This package with `--cfg chacha20_avx512` added to `RUSTFLAGS`, which switches the
    /// published crate to its AVX-512 backend for that whole build.
    Avx512,
    /// `benches/patched/Cargo.toml`: the same `src/main.rs` in a project whose
    /// `[patch.crates-io]` puts our `chacha20` under `chacha20poly1305`; its binary is
    /// `chacha-bench-patched`, in the workspace's own target folder, so every dependency
    /// that does not depend on `chacha20` is the one the report's build compiled already.
    Patched,
}

/// Builds `which`: the AVX-512 build into a target folder of its own
/// (`target/chacha-bench-avx512`: its `RUSTFLAGS` change every unit), the patched one into
/// the workspace's (`target`); the path of the binary and the build's wall time.
fn build(which: Build) -> Result<(PathBuf, Duration), String> {
    let root = workspace();
    if !root.join("Cargo.toml").is_file() {
        return Err(format!("the workspace ({}) is not here to build the second binary", root.display()));
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut flags = std::env::var("RUSTFLAGS").unwrap_or_default();
    let mut command = Command::new(&cargo);
    command.current_dir(&root).args(["build", "--release", "--quiet", "--bin"]);
    let (project, target_dir, bin, what) = match which {
        Build::Avx512 => {
            flags.push_str(" --cfg chacha20_avx512");
            (
                root.join("benches"),
                root.join("target").join("chacha-bench-avx512"),
                "chacha-bench",
                "the published crate's AVX-512 build",
            )
        }
        Build::Patched => {
            patched_takes_ours(&root)?;
            (
                root.join("benches").join("patched"),
                root.join("target"),
                "chacha-bench-patched",
                "the build with chacha20 and poly1305 patched (benches/patched)",
            )
        }
    };
    command.arg(bin).arg("--manifest-path").arg(project.join("Cargo.toml"));
    let started = Instant::now();
    eprintln!("building {what} (RUSTFLAGS='{}') into {}", flags.trim(), target_dir.display());
    let output = command
        .arg("--target-dir")
        .arg(&target_dir)
        .env("RUSTFLAGS", flags.trim())
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run {cargo:?}: {e}"))?;
    if !output.status.success() {
        let log = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = log.lines().rev().take(8).collect();
        return Err(format!(
            "cargo build of {what} failed: {}",
            tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
        ));
    }
    let exe = target_dir.join("release").join(format!("{bin}{}", std::env::consts::EXE_SUFFIX));
    Ok((exe, started.elapsed()))
}

/// Whether `benches/patched/Cargo.lock` resolves the published `chacha20poly1305`'s
/// `chacha20` and `poly1305` to ours (the versions in our manifests): the `hello` check
/// sees only the cipher, which is in the AEAD's type; the MAC is not.
fn patched_takes_ours(root: &Path) -> Result<(), String> {
    let read = |path: PathBuf| fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()));
    let lock = read(root.join("benches").join("patched").join("Cargo.lock"))?;
    let aead = lock
        .split("[[package]]")
        .find(|p| p.contains("name = \"chacha20poly1305\"") && p.contains("source = \"registry"))
        .ok_or("benches/patched/Cargo.lock has no published chacha20poly1305")?;
    for krate in ["chacha20", "poly1305"] {
        let manifest = read(root.join(krate).join("Cargo.toml"))?;
        let version = manifest
            .lines()
            .find_map(|l| l.strip_prefix("version = \"").and_then(|v| v.strip_suffix('"')))
            .ok_or_else(|| format!("{krate}/Cargo.toml has no version line"))?;
        if !aead.contains(&format!("\"{krate} {version}\"")) {
            return Err(format!(
                "in benches/patched/Cargo.lock the published chacha20poly1305 does not take our {krate} {version}"
            ));
        }
    }
    Ok(())
}

/// Starts the worker for `peer` (one of the peers that do not run in process). The
/// message says what was done, e.g. how long the build took.
pub fn start(peer: Peer) -> Result<(WorkerProcess, String), String> {
    match peer {
        Peer::OpenSslAvx2 => {
            let exe = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
            let mut command = Command::new(exe);
            command.env("OPENSSL_ia32cap", OPENSSL_AVX2_CAP);
            let worker = WorkerProcess::start(peer, command)?;
            Ok((worker, format!("a second process of this binary with OPENSSL_ia32cap={OPENSSL_AVX2_CAP}")))
        }
        Peer::PublishedAvx512 | Peer::ChaCha20Poly1305Patched => {
            let (which, how) = if peer == Peer::PublishedAvx512 {
                (Build::Avx512, "built with --cfg chacha20_avx512")
            } else {
                (
                    Build::Patched,
                    "benches/patched: chacha20poly1305 over our chacha20 and poly1305 by [patch.crates-io]",
                )
            };
            let (exe, took) = build(which)?;
            let worker = WorkerProcess::start(peer, Command::new(&exe))?;
            Ok((
                worker,
                format!(
                    "a second binary, {} ({how}; the build step took {:.1} s)",
                    exe.display(),
                    took.as_secs_f64()
                ),
            ))
        }
        other => Err(format!("{} runs in this process", other.id())),
    }
}

/// An entrant whose batches run in a worker process.
pub struct Remote {
    worker: Rc<RefCell<WorkerProcess>>,
    name: String,
    /// Its index among the worker's implementations of the workload.
    index: usize,
    slot: u64,
}

impl Remote {
    /// The `index`-th implementation of the worker's, named `name` in the report.
    pub fn new(worker: Rc<RefCell<WorkerProcess>>, name: String, index: usize) -> Remote {
        let slot = {
            let mut w = worker.borrow_mut();
            w.next_slot += 1;
            w.next_slot
        };
        Remote { worker, name, index, slot }
    }
}

impl Entrant for Remote {
    fn name(&self) -> &str {
        &self.name
    }

    fn ours(&self) -> bool {
        self.worker.borrow().peer.runs_ours()
    }

    fn prepare(&mut self, workload: Workload, point: Point, target: Duration) -> Result<u64, String> {
        let reply = self.worker.borrow_mut().request(&format!(
            "prepare {} {} {} {} {}",
            self.slot,
            workload.id(),
            self.index,
            point.token(),
            target.as_nanos()
        ))?;
        reply.first().and_then(|c| c.parse().ok()).ok_or_else(|| format!("{}: no call count", self.name))
    }

    fn batch(&mut self, calls: u64) -> Result<(Duration, Option<u64>), String> {
        let reply = self.worker.borrow_mut().request(&format!("batch {} {calls}", self.slot))?;
        let ns: u64 =
            reply.first().and_then(|n| n.parse().ok()).ok_or_else(|| format!("{}: no time", self.name))?;
        let ticks = reply.get(1).and_then(|t| t.parse().ok());
        Ok((Duration::from_nanos(ns), ticks))
    }

    fn finish_point(&mut self) -> Result<(), String> {
        self.worker.borrow_mut().request(&format!("drop {}", self.slot)).map(drop)
    }
}
