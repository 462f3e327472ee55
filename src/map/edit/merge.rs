//! Between maps: copy an area, append a map (not built yet).
