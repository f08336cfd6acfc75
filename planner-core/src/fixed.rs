//! A list of at most `N` values kept inline: what the search's hot path
//! uses instead of a `Vec`, so evaluating a candidate never touches the
//! heap. It is never empty, which spares its users an `Option` on `[0]`.

use std::ops::Deref;

/// One to `N` values of `T`, stored in place.
#[derive(Debug, Clone, Copy)]
pub struct FixedVec<T: Copy, const N: usize> {
    buf: [T; N],
    len: usize,
}

impl<T: Copy, const N: usize> FixedVec<T, N> {
    /// A list of one value (the unused slots hold copies of it).
    pub const fn one(v: T) -> Self {
        Self {
            buf: [v; N],
            len: 1,
        }
    }

    /// A list of two values (`N` must be at least 2; otherwise the second
    /// is dropped).
    pub fn two(a: T, b: T) -> Self {
        let mut s = Self::one(a);
        s.push(b);
        s
    }

    /// Appends a value; returns false (and keeps the list) when it is full.
    pub fn push(&mut self, v: T) -> bool {
        match self.buf.get_mut(self.len) {
            Some(slot) => {
                *slot = v;
                self.len += 1;
                true
            }
            None => false,
        }
    }
}

impl<T: Copy, const N: usize> Deref for FixedVec<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.buf[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_up_to_n() {
        let mut v = FixedVec::<u32, 2>::one(7);
        assert_eq!(&*v, &[7]);
        assert!(v.push(8));
        assert!(!v.push(9));
        assert_eq!(&*v, &[7, 8]);
        assert_eq!(&*FixedVec::<u32, 1>::two(1, 2), &[1]);
    }
}
