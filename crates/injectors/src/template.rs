//! Injector templates: parsing into the supported Handlebars subset, save-time reference checks
//! and rendering for job runs.
//!
//! See the crate documentation for the template language.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::LazyLock;

use handlebars::template::{
    HelperTemplate, Parameter, Template as Compiled, TemplateElement as Element,
};
use handlebars::{
    Context, Handlebars, Helper, HelperResult, JsonRender, Output, Path, PathSeg, RenderContext,
    RenderErrorReason, Renderable, StringOutput, TemplateErrorReason,
};
use serde_json::{Map, Value};

use crate::literal::json_literal;

/// The reserved namespace of values provided by the service rather than by input fields.
pub const NAMESPACE: &str = "svc";

/// The attribute of [`NAMESPACE`] holding the paths of the files written by file injectors.
const FILENAME: &str = "filename";

/// The only block helpers a template may use.
const BLOCK_HELPERS: [&str; 2] = ["if", "unless"];

/// The one value helper a template may use: `{{json path}}` prints the value as a JSON literal.
pub const JSON_HELPER: &str = "json";

/// The helpers Handlebars registers by default that templates may not reach. They are removed from
/// the rendering registry so that a field carrying one of these names renders as a plain value.
const DISABLED_HELPERS: [&str; 15] = [
    "each", "with", "lookup", "raw", "log", "eq", "ne", "gt", "gte", "lt", "lte", "and", "or",
    "not", "len",
];

/// How deeply `if`/`unless` blocks (including `{{else if}}` chains) may nest.
const MAX_BLOCK_DEPTH: usize = 64;

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

/// A parsed injector template, restricted to the supported subset of Handlebars.
///
/// It keeps the compiled form, so rendering never parses the source again, and the names it
/// references, in source order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    source: String,
    compiled: Compiled,
    references: Vec<Reference>,
}

impl Template {
    /// The source text the template was parsed from.
    #[must_use]
    pub fn source(&self) -> &str {
        &self.source
    }

    /// Every path the template refers to, printed values and `if`/`unless` conditions alike, in
    /// source order. A path used twice appears twice.
    #[must_use]
    pub fn references(&self) -> &[Reference] {
        &self.references
    }
}

impl std::str::FromStr for Template {
    type Err = TemplateError;

    fn from_str(source: &str) -> Result<Self, Self::Err> {
        parse(source)
    }
}

/// A path a template refers to, such as `username` or `svc.filename.cert`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reference {
    segments: Vec<String>,
}

impl Reference {
    /// A reference made of the given segments (`["svc", "filename"]` for `svc.filename`).
    #[must_use]
    pub fn new(segments: Vec<String>) -> Self {
        Self { segments }
    }

    /// The segments of the path, never empty for a reference produced by [`parse`].
    #[must_use]
    pub fn segments(&self) -> &[String] {
        &self.segments
    }
}

impl fmt::Display for Reference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.segments.join("."))
    }
}

/// Why a template source was rejected. The `Display` form is the bare reason, one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// The source is not valid Handlebars, e.g. an unclosed `{{ username`.
    #[error("{0}")]
    Syntax(String),
    /// The source is valid Handlebars but uses a construct outside the supported subset, e.g. a
    /// partial or the `each` helper.
    #[error("{0}")]
    Unsupported(String),
}

/// Parses a template and checks that it stays within the supported subset.
///
/// # Errors
///
/// [`TemplateError::Syntax`] when the source does not parse and [`TemplateError::Unsupported`]
/// when it uses a construct other than raw text, values, `{{json path}}`, `if`/`unless` blocks,
/// comments, escapes and whitespace control.
pub fn parse(source: &str) -> Result<Template, TemplateError> {
    let compiled = Compiled::compile(source)
        .map_err(|error| TemplateError::Syntax(one_line(&describe_syntax_error(source, &error))))?;
    let mut references = Vec::new();
    collect(&compiled, 0, &mut references)?;
    Ok(Template {
        source: source.to_owned(),
        compiled,
        references,
    })
}

fn unsupported(reason: impl Into<String>) -> TemplateError {
    TemplateError::Unsupported(one_line(&reason.into()))
}

