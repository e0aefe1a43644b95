//! Timestamps.

/// The current UTC time as RFC 3339 with milliseconds (`2025-06-02T14:00:00.123Z`).
pub fn rfc3339_now() -> String {
    let now = time::OffsetDateTime::now_utc();
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        now.year(),
        u8::from(now.month()),
        now.day(),
        now.hour(),
        now.minute(),
        now.second(),
        now.millisecond()
    )
}

/// The current time of day, UTC, as `12:01:03 UTC` (the restart line of `--watch`; tooldeck
/// does not read the system's time zone).
pub fn time_of_day() -> String {
    let now = time::OffsetDateTime::now_utc();
    format!("{:02}:{:02}:{:02} UTC", now.hour(), now.minute(), now.second())
}
