//! The `zstd_prefix` fuzz target (see `retro_fuzz::targets::zstd_prefix`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        retro_fuzz::targets::zstd_prefix(data);
    });
}
