//! The text log line: tracing-subscriber's `Full` format, byte for byte, written without most
//! of `core::fmt` for the events ACS itself emits.
//!
//! Every request logs one access line, and the `Full` formatter spent about 12 500 of the
//! 78 000 instructions a cached bearer request cost the server (callgrind, 4 000 requests):
//! the timestamp's seven padded integers, a style wrapper around every field name and `=`
//! even with colours off, and `core::fmt` for each piece. This one writes the same line from
//! pieces: a timestamp whose date and time of day are formatted once a second, field names and
//! plain strings copied, integers through `itoa`. Events it does not speed up (inside a span,
//! coming from the `log` crate, or coloured for a terminal) are written by `Full` itself.

use std::cell::RefCell;
use std::fmt::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::fmt::format::{Format, Full, Writer};
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields};
use tracing_subscriber::registry::LookupSpan;

/// The text format of the log (see the module's documentation).
#[derive(Debug, Default)]
pub struct TextFormat {
    full: Format<Full>,
}

impl<S, N> FormatEvent<S, N> for TextFormat
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        ctx: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        let meta = event.metadata();
        // A `log` record's target and level are in its fields; `Full` normalizes them.
        let from_log = meta.fields().field("log.target").is_some();
        if writer.has_ansi_escapes() || from_log || ctx.event_scope().is_some() {
            return self.full.format_event(ctx, writer, event);
        }
        write_timestamp(&mut writer, SystemTime::now())?;
        writer.write_str(level_name(*meta.level()))?;
        writer.write_char(' ')?;
        writer.write_str(meta.target())?;
        writer.write_str(": ")?;
        let mut fields = Fields {
            writer: &mut writer,
            first: true,
            result: Ok(()),
        };
        event.record(&mut fields);
        fields.result?;
        writer.write_char('\n')
    }
}

/// The level, right-aligned in five columns, as `Full` writes it without colours.
fn level_name(level: Level) -> &'static str {
    match level {
        Level::TRACE => "TRACE",
        Level::DEBUG => "DEBUG",
        Level::INFO => " INFO",
        Level::WARN => " WARN",
        Level::ERROR => "ERROR",
    }
}

thread_local! {
    /// The second last formatted on this thread and its `YYYY-MM-DDTHH:MM:SS`.
    static SECOND: RefCell<(u64, String)> = const { RefCell::new((u64::MAX, String::new())) };
}

/// `2026-11-28T16:34:41.085752Z ` (UTC, microseconds, then a space), as `Full` writes it.
fn write_timestamp(writer: &mut impl Write, now: SystemTime) -> fmt::Result {
    let Ok(since_epoch) = now.duration_since(UNIX_EPOCH) else {
        // Before 1970: not worth a fast path.
        return write!(
            writer,
            "{} ",
            chrono::DateTime::<chrono::Utc>::from(now).format("%Y-%m-%dT%H:%M:%S%.6fZ")
        );
    };
    let seconds = since_epoch.as_secs();
    SECOND.with_borrow_mut(|(second, formatted)| {
        if *second != seconds {
            formatted.clear();
            let time = chrono::DateTime::<chrono::Utc>::from(
                UNIX_EPOCH + std::time::Duration::from_secs(seconds),
            );
            write!(formatted, "{}", time.format("%Y-%m-%dT%H:%M:%S"))?;
            *second = seconds;
        }
        writer.write_str(formatted)
    })?;
    let mut digits = *b".000000Z ";
    acs_app::write_digits(&mut digits[1..7], since_epoch.subsec_micros());
    // Only ASCII digits and punctuation were written.
    writer.write_str(std::str::from_utf8(&digits).map_err(|_| fmt::Error)?)
}

/// Writes an event's fields as `Full`'s default field formatter does: the message first as
/// it is (control characters escaped), then `name=value` with values in their `Debug` form,
/// separated by spaces.
struct Fields<'a, W> {
    writer: &'a mut W,
    first: bool,
    result: fmt::Result,
}

/// What a field is written as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// The event's message: as it is, control characters escaped, without a name.
    Message,
    /// `name=` and then the value.
    Named,
}

