//! Links the `goalc` binary as a position-dependent executable on Linux.
//!
//! A whole-trace run is short (KTH-SP2 under EASY takes under 20 ms), and a
//! position-independent binary first spends about half a millisecond
//! applying its 34,000 relocations and faulting in the pages they touch.
//! Linked at a fixed address, those are resolved by the linker instead
//! (`goalc --version`: 1.6 ms to 1.0 ms). The code stays position
//! independent; only the executable's own load address is fixed, so the
//! libraries and the heap are still placed at random.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let var = |name| std::env::var(name).unwrap_or_default();
    // The binary is built only with the command line's crates (`cli`).
    let cli = !var("CARGO_FEATURE_CLI").is_empty();
    if cli && var("CARGO_CFG_TARGET_OS") == "linux" && var("CARGO_CFG_TARGET_ENV") == "gnu" {
        println!("cargo:rustc-link-arg-bin=goalc=-no-pie");
    }
}
