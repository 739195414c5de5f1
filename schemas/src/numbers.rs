//! Rounding and averaging as the API's figures need them, in one place.

/// `x` to `places` decimals, half away from zero. Rounded to 9 places first, so 4.95 computed as
/// 4.9499999… still rounds up; `+ 0.0` turns a −0.0 into 0.0, which the API never shows.
pub fn round_to(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    ((x * 1e9).round() / 1e9 * f).round() / f + 0.0
}

/// The arithmetic mean; `None` for no values.
pub fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_away_from_zero_and_no_negative_zero() {
        assert_eq!((round_to(4.95, 1), round_to(-4.95, 1), round_to(0.125, 2)), (5.0, -5.0, 0.13));
        assert!(round_to(0.29999999999999993 - 0.3, 1).is_sign_positive());
        assert_eq!((mean([1.0, 2.0, 6.0].into_iter()), mean(std::iter::empty())), (Some(3.0), None));
    }
}
