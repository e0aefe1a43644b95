//! A record served back (to come in this branch).
