//! The `table_file` fuzz target (see `retro_fuzz::targets::table_file`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        retro_fuzz::targets::table_file(data);
    });
}
