//! The reverse move generator: every candidate last move of a position, with the position
//! before it (un-captures of each piece type, un-promotions, en passant, castling, restored
//! castling rights and the en passant right the earlier position may have had).
//!
//! Every legal last move is in the list. A candidate is dropped only when the position before
//! it breaks a static rule (see [`super::rules`]): the side that did not move would have been
//! in check with the mover to move, impossible piece counts, castling rights without their
//! king and rook, an en passant square without its double push.

use std::fmt;

use shakmaty::{attacks, Bitboard, Board, Color, File, Piece, Rank, Role, Square};

use super::{position::RawPosition, rules};

/// How the last move was played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An ordinary move, capture or promotion.
    Normal,
    /// A pawn captured en passant.
    EnPassant,
    /// The king castled.
    Castle,
}

/// A candidate last move with the position before it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RevMove {
    /// The square the piece came from (the king's square for castling).
    pub from: Square,
    /// The square the piece went to (the king's for castling).
    pub to: Square,
    /// The role the piece had before the move (a pawn for promotions).
    pub role: Role,
    /// The role promoted to.
    pub promotion: Option<Role>,
    /// The role of the piece captured.
    pub capture: Option<Role>,
    /// Ordinary, en passant or castling.
    pub kind: Kind,
    /// The position before the move, with its castling rights and en passant square.
    pub prior: RawPosition,
}

impl RevMove {
    /// The move in UCI notation (castling as the king's move).
    pub fn uci(&self) -> String {
        let promo = self
            .promotion
            .map_or(String::new(), |r| r.char().to_string());
        format!("{}{}{promo}", self.from, self.to)
    }
}

/// Castling rights in FEN letters, `-` for none.
pub fn castling_letters(rights: Bitboard) -> String {
    let mut s = String::new();
    for (sq, c) in [
        (Square::H1, 'K'),
        (Square::A1, 'Q'),
        (Square::H8, 'k'),
        (Square::A8, 'q'),
    ] {
        if rights.contains(sq) {
            s.push(c);
        }
    }
    if s.is_empty() {
        s.push('-');
    }
    s
}

impl fmt::Display for RevMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let capture = self
            .capture
            .map_or("-".to_string(), |r| r.upper_char().to_string());
        let kind = match self.kind {
            Kind::Normal => "",
            Kind::EnPassant => " en-passant",
            Kind::Castle => " castling-move",
        };
        write!(
            f,
            "{}{kind} capture: {capture} castling: {} ep: {}",
            self.uci(),
            castling_letters(self.prior.castling),
            self.prior.ep.map_or("-".to_string(), |s| s.to_string())
        )
    }
}

/// The roles a captured piece may have had on `sq`.
fn capturable(sq: Square) -> &'static [Role] {
    if sq.rank() == Rank::First || sq.rank() == Rank::Eighth {
        &[Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
    } else {
        &[
            Role::Queen,
            Role::Rook,
            Role::Bishop,
            Role::Knight,
            Role::Pawn,
        ]
    }
}

fn home(color: Color) -> Square {
    Square::from_coords(File::E, RawPosition::back_rank(color))
}

fn corners(color: Color) -> [Square; 2] {
    let r = RawPosition::back_rank(color);
    [
        Square::from_coords(File::A, r),
        Square::from_coords(File::H, r),
    ]
}

/// One move before expansion into castling-right and en passant variants.
struct Draft {
    from: Square,
    to: Square,
    role: Role,
    promotion: Option<Role>,
    capture: Option<Role>,
    kind: Kind,
}

impl Draft {
    fn with_prior(&self, prior: RawPosition) -> RevMove {
        RevMove {
            from: self.from,
            to: self.to,
            role: self.role,
            promotion: self.promotion,
            capture: self.capture,
            kind: self.kind,
            prior,
        }
    }
}

/// The candidate last moves of `p`, each with its earlier position.
pub fn generate(p: &RawPosition) -> Vec<RevMove> {
    let mover = p.turn.other();
    let occ = p.board.occupied();
    let mut drafts = Vec::new();
    let back: i32 = mover.fold_wb(-8, 8);
    if let Some(ep) = p.ep {
        // The last move was the double push through the en passant square.
        if let (Some(to), Some(from)) = (ep.offset(-back), ep.offset(back)) {
            if p.of(mover, Role::Pawn).contains(to) {
                drafts.push(Draft {
                    from,
                    to,
                    role: Role::Pawn,
                    promotion: None,
                    capture: None,
                    kind: Kind::Normal,
                });
            }
        }
    } else {
        for to in p.pieces(mover) {
            let Some(role) = p.board.role_at(to) else {
                continue;
            };
            pieces_to(p, mover, to, role, occ, &mut drafts);
        }
    }
    let mut out = Vec::new();
    for d in drafts {
        if p.ep.is_none() && is_double_push(&d, mover) && leaves_ep_capture(p, &d) {
            // A double push beside a pawn that can take it en passant leaves an en passant
            // square, which the position would show.
            continue;
        }
        expand(p, mover, d, &mut out);
    }
    out
}

