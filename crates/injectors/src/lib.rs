//! Injector templates of ACS: parsing, save-time reference checks, rendering and the injection
//! plan of a run.
//!
//! A credential type describes how its inputs reach a job through *injectors*: environment
//! variables, extra variables and files whose contents are templates over the credential's input
//! fields. This crate owns the template language of those injectors and turns the injectors of
//! a run's credentials into what the run gets. It is pure: no I/O, no clock, no randomness and
//! no global mutable state.
//!
//! * [`template`]: the template language below: [`parse`], [`check`], [`render`];
//! * [`plan`](mod@plan): [`plan()`] renders several credentials' injectors into an
//!   [`InjectionPlan`] (env, recorded env, extra variables, files);
//! * [`yaml`]: [`unsafe_yaml`] writes extra variables with every string tagged `!unsafe`;
//! * [`redact`]: the recorded (masked) form of an environment ([`redact_recorded_env`]).
//!
//! # The template language
//!
//! Templates use a deliberately small subset of [Handlebars](https://handlebarsjs.com/):
//!
//! | construct | meaning |
//! |---|---|
//! | raw text | copied verbatim |
//! | `{{ path }}` | the value at `path`; never HTML-escaped |
//! | `{{{ path }}}` | exactly the same as `{{ path }}` |
//! | `{{json path}}` | the value at `path` as a JSON literal: a string quoted and escaped (also a valid YAML double-quoted scalar), `""` when unset, booleans as `true`/`false`; for JSON and YAML files |
//! | `{{#if path}}…{{else}}…{{/if}}` | the first branch when `path` is truthy, otherwise the `else` branch (optional; `{{else if other}}` chains are allowed) |
//! | `{{#unless path}}…{{else}}…{{/unless}}` | the inverse of `if` |
//! | `{{! comment }}`, `{{!-- comment --}}` | comments, rendering nothing |
//! | `\{{` | a literal `{{` |
//! | `{{~ path ~}}` | whitespace control: `~` trims the whitespace on its side of the tag |
//!
//! As in Handlebars, a block tag (`{{#if}}`, `{{else}}`, `{{/if}}`) or a comment standing alone on
//! its line removes that whole line from the output, so multi-line file templates can use blocks
//! without leaving blank lines.
//!
//! A *path* is a field name such as `username`, or dotted segments such as `svc.filename.cert`.
//! Every segment is an identifier (`[A-Za-z_][A-Za-z0-9_]*`). The names available to a template are
//! the credential type's input field ids plus the reserved `svc` namespace:
//!
//! * `svc.filename`: the path of the file written for the unnamed file injector (`template`);
//! * `svc.filename.<name>`: the path of the file written for the named file injector
//!   `template.<name>`.
//!
//! Everything else Handlebars offers is rejected when the template is parsed, with a reason that
//! names the construct: parent paths (`../`), `@root` and other `@` locals, `this`, literals,
//! subexpressions, block parameters, hash arguments, partials (`{{> x}}`), decorators (`{{* x}}`),
//! raw blocks and every helper other than `if`, `unless` and `json` (`each`, `with`, `lookup`,
//! `log`, `eq`, …). `json` takes exactly one path and cannot be a block. A field named `json` is
//! still printed by `{{ json }}`.
//!
//! # Life of a template
//!
//! 1. [`parse`] compiles the source and enforces the subset, collecting every [`Reference`] it
//!    makes (printed values and `if`/`unless` conditions alike).
//! 2. [`check`] validates those references against the names known when a credential type is saved
//!    ([`CheckNamespace`]), producing the reference system's messages such as `'nope' is undefined`.
//! 3. [`render`] (or a reusable [`Renderer`]) produces the text for a job run from the credential's
//!    input values and the paths of the files written for it ([`RenderNamespace`]). Rendering is
//!    lenient: an unset field renders as the empty string, booleans render as `true`/`false`, and
//!    input values are data that are never rendered again.
//! 4. At run time, [`plan()`] does steps 1 and 3 for every template of every credential of the
//!    run, choosing the file paths itself.
//!
//! ```
//! use acs_injectors::{CheckNamespace, FileNames, FilePaths, RenderNamespace};
//!
//! let template = acs_injectors::parse("{{ username }}:{{#if debug}}-v{{/if}}").unwrap();
//!
//! let names = CheckNamespace {
//!     fields: vec!["username".to_owned(), "debug".to_owned()],
//!     files: FileNames::None,
//! };
//! acs_injectors::check(&template, &names).unwrap();
//!
//! let mut fields = serde_json::Map::new();
//! fields.insert("username".to_owned(), "alice".into());
//! fields.insert("debug".to_owned(), true.into());
//! let namespace = RenderNamespace { fields, files: FilePaths::None };
//! assert_eq!(acs_injectors::render(&template, &namespace).unwrap(), "alice:-v");
//! ```

mod literal;
pub mod plan;
pub mod redact;
pub mod template;
pub mod yaml;

pub use plan::{
    CredentialInjection, FileTemplates, InjectionPlan, InjectorTemplates, PlanError, PlanOptions,
    PlannedFile, Section, SkippedEnv, plan,
};
pub use redact::{HIDDEN_VALUE, is_sensitive_env_name, redact_env_value, redact_recorded_env};
pub use template::{
    CheckNamespace, FileNames, FilePaths, JSON_HELPER, NAMESPACE, Reference, RenderError,
    RenderNamespace, Renderer, Template, TemplateError, UndefinedReference, check, parse, render,
};
pub use yaml::unsafe_yaml;
