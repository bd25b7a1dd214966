//! `injection_plan`: how many injection plans per second one core makes for a typical custom
//! credential type (five fields, five env variables, nested extra_vars with a list, two
//! files), from its stored documents as a run reads them: the type's input and injector
//! configurations are validated, the namespace built, every template parsed and rendered, the
//! recorded environment masked and the extra-vars file written as `!unsafe` YAML.
//!
//! The baseline, measured in the same run, builds the same output by hand (`format!` and
//! `serde_json`, no templates): the ratio says what the template engine and the checks cost
//! over the least work that produces those strings.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use acs_injectors::{PlanOptions, plan};
use serde_json::{Map, Value, json};

use super::markdown::thousands;

/// The scenario's name.
pub const NAME: &str = "injection_plan";

/// What one side measured.
#[derive(Debug, Clone, Copy)]
pub struct Rate {
    /// Operations completed.
    pub count: u64,
    /// Operations per second.
    pub per_sec: f64,
    /// Median microseconds per operation.
    pub p50_us: f64,
    /// 99th percentile microseconds per operation.
    pub p99_us: f64,
}

/// Planning next to its hand-written baseline.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    /// Plans.
    pub planning: Rate,
    /// The same output written by hand.
    pub baseline: Rate,
}

impl Measured {
    /// Plans per second as a percentage of the baseline's.
    pub fn percent(&self) -> f64 {
        100.0 * self.planning.per_sec / self.baseline.per_sec
    }

    /// The JSON form for `benchmarks.json`.
    pub fn json(&self) -> Value {
        let rate = |r: &Rate| json!({"count": r.count, "per_sec": r.per_sec, "p50_us": r.p50_us, "p99_us": r.p99_us});
        json!({
            "scenario": NAME,
            "plans": rate(&self.planning),
            "baseline": rate(&self.baseline),
            "baseline_percent": self.percent(),
        })
    }
}

fn inputs() -> Value {
    json!({
        "fields": [
            {"id": "api_user", "label": "User", "type": "string"},
            {"id": "api_token", "label": "Token", "type": "string", "secret": true},
            {"id": "cert", "label": "Certificate", "type": "string", "multiline": true},
            {"id": "key", "label": "Key", "type": "string", "secret": true, "multiline": true},
            {"id": "verbose", "label": "Verbose", "type": "boolean"},
        ],
        "required": ["api_user", "api_token"],
    })
}

fn injectors() -> Value {
    json!({
        "file": {"template.cert": "{{ cert }}", "template.key": "{{ key }}"},
        "env": {
            "MY_USER": "{{ api_user }}",
            "MY_TOKEN": "{{ api_token }}",
            "MY_CERT_FILE": "{{ svc.filename.cert }}",
            "MY_KEY_FILE": "{{ svc.filename.key }}",
            "MY_VERBOSE": "{{#if verbose}}yes{{else}}no{{/if}}",
        },
        "extra_vars": {
            "my_cloud": {"user": "{{ api_user }}", "token": "{{ api_token }}",
                         "hosts": ["{{ api_user }}-a", "{{ api_user }}-b", "static"]},
        },
    })
}

fn values() -> Map<String, Value> {
    let mut values = Map::new();
    values.insert("api_user".into(), "alice".into());
    values.insert(
        "api_token".into(),
        "0123456789abcdef0123456789abcdef".into(),
    );
    values.insert(
        "cert".into(),
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n".into(),
    );
    values.insert(
        "key".into(),
        "-----BEGIN KEY-----\nc2VjcmV0\n-----END KEY-----\n".into(),
    );
    values.insert("verbose".into(), true.into());
    values
}

const FILES_DIR: &str = "/var/lib/acs/runs/run_1_0011223344556677/env";