fn is_double_push(d: &Draft, mover: Color) -> bool {
    d.role == Role::Pawn
        && d.promotion.is_none()
        && d.capture.is_none()
        && d.from.rank() == mover.fold_wb(Rank::Second, Rank::Seventh)
        && d.to.rank() == mover.fold_wb(Rank::Fourth, Rank::Fifth)
}

/// Whether `p`, right after the double push `d`, has a legal en passant capture (when
/// shakmaty cannot judge the position, `false`: the candidate stays).
fn leaves_ep_capture(p: &RawPosition, d: &Draft) -> bool {
    let skipped = d.from.offset(if d.to > d.from { 8 } else { -8 });
    let mut with_ep = p.clone();
    with_ep.ep = skipped;
    with_ep.legal_ep().is_some()
}

/// Every way the piece of `role` on `to` can have arrived there.
fn pieces_to(
    p: &RawPosition,
    mover: Color,
    to: Square,
    role: Role,
    occ: Bitboard,
    out: &mut Vec<Draft>,
) {
    let back: i32 = mover.fold_wb(-8, 8);
    let add = |out: &mut Vec<Draft>,
               from: Square,
               role: Role,
               promotion: Option<Role>,
               capture: Option<Role>,
               kind: Kind| {
        out.push(Draft {
            from,
            to,
            role,
            promotion,
            capture,
            kind,
        })
    };
    let last_rank = RawPosition::back_rank(mover.other());
    match role {
        Role::Pawn => {
            let Some(one) = to.offset(back) else {
                return;
            };
            if one.rank() == RawPosition::back_rank(mover) {
                return;
            }
            if !occ.contains(one) {
                add(out, one, Role::Pawn, None, None, Kind::Normal);
                let fourth = mover.fold_wb(Rank::Fourth, Rank::Fifth);
                if to.rank() == fourth {
                    if let Some(two) = one.offset(back) {
                        if !occ.contains(two) {
                            add(out, two, Role::Pawn, None, None, Kind::Normal);
                        }
                    }
                }
            }
            for from in attacks::pawn_attacks(mover.other(), to) & !occ {
                for &c in capturable(to) {
                    add(out, from, Role::Pawn, None, Some(c), Kind::Normal);
                }
            }
            // En passant: the captured pawn stood beside the capturing pawn, on the square
            // behind `to`, having just come past `to` from two squares in front of it.
            let sixth = mover.fold_wb(Rank::Sixth, Rank::Third);
            if to.rank() == sixth {
                let (Some(victim), Some(start)) = (to.offset(back), to.offset(-back)) else {
                    return;
                };
                if !occ.contains(victim) && !occ.contains(start) {
                    for from in attacks::pawn_attacks(mover.other(), to) & !occ {
                        add(
                            out,
                            from,
                            Role::Pawn,
                            None,
                            Some(Role::Pawn),
                            Kind::EnPassant,
                        );
                    }
                }
            }
        }
        Role::King => {
            for from in attacks::king_attacks(to) & !occ {
                add(out, from, Role::King, None, None, Kind::Normal);
                for &c in capturable(to) {
                    add(out, from, Role::King, None, Some(c), Kind::Normal);
                }
            }
            let r = RawPosition::back_rank(mover);
            let king_home = home(mover);
            let rook_at = |f: File| p.of(mover, Role::Rook).contains(Square::from_coords(f, r));
            let empty = |files: &[File]| {
                files
                    .iter()
                    .all(|&f| !occ.contains(Square::from_coords(f, r)))
            };
            if to == Square::from_coords(File::G, r)
                && rook_at(File::F)
                && empty(&[File::E, File::H])
            {
                add(out, king_home, Role::King, None, None, Kind::Castle);
            }
            if to == Square::from_coords(File::C, r)
                && rook_at(File::D)
                && empty(&[File::A, File::B, File::E])
            {
                add(out, king_home, Role::King, None, None, Kind::Castle);
            }
        }
        _ => {
            let piece = Piece { color: mover, role };
            for from in attacks::attacks(to, piece, occ) & !occ {
                add(out, from, role, None, None, Kind::Normal);
                for &c in capturable(to) {
                    add(out, from, role, None, Some(c), Kind::Normal);
                }
            }
            if to.rank() == last_rank && role != Role::King {
                // Promotions: from the seventh rank straight ahead, or capturing diagonally.
                if let Some(one) = to.offset(back) {
                    if !occ.contains(one) {
                        add(out, one, Role::Pawn, Some(role), None, Kind::Normal);
                    }
                }
                for from in attacks::pawn_attacks(mover.other(), to) & !occ {
                    for &c in capturable(to) {
                        add(out, from, Role::Pawn, Some(role), Some(c), Kind::Normal);
                    }
                }
            }
        }
    }
}

