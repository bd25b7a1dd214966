//! How a job runs `ansible-playbook`, as the reference's job templates and jobs say it: the
//! job type (`run`, or `check` for `--check`), the tags to run and to skip, the verbosity,
//! diff mode, forks and a timeout. A template holds them; a launch may give any of them
//! instead where the template prompts for it (its `ask_*_on_launch`).

use acs_storage::job_templates::JobTemplate;
use serde_json::{Value, json};

use crate::http::fields::{FieldReader, Text};

/// Each value's field and the template's prompt for it, in the order records show them.
pub const FIELDS_AND_PROMPTS: [(&str, &str); 7] = [
    ("job_type", "ask_job_type_on_launch"),
    ("job_tags", "ask_tags_on_launch"),
    ("skip_tags", "ask_skip_tags_on_launch"),
    ("verbosity", "ask_verbosity_on_launch"),
    ("diff_mode", "ask_diff_mode_on_launch"),
    ("forks", "ask_forks_on_launch"),
    ("timeout", "ask_timeout_on_launch"),
];

/// The job types: a run, or a dry run that changes nothing (`--check`).
pub const JOB_TYPES: [&str; 2] = ["run", "check"];

/// The most `-v` ansible takes (the reference's "5 (WinRM Debug)").
pub const MAX_VERBOSITY: i64 = 5;

/// The longest tag list, in characters.
const TAGS_LENGTH: usize = 1024;

/// The values a body gives; `None` where it gives none (or gives one that is invalid, the
/// reason then being in the reader).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunOptions {
    /// `job_type`.
    pub job_type: Option<String>,
    /// `job_tags`.
    pub job_tags: Option<String>,
    /// `skip_tags`.
    pub skip_tags: Option<String>,
    /// `verbosity`.
    pub verbosity: Option<i32>,
    /// `diff_mode`.
    pub diff_mode: Option<bool>,
    /// `forks`.
    pub forks: Option<i32>,
    /// `timeout`, in seconds.
    pub timeout: Option<i32>,
}

impl RunOptions {
    /// Reads `field`, one of [`FIELDS_AND_PROMPTS`]' fields, from `fields`; any other field
    /// is left alone.
    pub fn read(&mut self, fields: &mut FieldReader<'_>, field: &str) {
        let count = |value: Option<i64>| value.and_then(|value| i32::try_from(value).ok());
        match field {
            "job_type" => self.job_type = fields.choice(field, &JOB_TYPES),
            "job_tags" => self.job_tags = fields.text(field, Text::optional(TAGS_LENGTH)),
            "skip_tags" => self.skip_tags = fields.text(field, Text::optional(TAGS_LENGTH)),
            "verbosity" => self.verbosity = count(fields.integer(field, 0, MAX_VERBOSITY)),
            "diff_mode" => self.diff_mode = fields.boolean(field),
            "forks" => self.forks = count(fields.integer(field, 0, i64::from(i32::MAX))),
            "timeout" => self.timeout = count(fields.integer(field, 0, i64::from(i32::MAX))),
            _ => {}
        }
    }

    /// Reads every one of them.
    pub fn read_all(fields: &mut FieldReader<'_>) -> Self {
        let mut options = RunOptions::default();
        for (field, _) in FIELDS_AND_PROMPTS {
            options.read(fields, field);
        }
        options
    }

    /// These values, the defaults where none was given (for a new template, or `PUT`).
    pub fn or_defaults(self) -> Self {
        RunOptions {
            job_type: Some(self.job_type.unwrap_or_else(|| JOB_TYPES[0].to_owned())),
            job_tags: Some(self.job_tags.unwrap_or_default()),
            skip_tags: Some(self.skip_tags.unwrap_or_default()),
            verbosity: Some(self.verbosity.unwrap_or_default()),
            diff_mode: Some(self.diff_mode.unwrap_or_default()),
            forks: Some(self.forks.unwrap_or_default()),
            timeout: Some(self.timeout.unwrap_or_default()),
        }
    }

