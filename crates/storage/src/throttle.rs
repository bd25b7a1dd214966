//! throttle
