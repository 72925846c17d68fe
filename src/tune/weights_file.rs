//! The weights file: the evaluation's parameters as a Rust source file
//! (`crates/retro-engine/src/eval/weights.rs`), written by `retro tune` and compiled into the engine, and
//! read back by the tuner as its starting point.

use retro_engine::eval::{params, S};

/// Why a weights file cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum WeightsError {
    /// The array `= [ ... ];` is missing.
    #[error("no weights array (`= [ ... ];`) found")]
    NoArray,
    /// An entry is not `S(integer, integer)`.
    #[error("weight {index}: expected S(integer, integer), found `{text}`")]
    Entry {
        /// The index of the entry.
        index: usize,
        /// What was found.
        text: String,
    },
    /// Too few or too many entries.
    #[error("{found} weights, expected {expected}")]
    Count {
        /// Entries read.
        found: usize,
        /// [`params::COUNT`].
        expected: usize,
    },
}

/// The source text of a weights file holding `weights` (one per parameter), with a comment
/// naming each group and the origin (`note`) in the header.
pub fn render(weights: &[S], note: &str) -> String {
    let mut out = String::new();
    out.push_str(
        "//! The evaluation's weights (middlegame, endgame) in centipawns, one per parameter of\n",
    );
    out.push_str("//! [`super::params`]. Written by `retro tune`; regenerate rather than edit.\n");
    if !note.is_empty() {
        out.push_str("//!\n");
    }
    for line in wrap(note, 92) {
        out.push_str("//! ");
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str("\nuse super::{params, S};\n\n");
    out.push_str("/// Every parameter's weight, by index.\n");
    out.push_str("#[rustfmt::skip]\n");
    out.push_str("pub static WEIGHTS: [S; params::COUNT] = [\n");
    for g in params::GROUPS {
        out.push_str(&format!("    // {}: {}\n", g.name, g.doc.trim()));
        let per_line = if g.name == "PST" { 8 } else { 6 };
        for chunk in weights[g.start..g.start + g.len].chunks(per_line) {
            out.push_str("   ");
            for w in chunk {
                out.push_str(&format!(" S({}, {}),", w.0, w.1));
            }
            out.push('\n');
        }
    }
    out.push_str("];\n");
    out
}

/// `text` in lines of at most `width` characters (longer words alone on a line).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The weights of a weights file's text.
///
/// # Errors
/// [`WeightsError`] when the array is missing, an entry is malformed, or the count is not
/// [`params::COUNT`].
pub fn parse(text: &str) -> Result<Vec<S>, WeightsError> {
    let code: String = text
        .lines()
        .map(|l| l.find("//").map_or(l, |i| &l[..i]))
        .collect::<Vec<_>>()
        .join("\n");
    let start = code.find("= [").ok_or(WeightsError::NoArray)? + 3;
    let end = code[start..].find("];").ok_or(WeightsError::NoArray)? + start;
    let mut weights = Vec::with_capacity(params::COUNT);
    for (index, item) in code[start..end]
        .split("S(")
        .skip(1)
        .map(|s| s.split(')').next().unwrap_or(""))
        .enumerate()
    {
        let bad = || WeightsError::Entry {
            index,
            text: item.trim().to_string(),
        };
        let (a, b) = item.split_once(',').ok_or_else(bad)?;
        let a = a.trim().parse().map_err(|_| bad())?;
        let b = b.trim().parse().map_err(|_| bad())?;
        weights.push(S(a, b));
    }
    if weights.len() != params::COUNT {
        return Err(WeightsError::Count {
            found: weights.len(),
            expected: params::COUNT,
        });
    }
    Ok(weights)
}

#[cfg(test)]
mod tests {
    use super::*;
    use retro_engine::eval::weights::WEIGHTS;

    #[test]
    fn the_compiled_weights_round_trip() {
        let text = render(&WEIGHTS, "test");
        assert_eq!(parse(&text), Ok(WEIGHTS.to_vec()));
    }

    #[test]
    fn the_source_file_is_what_render_writes() {
        let source = include_str!("../../crates/retro-engine/src/eval/weights.rs");
        assert_eq!(parse(source), Ok(WEIGHTS.to_vec()));
    }

    #[test]
    fn bad_files_are_named() {
        assert_eq!(parse("nothing"), Err(WeightsError::NoArray));
        let short = "static W: [S; 2] = [S(1, 2), S(3, 4)];";
        assert_eq!(
            parse(short),
            Err(WeightsError::Count {
                found: 2,
                expected: params::COUNT
            })
        );
        assert!(matches!(
            parse("= [S(1, x)];"),
            Err(WeightsError::Entry { index: 0, .. })
        ));
    }
}
