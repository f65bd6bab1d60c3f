fn main() {
    std::process::exit(goalc::cli::main());
}
