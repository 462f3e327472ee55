//! Whole-map transforms: mirror, flip, rotate, crop, extend, shift, scale time (not built yet).
