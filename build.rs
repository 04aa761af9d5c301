//! Build script. For the tests: when the real Mastra server's npm packages are not
//! installed (tests/fixtures/mastra-server/node_modules), it sets `cfg(mastra_fixture_missing)`,
//! which marks the tests that need that server as ignored, so a plain `cargo test` lists
//! them as ignored with the reason instead of passing them. With `CI` set it never does:
//! there those tests must run, and fail without the fixture. The program is built the same
//! either way.

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
}
