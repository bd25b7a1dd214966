//! How `acs-server` writes its log: to stderr, one event per line, as text or as JSON
//! (`ACS_LOG_FORMAT`), coloured only when stderr is a terminal so that a log redirected to a
//! file, journald or a log shipper holds no terminal escape codes.
//!
//! Lines are formatted where they happen and written by a thread of their own, in batches
//! (see [`batched`]): an access-log line per request cost a `write` system call on the HTTP
//! worker. The writer never drops a line; when it falls behind, logging waits for it.

mod batched;
mod text;

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

pub use batched::BatchGuard;

/// The variable that selects the log format.
pub const LOG_FORMAT_VARIABLE: &str = "ACS_LOG_FORMAT";

/// Log directives no `RUST_LOG` can lower: handlebars logs, at debug, the value of every
/// helper parameter it renders, and the pages show secrets once (a new token, a client
/// secret) while injector templates render secret credential inputs.
const SECRET_SAFE_DIRECTIVES: &[&str] = &["handlebars=info"];

/// The shape of one log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// `timestamp LEVEL target: message field=value…`, for people.
    Text,
    /// One JSON object per line (`timestamp`, `level`, `target`, `fields` with `message`,
    /// and the span of the event when there is one), for log shippers.
    Json,
}

impl LogFormat {
    /// Reads [`LOG_FORMAT_VARIABLE`]: unset or empty is [`LogFormat::Text`].
    pub fn from_env() -> Result<LogFormat, String> {
        match std::env::var(LOG_FORMAT_VARIABLE) {
            Ok(value) => LogFormat::parse(&value),
            Err(std::env::VarError::NotPresent) => Ok(LogFormat::Text),
            Err(std::env::VarError::NotUnicode(_)) => Err(format!(
                "{LOG_FORMAT_VARIABLE} must be \"text\" or \"json\""
            )),
        }
    }

    fn parse(value: &str) -> Result<LogFormat, String> {
        match value.trim() {
            "" | "text" => Ok(LogFormat::Text),
            "json" => Ok(LogFormat::Json),
            other => Err(format!(
                "{LOG_FORMAT_VARIABLE} must be \"text\" or \"json\", not {other:?}"
            )),
        }
    }
}

/// Whether text lines are coloured: only on a terminal, and never when `NO_COLOR` is set
/// (<https://no-color.org>).
fn colour_wanted() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// Installs the process's log subscriber: level from `RUST_LOG` (default `info`), with
/// [`SECRET_SAFE_DIRECTIVES`] on top. Keep the guard until the process ends: dropping it
/// writes what is still buffered.
#[must_use = "dropping the guard stops the log writer"]
pub fn init(format: LogFormat) -> std::io::Result<BatchGuard> {
    let mut filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info"));
    for directive in SECRET_SAFE_DIRECTIVES {
        if let Ok(directive) = directive.parse() {
            filter = filter.add_directive(directive);
        }
    }
    let (writer, guard) = batched::start(std::io::stderr(), "log-writer")?;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(writer);
    match format {
        LogFormat::Text => builder
            .with_ansi(colour_wanted())
            .event_format(text::TextFormat::default())
            .init(),
        LogFormat::Json => builder
            .json()
            .with_current_span(true)
            .with_span_list(false)
            .init(),
    }
    Ok(guard)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_are_named_text_and_json() {
        assert_eq!(LogFormat::parse("text"), Ok(LogFormat::Text));
        assert_eq!(LogFormat::parse(""), Ok(LogFormat::Text));
        assert_eq!(LogFormat::parse(" json "), Ok(LogFormat::Json));
    }

    #[test]
    fn an_unknown_format_names_the_variable_and_the_choices() {
        let error = LogFormat::parse("JSON-lines").unwrap_err();
        assert!(error.contains("ACS_LOG_FORMAT"), "{error}");
        assert!(error.contains("\"text\" or \"json\""), "{error}");
        assert!(error.contains("JSON-lines"), "{error}");
    }
}
