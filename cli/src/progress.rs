//! Progress bars: one per command run, on standard error where it is a terminal (cargo's rule)
//! and hidden otherwise, with whole numbers only (`checking ####---- 12/40 3/s eta 9s`).

use std::fmt;
use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// What a bar shows: what it does, the bar, steps done of all, the rate and the time left.
/// `{rate}` is ours ([`rate`]); indicatif's `{per_sec}` shows fractions (`12.3456/s`).
const TEMPLATE: &str = "{msg} {bar:30} {pos}/{len} {rate} eta {eta}";

/// A command's progress bar. Steps may be counted from any thread (as work finishes, not as
/// its output is written); the bar is cleared when the command ends, however it ends.
pub(crate) struct Progress {
    bar: ProgressBar,
    /// Standard output goes to the terminal the bar is drawn on: the bar is lifted while
    /// output is written, so that the two never share a line.
    shares_terminal: bool,
    /// The bar waits for its length (from [`Progress::set`]) before it is drawn: a bar of 0
    /// steps would be drawn full.
    waiting: AtomicBool,
}

impl Progress {
    /// A bar of `steps` steps (0: set later, for work whose size is known once it starts) that
    /// says `what` it does; hidden where standard error is not a terminal, and for one step.
    pub(crate) fn new(steps: u64, what: &str) -> Progress {
        if !io::stderr().is_terminal() || steps == 1 {
            return Progress {
                bar: ProgressBar::hidden(),
                shares_terminal: false,
                waiting: AtomicBool::new(false),
            };
        }
        let target = match steps {
            0 => ProgressDrawTarget::hidden(),
            _ => ProgressDrawTarget::stderr(),
        };
        Progress {
            bar: styled(steps, what, target),
            shares_terminal: io::stdout().is_terminal(),
            waiting: AtomicBool::new(steps == 0),
        }
    }

    /// One more step done.
    pub(crate) fn inc(&self) {
        self.bar.inc(1);
    }

    /// `done` steps done, for work that counts its own steps.
    pub(crate) fn set_position(&self, done: u64) {
        self.bar.set_position(done);
    }

    /// `done` steps of `total`, for work that learns its size as it goes.
    pub(crate) fn set(&self, done: u64, total: u64) {
        self.bar.set_length(total);
        self.bar.set_position(done);
        if total > 0 && self.waiting.swap(false, Ordering::Relaxed) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }

    /// Writes to standard output (or a CSV writer over it) with `write` while the bar is
    /// shown: where both are on one terminal, the bar is lifted, the text written and flushed,
    /// and the bar drawn again below it.
    pub(crate) fn print<O: Flush + ?Sized, T, E: From<io::Error>>(
        &self,
        out: &mut O,
        write: impl FnOnce(&mut O) -> Result<T, E>,
    ) -> Result<T, E> {
        if !self.shares_terminal {
            return write(out);
        }
        self.bar.suspend(|| {
            let written = write(out)?;
            out.flush_all()?;
            Ok(written)
        })
    }
}

/// What [`Progress::print`] writes to: standard output, or a CSV writer over it, which keeps
/// a buffer of its own.
pub(crate) trait Flush {
    /// Writes out everything buffered.
    fn flush_all(&mut self) -> io::Result<()>;
}

impl Flush for dyn Write + '_ {
    fn flush_all(&mut self) -> io::Result<()> {
        self.flush()
    }
}

impl<W: Write> Flush for csv::Writer<W> {
    fn flush_all(&mut self) -> io::Result<()> {
        // The CSV writer's buffer, then `W`'s.
        self.flush()
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// A bar drawn on `target` in the style of [`TEMPLATE`].
fn styled(steps: u64, what: &str, target: ProgressDrawTarget) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(steps), target);
    if let Ok(style) = ProgressStyle::with_template(TEMPLATE) {
        bar.set_style(style.with_key("rate", write_rate));
    }
    bar.set_message(what.to_string());
    bar
}

/// The `{rate}` of [`TEMPLATE`].
fn write_rate(state: &ProgressState, text: &mut dyn fmt::Write) {
    let _ = text.write_str(&rate(state.per_sec()));
}

