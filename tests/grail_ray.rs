//! The `grail-ray` Python package (python/), tested against a real
//! 3-node Ray cluster on 127.0.0.1 by its pytest suite.
//!
//! This test makes a virtual environment under cargo's target directory,
//! installs `./python[test]` (Ray and pytest from PyPI) into it when the
//! package's files have changed, and runs `pytest python/tests` with this
//! build's grail binary. It fails (never skips) when any step does.

use std::path::{Path, PathBuf};
use std::process::Command;

fn run(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed ({}):\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A stamp of what the environment was built from: the package's files.
fn stamp(dir: &Path) -> String {
    let mut files: Vec<PathBuf> = Vec::new();
    files.push(dir.join("pyproject.toml"));
    let pkg = dir.join("grail_ray");
    for e in std::fs::read_dir(&pkg).expect("python/grail_ray") {
        let p = e.expect("a directory entry").path();
        if p.extension().is_some_and(|x| x == "py") {
            files.push(p);
        }
    }
    files.sort();
    // FNV-1a over names and contents: a change reinstalls.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in &files {
        let data = std::fs::read(f).expect("a package file");
        for b in f.to_string_lossy().bytes().chain(data) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[test]
fn grail_ray_on_a_local_ray_cluster() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join("python");
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("grail-ray-venv");
    let py = venv.join("bin").join("python");
    if !py.exists() {
        run(
            Command::new("python3").arg("-m").arg("venv").arg(&venv),
            "python3 -m venv",
        );
    }
    let want = stamp(&python);
    let stamp_file = venv.join(".grail-ray-stamp");
    if std::fs::read_to_string(&stamp_file).ok().as_deref() != Some(want.as_str()) {
        run(
            Command::new(&py).args([
                "-m",
                "pip",
                "install",
                "--disable-pip-version-check",
                "-q",
                &format!("{}[test]", python.display()),
            ]),
            "pip install ./python[test]",
        );
        std::fs::write(&stamp_file, &want).expect("the stamp");
    }
    // coreutils' timeout: a hung cluster fails the test instead of CI.
    run(
        Command::new("timeout")
            .args(["-k", "30", "1500"])
            .arg(&py)
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"])
            .current_dir(&python)
            .env("GRAIL_BIN", env!("CARGO_BIN_EXE_grail")),
        "pytest python/tests",
    );
}
