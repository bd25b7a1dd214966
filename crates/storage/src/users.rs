//! users
