//! Findings of one kind in one tool, gathered on a walk and reported once.

/// Findings of one kind in one tool, reported once at the first place with a count of the rest.
#[derive(Default)]
pub struct Grouped {
    /// key → (first pointer, count), in the order first met.
    pub seen: Vec<(String, String, usize)>,
}

impl Grouped {
    pub fn add(&mut self, key: &str, pointer: &str) {
        match self.seen.iter_mut().find(|(k, _, _)| k == key) {
            Some((_, _, n)) => *n += 1,
            None => self.seen.push((key.to_string(), pointer.to_string(), 1)),
        }
    }

    pub fn places(n: usize) -> String {
        if n == 1 { String::new() } else { format!(" (in {n} places)") }
    }
}
