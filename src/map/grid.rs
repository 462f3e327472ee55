//! Tiles as a grid, and how a tile layer's data was stored: the values a tile layer's content
//! is made of, shared by the layer model (`layer.rs`) and the decoder (`content.rs`).

/// How a tile layer's data was stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub enum TileLayout {
    /// One tile per cell, in the current layout.
    Plain,
    /// Teeworlds 0.7 skip compression.
    Skip,
    /// Old DDRace speedup tiles of 4 bytes, upgraded.
    OldSpeedup,
    /// Old DDRace switch tiles of 2 bytes, upgraded.
    OldSwitch2,
    /// Old switch tiles of 3 bytes, upgraded.
    OldSwitch3,
}

/// Tiles as a `width` x `height` grid, row by row. Its `Debug` form shows the size, not the
/// tiles.
#[derive(Clone, PartialEq, Eq)]
pub struct Grid<T> {
    width: usize,
    height: usize,
    tiles: Vec<T>,
}

impl<T> std::fmt::Debug for Grid<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grid")
            .field("width", &self.width)
            .field("height", &self.height)
            .finish_non_exhaustive()
    }
}

impl<T: Copy> Grid<T> {
    /// A grid of `width * height` tiles; `None` when the count differs.
    pub fn new(width: usize, height: usize, tiles: Vec<T>) -> Option<Grid<T>> {
        (width.checked_mul(height) == Some(tiles.len())).then_some(Grid {
            width,
            height,
            tiles,
        })
    }

    /// A grid filled with one tile.
    pub fn filled(width: usize, height: usize, tile: T) -> Option<Grid<T>> {
        Grid::new(width, height, vec![tile; width.checked_mul(height)?])
    }

    /// Width in tiles.
    pub fn width(&self) -> usize {
        self.width
    }

    /// Height in tiles.
    pub fn height(&self) -> usize {
        self.height
    }

    /// All tiles, row by row.
    pub fn tiles(&self) -> &[T] {
        &self.tiles
    }

    /// All tiles, row by row, to change them.
    pub fn tiles_mut(&mut self) -> &mut [T] {
        &mut self.tiles
    }

    /// The tile at column `x`, row `y`.
    pub fn get(&self, x: usize, y: usize) -> Option<&T> {
        if x < self.width {
            self.tiles.get(y.checked_mul(self.width)?.checked_add(x)?)
        } else {
            None
        }
    }

    /// The tile at column `x`, row `y`, to change it.
    pub fn get_mut(&mut self, x: usize, y: usize) -> Option<&mut T> {
        if x < self.width {
            self.tiles
                .get_mut(y.checked_mul(self.width)?.checked_add(x)?)
        } else {
            None
        }
    }

    /// The rows, top to bottom.
    pub fn rows(&self) -> impl Iterator<Item = &[T]> {
        self.tiles.chunks_exact(self.width.max(1))
    }

    /// A `width` x `height` grid whose tile at column `x`, row `y` is this grid's tile at
    /// `source(x, y)`, or `fill` where that gives `None` or a place outside this grid; `None`
    /// when the size overflows. For the whole-map edits (transform, reframe).
    pub(crate) fn remapped(
        &self,
        width: usize,
        height: usize,
        source: impl Fn(usize, usize) -> Option<(usize, usize)>,
        fill: T,
    ) -> Option<Grid<T>> {
        let mut tiles = Vec::with_capacity(width.checked_mul(height)?);
        for y in 0..height {
            for x in 0..width {
                let tile = source(x, y).and_then(|(sx, sy)| self.get(sx, sy).copied());
                tiles.push(tile.unwrap_or(fill));
            }
        }
        Grid::new(width, height, tiles)
    }
}
