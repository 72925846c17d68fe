//! The cheapest assignment of the rows of a cost matrix to distinct columns (the Hungarian
//! method, with row and column potentials and shortest augmenting paths), for the small
//! matrices of the proof game estimates: at most [`MAX`] by [`MAX`] (a side's pieces), on the
//! stack. The estimates solve millions of them in a search; `pathfinding::kuhn_munkres`, which
//! the tests compare this with, spent most of its time allocating.

/// The largest number of rows and columns.
pub(super) const MAX: usize = 16;

/// Larger than any sum of costs here, small enough that adding two never overflows.
const INF: i32 = i32::MAX / 4;

/// A cost matrix of at most [`MAX`] rows and as many columns as rows or more.
#[derive(Clone, Debug)]
pub(super) struct Costs {
    rows: usize,
    cols: usize,
    c: [[i32; MAX]; MAX],
}

impl Costs {
    /// A `rows` by `cols` matrix filled with `fill`; `None` when it has more rows than
    /// columns or more than [`MAX`] of either.
    pub(super) fn new(rows: usize, cols: usize, fill: i32) -> Option<Costs> {
        (rows <= cols && cols <= MAX).then_some(Costs {
            rows,
            cols,
            c: [[fill; MAX]; MAX],
        })
    }

    /// The cost of row `r` in column `c` (`INF` outside the matrix).
    pub(super) fn get(&self, r: usize, c: usize) -> i32 {
        if r < self.rows && c < self.cols {
            self.c[r][c]
        } else {
            INF
        }
    }

    /// Sets the cost of row `r` in column `c` (nothing outside the matrix).
    pub(super) fn set(&mut self, r: usize, c: usize, v: i32) {
        if r < self.rows && c < self.cols {
            self.c[r][c] = v;
        }
    }
}

/// The cheapest assignment of every row to its own column: the total cost and the column of
/// each row (`assigned[r]` for `r` below the row count).
pub(super) fn min_assignment(m: &Costs) -> (i32, [usize; MAX]) {
    let (n, k) = (m.rows, m.cols);
    // 1-based: row 0 and column 0 are the augmenting path's virtual start.
    let mut u = [0i32; MAX + 1];
    let mut v = [0i32; MAX + 1];
    // The row in each column (0: none), and each column's predecessor on the path.
    let mut row_of = [0usize; MAX + 1];
    let mut way = [0usize; MAX + 1];
    for i in 1..=n {
        row_of[0] = i;
        let mut j0 = 0usize;
        let mut min_v = [INF; MAX + 1];
        let mut used = [false; MAX + 1];
        loop {
            used[j0] = true;
            let i0 = row_of[j0];
            let mut delta = INF;
            let mut j1 = 0usize;
            for j in 1..=k {
                if used[j] {
                    continue;
                }
                let cur = m.c[i0 - 1][j - 1] - u[i0] - v[j];
                if cur < min_v[j] {
                    min_v[j] = cur;
                    way[j] = j0;
                }
                if min_v[j] < delta {
                    delta = min_v[j];
                    j1 = j;
                }
            }
            for j in 0..=k {
                if used[j] {
                    u[row_of[j]] += delta;
                    v[j] -= delta;
                } else {
                    min_v[j] -= delta;
                }
            }
            j0 = j1;
            if j0 == 0 || row_of[j0] == 0 {
                break;
            }
        }
        // Flip the path back to its start.
        while j0 != 0 {
            let j1 = way[j0];
            row_of[j0] = row_of[j1];
            j0 = j1;
        }
    }
    let mut assigned = [0usize; MAX];
    let mut total = 0i32;
    for (j, &r) in row_of.iter().enumerate().take(k + 1).skip(1) {
        if r != 0 {
            assigned[r - 1] = j - 1;
            total += m.c[r - 1][j - 1];
        }
    }
    (total, assigned)
}

#[cfg(test)]
mod tests {
    use pathfinding::{kuhn_munkres::kuhn_munkres_min, matrix::Matrix};

    use super::*;

    #[test]
    fn agrees_with_pathfinding_on_random_matrices() {
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..20_000 {
            let rows = rng.usize(1..=MAX);
            let cols = rng.usize(rows..=MAX);
            let mut mine = Costs::new(rows, cols, 0).expect("fits");
            let mut theirs = Matrix::new(rows, cols, 0i32);
            for r in 0..rows {
                for c in 0..cols {
                    // Small distances, and now and then an impossible pairing as the
                    // estimates have them.
                    let x = if rng.u8(..10) == 0 {
                        10_000
                    } else {
                        rng.i32(0..12)
                    };
                    mine.set(r, c, x);
                    theirs[(r, c)] = x;
                }
            }
            let (total, assigned) = min_assignment(&mine);
            let (want, _) = kuhn_munkres_min(&theirs);
            assert_eq!(total, want, "{rows}x{cols}: {mine:?}");
            // A real assignment: distinct columns, costs adding up to the total.
            let cols_used: std::collections::HashSet<usize> =
                assigned[..rows].iter().copied().collect();
            assert_eq!(cols_used.len(), rows);
            let sum: i32 = (0..rows).map(|r| mine.get(r, assigned[r])).sum();
            assert_eq!(sum, total);
        }
    }

    #[test]
    fn a_matrix_with_more_rows_than_columns_is_refused() {
        assert!(Costs::new(3, 2, 0).is_none());
        assert!(Costs::new(2, MAX + 1, 0).is_none());
    }
}
