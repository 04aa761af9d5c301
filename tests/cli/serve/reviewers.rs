//! reviewers
