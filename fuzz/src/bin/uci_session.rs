//! The `uci_session` fuzz target (see `retro_fuzz::targets::uci_session`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        retro_fuzz::targets::uci_session(data);
    });
}
