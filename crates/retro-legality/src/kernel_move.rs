//! The vocabulary of proof kernels, shared by the kernel search, the rank constraints, the
//! initial path and the last-move analysis: the kernel's piece types, a kernel move (a capture,
//! or a promotion without one), what it captures, where the capturing pawn lands, and what a
//! search concluded.

use std::{
    fmt,
    ops::{Index, IndexMut},
};

use shakmaty::{Bitboard, Color, Role, Square};

/// A piece type of the kernel: a piece other than a king or a pawn, a bishop by the colour of
/// its squares (which it never leaves).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KernelPiece {
    /// A queen.
    Queen,
    /// A rook.
    Rook,
    /// A bishop on the light squares.
    LightBishop,
    /// A bishop on the dark squares.
    DarkBishop,
    /// A knight.
    Knight,
}

impl KernelPiece {
    /// Every type, in the order of [`ByKernelPiece`].
    pub const ALL: [KernelPiece; 5] = [
        KernelPiece::Queen,
        KernelPiece::Rook,
        KernelPiece::LightBishop,
        KernelPiece::DarkBishop,
        KernelPiece::Knight,
    ];

    /// The type's letters in texel's kernel notation: `Q`, `R`, `LB`, `DB`, `N`.
    pub const fn symbol(self) -> &'static str {
        match self {
            KernelPiece::Queen => "Q",
            KernelPiece::Rook => "R",
            KernelPiece::LightBishop => "LB",
            KernelPiece::DarkBishop => "DB",
            KernelPiece::Knight => "N",
        }
    }

    /// The type of a piece of `role` on `sq`; `None` for a king or a pawn.
    pub fn of(role: Role, sq: Square) -> Option<KernelPiece> {
        match role {
            Role::Queen => Some(KernelPiece::Queen),
            Role::Rook => Some(KernelPiece::Rook),
            Role::Bishop => Some(KernelPiece::bishop_on(sq)),
            Role::Knight => Some(KernelPiece::Knight),
            Role::Pawn | Role::King => None,
        }
    }

    /// The type of a bishop on `sq`: light or dark.
    pub fn bishop_on(sq: Square) -> KernelPiece {
        if Bitboard::LIGHT_SQUARES.contains(sq) {
            KernelPiece::LightBishop
        } else {
            KernelPiece::DarkBishop
        }
    }

    /// The type's bit in a set of types (a `u8`, bit `i` for the `i`-th of [`ALL`](Self::ALL)).
    pub const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// Something per kernel piece type, such as a side's piece counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ByKernelPiece<T>(pub [T; 5]);

impl<T> ByKernelPiece<T> {
    /// The values in the order of [`KernelPiece::ALL`].
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }

    /// The same, to change.
    pub fn iter_mut(&mut self) -> std::slice::IterMut<'_, T> {
        self.0.iter_mut()
    }

    /// The value of each type through `f`.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> ByKernelPiece<U> {
        ByKernelPiece(self.0.map(f))
    }
}

impl<T> Index<KernelPiece> for ByKernelPiece<T> {
    type Output = T;

    fn index(&self, t: KernelPiece) -> &T {
        &self.0[t as usize]
    }
}

impl<T> IndexMut<KernelPiece> for ByKernelPiece<T> {
    fn index_mut(&mut self, t: KernelPiece) -> &mut T {
        &mut self.0[t as usize]
    }
}

/// What a kernel move captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The pawn at this index of this file's column.
    Pawn(u8, u8),
    /// An original piece of this type.
    Piece(KernelPiece),
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
            Target::Piece(t) => f.write_str(t.symbol())?,
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