/// Steps per second as a whole number (`12/s`); under one step in two seconds, the seconds a
/// step takes (`1 per 4s`); `0/s` before there is a rate.
fn rate(per_sec: f64) -> String {
    if !per_sec.is_finite() || per_sec <= 0.0 {
        return "0/s".to_string();
    }
    if per_sec < 0.5 {
        // At least 2 (1 / 0.5), so that no rate reads `1 per 1s`.
        return format!("1 per {}s", (1.0 / per_sec).round() as u64);
    }
    format!("{}/s", per_sec.round() as u64)
}

#[cfg(test)]
mod tests {
    use super::rate;

    #[test]
    fn rates_are_whole_numbers() {
        assert_eq!(rate(12.3456), "12/s");
        assert_eq!(rate(12.5), "13/s");
        assert_eq!(rate(1234.9), "1235/s");
        assert_eq!(rate(0.5), "1/s");
        assert_eq!(rate(1.49), "1/s");
        // Slow steps: how long each takes.
        assert_eq!(rate(0.49), "1 per 2s");
        assert_eq!(rate(0.25), "1 per 4s");
        assert_eq!(rate(1.0 / 90.0), "1 per 90s");
        // No rate yet, or none that makes sense.
        for none in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(rate(none), "0/s", "{none}");
        }
        // Huge or tiny rates stay whole numbers too.
        assert_eq!(rate(1e30), format!("{}/s", u64::MAX));
        assert_eq!(rate(1e-30), format!("1 per {}s", u64::MAX));
        for per_sec in [0.001, 0.3, 0.7, 3.3, 99.99, 1e6 + 0.4] {
            let text = rate(per_sec);
            let digits = text.trim_start_matches("1 per ");
            assert!(
                digits
                    .chars()
                    .take_while(|c| *c != '/' && *c != 's')
                    .all(|c| c.is_ascii_digit()),
                "{per_sec}: {text}"
            );
        }
    }

    /// A terminal that keeps what is drawn on it.
    #[derive(Debug, Clone, Default)]
    struct Screen(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

    impl indicatif::TermLike for Screen {
        fn width(&self) -> u16 {
            100
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, line: &str) -> std::io::Result<()> {
            self.write_str(line)
        }
        fn write_str(&self, text: &str) -> std::io::Result<()> {
            if !text.is_empty() {
                self.0.lock().unwrap().push(text.to_string());
            }
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// The bar as drawn: what it does, the bar, steps, rate and time left, every number
    /// whole (indicatif's own `{per_sec}` would draw `2.4690/s`).
    #[test]
    fn a_bar_shows_whole_numbers() {
        let screen = Screen::default();
        let target = indicatif::ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let bar = super::styled(40, "checking", target);
        for _ in 0..12 {
            std::thread::sleep(std::time::Duration::from_millis(5));
            bar.inc(1);
        }
        bar.force_draw();
        let lines = screen.0.lock().unwrap().clone();
        // The last bar drawn (indicatif also writes spaces to clear what was there).
        let line = (lines.iter().rev())
            .find(|line| line.starts_with("checking"))
            .unwrap_or_else(|| panic!("no bar in {lines:?}"))
            .trim_end();
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(words[0], "checking", "{line}");
        assert_eq!(words[2], "12/40", "{line}");
        let (rate, eta) = (&words[3..words.len() - 2], &words[words.len() - 2..]);
        let whole = |text: &str| !text.is_empty() && text.chars().all(|c| c.is_ascii_digit());
        match rate {
            [per_sec] => {
                assert!(
                    whole(per_sec.strip_suffix("/s").unwrap_or_default()),
                    "{line}"
                )
            }
            ["1", "per", seconds] => {
                assert!(
                    whole(seconds.strip_suffix('s').unwrap_or_default()),
                    "{line}"
                )
            }
            _ => panic!("no rate in {line:?}"),
        }
        assert_eq!(eta[0], "eta", "{line}");
        let digits = eta[1].trim_end_matches(|c: char| c.is_ascii_alphabetic());
        assert!(whole(digits), "{line}");
        assert!(!line.contains('.'), "{line}");
    }
}
