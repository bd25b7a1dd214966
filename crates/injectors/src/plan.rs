//! The injection plan of one run: what the credentials attached to a job (or an inventory
//! update) put into its environment, its extra variables and its private files.
//!
//! [`plan`] renders the injector templates of every credential and decides nothing about I/O:
//! the runner writes [`InjectionPlan::files`] into its private directory, sets
//! [`InjectionPlan::env`], records [`InjectionPlan::recorded_env`] and passes
//! [`InjectionPlan::extra_vars_yaml`] as `-e @file`.
//!
//! The order of work follows the reference system: each credential's files are planned first, so
//! that its env and extra-vars templates can reference their paths (`svc.filename`,
//! `svc.filename.<name>`); then its env; then its extra variables. A later credential overrides
//! the env variables and top-level extra variables of an earlier one.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde_json::{Map, Value};

use crate::redact::{HIDDEN_VALUE, redact_env_value};
use crate::template::{
    FilePaths, RenderError, RenderNamespace, Template, TemplateError, parse, render,
};
use crate::yaml::unsafe_yaml;

/// The file injectors of a credential type: the templates of the files it writes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FileTemplates {
    /// No file injector.
    #[default]
    None,
    /// The unnamed file injector (`template`), whose path is `svc.filename`.
    Single(String),
    /// Named file injectors (`template.<name>`), whose paths are `svc.filename.<name>`.
    Multi(BTreeMap<String, String>),
}

/// The injector templates of a credential type, as stored (they were validated when the type
/// was saved, and are parsed again here).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct InjectorTemplates {
    /// The file injectors.
    pub files: FileTemplates,
    /// The env injectors, name and template, in document order.
    pub env: Vec<(String, String)>,
    /// The extra-vars injectors: keys and string leaves are templates; values are strings,
    /// lists or objects of those.
    pub extra_vars: Map<String, Value>,
}

/// One credential to inject.
pub struct CredentialInjection<'a> {
    /// How errors name the credential, e.g. its name.
    pub label: &'a str,
    /// Its type's injector templates.
    pub templates: &'a InjectorTemplates,
    /// The real (decrypted) input values by field id; unset fields are absent.
    pub fields: Map<String, Value>,
    /// The ids of the fields whose values are secret: they are recorded as
    /// [`HIDDEN_VALUE`].
    pub secret_fields: BTreeSet<String>,
    /// Whether the type is managed (built in). Managed types leave out env variables that
    /// render empty, are not checked against [`PlanOptions::env_allowed`], and have their
    /// recorded env additionally masked by name ([`crate::redact_recorded_env`]).
    pub managed: bool,
}

// Field names only: the values are secrets.
impl fmt::Debug for CredentialInjection<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CredentialInjection")
            .field("label", &self.label)
            .field("templates", &self.templates)
            .field("fields", &self.fields.keys().collect::<Vec<_>>())
            .field("secret_fields", &self.secret_fields)
            .field("managed", &self.managed)
            .finish()
    }
}

/// How a run injects credentials.
#[derive(Debug, Clone)]
pub struct PlanOptions {
    /// The absolute directory the runner writes the planned files into.
    pub files_dir: String,
    /// Whether extra variables are injected (`false` for inventory updates).
    pub extra_vars: bool,
    /// Checks an env name of a custom (not managed) type again at run time; a refused name is
    /// skipped and listed in [`InjectionPlan::skipped_env`].
    pub env_allowed: fn(&str) -> Result<(), String>,
}

/// A file to write before the run.
#[derive(Clone, PartialEq, Eq)]
pub struct PlannedFile {
    /// The file name inside [`PlanOptions::files_dir`]. It never derives from user-controlled
    /// names: `credential_<i>_file` or `credential_<i>_file_<j>`.
    pub name: String,
    /// The absolute path: the directory, `/`, the name.
    pub path: String,
    /// The rendered content, written verbatim.
    pub content: String,
}

// The content holds secrets.
impl fmt::Debug for PlannedFile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlannedFile")
            .field("name", &self.name)
            .field("path", &self.path)
            .field("content_bytes", &self.content.len())
            .finish()
    }
}

/// An env injector left out because its name is not allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedEnv {
    /// The label of the credential.
    pub credential: String,
    /// The env name.
    pub name: String,
    /// Why [`PlanOptions::env_allowed`] refused it.
    pub reason: String,
}

impl fmt::Display for SkippedEnv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "credential {:?}: env injector {} skipped: {}",
            self.credential, self.name, self.reason
        )
    }
}

/// What a run gets from its credentials.
#[derive(Clone, PartialEq, Default)]
pub struct InjectionPlan {
    /// The variables to set, with real values.
    pub env: BTreeMap<String, String>,
    /// The same variables as recorded on the job: secret inputs masked (and, for managed types,
    /// masked by name).
    pub recorded_env: BTreeMap<String, String>,
    /// The extra variables (empty when [`PlanOptions::extra_vars`] is false).
    pub extra_vars: Map<String, Value>,
    /// The files to write, in credential order.
    pub files: Vec<PlannedFile>,
    /// The env injectors of custom types left out because their names are not allowed; the
    /// runner logs them.
    pub skipped_env: Vec<SkippedEnv>,
}

