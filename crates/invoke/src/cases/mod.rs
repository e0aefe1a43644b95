//! Saved test cases: case files, what a case expects, running them (`tooldeck test`), and
//! writing new ones from the app (`S`).

pub mod compare;
pub mod expect;
pub mod file;
pub mod junit;
pub mod outline;
pub mod record;
pub mod report;
pub mod run;
pub mod server_keys;
