//! Ghosts, `.gho`: a race as DDNet's client records it, one character state per tick (DDNet
//! `src/engine/client/ghost.cpp`, `src/game/client/components/ghost.cpp`; the layouts are in
//! [`crate::schema::ghost`], the format in docs/format-notes.md, "Ghosts").
//!
//! ```no_run
//! use twcodec::ghost::Ghost;
//!
//! let ghost = Ghost::open("run.gho")?;
//! println!("{} on {}: {} ms", ghost.owner(), ghost.map_name(), ghost.header().time);
//! for character in ghost.decode()?.characters {
//!     println!("{:?}: {} {}", character.tick, character.x, character.y);
//! }
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! # Checks
//!
//! - [`Ghost::from_bytes`]: the magic; versions 4 to 6 (others are unsupported); the owner and
//!   map name NUL-terminated (DDNet's `CGhostLoader::ValidateHeader`, which also wants them
//!   UTF-8: [`Ghost::check_ddnet`] says so); every chunk header whole and its payload (1 to
//!   6400 bytes) within the file; at most [`Limits::max_items`] chunks.
//! - Decoding ([`Ghost::items`], [`Ghost::decode`]): the chunks together decode to at most
//!   [`Limits::max_total_data`] bytes of ints. A chunk of 5 bytes can decode to 6400, so a
//!   crafted file of 320 KiB (65536 chunks, the default [`Limits::max_items`]) could ask for
//!   400 MiB; the default 1 GiB lets that through, and a program that reads ghosts from
//!   strangers lowers it: an hour of race decodes to about 9 MB (48 bytes a tick).
//! - [`Ghost::items`]: each payload's Huffman data decodes to at most 6400 bytes of whole
//!   packed ints; a chunk of a known type holds its items' ints (more are ignored, as DDNet
//!   ignores them). A chunk of an unknown type is kept as its ints: its items are undone only
//!   when the ints split evenly into them.
//! - [`Ghost::decode`], DDNet's `CGhost::Load`: characters with and without tick not mixed, and
//!   exactly `num_ticks` of them; the first skin counts, later ones are listed.
//!
//! Errors name the chunk (its index) and its byte offset in the file.
//!
//! Writing: [`Ghost::to_bytes`] and [`Ghost::save`] give back the bytes read, and
//! [`GhostWriter`] writes a ghost from items as DDNet's recorder does, so that re-encoding the
//! items of a ghost DDNet wrote ([`GhostWriter::from_ghost`]) gives its bytes again.

use std::path::Path;

use binrw::io::Cursor;
use binrw::{BinRead, BinWrite};
use bytes::Bytes;
use twcodec_schema::demo::FixedString;
use twcodec_schema::ghost::{
    ChunkHeader, GhostCharacter, GhostHeader, GhostSkin, GhostVersion, ItemType, CARRY_VERSION,
    ITEMS_PER_CHUNK, MAGIC, MAX_CHUNK_SIZE, MAX_ITEM_SIZE, SHA256_VERSION, VERSIONS,
};

use crate::snap::packing;
use crate::sniff::FileKind;
use crate::{Error, ErrorKind, Limits, Location};

/// Ticks per second of the game (DDNet `SERVER_TICK_SPEED`).
pub const TICKS_PER_SECOND: i32 = 50;

/// A ghost file: its header and its chunks, decoded on request.
#[derive(Debug, Clone)]
pub struct Ghost {
    bytes: Bytes,
    header: GhostHeader,
    chunks: Vec<Chunk>,
    limits: Limits,
}

/// A chunk of a ghost: where it is and what its header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    /// Index among the ghost's chunks.
    pub index: usize,
    /// Byte offset of its header in the file.
    pub offset: usize,
    /// Its header.
    pub header: ChunkHeader,
}

impl Chunk {
    /// The type of its items.
    pub fn item_type(&self) -> ItemType {
        ItemType(self.header.item_type)
    }

    /// Byte range of its payload in the file.
    pub fn payload_range(&self) -> std::ops::Range<usize> {
        let start = self.offset + ChunkHeader::SIZE;
        start..start + usize::from(self.header.size)
    }

    /// How many items DDNet reads from it: its count, and one when the count is 0 (DDNet's
    /// loader reads an item before it looks at the count).
    pub fn items_read(&self) -> usize {
        usize::from(self.header.num_items).max(1)
    }

