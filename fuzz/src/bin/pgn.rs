//! The `pgn` fuzz target (see `retro_fuzz::targets::pgn`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        retro_fuzz::targets::pgn(data);
    });
}