/// `text` with control characters escaped (`\n`), so a reason quoting the source stays the one
/// line its field message promises.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_debug().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// Walks the compiled template, rejecting anything outside the subset and collecting references.
fn collect(
    template: &Compiled,
    depth: usize,
    references: &mut Vec<Reference>,
) -> Result<(), TemplateError> {
    for element in &template.elements {
        match element {
            Element::RawString(_) | Element::Comment(_) => {}
            Element::Expression(helper) | Element::HtmlExpression(helper) => {
                references.push(value_reference(helper)?);
            }
            Element::HelperBlock(helper) => {
                if depth >= MAX_BLOCK_DEPTH {
                    return Err(unsupported(format!(
                        "blocks nested more than {MAX_BLOCK_DEPTH} levels deep are not supported"
                    )));
                }
                references.push(block_condition(helper)?);
                for branch in [&helper.template, &helper.inverse].into_iter().flatten() {
                    collect(branch, depth + 1, references)?;
                }
            }
            Element::DecoratorExpression(_) | Element::DecoratorBlock(_) => {
                return Err(unsupported("decorators are not supported"));
            }
            Element::PartialExpression(_) | Element::PartialBlock(_) => {
                return Err(unsupported("partials are not supported"));
            }
            _ => return Err(unsupported("this template construct is not supported")),
        }
    }
    Ok(())
}

fn helper_not_supported(name: &str) -> TemplateError {
    if BLOCK_HELPERS.contains(&name) {
        unsupported(format!(
            "`{name}` must be used as a block: {{{{#{name} path}}}}…{{{{/{name}}}}}"
        ))
    } else {
        unsupported(format!(
            "helper `{name}` is not supported; use `if`, `unless` or `{JSON_HELPER}`"
        ))
    }
}

/// The reference printed by `{{json path}}`: exactly one path, nothing else.
fn json_reference(helper: &HelperTemplate) -> Result<Reference, TemplateError> {
    if !helper.hash.is_empty() {
        return Err(unsupported(format!(
            "hash arguments are not supported in `{JSON_HELPER}`"
        )));
    }
    if helper.block_param.is_some() {
        return Err(unsupported("block parameters are not supported"));
    }
    match helper.params.as_slice() {
        [Parameter::Path(path)] => path_reference(path),
        [Parameter::Subexpression(_)] => Err(unsupported("subexpressions are not supported")),
        [Parameter::Literal(_)] => Err(unsupported(format!(
            "`{JSON_HELPER}` needs a field path, not a literal"
        ))),
        _ => Err(unsupported(format!(
            "`{JSON_HELPER}` takes exactly one field path: {{{{{JSON_HELPER} path}}}}"
        ))),
    }
}

/// The reference printed by `{{ path }}` / `{{{ path }}}`.
fn value_reference(helper: &HelperTemplate) -> Result<Reference, TemplateError> {
    let called = !helper.params.is_empty() || !helper.hash.is_empty();
    match &helper.name {
        Parameter::Subexpression(_) => Err(unsupported("subexpressions are not supported")),
        Parameter::Literal(_) => Err(unsupported(
            "literals cannot be printed; reference a field instead",
        )),
        Parameter::Name(name) if name == JSON_HELPER => json_reference(helper),
        Parameter::Name(name) => Err(helper_not_supported(name)),
        Parameter::Path(path) => {
            let raw = raw_path(path);
            if called || BLOCK_HELPERS.contains(&raw) {
                Err(helper_not_supported(raw))
            } else if helper.block_param.is_some() {
                Err(unsupported("block parameters are not supported"))
            } else {
                path_reference(path)
            }
        }
        _ => Err(unsupported("this expression is not supported")),
    }
}

/// The condition of an `{{#if path}}` / `{{#unless path}}` block.
fn block_condition(helper: &HelperTemplate) -> Result<Reference, TemplateError> {
    let name = match &helper.name {
        Parameter::Name(name) => name.as_str(),
        Parameter::Path(path) => raw_path(path),
        Parameter::Subexpression(_) => {
            return Err(unsupported("subexpressions are not supported"));
        }
        _ => return Err(unsupported("this block is not supported")),
    };
    if name == JSON_HELPER {
        return Err(unsupported(format!(
            "`{JSON_HELPER}` cannot be used as a block; write {{{{{JSON_HELPER} path}}}}"
        )));
    }
    if !BLOCK_HELPERS.contains(&name) {
        return Err(unsupported(format!(
            "helper `{name}` is not supported; use `if`, `unless` or `{JSON_HELPER}`"
        )));
    }
    if helper.block_param.is_some() {
        return Err(unsupported(format!(
            "block parameters are not supported in `{name}`"
        )));
    }
    if !helper.hash.is_empty() {
        return Err(unsupported(format!(
            "hash arguments are not supported in `{name}`"
        )));
    }
    match helper.params.as_slice() {
        [Parameter::Path(path)] => path_reference(path),
        [Parameter::Subexpression(_)] => Err(unsupported("subexpressions are not supported")),
        [Parameter::Literal(_)] => Err(unsupported(format!(
            "`{name}` needs a field path as its condition, not a literal"
        ))),
        _ => Err(unsupported(format!(
            "`{name}` takes exactly one field path as its condition"
        ))),
    }
}

