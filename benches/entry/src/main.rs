//! `cargo run --release -p chacha-bench -- ARGS` from the repository root: builds and runs
//! the report, which is a workspace of its own (`benches/Cargo.toml`) so that the root's
//! `cargo test --workspace` builds none of its peers.
//!
//! This program runs `cargo run --release --manifest-path benches/Cargo.toml -- ARGS` with
//! the cargo that started it, in the same working directory (a relative `--out` means what
//! it meant), and ends with that command's exit status. The report always builds with
//! `--release`. Its target folder is the repository's `target/` (the binary is
//! `target/release/chacha-bench`), or the one `CARGO_TARGET_DIR` or
//! `CARGO_BUILD_TARGET_DIR` names.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    // This package is `benches/entry/`; the report's workspace is `benches/`.
    let entry = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (Some(report), Some(root)) = (entry.parent(), entry.parent().and_then(Path::parent)) else {
        eprintln!("error: {} has no grandparent folder", entry.display());
        return ExitCode::FAILURE;
    };
    // `cargo run` sets CARGO for the program it runs; the build's cargo otherwise.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from(env!("CARGO")));
    let mut command = Command::new(&cargo);
    command.args(["run", "--release", "--manifest-path"]).arg(report.join("Cargo.toml"));
    let target_dir_set = ["CARGO_TARGET_DIR", "CARGO_BUILD_TARGET_DIR"]
        .iter()
        .any(|name| std::env::var_os(name).is_some_and(|v| !v.is_empty()));
    if !target_dir_set {
        command.arg("--target-dir").arg(root.join("target"));
    }
    command.arg("--").args(std::env::args_os().skip(1));
    run(command, &cargo)
}

/// Replaces this process with `command` (signals and the exit status are the report's).
#[cfg(unix)]
fn run(mut command: Command, cargo: &OsString) -> ExitCode {
    use std::os::unix::process::CommandExt;
    let error = command.exec();
    eprintln!("error: cannot run {cargo:?}: {error}");
    ExitCode::FAILURE
}

/// Runs `command` and ends with its exit status.
#[cfg(not(unix))]
fn run(mut command: Command, cargo: &OsString) -> ExitCode {
    match command.status() {
        Ok(status) => match status.code() {
            Some(0) => ExitCode::SUCCESS,
            Some(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
            None => ExitCode::FAILURE,
        },
        Err(error) => {
            eprintln!("error: cannot run {cargo:?}: {error}");
            ExitCode::FAILURE
        }
    }
}
