//! What the API advertises an actor may do with one object.

/// Capabilities shown in `summary_fields.user_capabilities`, so clients can
/// hide buttons the server would refuse anyway.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Capabilities {
    /// The actor may change the object.
    pub edit: bool,
    /// The actor may delete the object.
    pub delete: bool,
}
