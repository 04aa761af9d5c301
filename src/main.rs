fn main() {
    // A write past a file-size limit (`ulimit -f`) fails with an error the store reports,
    // instead of killing the process with SIGXFSZ.
    // SAFETY: setting a signal's disposition to "ignore" before any thread starts.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    std::process::exit(mastra_ask::main());
}
