//! The network's vector arithmetic: AVX2 through `std::arch` where the processor has it
//! (detected at run time), else portable loops that give the same results bit for bit
//! (additions wrap, as the vector instructions do).

use super::{DOT_NEURONS, HIDDEN, QA};

/// Lanes of 16 bits in a 256-bit register: the vector loops take whole registers.
const LANES: usize = 16;

/// `acc += row`, wrapping.
#[inline]
pub fn add(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            unsafe { avx2::add(acc, row) };
            return;
        }
    }
    add_portable(acc, row);
}

/// `acc -= row`, wrapping.
#[inline]
pub fn sub(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above.
            unsafe { avx2::sub(acc, row) };
            return;
        }
    }
    sub_portable(acc, row);
}

/// [`add`] without vector instructions.
pub fn add_portable(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_add(w);
    }
}

/// [`sub`] without vector instructions.
pub fn sub_portable(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
    for (a, &w) in acc.iter_mut().zip(row) {
        *a = a.wrapping_sub(w);
    }
}

/// `Σ clamp(v, 0, QA)² · w`, the squared clipped ReLU of the sums `v` weighted by `w`: a block
/// of at most [`DOT_NEURONS`] neurons, a multiple of 16, whose weights lie within
/// ±[`super::MAX_OUTPUT_WEIGHT`] (so that the sum fits an i32).
///
/// # Panics
/// If `v` and `w` differ in length, or the length is not a multiple of 16.
#[inline]
pub fn screlu_dot(v: &[i16], w: &[i16]) -> i32 {
    assert!(v.len() == w.len() && v.len().is_multiple_of(LANES));
    debug_assert!(v.len() <= DOT_NEURONS);
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2, checked just above; the lengths are checked above.
            return unsafe { avx2::screlu_dot(v, w) };
        }
    }
    screlu_dot_portable(v, w)
}

/// [`screlu_dot`] without vector instructions.
pub fn screlu_dot_portable(v: &[i16], w: &[i16]) -> i32 {
    let mut sum = 0i32;
    for (&x, &w) in v.iter().zip(w) {
        let c = i32::from(x).clamp(0, QA);
        // |c * w| <= 255 * 127 fits an i16, as in the vector form; the products of pairs are
        // then summed in i32 lanes, which this sum matches exactly.
        sum = sum.wrapping_add(c * (c * i32::from(w)));
    }
    sum
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::{HIDDEN, LANES, QA};

    // The loops below take whole registers.
    const _: () = assert!(HIDDEN.is_multiple_of(LANES));

    /// [`super::add`] with AVX2 (16-bit lanes, wrapping as the portable loop does).
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn add(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
        for i in (0..HIDDEN).step_by(LANES) {
            // SAFETY: i + LANES <= HIDDEN, the length of both arrays; unaligned loads and
            // stores.
            unsafe {
                let a = _mm256_loadu_si256(acc.as_ptr().add(i).cast());
                let w = _mm256_loadu_si256(row.as_ptr().add(i).cast());
                _mm256_storeu_si256(acc.as_mut_ptr().add(i).cast(), _mm256_add_epi16(a, w));
            }
        }
    }

    /// [`super::sub`] with AVX2.
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn sub(acc: &mut [i16; HIDDEN], row: &[i16; HIDDEN]) {
        for i in (0..HIDDEN).step_by(LANES) {
            // SAFETY: as in `add`.
            unsafe {
                let a = _mm256_loadu_si256(acc.as_ptr().add(i).cast());
                let w = _mm256_loadu_si256(row.as_ptr().add(i).cast());
                _mm256_storeu_si256(acc.as_mut_ptr().add(i).cast(), _mm256_sub_epi16(a, w));
            }
        }
    }

    /// [`super::screlu_dot`] with AVX2, over the whole registers of the shorter slice (the
    /// caller gives equal lengths, multiples of [`LANES`]).
    ///
    /// # Safety
    /// The processor must support AVX2.
    #[target_feature(enable = "avx2")]
    pub unsafe fn screlu_dot(v: &[i16], w: &[i16]) -> i32 {
        let n = v.len().min(w.len());
        let zero = _mm256_setzero_si256();
        let qa = _mm256_set1_epi16(QA as i16);
        let mut sum = _mm256_setzero_si256();
        for i in (0..n - n % LANES).step_by(LANES) {
            // SAFETY: i + LANES <= n <= v.len(), w.len(); unaligned loads.
            let (x, wt) = unsafe {
                (
                    _mm256_loadu_si256(v.as_ptr().add(i).cast()),
                    _mm256_loadu_si256(w.as_ptr().add(i).cast()),
                )
            };
            let c = _mm256_min_epi16(_mm256_max_epi16(x, zero), qa);
            let cw = _mm256_mullo_epi16(c, wt);
            sum = _mm256_add_epi32(sum, _mm256_madd_epi16(cw, c));
        }
        let lo = _mm256_castsi256_si128(sum);
        let hi = _mm256_extracti128_si256(sum, 1);
        let s = _mm_add_epi32(lo, hi);
        let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b01_00_11_10));
        let s = _mm_add_epi32(s, _mm_shuffle_epi32(s, 0b10_11_00_01));
        _mm_cvtsi128_si32(s)
    }
}

#[cfg(test)]
mod tests {
    use super::super::MAX_OUTPUT_WEIGHT;
    use super::*;

    /// The dot product's forms agree on blocks of every length it takes.
    #[test]
    fn vector_and_portable_forms_agree() {
        let mut rng = fastrand::Rng::with_seed(5);
        for trial in 0..2000 {
            let len = if trial % 2 == 0 {
                DOT_NEURONS
            } else {
                LANES * rng.usize(0..=DOT_NEURONS / LANES)
            };
            let v: Vec<i16> = (0..len).map(|_| rng.i16(-600..600)).collect();
            let w: Vec<i16> = (0..len)
                .map(|_| rng.i16(-MAX_OUTPUT_WEIGHT..=MAX_OUTPUT_WEIGHT))
                .collect();
            assert_eq!(screlu_dot(&v, &w), screlu_dot_portable(&v, &w), "{len}");
        }
    }

    #[test]
    #[should_panic(expected = "is_multiple_of")]
    fn a_dot_product_of_unequal_lengths_is_refused() {
        screlu_dot(&[1; 32], &[1; 16]);
    }

    #[test]
    #[should_panic(expected = "is_multiple_of")]
    fn a_dot_product_of_a_part_register_is_refused() {
        screlu_dot(&[1; 20], &[1; 20]);
    }

    /// The vector updates of the sums wrap as the portable ones do, bit for bit, extremes
    /// included.
    #[test]
    fn vector_and_portable_updates_agree() {
        let mut rng = fastrand::Rng::with_seed(6);
        for trial in 0..2000 {
            let mut acc = [0i16; HIDDEN];
            let mut row = [0i16; HIDDEN];
            for (a, w) in acc.iter_mut().zip(&mut row) {
                (*a, *w) = if trial % 4 == 0 {
                    (rng.i16(..), rng.i16(..))
                } else {
                    (rng.i16(-2000..2000), rng.i16(-300..300))
                };
            }
            let (mut a1, mut a2) = (acc, acc);
            add(&mut a1, &row);
            add_portable(&mut a2, &row);
            assert_eq!(a1, a2);
            sub(&mut a1, &row);
            sub_portable(&mut a2, &row);
            assert_eq!(a1, a2);
            assert_eq!(a1, acc);
        }
    }
}