    fn error(&self, message: impl Into<String>) -> Error {
        Error::malformed(message)
            .located(Location::Chunk {
                index: self.index,
                tick: None,
            })
            .at(self.offset)
    }
}

/// One item of a ghost, its difference coding undone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Index of its chunk.
    pub chunk: usize,
    /// Its type.
    pub item_type: ItemType,
    /// Its ints.
    pub ints: Vec<i32>,
}

/// What [`Ghost::decode`] reads, as DDNet's client does.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GhostData {
    /// The tick the race started (type 3), when the ghost gives it.
    pub start_tick: Option<i32>,
    /// The first skin (type 0); DDNet uses `default` without one.
    pub skin: Option<GhostSkin>,
    /// The characters, one per tick, in order.
    pub characters: Vec<GhostCharacter>,
    /// Items DDNet skips: later skins, and those of unknown types. An unknown chunk whose ints
    /// do not split evenly into its items is one item here, as stored.
    pub other: Vec<Item>,
}

impl GhostData {
    /// Whether the characters carry their tick (type 2); older ghosts (type 1) do not.
    pub fn has_ticks(&self) -> bool {
        self.characters.first().is_some_and(|c| c.tick.is_some())
    }

    /// The tick of each character: its own, or for a ghost without ticks, DDNet's estimate
    /// (`CGhost::Load`: counted from the last change of `attack_tick`).
    pub fn ticks(&self) -> Vec<i32> {
        if self.has_ticks() {
            return self
                .characters
                .iter()
                .map(|c| c.tick.unwrap_or(0))
                .collect();
        }
        let mut start = 0i32;
        for (i, pair) in self.characters.windows(2).enumerate() {
            if pair[1].attack_tick != pair[0].attack_tick {
                start = pair[1].attack_tick.wrapping_sub(i as i32 + 1);
            }
        }
        (0..self.characters.len())
            .map(|i| start.wrapping_add(i as i32))
            .collect()
    }
}

impl Ghost {
    /// Reads a ghost, copying the bytes.
    pub fn parse(bytes: &[u8]) -> Result<Ghost, Error> {
        Ghost::from_bytes(Bytes::copy_from_slice(bytes))
    }

    /// Reads a ghost file; errors name the file.
    pub fn open(path: impl AsRef<Path>) -> Result<Ghost, Error> {
        Ghost::open_with(path, Limits::DEFAULT)
    }

    /// [`Ghost::open`] within `limits` (see [`Ghost::from_bytes_with`]).
    pub fn open_with(path: impl AsRef<Path>, limits: Limits) -> Result<Ghost, Error> {
        let path = path.as_ref();
        let bytes = crate::input::read_file(path, limits.max_file_size(), "Limits::max_file_size")?;
        Ghost::from_bytes_with(bytes, limits).map_err(|error| error.with_path(path))
    }

    /// Reads a ghost from its bytes, checking its header and chunk headers (see the module
    /// docs), within [`Limits::DEFAULT`].
    pub fn from_bytes(bytes: impl Into<Bytes>) -> Result<Ghost, Error> {
        Ghost::from_bytes_with(bytes, Limits::DEFAULT)
    }

