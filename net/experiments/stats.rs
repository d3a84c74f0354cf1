//! The statistics the experiments report: percentiles, median, σ and Jain's fairness index.

/// Nearest-rank percentile of `xs` (sorted inside), `p` in 0..=100.
pub fn percentile(xs: &[f64], p: f64) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let rank = ((p / 100.0 * v.len() as f64).ceil() as usize).clamp(1, v.len());
    Some(v[rank - 1])
}

/// Median as the mean of the middle two for an even count (as numpy's median, which the
/// authors' notebook uses).
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// Jain's fairness index of `x`: (Σx)² / (n·Σx²); 1 for an empty or all-zero set.
pub fn jain(x: &[f64]) -> f64 {
    let sum: f64 = x.iter().sum();
    let squares: f64 = x.iter().map(|v| v * v).sum();
    if squares == 0.0 {
        1.0
    } else {
        sum * sum / (x.len() as f64 * squares)
    }
}

/// Population standard deviation.
pub fn sigma(x: &[f64]) -> f64 {
    if x.is_empty() {
        return 0.0;
    }
    let mean = x.iter().sum::<f64>() / x.len() as f64;
    (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / x.len() as f64).sqrt()
}
