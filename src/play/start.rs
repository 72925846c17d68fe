//! How a game of `retro play` starts: the position (a FEN, a random position of a material, or
//! of a random material whose table is present), the players' tags, and the seed.

use shakmaty::{Chess, Color, Position};

use super::random::{random_position, random_positions, RandomError};
use retro_engine::fen::{parse_fen, FenError};
use retro_tables::{material::MaterialError, Material, Tablebase};

/// Why no start position was found.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The FEN gives no legal position.
    #[error(transparent)]
    Fen(#[from] FenError),
    /// The material cannot be read.
    #[error(transparent)]
    Material(#[from] MaterialError),
    /// The material cannot be placed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// Neither a FEN, a material nor `--random` was given.
    #[error("give --fen, --material or --random")]
    NoStart,
    /// No table of the sizes asked for is present.
    #[error(
        "no tables of {sizes} pieces in {dir} (build them with build-tables --out {dir})",
        dir = .dir.display()
    )]
    NoTables {
        /// The sizes, as `3 or 4`.
        sizes: String,
        /// The table directory.
        dir: std::path::PathBuf,
    },
    /// Every random position drawn was a dead draw.
    #[error("no random position with mating material found")]
    NoMatingMaterial,
}

/// A seed from the clock, for random positions and moves when the user gives none.
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// `retro random-position`: `count` FENs of random legal positions of `material`.
///
/// # Errors
/// A malformed material, or one that cannot be placed.
pub fn random_fens(material: &str, count: usize, seed: u64) -> Result<Vec<String>, StartError> {
    let m: Material = material.parse()?;
    let positions = random_positions(m, count, seed)?;
    Ok(positions
        .iter()
        .map(|p| shakmaty::fen::Fen::from_position(p, shakmaty::EnPassantMode::Legal).to_string())
        .collect())
}

/// The start of `retro play`: the FEN given, a random position of the material given, or (with
/// `random`) a random position of a random material whose table is in `tb`, of `pieces` pieces
/// (3 or 4 when `None`), either side stronger.
///
/// # Errors
/// A malformed FEN or material, or no table of the requested size.
pub fn play_start(
    tb: &Tablebase,
    fen: Option<&str>,
    material: Option<&str>,
    random: bool,
    pieces: Option<u8>,
    seed: u64,
) -> Result<Chess, StartError> {
    let mut rng = fastrand::Rng::with_seed(seed);
    if let Some(f) = fen {
        return Ok(parse_fen(f)?);
    }
    if let Some(m) = material {
        let m: Material = m.parse()?;
        return Ok(random_position(m, &mut rng)?);
    }
    if !random {
        return Err(StartError::NoStart);
    }
    let sizes: Vec<usize> = match pieces {
        Some(n) => vec![usize::from(n)],
        None => vec![3, 4],
    };
    let materials: Vec<_> = tb
        .materials()
        .into_iter()
        .filter(|m| sizes.contains(&m.piece_count()))
        .collect();
    if materials.is_empty() {
        return Err(StartError::NoTables {
            sizes: sizes
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" or "),
            dir: tb.dir().to_path_buf(),
        });
    }
    // A position where the game is not over by insufficient material (KBvK, KNvK).
    for _ in 0..1000 {
        let m = materials[rng.usize(..materials.len())];
        let m = if rng.bool() { m.swapped() } else { m };
        let pos = random_position(m, &mut rng)?;
        if !pos.is_insufficient_material() {
            return Ok(pos);
        }
    }
    Err(StartError::NoMatingMaterial)
}

/// The tags of a game of `retro play` naming its players.
pub fn play_tags(
    auto: bool,
    perfect: bool,
    side: Option<Color>,
    start: &Chess,
) -> Vec<(String, String)> {
    let human_white = side.unwrap_or(start.turn()).is_white();
    let retro = format!("Retro {}", env!("CARGO_PKG_VERSION"));
    let other = match (auto, perfect) {
        (false, _) => std::env::var("USER").unwrap_or_else(|_| "Human".to_string()),
        (true, false) => "Random mover".to_string(),
        (true, true) => format!("Retro {} tables", env!("CARGO_PKG_VERSION")),
    };
    let (white, black) = if human_white {
        (other, retro)
    } else {
        (retro, other)
    };
    vec![
        ("Event".to_string(), "Retro endgame practice".to_string()),
        ("Site".to_string(), "retro play".to_string()),
        ("Round".to_string(), "-".to_string()),
        ("White".to_string(), white),
        ("Black".to_string(), black),
    ]
}
