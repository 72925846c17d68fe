//! Chooses the network built into the engine: `nets/retro.nnue`, or the file that the
//! environment variable `RETRO_EVALFILE` names (the Makefile's `EVALFILE`, as OpenBench builds
//! engines with their networks).

use std::path::PathBuf;

fn main() {
    println!("cargo:rerun-if-env-changed=RETRO_EVALFILE");
    let default = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default())
        .join("nets")
        .join("retro.nnue");
    let net = match std::env::var_os("RETRO_EVALFILE") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => {
            if std::env::var_os("CARGO_FEATURE_HIDDEN_512").is_some() {
                // The default network has 256 neurons: this build will refuse it at run time.
                println!(
                    "cargo:warning=a hidden-512 build without RETRO_EVALFILE: its built-in \
                     network (256 neurons) is unusable; give a 512-neuron network"
                );
            }
            default
        }
    };
    println!("cargo:rerun-if-changed={}", net.display());
    println!("cargo:rustc-env=RETRO_EMBEDDED_NET={}", net.display());
}
