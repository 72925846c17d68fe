//! The `engine_toml` fuzz target (see `retro_fuzz::targets::engine_toml`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        retro_fuzz::targets::engine_toml(data);
    });
}