fn raw_path(path: &Path) -> &str {
    match path {
        Path::Relative((_, raw)) | Path::Local((_, _, raw)) => raw,
    }
}

fn is_identifier(segment: &str) -> bool {
    let mut chars = segment.chars();
    chars
        .next()
        .is_some_and(|first| first.is_ascii_alphabetic() || first == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Accepts `name` and `a.b.c` paths whose segments are identifiers; names the construct otherwise.
fn path_reference(path: &Path) -> Result<Reference, TemplateError> {
    let (segs, raw) = match path {
        Path::Local((_, _, raw)) => {
            return Err(unsupported(format!(
                "local variables such as `{raw}` are not supported"
            )));
        }
        Path::Relative((segs, raw)) => (segs, raw.as_str()),
    };
    let mut segments = Vec::with_capacity(segs.len());
    for seg in segs {
        match seg {
            PathSeg::Named(name) => segments.push(name.clone()),
            PathSeg::Ruled(rule) => {
                let text = format!("{rule:?}");
                return Err(unsupported(match text.as_str() {
                    "path_root" => "`@root` is not supported".to_owned(),
                    "path_up" => "parent paths (`../`) are not supported".to_owned(),
                    "path_local" => format!("local variables such as `{raw}` are not supported"),
                    _ => format!("the path `{raw}` is not supported"),
                }));
            }
            _ => return Err(unsupported(format!("the path `{raw}` is not supported"))),
        }
    }
    if raw == "this"
        || raw.starts_with("this.")
        || raw.starts_with("this/")
        || raw.starts_with("./")
    {
        return Err(unsupported(
            "`this` is not supported; reference a field by name",
        ));
    }
    if raw.contains('[') {
        return Err(unsupported(format!(
            "bracketed path segments are not supported (`{raw}`)"
        )));
    }
    if raw.contains('/') {
        return Err(unsupported(format!(
            "`/` is not supported as a path separator; use `.` (`{raw}`)"
        )));
    }
    if segments.is_empty()
        || !segments.iter().all(|segment| is_identifier(segment))
        || segments.join(".") != raw
    {
        return Err(unsupported(format!(
            "`{raw}` is not a valid field path; use a field name or dotted names such as `svc.filename`"
        )));
    }
    Ok(Reference::new(segments))
}

// ---------------------------------------------------------------------------------------------
// Syntax error messages
// ---------------------------------------------------------------------------------------------

/// Turns a Handlebars compile error into a one-line message without the source excerpt.
fn describe_syntax_error(source: &str, error: &handlebars::TemplateError) -> String {
    let position = error.pos();
    let offset = position.map_or(source.len(), |(line, column)| {
        byte_offset(source, line, column)
    });
    let at = position.map_or_else(String::new, |(line, column)| {
        format!(" at line {line}, column {column}")
    });
    match error.reason() {
        TemplateErrorReason::MismatchingClosedHelper(open, close)
        | TemplateErrorReason::MismatchingClosedDecorator(open, close) => {
            format!("`{{{{#{open}}}}}` is closed by `{{{{/{close}}}}}`{at}")
        }
        TemplateErrorReason::InvalidParam(param) => format!("invalid parameter `{param}`{at}"),
        TemplateErrorReason::NestedSubexpression => {
            format!("nested subexpressions are not supported{at}")
        }
        TemplateErrorReason::InvalidSyntax(message) => {
            describe_grammar_error(source, message, offset, &at)
        }
        other => format!("{other}{at}"),
    }
}

/// Describes a grammar (pest) failure from the rules it expected and where it stopped.
fn describe_grammar_error(source: &str, message: &str, offset: usize, at: &str) -> String {
    let at_end = source[offset..].is_empty();
    let found = source[offset..]
        .chars()
        .next()
        .map_or_else(String::new, |c| format!(", found `{}`", c.escape_debug()));
    // The tag the failure happened in: the last `{{` before the failure.
    let tag_start = source[..offset].rfind("{{");
    let tag = tag_start.map_or("", |start| &source[start..]);
    let expects = |rule: &str| {
        message
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|word| word == rule)
    };

    if tag.starts_with("{{!") && !tag.contains("}}") {
        let closer = if tag.starts_with("{{!--") {
            "--}}"
        } else {
            "}}"
        };
        return format!("unexpected end of template, expected `{closer}` to close the comment");
    }
    if message.starts_with("unexpected invert_tag_item") {
        return format!(
            "unexpected `{{{{else}}}}`{at}: `else` is only allowed once inside an `if` or `unless` block"
        );
    }
    if expects("trailing_tilde_to_omit_whitespace") {
        let closer = if tag_start.is_some_and(|start| start > 0 && source[..start].ends_with('{'))
            || tag.starts_with("{{{")
        {
            "}}}"
        } else {
            "}}"
        };
        // A partial closer such as the `}` of `{{ a }` counts as the end of the template.
        return if closer.starts_with(&source[offset..]) {
            format!("unexpected end of template, expected `{closer}` to close the expression")
        } else {
            format!("expected `{closer}` to close the expression{at}{found}")
        };
    }
    if expects("helper_block_end") && at_end {
        return match unclosed_block(source) {
            Some(name) => format!(
                "unexpected end of template, expected `{{{{/{name}}}}}` to close the `{name}` block"
            ),
            None => "unexpected end of template, a block is not closed".to_owned(),
        };
    }
    if expects("raw_block_end") && at_end {
        return "unexpected end of template, a raw block is not closed".to_owned();
    }
    if expects("path_inline") || expects("path_id") {
        let rest = &source[offset..];
        if let Some(closing) = rest.strip_prefix('/') {
            let name: String = closing
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            return format!("unexpected closing tag `{{{{/{name}}}}}`{at}: no block is open");
        }
        if at_end {
            return "unexpected end of template, expected a field name".to_owned();
        }
        return format!("expected a field name{at}{found}");
    }
    if at_end {
        "unexpected end of template".to_owned()
    } else {
        format!("invalid template syntax{at}{found}")
    }
}

/// The byte offset of a 1-based line and (character) column, clamped to the source.
fn byte_offset(source: &str, line: usize, column: usize) -> usize {
    let mut line_start = 0;
    for _ in 1..line {
        match source[line_start..].find('\n') {
            Some(newline) => line_start += newline + 1,
            None => return source.len(),
        }
    }
    source[line_start..]
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(source.len(), |(index, _)| line_start + index)
}

/// The innermost block opened with `{{#name …}}` and never closed (best effort, for messages).
fn unclosed_block(source: &str) -> Option<String> {
    let mut open = Vec::new();
    let mut rest = source;
    while let Some(start) = rest.find("{{") {
        let escaped = rest[..start].ends_with('\\');
        rest = &rest[start + 2..];
        if escaped {
            continue;
        }
        let tag = rest.trim_start_matches(['{', '~']).trim_start();
        let identifier = |text: &str| -> String {
            text.trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect()
        };
        if let Some(opening) = tag.strip_prefix('#') {
            let name = identifier(opening);
            if !name.is_empty() {
                open.push(name);
            }
        } else if tag.starts_with('/') {
            open.pop();
        }
    }
    open.pop()
}

// ---------------------------------------------------------------------------------------------
// Save-time checks
// ---------------------------------------------------------------------------------------------

/// Which file injectors a credential type defines, as far as `svc.filename` is concerned.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FileNames {
    /// No file injector: every use of `svc.filename` is an error.
    #[default]
    None,
    /// The unnamed file injector (`template`): `svc.filename` is its path.
    Single,
    /// Named file injectors (`template.<name>`): `svc.filename.<name>` is the path of each.
    Multi(BTreeSet<String>),
}

