//! The `http_request` fuzz target (see `retro_fuzz::targets::http_request`).

fn main() {
    afl::fuzz!(|data: &[u8]| {
        retro_fuzz::targets::http_request(data);
    });
}