    /// These values where given, `template`'s elsewhere.
    pub fn over(self, template: &JobTemplate) -> Self {
        RunOptions {
            job_type: self.job_type.or_else(|| Some(template.job_type.clone())),
            job_tags: self.job_tags.or_else(|| Some(template.job_tags.clone())),
            skip_tags: self.skip_tags.or_else(|| Some(template.skip_tags.clone())),
            verbosity: self.verbosity.or(Some(template.verbosity)),
            diff_mode: self.diff_mode.or(Some(template.diff_mode)),
            forks: self.forks.or(Some(template.forks)),
            timeout: self.timeout.or(Some(template.timeout)),
        }
    }
}

/// Whether `template` prompts for `field` (one of [`FIELDS_AND_PROMPTS`]' fields).
pub fn prompts_for(template: &JobTemplate, field: &str) -> bool {
    match field {
        "job_type" => template.ask_job_type_on_launch,
        "job_tags" => template.ask_tags_on_launch,
        "skip_tags" => template.ask_skip_tags_on_launch,
        "verbosity" => template.ask_verbosity_on_launch,
        "diff_mode" => template.ask_diff_mode_on_launch,
        "forks" => template.ask_forks_on_launch,
        "timeout" => template.ask_timeout_on_launch,
        _ => false,
    }
}

/// `template`'s values by field, as its record and its launch's defaults show them.
pub fn shown(template: &JobTemplate) -> [(&'static str, Value); 7] {
    [
        ("job_type", json!(template.job_type)),
        ("job_tags", json!(template.job_tags)),
        ("skip_tags", json!(template.skip_tags)),
        ("verbosity", json!(template.verbosity)),
        ("diff_mode", json!(template.diff_mode)),
        ("forks", json!(template.forks)),
        ("timeout", json!(template.timeout)),
    ]
}

/// `template`'s prompts for these values by prompt name.
pub fn prompts_shown(template: &JobTemplate) -> [(&'static str, Value); 7] {
    FIELDS_AND_PROMPTS.map(|(field, prompt)| (prompt, json!(prompts_for(template, field))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(body: Value) -> (RunOptions, Result<(), String>) {
        let body = body.as_object().cloned().unwrap_or_default();
        let mut fields = FieldReader::new(&body, false);
        let options = RunOptions::read_all(&mut fields);
        (
            options,
            fields.finish().map_err(|error| format!("{error:?}")),
        )
    }

    #[test]
    fn values_are_read_with_the_references_rules() {
        let (options, checked) = read(json!({
            "job_type": "check", "job_tags": "a,b", "verbosity": 3, "diff_mode": true,
            "forks": 10, "timeout": "60"
        }));
        assert_eq!(checked, Ok(()));
        assert_eq!(options.job_type.as_deref(), Some("check"));
        assert_eq!(options.job_tags.as_deref(), Some("a,b"));
        assert_eq!(options.skip_tags, None);
        assert_eq!(
            (
                options.verbosity,
                options.diff_mode,
                options.forks,
                options.timeout
            ),
            (Some(3), Some(true), Some(10), Some(60))
        );
        let (_, refused) = read(json!({"job_type": "scan", "verbosity": 6, "forks": -1}));
        let refused = refused.expect_err("refused");
        for message in [
            "\\\"scan\\\" is not a valid choice.",
            "less than or equal to 5",
            "greater than or equal to 0",
        ] {
            assert!(refused.contains(message), "{message}: {refused}");
        }
    }

    #[test]
    fn defaults_fill_what_was_not_given() {
        let options = RunOptions {
            verbosity: Some(2),
            ..RunOptions::default()
        }
        .or_defaults();
        assert_eq!(options.job_type.as_deref(), Some("run"));
        assert_eq!(options.verbosity, Some(2));
        assert_eq!(options.timeout, Some(0));
    }
}