/// Builds the earlier positions of a draft (castling rights and en passant variants), keeping
/// those that break no static rule.
fn expand(p: &RawPosition, mover: Color, d: Draft, out: &mut Vec<RevMove>) {
    let mover_rights = p.castling & Bitboard::from(RawPosition::back_rank(mover));
    // Pieces with castling rights have never moved.
    if mover_rights.any() && d.role == Role::King {
        return;
    }
    if p.castling.contains(d.to) {
        return;
    }
    let Some((board, mandatory, ep_fixed)) = undo_on_board(p, mover, &d) else {
        return;
    };
    let restorable = restorable_rights(&board, mover, &d) & !mandatory;
    let base = p.castling | mandatory;
    let restorable: Vec<Square> = restorable.into_iter().collect();
    let variants = 1usize << restorable.len();
    for mask in 0..variants {
        let mut castling = base;
        for (i, &s) in restorable.iter().enumerate() {
            if mask & (1 << i) != 0 {
                castling |= s;
            }
        }
        let prior = RawPosition {
            board: board.clone(),
            turn: mover,
            castling,
            ep: ep_fixed,
        };
        if rules::check(&prior).is_some() {
            continue;
        }
        let eps: Vec<Square> = if ep_fixed.is_some() {
            Vec::new()
        } else {
            ep_variants(&prior)
        };
        out.push(d.with_prior(prior.clone()));
        for ep in eps {
            let mut with_ep = prior.clone();
            with_ep.ep = Some(ep);
            if rules::check(&with_ep).is_none() {
                out.push(d.with_prior(with_ep));
            }
        }
    }
}

/// The board before draft `d` (a move of `mover`): the piece back on its square, a captured
/// piece restored, a castling rook back in its corner; with the castling rights the move needs
/// (`mandatory`) and the en passant square it fixes. `None` when the move cannot have been
/// played (a castling king that was in check or passed through it).
fn undo_on_board(
    p: &RawPosition,
    mover: Color,
    d: &Draft,
) -> Option<(Board, Bitboard, Option<Square>)> {
    let opponent = mover.other();
    let mut board = p.board.clone();
    let moved = board.remove_piece_at(d.to)?;
    board.set_piece_at(
        d.from,
        Piece {
            color: mover,
            role: d.role,
        },
    );
    debug_assert_eq!(moved.role, d.promotion.unwrap_or(d.role));
    let r = RawPosition::back_rank(mover);
    let mut mandatory = Bitboard::EMPTY;
    let mut ep_fixed = None;
    match d.kind {
        Kind::Castle => {
            let king_side = d.to.file() == File::G;
            let (rook_from, rook_to) = if king_side {
                (
                    Square::from_coords(File::H, r),
                    Square::from_coords(File::F, r),
                )
            } else {
                (
                    Square::from_coords(File::A, r),
                    Square::from_coords(File::D, r),
                )
            };
            board.discard_piece_at(rook_to);
            board.set_piece_at(
                rook_from,
                Piece {
                    color: mover,
                    role: Role::Rook,
                },
            );
            // The king may not castle out of or through check.
            let passed = Square::from_coords(if king_side { File::F } else { File::D }, r);
            let occ = board.occupied();
            if [d.from, passed]
                .iter()
                .any(|&s| board.attacks_to(s, opponent, occ).any())
            {
                return None;
            }
            mandatory |= rook_from;
        }
        Kind::EnPassant => {
            let victim = d.to.offset(mover.fold_wb(-8, 8)).unwrap_or(d.to);
            board.set_piece_at(
                victim,
                Piece {
                    color: opponent,
                    role: Role::Pawn,
                },
            );
            ep_fixed = Some(d.to);
        }
        Kind::Normal => {
            if let Some(c) = d.capture {
                board.set_piece_at(
                    d.to,
                    Piece {
                        color: opponent,
                        role: c,
                    },
                );
            }
        }
    }
    Some((board, mandatory, ep_fixed))
}

