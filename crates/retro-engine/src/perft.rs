//! Move path enumeration (perft) that can be stopped: the console's `perft N`.

use std::sync::atomic::{AtomicBool, Ordering};

use shakmaty::{Chess, Position};

/// The number of move paths of `depth` plies from `pos` (legal moves counted in bulk at the
/// last ply), or `None` when `stop` was set before the count finished.
pub fn perft(pos: &Chess, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if stop.load(Ordering::Relaxed) {
        return None;
    }
    let moves = pos.legal_moves();
    if depth <= 1 {
        return Some(if depth == 0 { 1 } else { moves.len() as u64 });
    }
    let mut total = 0;
    for m in moves {
        let mut child = pos.clone();
        child.play_unchecked(m);
        total += perft(&child, depth - 1, stop)?;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_counts_and_stopping() {
        let go = AtomicBool::new(false);
        assert_eq!(perft(&Chess::default(), 4, &go), Some(197_281));
        let kiwipete = crate::fen::parse_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        )
        .expect("legal FEN");
        assert_eq!(perft(&kiwipete, 3, &go), Some(97_862));
        let stop = AtomicBool::new(true);
        assert_eq!(perft(&Chess::default(), 9, &stop), None);
    }
}
