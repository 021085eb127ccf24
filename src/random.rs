//! The random draws shared by the generator and the isomorph transforms.
//!
//! They read only raw 32-bit words from the generator (`next_u32`), so what
//! they produce depends on nothing but the key stream (ChaCha8 everywhere in
//! this crate), which is value-stable across platforms and `rand` versions:
//! the shipped datasets and `run --transform` isomorphs regenerate
//! byte for byte.

use rand::RngCore;

/// A uniform integer in `0..n` (`n > 0`), without modulo bias
/// (Lemire's multiply-and-reject method). Returns 0 when `n == 0`.
pub fn below<R: RngCore + ?Sized>(rng: &mut R, n: u32) -> u32 {
    if n == 0 {
        return 0;
    }
    let mut m = u64::from(rng.next_u32()) * u64::from(n);
    let mut low = m as u32;
    if low < n {
        let threshold = n.wrapping_neg() % n;
        while low < threshold {
            m = u64::from(rng.next_u32()) * u64::from(n);
            low = m as u32;
        }
    }
    (m >> 32) as u32
}

/// Shuffles `items` in place (Fisher–Yates, drawing with [`below`]).
pub fn shuffle<T, R: RngCore + ?Sized>(rng: &mut R, items: &mut [T]) {
    for i in (1..items.len()).rev() {
        // `i < items.len() <= u32::MAX` for every slice this module shuffles.
        let j = below(rng, (i + 1) as u32) as usize;
        items.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn below_stays_in_range_and_hits_every_value() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut seen = [0u32; 9];
        for _ in 0..2000 {
            let v = below(&mut rng, 9);
            assert!(v < 9);
            seen[v as usize] += 1;
        }
        assert!(seen.iter().all(|&n| n > 150), "{seen:?}");
        assert_eq!(below(&mut rng, 1), 0);
        assert_eq!(below(&mut rng, 0), 0);
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut v: Vec<u32> = (0..50).collect();
        shuffle(&mut rng, &mut v);
        assert_ne!(v, (0..50).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..50).collect::<Vec<_>>());
    }
}