    /// [`Ghost::from_bytes`] within `limits`: the file size, [`Limits::max_items`] chunks, and
    /// (when decoding) [`Limits::max_total_data`] bytes decoded.
    pub fn from_bytes_with(bytes: impl Into<Bytes>, limits: Limits) -> Result<Ghost, Error> {
        let bytes: Bytes = bytes.into();
        FileKind::check(&bytes, FileKind::Ghost, "a ghost")?;
        if bytes.len() as u64 > limits.max_file_size() {
            return Err(Error::limit(format!(
                "the ghost has {} bytes, more than Limits::max_file_size ({})",
                bytes.len(),
                limits.max_file_size()
            )));
        }
        if !bytes.starts_with(&MAGIC[..bytes.len().min(MAGIC.len())]) || bytes.is_empty() {
            return Err(Error::malformed(
                "not a ghost: the file does not start with \"TWGHOST\\0\"",
            )
            .at(0));
        }
        let version = GhostVersion::read(&mut Cursor::new(&bytes[..])).map_or(0, |v| v.version);
        let size = if VERSIONS.contains(&version) {
            GhostHeader::size_of(version)
        } else {
            MAGIC.len() + 1
        };
        if bytes.len() < size {
            return Err(Error::malformed(format!(
                "the file ends inside the ghost header (bytes 0x0 to {size:#x}; the file has {})",
                bytes.len()
            ))
            .at(bytes.len()));
        }
        let header = GhostHeader::read(&mut Cursor::new(&bytes[..])).map_err(|error| {
            let error = Error::from_binrw(error, "ghost header");
            if error.kind() == ErrorKind::Unsupported {
                error.map_offset(|_| GhostHeader::VERSION_OFFSET as u64)
            } else {
                error
            }
        })?;
        for (name, at, terminated) in header.strings() {
            if !terminated {
                return Err(Error::malformed(format!(
                    "ghost header: {name} is not NUL-terminated"
                ))
                .at(at));
            }
        }
        let mut chunks = Vec::new();
        let mut pos = size;
        while pos < bytes.len() {
            let index = chunks.len();
            let located = |message: String| {
                Error::malformed(message)
                    .located(Location::Chunk { index, tick: None })
                    .at(pos)
            };
            if index >= limits.max_items() {
                return Err(Error::limit(format!(
                    "the ghost has more than Limits::max_items ({}) chunks",
                    limits.max_items()
                ))
                .located(Location::Chunk { index, tick: None })
                .at(pos));
            }
            let left = bytes.len() - pos;
            if left < ChunkHeader::SIZE {
                return Err(located(format!(
                    "the chunk header is cut short: {left} of its 4 bytes are in the file"
                )));
            }
            let chunk_header = ChunkHeader::read(&mut Cursor::new(&bytes[pos..]))
                .map_err(|error| Error::from_binrw(error, "ghost chunk header"))?;
            let size = usize::from(chunk_header.size);
            if size == 0 || size > MAX_CHUNK_SIZE {
                return Err(located(format!(
                    "chunk size {size} is outside 1 to {MAX_CHUNK_SIZE} (DDNet's MAX_CHUNK_SIZE)"
                )));
            }
            if size > left - ChunkHeader::SIZE {
                return Err(located(format!(
                    "the chunk's {size} bytes run past the end of the file ({} bytes left after \
                     its header)",
                    left - ChunkHeader::SIZE
                )));
            }
            chunks.push(Chunk {
                index,
                offset: pos,
                header: chunk_header,
            });
            pos += ChunkHeader::SIZE + size;
        }
        Ok(Ghost {
            bytes,
            header,
            chunks,
            limits,
        })
    }

    /// The header.
    pub fn header(&self) -> &GhostHeader {
        &self.header
    }

    /// The ghost version (4 to 6).
    pub fn version(&self) -> u8 {
        self.header.version
    }

    /// The player's name.
    pub fn owner(&self) -> String {
        self.header.owner.to_string_lossy()
    }

    /// The map's name.
    pub fn map_name(&self) -> String {
        self.header.map_name.to_string_lossy()
    }

    /// The race time in milliseconds, as the header gives it.
    pub fn time_ms(&self) -> i32 {
        self.header.time
    }

    /// The map's SHA-256 (version 6).
    pub fn map_sha256(&self) -> Option<[u8; 32]> {
        self.header.map_sha256
    }

    /// The map's CRC-32 (versions 4 and 5; version 6 stores zeroes).
    pub fn map_crc(&self) -> Option<u32> {
        (self.header.version < SHA256_VERSION).then_some(self.header.map_crc)
    }

    /// Whether `map` (a map file's bytes) is the ghost's map: its SHA-256 (version 6) or its
    /// CRC-32 (versions 4 and 5) is the header's, as DDNet compares them with
    /// `cl_race_ghost_strict_map` (feature `hashing`). The map's name is not compared.
    #[cfg(feature = "hashing")]
    pub fn map_matches(&self, map: &[u8]) -> bool {
        use sha2::Digest;
        match self.header.map_sha256 {
            Some(sha256) => <[u8; 32]>::from(sha2::Sha256::digest(map)) == sha256,
            None => crc32fast::hash(map) == self.header.map_crc,
        }
    }

    /// Where the chunks start: the header's size.
    pub fn chunks_offset(&self) -> usize {
        GhostHeader::size_of(self.header.version)
    }

    /// The chunks.
    pub fn chunks(&self) -> &[Chunk] {
        &self.chunks
    }

    /// The payload of `chunk`, as stored.
    pub fn payload(&self, chunk: &Chunk) -> &[u8] {
        &self.bytes[chunk.payload_range()]
    }

