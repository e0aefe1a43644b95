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

/// The current time of day in the person's time zone, as `12:01:03`: what they compare with
/// their clock (the restart line of `--watch`, a resource's update). Files keep UTC.
pub fn time_of_day() -> String {
    chrono::Local::now().format("%H:%M:%S").to_string()
}

/// An RFC 3339 time (as files keep them) in the person's time zone, as `2025-06-02 16:00:00`;
/// `None` when it is not one.
pub fn local_date_time(rfc3339: &str) -> Option<String> {
    let at = chrono::DateTime::parse_from_rfc3339(rfc3339).ok()?;
    Some(at.with_timezone(&chrono::Local).format("%Y-%m-%d %H:%M:%S").to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_stored_time_is_read_in_the_local_zone() {
        let shown = super::local_date_time("2025-06-02T14:00:00.123Z").unwrap();
        let expected = chrono::DateTime::parse_from_rfc3339("2025-06-02T14:00:00Z")
            .unwrap()
            .with_timezone(&chrono::Local)
            .format("%Y-%m-%d %H:%M:%S")
            .to_string();
        assert_eq!(shown, expected);
        assert_eq!(super::local_date_time("yesterday"), None);
        assert_eq!(super::time_of_day().len(), "12:01:03".len());
    }
}