/// The names a template may use when a credential type is saved.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct CheckNamespace {
    /// The input field ids of the credential type. Each stands for a string value.
    pub fields: Vec<String>,
    /// The file injectors of the credential type.
    pub files: FileNames,
}

/// A reference that does not resolve at save time. The `Display` form is the reference system's
/// message for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UndefinedReference {
    /// The first segment is neither an input field nor the `svc` namespace.
    #[error("'{0}' is undefined")]
    Undefined(String),
    /// An attribute of a value that has none: `object` is `str object` for a field or file path,
    /// `svc` or `svc.filename` for the namespace.
    #[error("'{object}' has no attribute '{attribute}'")]
    NoAttribute {
        /// What the attribute was looked up on.
        object: String,
        /// The missing attribute.
        attribute: String,
    },
    /// `svc` itself was used as a value.
    #[error("Cannot directly reference reserved `svc` namespace container.")]
    NamespaceContainer,
    /// `svc.filename` was used as a value without an unnamed file injector.
    #[error("Must define unnamed file injector in order to reference `svc.filename`.")]
    UnnamedFileRequired,
}

fn str_attribute(attribute: &str) -> UndefinedReference {
    UndefinedReference::NoAttribute {
        object: "str object".to_owned(),
        attribute: attribute.to_owned(),
    }
}

