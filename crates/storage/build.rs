//! The migrations are embedded at compile time (`embed_migrations!`), and Cargo does not watch
//! their directories by itself: without this, a new migration is missing from the build until
//! some source file of the crate changes.

fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
}
