//! Saved test cases: case files, what a case expects, and `tooldeck test`.

pub mod record;
