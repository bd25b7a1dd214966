//! Why a map setting is refused.

/// A map setting refused at save time: where in the value, and why, in the reference's
/// words where it has them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.render())]
pub struct MapError {
    /// The keys from the setting's top down to the refused value (`["Ops", "remove"]`).
    pub path: Vec<String>,
    /// The reason.
    pub message: String,
}

impl MapError {
    /// A refusal of the value at `path`.
    pub fn at(path: &[&str], message: impl Into<String>) -> MapError {
        MapError {
            path: path.iter().map(|key| (*key).to_owned()).collect(),
            message: message.into(),
        }
    }

    /// The same refusal, one level further down: under `key`.
    pub fn under(mut self, key: &str) -> MapError {
        self.path.insert(0, key.to_owned());
        self
    }

    fn render(&self) -> String {
        if self.path.is_empty() {
            self.message.clone()
        } else {
            format!("{}: {}", self.path.join(": "), self.message)
        }
    }
}