impl CheckNamespace {
    /// Checks one reference against the namespace.
    ///
    /// # Errors
    ///
    /// The [`UndefinedReference`] describing the first segment that does not resolve.
    pub fn check_reference(&self, reference: &Reference) -> Result<(), UndefinedReference> {
        let [first, rest @ ..] = reference.segments() else {
            return Err(UndefinedReference::Undefined(String::new()));
        };
        if first == NAMESPACE {
            return self.check_namespace(rest);
        }
        if !self.fields.iter().any(|field| field == first) {
            return Err(UndefinedReference::Undefined(first.clone()));
        }
        match rest.first() {
            None => Ok(()),
            Some(attribute) => Err(str_attribute(attribute)),
        }
    }

    /// Checks the segments following `svc`.
    fn check_namespace(&self, rest: &[String]) -> Result<(), UndefinedReference> {
        let [attribute, rest @ ..] = rest else {
            return Err(UndefinedReference::NamespaceContainer);
        };
        if attribute != FILENAME {
            return Err(UndefinedReference::NoAttribute {
                object: NAMESPACE.to_owned(),
                attribute: attribute.clone(),
            });
        }
        match (&self.files, rest) {
            (FileNames::Single, []) => Ok(()),
            (FileNames::Single, [attribute, ..]) => Err(str_attribute(attribute)),
            (FileNames::None | FileNames::Multi(_), []) => {
                Err(UndefinedReference::UnnamedFileRequired)
            }
            (FileNames::Multi(names), [name, rest @ ..]) if names.contains(name) => {
                match rest.first() {
                    None => Ok(()),
                    Some(attribute) => Err(str_attribute(attribute)),
                }
            }
            (FileNames::None | FileNames::Multi(_), [name, ..]) => {
                Err(UndefinedReference::NoAttribute {
                    object: format!("{NAMESPACE}.{FILENAME}"),
                    attribute: name.clone(),
                })
            }
        }
    }
}

/// Checks every reference of `template` (values and conditions) against the names available
/// when a credential type is saved.
///
/// # Errors
///
/// The first reference, in source order, that does not resolve.
pub fn check(template: &Template, namespace: &CheckNamespace) -> Result<(), UndefinedReference> {
    template
        .references()
        .iter()
        .try_for_each(|reference| namespace.check_reference(reference))
}

// ---------------------------------------------------------------------------------------------
// Rendering
// ---------------------------------------------------------------------------------------------

/// The paths of the files written for a credential's file injectors.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum FilePaths {
    /// No file injector.
    #[default]
    None,
    /// The path of the unnamed file injector (`svc.filename`).
    Single(String),
    /// The path of each named file injector (`svc.filename.<name>`).
    Multi(BTreeMap<String, String>),
}

/// The values a template is rendered with for a job run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RenderNamespace {
    /// The credential's input values by field id. Fields that are not set are simply absent.
    pub fields: Map<String, Value>,
    /// The files written for the credential's file injectors.
    pub files: FilePaths,
}

