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
