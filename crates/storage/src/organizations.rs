//! organizations