/// One plan, from the stored documents to the YAML text; returns a size so nothing is elided.
fn one_plan(inputs: &Value, injectors: &Value, values: &Map<String, Value>) -> usize {
    let (config, _) =
        acs_credential_types::validate_inputs_config(inputs, false).expect("valid inputs");
    let ids = config.field_ids();
    let injectors =
        acs_credential_types::validate_injectors(injectors, &ids, false).expect("valid injectors");
    let templates = acs_injectors::InjectorTemplates::from(&injectors);
    let injection =
        acs_credential_types::credential_injection("bench", &templates, &config, values);
    let options = PlanOptions {
        files_dir: FILES_DIR.to_owned(),
        extra_vars: true,
        env_allowed: acs_credential_types::env_name_allowed,
    };
    let plan = plan(std::slice::from_ref(&injection), &options).expect("a plan");
    plan.env.len()
        + plan.recorded_env.len()
        + plan.files.len()
        + plan.extra_vars_yaml().map_or(0, |y| y.len())
}

/// The same strings built by hand.
fn one_by_hand(values: &Map<String, Value>) -> usize {
    let text = |key: &str| values.get(key).and_then(Value::as_str).unwrap_or_default();
    let (user, token) = (text("api_user"), text("api_token"));
    let cert_path = format!("{FILES_DIR}/credential_0_file_0");
    let key_path = format!("{FILES_DIR}/credential_0_file_1");
    let files = [
        (cert_path.clone(), text("cert").to_owned()),
        (key_path.clone(), text("key").to_owned()),
    ];
    let verbose = if values.get("verbose").and_then(Value::as_bool) == Some(true) {
        "yes"
    } else {
        "no"
    };
    let env: BTreeMap<String, String> = [
        ("MY_USER", user.to_owned()),
        ("MY_TOKEN", token.to_owned()),
        ("MY_CERT_FILE", cert_path.clone()),
        ("MY_KEY_FILE", key_path.clone()),
        ("MY_VERBOSE", verbose.to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let mut recorded = env.clone();
    recorded.insert("MY_TOKEN".into(), "**********".into());
    let extra = json!({"my_cloud": {"user": user, "token": token, "hosts": [format!("{user}-a"), format!("{user}-b"), "static"]}});
    let yaml = serde_json::to_string(&extra).unwrap_or_default();
    env.len() + recorded.len() + files.len() + yaml.len()
}

/// Runs `work` for `duration` on this thread.
fn measure(duration: Duration, mut work: impl FnMut() -> usize) -> Rate {
    for _ in 0..1000 {
        black_box(work());
    }
    let mut samples: Vec<u64> = Vec::new();
    let started = Instant::now();
    while started.elapsed() < duration {
        let one = Instant::now();
        black_box(work());
        samples.push(u64::try_from(one.elapsed().as_nanos()).unwrap_or(u64::MAX));
    }
    let elapsed = started.elapsed().as_secs_f64();
    samples.sort_unstable();
    let at = |q: f64| {
        let rank = ((q * samples.len() as f64).ceil() as usize).clamp(1, samples.len().max(1));
        samples.get(rank - 1).copied().unwrap_or(0) as f64 / 1000.0
    };
    Rate {
        count: samples.len() as u64,
        per_sec: samples.len() as f64 / elapsed,
        p50_us: at(0.50),
        p99_us: at(0.99),
    }
}

/// Measures planning and its baseline, `duration` each.
pub fn run(duration: Duration) -> Measured {
    let (inputs, injectors, values) = (inputs(), injectors(), values());
    assert!(
        one_plan(&inputs, &injectors, &values) > 0,
        "the bench type plans"
    );
    let baseline = measure(duration, || one_by_hand(black_box(&values)));
    let planning = measure(duration, || {
        one_plan(
            black_box(&inputs),
            black_box(&injectors),
            black_box(&values),
        )
    });
    Measured { planning, baseline }
}

/// The result as a Markdown table.
pub fn markdown(result: &Measured) -> String {
    format!(
        "| scenario | per second | p50 µs | p99 µs | baseline per second | % of baseline |\n\
         |---|---:|---:|---:|---:|---:|\n\
         | {NAME} | {} | {:.1} | {:.1} | {} | {:.1}% |\n",
        thousands(result.planning.per_sec),
        result.planning.p50_us,
        result.planning.p99_us,
        thousands(result.baseline.per_sec),
        result.percent()
    )
}