/// The castling rights draft `d` may have taken away, on `board` (before the move): the
/// mover's king or rook leaving its square, or the capture of an opponent's rook in its corner.
fn restorable_rights(board: &Board, mover: Color, d: &Draft) -> Bitboard {
    let opponent = mover.other();
    let mut restorable = Bitboard::EMPTY;
    if d.from == home(mover) && d.role == Role::King {
        for c in corners(mover) {
            if board
                .by_piece(Piece {
                    color: mover,
                    role: Role::Rook,
                })
                .contains(c)
            {
                restorable |= c;
            }
        }
    }
    if d.role == Role::Rook && corners(mover).contains(&d.from) {
        restorable |= d.from;
    }
    if d.capture == Some(Role::Rook) && corners(opponent).contains(&d.to) {
        restorable |= d.to;
    }
    restorable
}

/// En passant squares the position before the last move may have had: a pawn of the side not
/// to move there that stands on its fourth rank with the two squares behind it empty, beside a
/// pawn of the side to move that could take it (when shakmaty can judge the capture, it must
/// be legal).
fn ep_variants(prior: &RawPosition) -> Vec<Square> {
    let pusher = prior.turn.other();
    let fourth = pusher.fold_wb(Rank::Fourth, Rank::Fifth);
    let behind: i32 = pusher.fold_wb(-8, 8);
    let occ = prior.board.occupied();
    let mut out = Vec::new();
    for s in prior.of(pusher, Role::Pawn) & Bitboard::from(fourth) {
        let (Some(skipped), Some(start)) = (s.offset(behind), s.offset(2 * behind)) else {
            continue;
        };
        if occ.contains(skipped) || occ.contains(start) {
            continue;
        }
        let takers = attacks::pawn_attacks(pusher, skipped) & prior.of(prior.turn, Role::Pawn);
        if takers.is_empty() {
            continue;
        }
        let mut with_ep = prior.clone();
        with_ep.ep = Some(skipped);
        // A capture shakmaty finds illegal leaves the same position as no en passant right.
        if with_ep.to_chess().is_some() && with_ep.legal_ep().is_none() {
            continue;
        }
        out.push(skipped);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    fn moves(fen: &str) -> BTreeSet<String> {
        let p = RawPosition::from_fen(fen).expect("fen");
        generate(&p)
            .iter()
            .map(|m| format!("{}{}", m.from, m.to))
            .collect()
    }

    fn set(items: &[&str]) -> BTreeSet<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn start_position_last_moves_are_knight_returns() {
        assert_eq!(
            moves("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            set(&["a6b8", "c6b8", "f6g8", "h6g8"])
        );
    }

    #[test]
    fn pawn_moves_and_captures() {
        assert_eq!(
            moves("k7/p2p4/1p5p/5p2/4P3/4K3/8/8 w - - 0 1"),
            set(&["b7a8", "b8a8", "b7b6", "c7b6", "e6f5", "f6f5", "f7f5", "g6f5", "g7h6", "h7h6"])
        );
    }

    #[test]
    fn castling_and_its_restored_rights() {
        let p = RawPosition::from_fen("4k3/8/8/8/8/8/5P2/R2n1RK1 b - - 0 1").expect("fen");
        let rights: BTreeSet<String> = generate(&p)
            .iter()
            .filter(|m| m.kind == Kind::Castle)
            .map(|m| castling_letters(m.prior.castling))
            .collect();
        assert_eq!(rights, set(&["K", "KQ"]));
    }

    #[test]
    fn en_passant_square_forces_the_double_push() {
        let p = RawPosition::from_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1").expect("fen");
        let all = generate(&p);
        assert!(!all.is_empty());
        assert!(all.iter().all(|m| m.uci() == "d7d5"), "{all:?}");
    }

    #[test]
    fn en_passant_capture_is_undone() {
        let p = RawPosition::from_fen("4k3/8/1P6/8/8/8/8/4K3 b - - 0 1").expect("fen");
        let ep: BTreeSet<String> = generate(&p)
            .iter()
            .filter(|m| m.kind == Kind::EnPassant)
            .map(|m| format!("{} {}", m.uci(), m.prior.fen()))
            .collect();
        assert_eq!(
            ep,
            set(&[
                "a5b6 4k3/8/8/Pp6/8/8/8/4K3 w - b6 0 1",
                "c5b6 4k3/8/8/1pP5/8/8/8/4K3 w - b6 0 1"
            ])
        );
    }

    #[test]
    fn a_check_no_move_explains_leaves_no_candidate() {
        // The bishop on a5 checks the king on d8. It cannot have come along that diagonal (it
        // would have given check before, with white to move), and b4 blocks the other one.
        let p = RawPosition::from_fen("3k4/8/8/B7/1P6/8/8/4K3 b - - 0 1").expect("fen");
        assert_eq!(generate(&p), Vec::new());
    }
}
