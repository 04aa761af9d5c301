//! The binary: the library's `main`, with SIGXFSZ ignored first (a store write past a file
//! size limit is then an error the program reports, not the end of the process).

fn main() -> std::process::ExitCode {
    mastra_ask::sys::ignore_sigxfsz();
    mastra_ask::main()
}
