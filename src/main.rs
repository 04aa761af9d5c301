//! The binary: an entry point of its own (`no_main`), so that a command does not pay for
//! the Rust runtime's start-up; `sys::start` does what of it matters, and the library the
//! rest (docs/performance.md).

#![no_main]

#[no_mangle]
extern "C" fn main(
    _argc: std::ffi::c_int,
    _argv: *const *const std::ffi::c_char,
) -> std::ffi::c_int {
    mastra_ask::sys::start();
    std::process::exit(mastra_ask::run().code())
}

/// The C library's `pow`, the one function of `libm.so` the program calls (tokio's
/// multi-threaded scheduler, which `serve` runs on, weighs its poll times with `powf`), from
/// the `libm` crate: defined here, the link does not need `libm.so`, and the dynamic loader
/// does not load it at every start (0.08 ms a process here; docs/performance.md).
#[no_mangle]
extern "C" fn pow(x: f64, y: f64) -> f64 {
    libm::pow(x, y)
}