impl InjectionPlan {
    /// The extra variables as an `!unsafe` YAML document ([`unsafe_yaml`]), or `None` when
    /// there are none (then no file is written and no `-e` is passed).
    #[must_use]
    pub fn extra_vars_yaml(&self) -> Option<String> {
        (!self.extra_vars.is_empty()).then(|| unsafe_yaml(&self.extra_vars))
    }
}

// Names only where values are secrets.
impl fmt::Debug for InjectionPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InjectionPlan")
            .field("env", &self.env.keys().collect::<Vec<_>>())
            .field("recorded_env", &self.recorded_env)
            .field("extra_vars", &self.extra_vars.keys().collect::<Vec<_>>())
            .field("files", &self.files)
            .field("skipped_env", &self.skipped_env)
            .finish()
    }
}

/// The part of an injector configuration an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    /// The file injectors.
    File,
    /// The env injectors.
    Env,
    /// The extra-vars injectors.
    ExtraVars,
}

impl fmt::Display for Section {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Section::File => "file",
            Section::Env => "env",
            Section::ExtraVars => "extra_vars",
        })
    }
}

/// Why a plan could not be made. Each names the credential (by label), the section and the
/// key: `template` or `template.<name>` for files, the variable for env, the path
/// (`auth.hosts[1]`, with ` (key)` for a key) for extra variables.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// A stored template does not parse or leaves the supported subset.
    #[error(
        "credential {credential:?}: the {section} injector {key} is not a valid template ({reason})"
    )]
    Template {
        /// The credential's label.
        credential: String,
        /// The section of the template.
        section: Section,
        /// The key of the template.
        key: String,
        /// Why it was rejected.
        reason: TemplateError,
    },
    /// A template could not be rendered with the credential's values.
    #[error(
        "credential {credential:?}: the {section} injector {key} could not be rendered ({reason})"
    )]
    Render {
        /// The credential's label.
        credential: String,
        /// The section of the template.
        section: Section,
        /// The key of the template.
        key: String,
        /// Why rendering failed.
        reason: RenderError,
    },
    /// An env variable cannot be passed to a process: an empty name, a name holding `=`, or a
    /// NUL character in the name or the rendered value.
    #[error("credential {credential:?}: the env injector {name:?} cannot be set ({reason})")]
    Env {
        /// The credential's label.
        credential: String,
        /// The env name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
}

/// Makes the injection plan of one run from its credentials, in order.
///
/// For credential `i` (0-based): its files are named `credential_<i>_file` (the unnamed file)
/// or `credential_<i>_file_<j>` (the `j`-th named file in name order) and rendered with the real
/// values; its env templates are rendered with the real values into [`InjectionPlan::env`] and
/// with every secret value replaced by [`HIDDEN_VALUE`] into [`InjectionPlan::recorded_env`];
/// its extra-vars keys and string leaves are rendered with the real values, when
/// [`PlanOptions::extra_vars`] is set. Input values are data: they are never rendered again.
///
/// # Errors
///
/// The first [`PlanError`]: a stored template that no longer parses, one that cannot be
/// rendered, or an env variable no process can carry.
pub fn plan(
    credentials: &[CredentialInjection<'_>],
    options: &PlanOptions,
) -> Result<InjectionPlan, PlanError> {
    let mut plan = InjectionPlan::default();
    for (index, credential) in credentials.iter().enumerate() {
        let (files, paths) = file_paths(index, &credential.templates.files, &options.files_dir);
        let context = Context::new(credential, paths);
        for (key, source, mut file) in files {
            file.content = context.render_real(Section::File, &key, source)?;
            plan.files.push(file);
        }
        context.plan_env(options, &mut plan)?;
        if options.extra_vars {
            let extra_vars = context.extra_vars_object(None, &credential.templates.extra_vars)?;
            plan.extra_vars.extend(extra_vars);
        }
    }
    Ok(plan)
}

/// The files of credential `index` (error key, template, file without content) and the paths
/// its templates see.
fn file_paths<'t>(
    index: usize,
    templates: &'t FileTemplates,
    files_dir: &str,
) -> (Vec<(String, &'t str, PlannedFile)>, FilePaths) {
    let planned = |name: String| PlannedFile {
        path: format!("{}/{name}", files_dir.trim_end_matches('/')),
        name,
        content: String::new(),
    };
    match templates {
        FileTemplates::None => (Vec::new(), FilePaths::None),
        FileTemplates::Single(source) => {
            let file = planned(format!("credential_{index}_file"));
            let paths = FilePaths::Single(file.path.clone());
            (vec![("template".to_owned(), source.as_str(), file)], paths)
        }
        FileTemplates::Multi(sources) => {
            let mut files = Vec::with_capacity(sources.len());
            let mut paths = BTreeMap::new();
            // A BTreeMap iterates in name order, which gives `j`.
            for (position, (name, source)) in sources.iter().enumerate() {
                let file = planned(format!("credential_{index}_file_{position}"));
                paths.insert(name.clone(), file.path.clone());
                files.push((format!("template.{name}"), source.as_str(), file));
            }
            (files, FilePaths::Multi(paths))
        }
    }
}

/// One credential's rendering context: its real and safe namespaces.
struct Context<'c> {
    credential: &'c CredentialInjection<'c>,
    real: RenderNamespace,
    safe: RenderNamespace,
}

