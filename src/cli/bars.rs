//! Progress bars on the terminal for the generator's [`Progress`] reports (`build-tables`).

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use retro_build::Progress;

/// The template of a phase of known length: the material, the phase, the bar and the time left.
const STEPS_TEMPLATE: &str =
    "{prefix:>8} {msg:<14} [{bar:30}] {percent:>3}% {elapsed_precise} eta {eta_precise}";
/// The template of a count of depths: the material, then the phase, the depth and its note.
const DEPTHS_TEMPLATE: &str = "{prefix:>8} {msg} {elapsed_precise}";

/// A progress bar on standard error, one phase at a time.
pub struct Bars {
    bar: ProgressBar,
    /// The phase's name while it counts depths (its position goes into the message).
    depths: Mutex<Option<String>>,
}

impl Bars {
    /// A bar that draws on standard error when it is a terminal, or nothing when `visible` is
    /// false.
    pub fn new(visible: bool) -> Bars {
        Bars {
            bar: if visible {
                ProgressBar::new(0)
            } else {
                ProgressBar::hidden()
            },
            depths: Mutex::new(None),
        }
    }

    fn style(template: &str) -> ProgressStyle {
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> ")
    }
}

impl Progress for Bars {
    fn begin(&self, material: &str, what: &str, steps: Option<u64>) {
        self.bar.reset();
        self.bar.set_prefix(material.to_string());
        let depths = match steps {
            Some(n) => {
                self.bar.set_style(Self::style(STEPS_TEMPLATE));
                self.bar.set_length(n);
                self.bar.set_message(what.to_string());
                None
            }
            None => {
                self.bar.set_style(Self::style(DEPTHS_TEMPLATE));
                self.bar.set_message(what.to_string());
                Some(what.to_string())
            }
        };
        if let Ok(mut g) = self.depths.lock() {
            *g = depths;
        }
    }

    fn at(&self, position: u64, note: &str) {
        self.bar.set_position(position);
        if let Ok(g) = self.depths.lock() {
            if let Some(what) = g.as_ref() {
                self.bar
                    .set_message(format!("{what} {position:>3}: {note}"));
            }
        }
    }

    fn advance(&self, n: u64) {
        self.bar.inc(n);
    }

    fn end(&self) {
        self.bar.finish_and_clear();
    }
}
