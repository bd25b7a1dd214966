//! The account pages under `/accounts/`: the profile with the user's personal and authorized
//! tokens, and the applications an organization admin or superuser manages.
//!
//! Every action calls the same function as the API endpoint that does the same thing, under
//! the same rules and in the same transaction; a page only turns form fields into the API's
//! body and the API's errors into messages on the page.

mod application;
mod applications;
mod page;
mod profile;
mod tokens;

pub use application::{application_page, delete_application, update_application};
pub use applications::{applications_page, create_application};
pub use page::Problem;
pub use profile::profile;
pub use tokens::{create_token, revoke_token};