    /// The ints of `chunk`'s payload, decoded but still difference coded.
    pub fn chunk_ints(&self, chunk: &Chunk) -> Result<Vec<i32>, Error> {
        let packed = crate::huffman::decompress(self.payload(chunk), MAX_CHUNK_SIZE)
            .map_err(|error| chunk.error(format!("payload: {error}")))?;
        // DDNet unpacks into a buffer of 6400 bytes: 1600 ints.
        packing::unpack_ints_at_most(&packed, MAX_CHUNK_SIZE / 4)
            .map_err(|error| chunk.error(format!("payload: {error}")))
    }

    /// The items, chunk by chunk, their difference coding undone; an error ends them.
    pub fn items(&self) -> Items<'_> {
        Items {
            ghost: self,
            chunk: 0,
            decoded: 0,
            pending: Vec::new().into_iter(),
            last: None,
            failed: false,
        }
    }

    /// Reads the items as DDNet's client does (see the module docs).
    pub fn decode(&self) -> Result<GhostData, Error> {
        let mut data = GhostData::default();
        let mut with_tick: Option<(bool, usize)> = None;
        for item in self.items() {
            let item = item?;
            let chunk = &self.chunks[item.chunk];
            match item.item_type {
                ItemType::SKIN if data.skin.is_none() => {
                    data.skin = GhostSkin::from_ints(&item.ints);
                }
                ItemType::START_TICK => data.start_tick = item.ints.first().copied(),
                kind if kind.is_character() => {
                    let tick = kind == ItemType::CHARACTER;
                    match with_tick {
                        Some((before, first)) if before != tick => {
                            return Err(chunk.error(format!(
                                "characters with and without tick are mixed (chunk #{first} \
                                 holds {}, this one {})",
                                if before { "type 2" } else { "type 1" },
                                if tick { "type 2" } else { "type 1" },
                            )));
                        }
                        Some(_) => {}
                        None => with_tick = Some((tick, item.chunk)),
                    }
                    if data.characters.len() as i64 >= i64::from(self.header.num_ticks) {
                        return Err(chunk.error(format!(
                            "more characters than the header's num_ticks ({})",
                            self.header.num_ticks
                        )));
                    }
                    if let Some(character) = GhostCharacter::from_ints(&item.ints) {
                        data.characters.push(character);
                    }
                }
                _ => data.other.push(item),
            }
        }
        if data.characters.len() as i64 != i64::from(self.header.num_ticks) {
            return Err(Error::malformed(format!(
                "the ghost holds {} characters, the header's num_ticks says {}",
                data.characters.len(),
                self.header.num_ticks
            ))
            .at(GhostHeader::NUM_TICKS_OFFSET));
        }
        Ok(data)
    }

    /// What DDNet's loader refuses that [`Ghost::from_bytes`] reads: names that are not UTF-8,
    /// and `num_ticks` or `time` not above 0 (`CGhostLoader::ValidateHeader`). Empty when DDNet
    /// reads the header.
    pub fn check_ddnet(&self) -> Vec<String> {
        let mut problems = Vec::new();
        for (name, field) in [
            ("owner", &self.header.owner.bytes()),
            ("map_name", &self.header.map_name.bytes()),
        ] {
            if std::str::from_utf8(field).is_err() {
                problems.push(format!("{name} is not UTF-8"));
            }
        }
        if self.header.num_ticks <= 0 {
            problems.push(format!(
                "num_ticks {} is not above 0",
                self.header.num_ticks
            ));
        }
        if self.header.time <= 0 {
            problems.push(format!("time {} is not above 0", self.header.time));
        }
        problems
    }

    /// The bytes read.
    pub fn to_bytes(&self) -> Bytes {
        self.bytes.clone()
    }

    /// Writes the bytes read to a file, as [`crate::fs::save`] does (feature `fs`).
    #[cfg(feature = "fs")]
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        crate::fs::save(path, &self.bytes)
    }
}

/// The items of a ghost ([`Ghost::items`]).
#[derive(Debug)]
pub struct Items<'a> {
    ghost: &'a Ghost,
    chunk: usize,
    /// Bytes of ints decoded so far, within `Limits::max_total_data`.
    decoded: usize,
    pending: std::vec::IntoIter<Item>,
    /// The last item read (version 4 carries it over as the base of the next chunk).
    last: Option<(ItemType, Vec<i32>)>,
    failed: bool,
}

