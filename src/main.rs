fn main() -> std::process::ExitCode {
    mastra_ask::sys::ignore_sigxfsz();
    mastra_ask::main()
}
