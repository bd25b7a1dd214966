//! Progress of a long command on stderr: a spinner with running counts while stderr is a
//! terminal, nothing otherwise (logs and pipes get only the final summary).

use std::io::IsTerminal;
use std::time::Duration;

use acs_app::housekeeping::{Rows, counted};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Running counts of a housekeeping command, shown as a spinner line.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    verb: &'static str,
    shown: &'static [Rows],
    access_tokens: usize,
    refresh_tokens: usize,
    authorization_codes: usize,
    sessions: usize,
}

impl Progress {
    /// A spinner saying `verb` ("Revoked", "Deleted") and the counts so far of `shown`.
    pub fn new(verb: &'static str, shown: &'static [Rows]) -> Self {
        let target = if std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(None, target);
        let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(120));
        let progress = Progress {
            bar,
            verb,
            shown,
            access_tokens: 0,
            refresh_tokens: 0,
            authorization_codes: 0,
            sessions: 0,
        };
        progress.show();
        progress
    }

    /// Counts one committed batch.
    pub fn batch(&mut self, rows: Rows, count: usize) {
        match rows {
            Rows::AccessTokens => self.access_tokens += count,
            Rows::RefreshTokens => self.refresh_tokens += count,
            Rows::AuthorizationCodes => self.authorization_codes += count,
            Rows::Sessions => self.sessions += count,
        }
        self.show();
    }

    fn show(&self) {
        let counts: Vec<String> = self
            .shown
            .iter()
            .map(|rows| match rows {
                Rows::AccessTokens => counted(self.access_tokens, "access token", "access tokens"),
                Rows::RefreshTokens => {
                    counted(self.refresh_tokens, "refresh token", "refresh tokens")
                }
                Rows::AuthorizationCodes => counted(
                    self.authorization_codes,
                    "authorization code",
                    "authorization codes",
                ),
                Rows::Sessions => counted(self.sessions, "session", "sessions"),
            })
            .collect();
        self.bar
            .set_message(format!("{} {}", self.verb, counts.join(", ")));
    }

    /// Removes the spinner, so the summary that follows stands alone.
    pub fn finish(self) {
        self.bar.finish_and_clear();
    }
}