impl Items<'_> {
    fn read_chunk(&mut self, chunk: &Chunk) -> Result<Vec<Item>, Error> {
        let ints = self.ghost.chunk_ints(chunk)?;
        self.decoded = self.decoded.saturating_add(ints.len() * 4);
        let max = self.ghost.limits.max_total_data();
        if self.decoded > max {
            return Err(Error::limit(format!(
                "the chunks up to this one decode to {} bytes, more than \
                 Limits::max_total_data ({max})",
                self.decoded
            ))
            .located(Location::Chunk {
                index: chunk.index,
                tick: None,
            })
            .at(chunk.offset));
        }
        let kind = chunk.item_type();
        let count = chunk.items_read();
        let size = match kind.ints() {
            Some(size) => {
                if ints.len() < count * size {
                    return Err(chunk.error(format!(
                        "{count} {} items need {} ints; the payload holds {}",
                        kind.name().unwrap_or_default(),
                        count * size,
                        ints.len()
                    )));
                }
                size
            }
            None if !ints.is_empty()
                && ints.len() % count == 0
                && ints.len() / count <= MAX_ITEM_SIZE / 4 =>
            {
                ints.len() / count
            }
            None => {
                self.last = None;
                return Ok(vec![Item {
                    chunk: chunk.index,
                    item_type: kind,
                    ints,
                }]);
            }
        };
        if self.ghost.header.version != CARRY_VERSION {
            self.last = None;
        }
        let mut base = match self.last.take() {
            Some((last_kind, last)) if last_kind == kind && last.len() == size => Some(last),
            _ => None,
        };
        let mut items = Vec::with_capacity(count);
        for diff in ints.chunks_exact(size).take(count) {
            let item: Vec<i32> = match &base {
                Some(base) => base
                    .iter()
                    .zip(diff)
                    .map(|(a, d)| a.wrapping_add(*d))
                    .collect(),
                None => diff.to_vec(),
            };
            base = Some(item.clone());
            items.push(Item {
                chunk: chunk.index,
                item_type: kind,
                ints: item,
            });
        }
        self.last = base.map(|base| (kind, base));
        Ok(items)
    }
}

impl Iterator for Items<'_> {
    type Item = Result<Item, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.pending.next() {
                return Some(Ok(item));
            }
            if self.failed {
                return None;
            }
            let chunk = *self.ghost.chunks.get(self.chunk)?;
            self.chunk += 1;
            match self.read_chunk(&chunk) {
                Ok(items) => self.pending = items.into_iter(),
                Err(error) => {
                    self.failed = true;
                    return Some(Err(error));
                }
            }
        }
    }
}

/// Writes a ghost as DDNet's recorder does (`CGhostRecorder`): a chunk per run of items of one
/// type, at most 50 items each, every item after a chunk's first stored as its difference to
/// the one before. Version 4 carries the base over from one chunk to the next, as its reader
/// expects.
///
/// ```
/// use twcodec::ghost::{Ghost, GhostWriter};
/// use twcodec::schema::ghost::{GhostCharacter, GhostSkin};
///
/// let mut writer = GhostWriter::new("nameless tee", "Kobra 4");
/// writer.map_sha256([0; 32]).time_ms(1234).start_tick(100);
/// writer.skin(GhostSkin::with_name("default"));
/// for tick in 100..110 {
///     writer.character(GhostCharacter { x: tick * 32, tick: Some(tick), ..Default::default() });
/// }
/// let ghost = Ghost::from_bytes(writer.finish()?)?;
/// assert_eq!(ghost.decode()?.characters.len(), 10);
/// # Ok::<(), twcodec::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct GhostWriter {
    header: GhostHeader,
    num_ticks: Option<i32>,
    items: Vec<(ItemType, Vec<i32>)>,
}

impl GhostWriter {
    /// A version 6 ghost of `owner` on `map_name`.
    pub fn new(owner: &str, map_name: &str) -> GhostWriter {
        GhostWriter {
            header: GhostHeader {
                version: SHA256_VERSION,
                owner: fixed(owner),
                map_name: fixed(map_name),
                map_crc: 0,
                num_ticks: 0,
                time: 0,
                map_sha256: Some([0; 32]),
            },
            num_ticks: None,
            items: Vec::new(),
        }
    }

