//! Scores that hold up over few iterations: the pass rate with its Wilson interval (95%), and
//! pass^k, the chance that k iterations in a row all pass.

use serde::Serialize;

/// z for a two-sided 95% interval.
const Z: f64 = 1.959_963_984_540_054;

/// The Wilson score interval of `passed` of `n` at 95%: unlike the rate ± a normal error, it
/// stays within 0..1 and says something honest at 0 of 10 and 10 of 10.
pub fn wilson(passed: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = passed as f64 / n;
    let z2 = Z * Z;
    let centre = p + z2 / (2.0 * n);
    let spread = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let denominator = 1.0 + z2 / n;
    (((centre - spread) / denominator).max(0.0), ((centre + spread) / denominator).min(1.0))
}

/// pass^k estimated from `passed` of `n` without bias: C(passed, k) / C(n, k), the chance that
/// k iterations drawn from those run all passed. `None` when k > n.
pub fn pass_hat_k(passed: usize, n: usize, k: usize) -> Option<f64> {
    if k > n || k == 0 {
        return None;
    }
    // C(c,k)/C(n,k) = prod_{i<k} (c-i)/(n-i), computed as a product to stay finite.
    let mut p = 1.0;
    for i in 0..k {
        if passed < i + 1 {
            return Some(0.0);
        }
        p *= (passed - i) as f64 / (n - i) as f64;
    }
    Some(p)
}

/// The k's a report gives pass^k for: 1, 2, 3, 5, 10, 20, 50, 100 up to n, and n itself.
pub fn ks(n: usize) -> Vec<usize> {
    let mut ks: Vec<usize> = [1, 2, 3, 5, 10, 20, 50, 100].into_iter().filter(|k| *k <= n).collect();
    if n > 0 && !ks.contains(&n) {
        ks.push(n);
    }
    ks
}

/// pass^k of one case at one k.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub struct PassK {
    pub k: usize,
    pub value: f64,
}

pub fn pass_k_table(passed: usize, n: usize) -> Vec<PassK> {
    ks(n).into_iter().filter_map(|k| Some(PassK { k, value: round(pass_hat_k(passed, n, k)?) })).collect()
}

/// Four decimals: what a report shows, and stable to compare.
pub fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// How often one tool was chosen right, over every iteration of every case that expects it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct ToolScore {
    pub tool: String,
    /// Expected calls to it.
    pub expected: usize,
    /// Of those, how many the model made (right or not).
    pub chosen: usize,
    /// Of those, how many were right.
    pub right: usize,
    /// Calls to it nobody expected, and calls refused (destructive).
    pub unexpected: usize,
    pub refused: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_matches_the_textbook_values() {
        let (lo, hi) = wilson(8, 10);
        assert!((lo - 0.4902).abs() < 1e-4 && (hi - 0.9433).abs() < 1e-4, "{lo} {hi}");
        let (lo, hi) = wilson(0, 10);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.2775).abs() < 1e-4, "{hi}");
        let (lo, hi) = wilson(10, 10);
        assert!((lo - 0.7225).abs() < 1e-4 && (hi - 1.0).abs() < 1e-9, "{lo} {hi}");
    }

    #[test]
    fn pass_hat_k_is_the_chance_k_in_a_row_pass() {
        assert_eq!(pass_hat_k(10, 10, 10), Some(1.0));
        assert_eq!(pass_hat_k(9, 10, 10), Some(0.0));
        assert!((pass_hat_k(8, 10, 2).unwrap() - 56.0 / 90.0).abs() < 1e-12);
        assert_eq!(pass_hat_k(3, 10, 1), Some(0.3));
        assert_eq!(pass_hat_k(3, 2, 3), None);
        assert_eq!(ks(10), [1, 2, 3, 5, 10]);
        assert_eq!(ks(4), [1, 2, 3, 4]);
    }
}
