//! The `training_data` fuzz target (see `retro_fuzz::targets::training_data`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        retro_fuzz::targets::training_data(data);
    });
}
