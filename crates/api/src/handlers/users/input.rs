//! Reading and validating a user body (create, PUT, PATCH).

use serde_json::{Map, Value};

use crate::error::ApiResult;
use crate::http::fields::{FieldReader, Text};

pub use acs_app::users::UserInput;

const USERNAME_HELP: &str =
    "Required. 150 characters or fewer. Letters, digits and @/./+/-/_ only.";

fn valid_username(name: &str) -> bool {
    name.chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '@' | '.' | '+' | '-' | '_'))
}

fn valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.rsplit_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(char::is_whitespace)
}

/// Reads a body. `full` is true for create and PUT; `creating` requires a password.
pub fn read(body: &Map<String, Value>, full: bool, creating: bool) -> ApiResult<UserInput> {
    let mut fields = FieldReader::new(body, full);
    let username = fields.text("username", Text::required(150));
    if let Some(name) = &username
        && !valid_username(name)
    {
        fields.error("username", USERNAME_HELP);
    }
    let password = fields.text(
        "password",
        Text {
            required: creating,
            allow_blank: true,
            max_length: 1024,
        },
    );
    // `$encrypted$` is what reads show; sending it back means "unchanged", which a new
    // user has nothing to keep. A blank one means "unchanged" too, as in the reference,
    // and on create an account with no password to sign in with until one is set: what
    // awxkit's `import` sends for the users it exported (their passwords never leave).
    let password = password
        .filter(|p| p != "$encrypted$")
        .filter(|p| creating || !p.is_empty());
    if creating && password.is_none() && !fields.has_error("password") {
        fields.error("password", "This field is required.");
    }
    let first_name = fields.text("first_name", Text::optional(150));
    let last_name = fields.text("last_name", Text::optional(150));
    let email = fields.text("email", Text::optional(254));
    if let Some(email) = &email
        && !email.is_empty()
        && !valid_email(email)
    {
        fields.error("email", "Enter a valid email address.");
    }
    let is_superuser = fields.boolean("is_superuser");
    let is_system_auditor = fields.boolean("is_system_auditor");
    fields.finish()?;
    let blank = |v: Option<String>| if full { Some(v.unwrap_or_default()) } else { v };
    let flag = |v: Option<bool>| if full { Some(v.unwrap_or(false)) } else { v };
    Ok(UserInput {
        username,
        password,
        first_name: blank(first_name),
        last_name: blank(last_name),
        email: blank(email),
        is_superuser: flag(is_superuser),
        is_system_auditor: flag(is_system_auditor),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usernames_and_emails() {
        assert!(valid_username("alice.b+c@x-y_z"));
        assert!(!valid_username("bad name"));
        assert!(!valid_username("semi;colon"));
        assert!(valid_email("a@example.com"));
        for bad in ["a", "a@b", "@b.com", "a @b.com", "a@.com", "a@b.com."] {
            assert!(!valid_email(bad), "{bad}");
        }
    }
}