    /// A writer of `ghost`'s header and items, as read: [`GhostWriter::finish`] gives the bytes
    /// of a ghost DDNet wrote again. Unknown chunks whose ints do not split into items are
    /// written as one item.
    pub fn from_ghost(ghost: &Ghost) -> Result<GhostWriter, Error> {
        let mut items = Vec::new();
        for item in ghost.items() {
            let item = item?;
            items.push((item.item_type, item.ints));
        }
        Ok(GhostWriter {
            header: ghost.header.clone(),
            num_ticks: Some(ghost.header.num_ticks),
            items,
        })
    }

    /// The version to write: 6 (the map's SHA-256), or 5 or 4 (its CRC-32).
    pub fn version(&mut self, version: u8) -> &mut GhostWriter {
        self.header.version = version;
        if version >= SHA256_VERSION {
            self.header.map_sha256.get_or_insert([0; 32]);
        } else {
            self.header.map_sha256 = None;
        }
        self
    }

    /// The map's SHA-256 (version 6).
    pub fn map_sha256(&mut self, sha256: [u8; 32]) -> &mut GhostWriter {
        if self.header.version >= SHA256_VERSION {
            self.header.map_sha256 = Some(sha256);
        }
        self
    }

    /// The map's CRC-32 (versions 4 and 5; version 6 writes zeroes).
    pub fn map_crc(&mut self, crc: u32) -> &mut GhostWriter {
        self.header.map_crc = crc;
        self
    }

    /// The race time in milliseconds.
    pub fn time_ms(&mut self, time: i32) -> &mut GhostWriter {
        self.header.time = time;
        self
    }

    /// The header's `num_ticks`; without it, the number of characters. [`GhostWriter::finish`]
    /// refuses another number than that of the characters, as DDNet's loader does.
    pub fn num_ticks(&mut self, num_ticks: i32) -> &mut GhostWriter {
        self.num_ticks = Some(num_ticks);
        self
    }

    /// Adds the start tick (type 3).
    pub fn start_tick(&mut self, tick: i32) -> &mut GhostWriter {
        self.item(ItemType::START_TICK, vec![tick])
    }

    /// Adds a skin (type 0).
    pub fn skin(&mut self, skin: GhostSkin) -> &mut GhostWriter {
        self.item(ItemType::SKIN, skin.to_ints())
    }

    /// Adds a character: type 2 with its tick, type 1 without.
    pub fn character(&mut self, character: GhostCharacter) -> &mut GhostWriter {
        let kind = if character.tick.is_some() {
            ItemType::CHARACTER
        } else {
            ItemType::CHARACTER_NO_TICK
        };
        self.item(kind, character.to_ints())
    }

    /// Adds an item of any type.
    pub fn item(&mut self, item_type: ItemType, ints: Vec<i32>) -> &mut GhostWriter {
        self.items.push((item_type, ints));
        self
    }

