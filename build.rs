//! Build script. For the tests: when the real Mastra server's npm packages are not
//! installed (tests/fixtures/mastra-server/node_modules), it sets `cfg(mastra_fixture_missing)`,
//! which marks the tests that need that server as ignored, so a plain `cargo test` lists
//! them as ignored with the reason instead of passing them. With `CI` set it never does:
//! there those tests must run, and fail without the fixture. The program is built the same
//! either way.
//!
//! For the program, on Linux with glibc: the unwinder (`_Unwind_*`, which Rust's standard
//! library calls for a panic's backtrace) is linked in from GCC's static `libgcc_eh`, so
//! that the dynamic loader does not load `libgcc_s.so` at every start: that library and its
//! constructor (CPU feature detection by `cpuid`, which traps to the hypervisor in a VM)
//! cost about 0.2 ms a process here (docs/performance.md, issue 22, fourth round).

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(mastra_fixture_missing)");
    println!("cargo::rerun-if-env-changed=CI");
    // A directory is watched with everything in it: an `npm ci` there reruns this.
    println!("cargo::rerun-if-changed=tests/fixtures/mastra-server");
    let installed = Path::new("tests/fixtures/mastra-server/node_modules").is_dir();
    let ci = std::env::var_os("CI").is_some_and(|v| !v.is_empty());
    if !installed && !ci {
        println!("cargo::rustc-cfg=mastra_fixture_missing");
    }
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" {
        // Not bundled into the library: the C compiler that links the program finds it,
        // and it comes before the standard library's `-lgcc_s` on the link line, so
        // `--as-needed` then leaves `libgcc_s.so` out.
        println!("cargo::rustc-link-lib=static:-bundle=gcc_eh");
    }
}