impl RenderNamespace {
    /// The data handed to Handlebars: the fields plus `svc.filename`. A field named `svc` (which
    /// validation never allows) is shadowed by the namespace.
    fn data(&self) -> Value {
        let mut data = self.fields.clone();
        let mut namespace = Map::new();
        match &self.files {
            FilePaths::None => {}
            FilePaths::Single(path) => {
                namespace.insert(FILENAME.to_owned(), Value::String(path.clone()));
            }
            FilePaths::Multi(paths) => {
                let paths = paths
                    .iter()
                    .map(|(name, path)| (name.clone(), Value::String(path.clone())))
                    .collect();
                namespace.insert(FILENAME.to_owned(), Value::Object(paths));
            }
        }
        data.insert(NAMESPACE.to_owned(), Value::Object(namespace));
        Value::Object(data)
    }
}

/// Why rendering failed. Templates produced by [`parse`] only fail on unusual data, such as an
/// attribute looked up on a list value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct RenderError {
    message: String,
}

impl RenderError {
    fn from_handlebars(error: &handlebars::RenderError) -> Self {
        let reason = error.reason();
        let message = match (error.line_no, error.column_no) {
            (Some(line), Some(column)) => format!("{reason} at line {line}, column {column}"),
            _ => reason.to_string(),
        };
        Self { message }
    }
}

/// A configured Handlebars registry for rendering parsed templates: no HTML escaping, lenient
/// about missing values, and only the `if`, `unless` and `json` helpers. Nothing from user data
/// is ever registered in it, so one renderer can be shared by every render.
#[derive(Debug)]
pub struct Renderer {
    registry: Handlebars<'static>,
}

impl Default for Renderer {
    fn default() -> Self {
        Self::new()
    }
}

impl Renderer {
    /// A renderer with the injector configuration.
    #[must_use]
    pub fn new() -> Self {
        let mut registry = Handlebars::new();
        for helper in DISABLED_HELPERS {
            registry.unregister_helper(helper);
        }
        registry.register_escape_fn(handlebars::no_escape);
        registry.set_strict_mode(false);
        registry.register_helper(JSON_HELPER, Box::new(json_helper));
        Self { registry }
    }

    /// Renders `template` with `namespace`.
    ///
    /// An unset field renders as the empty string, booleans as `true`/`false`; `if`/`unless`
    /// use JSON truthiness (`false`, `""`, `null`, `0`, empty lists and objects and missing values
    /// are false). `{{ path }}` inserts the value verbatim, `{{json path}}` as a JSON literal
    /// (`""` when unset); either way it is never rendered again.
    ///
    /// # Errors
    ///
    /// A [`RenderError`] when Handlebars cannot evaluate a path against the data.
    pub fn render(
        &self,
        template: &Template,
        namespace: &RenderNamespace,
    ) -> Result<String, RenderError> {
        let context = Context::from(namespace.data());
        let mut render_context = RenderContext::new(None);
        let mut output = StringOutput::new();
        template
            .compiled
            .render(&self.registry, &context, &mut render_context, &mut output)
            .map_err(|error| RenderError::from_handlebars(&error))?;
        output.into_string().map_err(|error| RenderError {
            message: error.to_string(),
        })
    }
}

/// `{{json path}}`: the value at `path` as a JSON literal (see [`crate::literal::json_literal`]).
///
/// Handlebars calls a helper for a bare name too, so `{{ json }}` arrives here without a
/// parameter: it prints the field named `json` like any other value.
fn json_helper(
    helper: &Helper<'_>,
    _: &Handlebars<'_>,
    context: &Context,
    _: &mut RenderContext<'_, '_>,
    out: &mut dyn Output,
) -> HelperResult {
    let text = match helper.params().as_slice() {
        [] => context
            .data()
            .get(JSON_HELPER)
            .map(JsonRender::render)
            .unwrap_or_default(),
        [parameter] => json_literal(parameter.value()),
        // `parse` accepts exactly one parameter.
        _ => {
            return Err(RenderErrorReason::Other(format!(
                "`{JSON_HELPER}` takes exactly one field path"
            ))
            .into());
        }
    };
    out.write(&text)?;
    Ok(())
}

/// The shared renderer used by [`render`]; it holds no state that rendering changes.
static RENDERER: LazyLock<Renderer> = LazyLock::new(Renderer::new);

/// Renders `template` with `namespace` using a shared [`Renderer`].
///
/// # Errors
///
/// See [`Renderer::render`].
pub fn render(template: &Template, namespace: &RenderNamespace) -> Result<String, RenderError> {
    RENDERER.render(template, namespace)
}

#[cfg(test)]
mod tests;
