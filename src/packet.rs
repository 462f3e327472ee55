//! The Teeworlds 0.7 packet reader (being written).
