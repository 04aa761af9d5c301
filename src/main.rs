fn main() {
    mastra_ask::sys::ignore_sigxfsz();
    std::process::exit(mastra_ask::main());
}