impl<W: Write> Fields<'_, W> {
    /// Starts a field: the space before it, then `name=` unless it is the message. `None`
    /// once writing has failed.
    fn start(&mut self, field: &Field) -> Option<Slot> {
        if self.result.is_err() {
            return None;
        }
        if !std::mem::take(&mut self.first) {
            self.result = self.writer.write_char(' ');
        }
        let name = field.name();
        if name == "message" {
            return self.result.is_ok().then_some(Slot::Message);
        }
        let name = name.strip_prefix("r#").unwrap_or(name);
        self.result = self.result.and_then(|()| {
            self.writer.write_str(name)?;
            self.writer.write_char('=')
        });
        self.result.is_ok().then_some(Slot::Named)
    }

    /// Writes a value that has no character to escape.
    fn plain(&mut self, field: &Field, value: &str) {
        if self.start(field).is_some() {
            self.result = self.writer.write_str(value);
        }
    }
}

impl<W: Write> Visit for Fields<'_, W> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.result = match self.start(field) {
            Some(Slot::Message) => Escaping(self.writer).write_str(value),
            Some(Slot::Named) => write_debug_str(self.writer, value),
            None => return,
        };
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.plain(field, itoa::Buffer::new().format(value));
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.plain(field, itoa::Buffer::new().format(value));
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.plain(field, if value { "true" } else { "false" });
    }

    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        let name = field.name();
        match value.source() {
            None => self.record_debug(field, &format_args!("{}", Escaped(value))),
            Some(source) => self.record_debug(
                field,
                &format_args!("{} {name}.sources={}", Escaped(value), Sources(source)),
            ),
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        // A `log` record's metadata, which `Full` shows in the line's head.
        if field.name().starts_with("log.") {
            return;
        }
        self.result = match self.start(field) {
            Some(Slot::Message) => write!(Escaping(self.writer), "{value:?}"),
            Some(Slot::Named) => write!(self.writer, "{value:?}"),
            None => return,
        };
    }
}

/// A string in its `Debug` form: quoted, with quotes, backslashes and characters that are not
/// printable escaped. Printable ASCII without either is copied between the quotes.
fn write_debug_str(writer: &mut impl Write, value: &str) -> fmt::Result {
    let plain = value
        .bytes()
        .all(|byte| (b' '..=b'~').contains(&byte) && byte != b'"' && byte != b'\\');
    if plain {
        writer.write_char('"')?;
        writer.write_str(value)?;
        writer.write_char('"')
    } else {
        write!(writer, "{value:?}")
    }
}

/// A writer that escapes terminal control characters as `Full` does in messages and errors
/// (so a value cannot rewrite a terminal showing the log).
struct Escaping<'a, W>(&'a mut W);

impl<W: Write> Write for Escaping<'_, W> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let harmless = text
            .bytes()
            .all(|byte| byte < 0x80 && !matches!(byte, 0x1b | 0x07 | 0x08 | 0x0c | 0x7f));
        if harmless {
            return self.0.write_str(text);
        }
        for ch in text.chars() {
            match ch {
                '\x1b' => self.0.write_str("\\x1b")?,
                '\x07' => self.0.write_str("\\x07")?,
                '\x08' => self.0.write_str("\\x08")?,
                '\x0c' => self.0.write_str("\\x0c")?,
                '\x7f' => self.0.write_str("\\x7f")?,
                '\u{80}'..='\u{9f}' => write!(self.0, "\\u{{{:x}}}", ch as u32)?,
                _ => self.0.write_char(ch)?,
            }
        }
        Ok(())
    }
}

/// An error's message, control characters escaped.
struct Escaped<'a>(&'a (dyn std::error::Error + 'static));

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(Escaping(f), "{}", self.0)
    }
}

impl fmt::Debug for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// An error's chain of sources, as `Full` lists them: `[first, second]`.
struct Sources<'a>(&'a (dyn std::error::Error + 'static));

impl fmt::Display for Sources<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut list = f.debug_list();
        let mut current = Some(self.0);
        while let Some(error) = current {
            list.entry(&Escaped(error));
            current = error.source();
        }
        list.finish()
    }
}

#[cfg(test)]
mod tests;