    /// The ghost's bytes. Refuses what DDNet's loader refuses or its recorder cannot write: a
    /// version outside 4 to 6, names too long or not UTF-8, no characters, characters with and
    /// without tick mixed, `num_ticks` not the number of characters, `time` not above 0,
    /// items of 0 or more than 32 ints, or of another size than the item before them of their
    /// type.
    pub fn finish(&self) -> Result<Vec<u8>, Error> {
        let invalid = |message: String| Error::new(ErrorKind::InvalidOptions, message);
        let mut header = self.header.clone();
        if !VERSIONS.contains(&header.version) {
            return Err(invalid(format!(
                "ghost version {} is not one DDNet reads (4 to 6)",
                header.version
            )));
        }
        for (name, field) in [
            ("owner", &header.owner.0[..]),
            ("map name", &header.map_name.0),
        ] {
            let text = &field[..field.iter().position(|&b| b == 0).unwrap_or(field.len())];
            if text.len() == field.len() || std::str::from_utf8(text).is_err() {
                return Err(invalid(format!(
                    "the {name} must be UTF-8 of at most {} bytes",
                    field.len() - 1
                )));
            }
        }
        let characters = self.items.iter().filter(|(k, _)| k.is_character()).count();
        header.num_ticks = match self.num_ticks {
            Some(n) => n,
            None => i32::try_from(characters)
                .map_err(|_| invalid(format!("{characters} characters are too many")))?,
        };
        if header.num_ticks <= 0 || header.time <= 0 {
            return Err(invalid(format!(
                "num_ticks ({}) and time ({}) must be above 0: DDNet's recorder deletes such a \
                 ghost and its loader refuses it",
                header.num_ticks, header.time
            )));
        }
        if i64::from(header.num_ticks) != characters as i64 {
            return Err(invalid(format!(
                "num_ticks ({}) is not the number of characters ({characters}); DDNet refuses \
                 such a ghost",
                header.num_ticks
            )));
        }
        let kinds: Vec<ItemType> = self.items.iter().map(|(k, _)| *k).collect();
        if kinds.contains(&ItemType::CHARACTER) && kinds.contains(&ItemType::CHARACTER_NO_TICK) {
            return Err(invalid(
                "characters with and without tick are mixed; DDNet refuses such a ghost".into(),
            ));
        }
        let mut out = Cursor::new(Vec::new());
        header
            .write(&mut out)
            .map_err(|error| Error::from_binrw(error, "ghost header"))?;
        let mut out = out.into_inner();
        // Runs of one type, at most 50 items each; each run is one chunk, or more when its
        // payload does not fit (DDNet's recorder would drop such a chunk).
        let mut last: Option<(ItemType, &[i32])> = None;
        let mut start = 0;
        while start < self.items.len() {
            let kind = self.items[start].0;
            let mut end = start;
            while end < self.items.len()
                && end - start < ITEMS_PER_CHUNK
                && self.items[end].0 == kind
            {
                let ints = &self.items[end].1;
                if ints.is_empty() || ints.len() > MAX_ITEM_SIZE / 4 {
                    return Err(invalid(format!(
                        "item #{end} (type {}) has {} ints; an item holds 1 to 32",
                        kind.0,
                        ints.len()
                    )));
                }
                if end > start && ints.len() != self.items[end - 1].1.len() {
                    return Err(invalid(format!(
                        "item #{end} (type {}) has {} ints, the one before it {}",
                        kind.0,
                        ints.len(),
                        self.items[end - 1].1.len()
                    )));
                }
                end += 1;
            }
            let carry = match last {
                Some((last_kind, ints))
                    if header.version == CARRY_VERSION
                        && last_kind == kind
                        && ints.len() == self.items[start].1.len() =>
                {
                    Some(ints)
                }
                _ => None,
            };
            let mut take = end - start;
            let payload = loop {
                let payload = encode_chunk(carry, &self.items[start..start + take]);
                if payload.len() <= MAX_CHUNK_SIZE || take == 1 {
                    break payload;
                }
                take = take.div_ceil(2);
            };
            if payload.len() > MAX_CHUNK_SIZE {
                return Err(invalid(format!(
                    "item #{start} does not fit a chunk of {MAX_CHUNK_SIZE} bytes"
                )));
            }
            let chunk_header = ChunkHeader {
                item_type: kind.0,
                num_items: take as u8,
                size: payload.len() as u16,
            };
            out.extend([chunk_header.item_type, chunk_header.num_items]);
            out.extend(chunk_header.size.to_be_bytes());
            out.extend(payload);
            last = Some((kind, &self.items[start + take - 1].1));
            start += take;
        }
        Ok(out)
    }
}

/// The payload of one chunk: the items' differences, packed, then Huffman-coded.
fn encode_chunk(base: Option<&[i32]>, items: &[(ItemType, Vec<i32>)]) -> Vec<u8> {
    let mut ints = Vec::new();
    let mut before = base;
    for (_, item) in items {
        match before {
            Some(before) => ints.extend(before.iter().zip(item).map(|(a, b)| b.wrapping_sub(*a))),
            None => ints.extend(item),
        }
        before = Some(item);
    }
    let packed = packing::pack_ints(&ints);
    if packed.len() > MAX_CHUNK_SIZE {
        // Too big before Huffman coding already: DDNet's buffer holds 6400 bytes.
        return vec![0; MAX_CHUNK_SIZE + 1];
    }
    // As DDNet's recorder since 2026-05: no trailing byte without bits in it.
    crate::huffman::compress_trimmed(&packed)
}

/// `text` in a fixed-size field, cut to leave room for the NUL (refused later when too long).
fn fixed<const N: usize>(text: &str) -> FixedString<N> {
    let mut bytes = [0u8; N];
    if text.len() < N {
        bytes[..text.len()].copy_from_slice(text.as_bytes());
    } else {
        // Full: no NUL, so that `finish` refuses it.
        for (slot, &byte) in bytes.iter_mut().zip(text.as_bytes()) {
            *slot = byte;
        }
    }
    FixedString(bytes)
}