impl<'c> Context<'c> {
    fn new(credential: &'c CredentialInjection<'c>, paths: FilePaths) -> Self {
        // Booleans stay visible, as in the reference system: they are flags, not secrets.
        let safe_fields = credential
            .fields
            .iter()
            .map(|(id, value)| {
                let hidden = credential.secret_fields.contains(id) && !value.is_boolean();
                let value = if hidden {
                    Value::from(HIDDEN_VALUE)
                } else {
                    value.clone()
                };
                (id.clone(), value)
            })
            .collect();
        Self {
            credential,
            real: RenderNamespace {
                fields: credential.fields.clone(),
                files: paths.clone(),
            },
            safe: RenderNamespace {
                fields: safe_fields,
                files: paths,
            },
        }
    }

    fn parse(&self, section: Section, key: &str, source: &str) -> Result<Template, PlanError> {
        parse(source).map_err(|reason| PlanError::Template {
            credential: self.credential.label.to_owned(),
            section,
            key: key.to_owned(),
            reason,
        })
    }

    fn render(
        &self,
        section: Section,
        key: &str,
        template: &Template,
        namespace: &RenderNamespace,
    ) -> Result<String, PlanError> {
        render(template, namespace).map_err(|reason| PlanError::Render {
            credential: self.credential.label.to_owned(),
            section,
            key: key.to_owned(),
            reason,
        })
    }

    fn render_real(&self, section: Section, key: &str, source: &str) -> Result<String, PlanError> {
        let template = self.parse(section, key, source)?;
        self.render(section, key, &template, &self.real)
    }

    fn env_error(&self, name: &str, reason: &'static str) -> PlanError {
        PlanError::Env {
            credential: self.credential.label.to_owned(),
            name: name.to_owned(),
            reason,
        }
    }

    fn plan_env(&self, options: &PlanOptions, plan: &mut InjectionPlan) -> Result<(), PlanError> {
        let managed = self.credential.managed;
        for (name, source) in &self.credential.templates.env {
            if !managed && let Err(reason) = (options.env_allowed)(name) {
                plan.skipped_env.push(SkippedEnv {
                    credential: self.credential.label.to_owned(),
                    name: name.clone(),
                    reason,
                });
                continue;
            }
            if name.is_empty() || name.contains(['=', '\0']) {
                return Err(self.env_error(name, "the name is empty or holds `=` or NUL"));
            }
            let template = self.parse(Section::Env, name, source)?;
            let value = self.render(Section::Env, name, &template, &self.real)?;
            // A managed type's optional variable (the AWS session token without a token, the
            // Azure variables of the other authentication mode) renders empty: leave it out.
            if managed && value.is_empty() {
                continue;
            }
            if value.contains('\0') {
                return Err(self.env_error(name, "the value holds a NUL character"));
            }
            let recorded = self.render(Section::Env, name, &template, &self.safe)?;
            let recorded = if managed {
                redact_env_value(name, &recorded)
            } else {
                recorded
            };
            plan.env.insert(name.clone(), value);
            plan.recorded_env.insert(name.clone(), recorded);
        }
        Ok(())
    }

    /// Renders an extra-vars object; `parent` labels it in errors (`None` at the top level).
    fn extra_vars_object(
        &self,
        parent: Option<&str>,
        object: &Map<String, Value>,
    ) -> Result<Map<String, Value>, PlanError> {
        let mut rendered = Map::new();
        for (key, value) in object {
            let label = parent.map_or_else(|| key.clone(), |parent| format!("{parent}.{key}"));
            let rendered_key =
                self.render_real(Section::ExtraVars, &format!("{label} (key)"), key)?;
            rendered.insert(rendered_key, self.extra_var(&label, value)?);
        }
        Ok(rendered)
    }

    fn extra_var(&self, label: &str, value: &Value) -> Result<Value, PlanError> {
        match value {
            Value::String(source) => self
                .render_real(Section::ExtraVars, label, source)
                .map(Value::String),
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(index, item)| self.extra_var(&format!("{label}[{index}]"), item))
                .collect::<Result<_, _>>()
                .map(Value::Array),
            Value::Object(object) => self
                .extra_vars_object(Some(label), object)
                .map(Value::Object),
            // Validation allows only strings, lists and objects; anything else in a stored
            // document is data, not a template.
            other => Ok(other.clone()),
        }
    }
}

#[cfg(test)]
mod tests;
