fn main() {
    std::process::exit(mastra_ask::main());
}
