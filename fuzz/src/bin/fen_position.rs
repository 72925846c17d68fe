//! The `fen_position` fuzz target (see `retro_fuzz::targets::fen_position`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        retro_fuzz::targets::fen_position(data);
    });
}
