//! The vocabulary of proof kernels, shared by the kernel search, the rank constraints and the
//! last-move analysis: a kernel move (a capture, or a promotion without one), what it captures,
//! where the capturing pawn lands, and what a search concluded.

use std::fmt;

use shakmaty::Color;

/// Piece types of the kernel (kings are not counted).
pub const TYPES: [&str; 5] = ["Q", "R", "LB", "DB", "N"];

/// What a kernel move captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The pawn at this index of this file's column.
    Pawn(u8, u8),
    /// An original piece of this type (index into `TYPES`).
    Piece(u8),
    /// A piece promoted on this file earlier.
    Promoted(u8),
    /// The pawn at this index of this file's column, which promotes (without capturing) and
    /// is taken as the new piece.
    PromotedPawn(u8, u8),
    /// Nothing: the pawn promotes without capturing.
    Nothing,
}

/// How the capturing pawn ends up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landing {
    /// In this file's column at this index.
    At(u8, u8),
    /// Promoted on this file.
    Promotes(u8),
}

/// A kernel move, shown in the notation of texel's proof kernels (`wPc0xPb1`, `bxR`,
/// `wPc0xRb0`, `wPc0xfb0` for a piece promoted on the f file); a capture that promotes ends in
/// `+` (the promoted piece's type is left open).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelMove {
    pub(super) side: Color,
    /// The capturing pawn's file and index; `None` for a piece.
    pub(super) pawn: Option<(u8, u8)>,
    pub(super) target: Target,
    /// Where a capturing pawn lands, unless it takes a pawn (it then takes its place).
    pub(super) landing: Option<Landing>,
}

impl fmt::Display for KernelMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", side_char(self.side))?;
        if let Some((file, i)) = self.pawn {
            write!(f, "P{}{i}", file_char(usize::from(file)))?;
        }
        if self.target == Target::Nothing {
            return f.write_str("+");
        }
        f.write_str("x")?;
        match self.target {
            Target::Pawn(g, j) => write!(f, "P{}{j}", file_char(usize::from(g)))?,
            Target::Piece(t) => f.write_str(TYPES[usize::from(t)])?,
            Target::Promoted(p) | Target::PromotedPawn(p, _) => {
                write!(f, "{}", file_char(usize::from(p)))?;
            }
            Target::Nothing => {}
        }
        match self.landing {
            Some(Landing::At(g, at)) => write!(f, "{}{at}", file_char(usize::from(g))),
            Some(Landing::Promotes(g)) => write!(f, "{}+", file_char(usize::from(g))),
            None => Ok(()),
        }
    }
}

/// What the search concluded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelResult {
    /// A kernel: the captures in order.
    Found(Vec<KernelMove>),
    /// None exists: the goal cannot be reached from the initial position.
    None,
}

/// A file's letter.
fn file_char(f: usize) -> char {
    char::from(b'a' + f as u8)
}

/// A side's letter.
fn side_char(c: Color) -> char {
    c.fold_wb('w', 'b')
}
