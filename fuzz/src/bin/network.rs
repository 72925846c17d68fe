//! The `network` fuzz target (see `retro_fuzz::targets::network`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        retro_fuzz::targets::network(data);
    });
}
