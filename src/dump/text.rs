//! The text form of the dumps: a serde [`Serializer`](serde::Serializer) that writes any
//! serializable value as `key: value` lines, nesting by indentation, straight to a writer.
//!
//! - A scalar, an array of scalars, or a small structure of those (a point, a color, an
//!   envelope point; at most [`INLINE_WIDTH`] characters) goes on one line:
//!   `color: {r: 255, g: 255, b: 255, a: 255}`, `values: [1024, 0, 0, 0]`.
//! - Anything else opens a block: `key:` and its fields one level deeper; an array of
//!   structures lists its elements as `- ` entries, `- #index` for those that need a block.
//! - Strings are quoted with Rust's escapes, absent values are `none`, unit variants their
//!   quoted name.
//!
//! Nothing is collected before it is written: an array is written element by element (whether
//! it is an array of scalars is decided by its first element, as arrays of Rust values are
//! alike), and a structure is held back only while it may still fit on one line. Output memory
//! therefore stays small whatever the size of the value, and the time is linear in the output.

use std::fmt::{self, Write as _};
use std::io::{self, Write};

use serde::ser::{self, Impossible, Serialize};

/// Longest line an inline structure may take.
pub(crate) const INLINE_WIDTH: usize = 100;

/// Writes the fields of `value` (a struct or a map) one per line at `depth`, leaving out the
/// fields named in `skip`. Anything other than a struct or a map is written as an array
/// element would be (`- ` entries) or, for a scalar, as its text alone on a line.
pub(crate) fn write_fields<T: Serialize + ?Sized>(
    out: &mut dyn Write,
    value: &T,
    depth: usize,
    skip: &'static [&'static str],
) -> io::Result<()> {
    let block = Block {
        out,
        depth,
        header: Header::Root { skip },
    };
    value.serialize(block).map_err(TextError::into_io)
}

/// Why writing stopped.
#[derive(Debug)]
pub(crate) enum TextError {
    /// The writer failed.
    Io(io::Error),
    /// A value does not fit on one line (internal: the caller writes a block instead).
    NotInline,
    /// A value's `Serialize` implementation failed.
    Custom(String),
}

impl TextError {
    fn into_io(self) -> io::Error {
        match self {
            TextError::Io(error) => error,
            TextError::NotInline => io::Error::other("a value could not be written"),
            TextError::Custom(message) => io::Error::other(message),
        }
    }
}

impl fmt::Display for TextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TextError::Io(error) => error.fmt(f),
            TextError::NotInline => f.write_str("does not fit on one line"),
            TextError::Custom(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for TextError {}

impl ser::Error for TextError {
    fn custom<M: fmt::Display>(message: M) -> Self {
        TextError::Custom(message.to_string())
    }
}

impl From<io::Error> for TextError {
    fn from(error: io::Error) -> Self {
        TextError::Io(error)
    }
}

type Result<T = ()> = std::result::Result<T, TextError>;

/// Two spaces per level.
fn indent(out: &mut dyn Write, depth: usize) -> io::Result<()> {
    const SPACES: &[u8] = &[b' '; 64];
    let mut left = depth * 2;
    while left > 0 {
        let n = left.min(SPACES.len());
        out.write_all(&SPACES[..n])?;
        left -= n;
    }
    Ok(())
}

/// What a value is written under.
#[derive(Debug, Clone, Copy)]
enum Header<'k> {
    /// The value itself: a structure's fields at the block's depth, without a heading line.
    Root { skip: &'static [&'static str] },
    /// A field: `key: text`, or `key:` and a block.
    Field(&'k str),
    /// An array element: `- text`, or `- #index` and a block.
    Item(usize),
}

/// A value written at a depth under a header, streaming.
struct Block<'o, 'k> {
    out: &'o mut dyn Write,
    depth: usize,
    header: Header<'k>,
}

impl<'o> Block<'o, '_> {
    /// Starts the line of an inline value: `key: `, `- `, or the indentation alone.
    fn inline_start(&mut self) -> io::Result<()> {
        indent(self.out, self.depth)?;
        match self.header {
            Header::Root { .. } => Ok(()),
            Header::Field(key) => write!(self.out, "{key}: "),
            Header::Item(_) => self.out.write_all(b"- "),
        }
    }

    /// Writes the heading line of a block (nothing at the root); returns the depth of its
    /// contents.
    fn block_start(&mut self) -> io::Result<usize> {
        match self.header {
            Header::Root { .. } => return Ok(self.depth),
            Header::Field(key) => {
                indent(self.out, self.depth)?;
                writeln!(self.out, "{key}:")?;
            }
            Header::Item(index) => {
                indent(self.out, self.depth)?;
                writeln!(self.out, "- #{index}")?;
            }
        }
        Ok(self.depth + 1)
    }

    /// A scalar's line.
    fn scalar(mut self, text: fmt::Arguments<'_>) -> Result {
        self.inline_start()?;
        self.out.write_fmt(text)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    fn seq(self) -> BlockSeq<'o> {
        let root = matches!(self.header, Header::Root { .. });
        let (prefix, heading) = heading_texts(self.header);
        BlockSeq {
            out: self.out,
            depth: self.depth,
            prefix,
            heading,
            // At the root, elements are always listed, one per line.
            state: if root {
                SeqState::Listed
            } else {
                SeqState::Undecided
            },
            count: 0,
        }
    }

    fn map(self) -> BlockMap<'o> {
        let (prefix, heading) = heading_texts(self.header);
        let (state, skip) = match self.header {
            Header::Root { skip } => (MapState::Block, skip),
            _ => (MapState::Trying(Vec::new(), 2), &[][..]),
        };
        BlockMap {
            out: self.out,
            depth: self.depth,
            prefix,
            heading,
            state,
            child_depth: match self.header {
                Header::Root { .. } => self.depth,
                _ => self.depth + 1,
            },
            skip,
            key: None,
        }
    }

    /// A one-entry structure `{key: value}` (enum variants with content).
    fn entry<T: Serialize + ?Sized>(self, key: &'static str, value: &T) -> Result {
        let mut map = self.map();
        ser::SerializeMap::serialize_entry(&mut map, key, value)?;
        ser::SerializeMap::end(map)
    }
}

/// The start of an inline line (after the indentation) and the heading line of a block, as
/// texts, for the compound writers that decide between them later.
fn heading_texts(header: Header<'_>) -> (String, Option<String>) {
    match header {
        Header::Root { .. } => (String::new(), None),
        Header::Field(key) => (format!("{key}: "), Some(format!("{key}:"))),
        Header::Item(index) => ("- ".to_string(), Some(format!("- #{index}"))),
    }
}

/// The text of a scalar, or `None` for a compound value.
fn scalar_text<T: Serialize + ?Sized>(value: &T) -> Result<Option<String>> {
    let mut text = String::new();
    match value.serialize(Inline {
        buf: &mut text,
        limit: usize::MAX,
        level: Level::Scalar,
    }) {
        Ok(()) => Ok(Some(text)),
        Err(TextError::NotInline) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Writes an array element by element: on one line when it holds scalars (decided by the
/// first), else one `- ` entry per element.
struct BlockSeq<'o> {
    out: &'o mut dyn Write,
    depth: usize,
    prefix: String,
    heading: Option<String>,
    state: SeqState,
    count: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SeqState {
    /// No element yet.
    Undecided,
    /// `[a, b, ...` written so far.
    Inline,
    /// One entry per element.
    Listed,
}

impl BlockSeq<'_> {
    fn child_depth(&self) -> usize {
        if self.heading.is_some() {
            self.depth + 1
        } else {
            self.depth
        }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        let index = self.count;
        self.count += 1;
        match self.state {
            SeqState::Undecided => match scalar_text(value)? {
                Some(text) => {
                    indent(self.out, self.depth)?;
                    write!(self.out, "{}[{text}", self.prefix)?;
                    self.state = SeqState::Inline;
                }
                None => {
                    if let Some(heading) = &self.heading {
                        indent(self.out, self.depth)?;
                        writeln!(self.out, "{heading}")?;
                    }
                    self.state = SeqState::Listed;
                    self.listed(index, value)?;
                }
            },
            SeqState::Inline => {
                // Arrays of Rust values are alike; an odd compound element still goes on
                // the line, as far as it fits.
                let text = match scalar_text(value)? {
                    Some(text) => text,
                    None => inline_text(value, INLINE_WIDTH)?.unwrap_or_else(|| "...".into()),
                };
                write!(self.out, ", {text}")?;
            }
            SeqState::Listed => self.listed(index, value)?,
        }
        Ok(())
    }

    fn listed<T: Serialize + ?Sized>(&mut self, index: usize, value: &T) -> Result {
        let depth = self.child_depth();
        value.serialize(Block {
            out: &mut *self.out,
            depth,
            header: Header::Item(index),
        })
    }

    fn finish(self) -> Result {
        match self.state {
            SeqState::Undecided => {
                indent(self.out, self.depth)?;
                writeln!(self.out, "{}[]", self.prefix)?;
            }
            SeqState::Inline => self.out.write_all(b"]\n")?,
            SeqState::Listed => {}
        }
        Ok(())
    }
}

/// Writes a structure: held back as `key: text` pairs while it may fit on one line, then as a
/// block with one field per line.
struct BlockMap<'o> {
    out: &'o mut dyn Write,
    depth: usize,
    prefix: String,
    heading: Option<String>,
    state: MapState,
    child_depth: usize,
    skip: &'static [&'static str],
    /// The key of a map entry whose value comes next.
    key: Option<String>,
}

enum MapState {
    /// The fields so far, inline, and the length of `{...}` holding them.
    Trying(Vec<(String, String)>, usize),
    /// Written as a block.
    Block,
}

impl BlockMap<'_> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result {
        if self.skip.contains(&key) {
            return Ok(());
        }
        if let MapState::Trying(fields, len) = &mut self.state {
            // `, ` between fields, `: ` after the key.
            let sep = if fields.is_empty() { 0 } else { 2 };
            let used = *len + sep + key.len() + 2;
            let text = match INLINE_WIDTH.checked_sub(used) {
                Some(room) => inline_field(value, room)?,
                None => None,
            };
            match text {
                Some(text) => {
                    *len = used + text.len();
                    fields.push((key.to_string(), text));
                    return Ok(());
                }
                None => self.open_block()?,
            }
        }
        value.serialize(Block {
            out: &mut *self.out,
            depth: self.child_depth,
            header: Header::Field(key),
        })
    }

    /// Writes the heading line and the fields held back so far, one per line.
    fn open_block(&mut self) -> Result {
        let MapState::Trying(fields, _) = std::mem::replace(&mut self.state, MapState::Block)
        else {
            return Ok(());
        };
        if let Some(heading) = &self.heading {
            indent(self.out, self.depth)?;
            writeln!(self.out, "{heading}")?;
        }
        for (key, text) in fields {
            indent(self.out, self.child_depth)?;
            writeln!(self.out, "{key}: {text}")?;
        }
        Ok(())
    }

    fn finish(self) -> Result {
        if let MapState::Trying(fields, _) = self.state {
            indent(self.out, self.depth)?;
            write!(self.out, "{}{{", self.prefix)?;
            for (i, (key, text)) in fields.iter().enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                write!(self.out, "{sep}{key}: {text}")?;
            }
            self.out.write_all(b"}\n")?;
        }
        Ok(())
    }
}

/// The inline text of a field of an inline structure: a scalar or an array of scalars, in at
/// most `limit` characters; `None` when it is neither or longer.
fn inline_field<T: Serialize + ?Sized>(value: &T, limit: usize) -> Result<Option<String>> {
    inline_at(value, limit, Level::Field)
}

/// The inline text of any value in at most `limit` characters: a scalar, an array of scalars,
/// or a structure of those.
fn inline_text<T: Serialize + ?Sized>(value: &T, limit: usize) -> Result<Option<String>> {
    inline_at(value, limit, Level::Structure)
}

fn inline_at<T: Serialize + ?Sized>(
    value: &T,
    limit: usize,
    level: Level,
) -> Result<Option<String>> {
    let mut text = String::new();
    match value.serialize(Inline {
        buf: &mut text,
        limit,
        level,
    }) {
        Ok(()) if text.len() <= limit => Ok(Some(text)),
        Ok(()) | Err(TextError::NotInline) => Ok(None),
        Err(error) => Err(error),
    }
}

/// What an inline value may be, from the least to the most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    /// A scalar only (an element of an inline array).
    Scalar,
    /// A scalar or an array of scalars (a field of an inline structure).
    Field,
    /// Also a structure of fields (the value tried on one line).
    Structure,
}

/// Renders a value into a bounded string; fails with [`TextError::NotInline`] as soon as it
/// cannot fit.
struct Inline<'b> {
    buf: &'b mut String,
    limit: usize,
    level: Level,
}

impl<'b> Inline<'b> {
    fn push(self, text: fmt::Arguments<'_>) -> Result {
        let _ = self.buf.write_fmt(text);
        if self.buf.len() > self.limit {
            return Err(TextError::NotInline);
        }
        Ok(())
    }

    fn compound(self, level: Level, open: char) -> Result<InlineCompound<'b>> {
        if self.level < level {
            return Err(TextError::NotInline);
        }
        self.buf.push(open);
        Ok(InlineCompound {
            buf: self.buf,
            limit: self.limit,
            first: true,
            inner: match open {
                '[' => Level::Scalar,
                _ => Level::Field,
            },
        })
    }
}

/// An inline array (`[a, b]`) or structure (`{k: v}`) being rendered.
struct InlineCompound<'b> {
    buf: &'b mut String,
    limit: usize,
    first: bool,
    inner: Level,
}

impl InlineCompound<'_> {
    fn separate(&mut self) -> Result {
        if !self.first {
            self.buf.push_str(", ");
        }
        self.first = false;
        if self.buf.len() > self.limit {
            return Err(TextError::NotInline);
        }
        Ok(())
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.separate()?;
        value.serialize(Inline {
            buf: &mut *self.buf,
            limit: self.limit,
            level: self.inner,
        })
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result {
        self.separate()?;
        self.buf.push_str(key);
        self.buf.push_str(": ");
        value.serialize(Inline {
            buf: &mut *self.buf,
            limit: self.limit,
            level: self.inner,
        })
    }

    fn close(self, close: char) -> Result {
        self.buf.push(close);
        if self.buf.len() > self.limit {
            return Err(TextError::NotInline);
        }
        Ok(())
    }
}

/// The text of a map key: strings as they are, numbers and booleans as text.
fn key_text<T: Serialize + ?Sized>(key: &T) -> Result<String> {
    let mut text = String::new();
    key.serialize(Inline {
        buf: &mut text,
        limit: usize::MAX,
        level: Level::Scalar,
    })?;
    // Keys are written bare, not quoted.
    if let Some(bare) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        if !bare.contains(['\\', '"']) {
            return Ok(bare.to_string());
        }
    }
    Ok(text)
}

/// The text of a float as JSON writes it (`1.0`, `0.25`), `none` when not finite.
fn float_text(value: f64) -> String {
    match serde_json::Number::from_f64(value) {
        Some(number) => number.to_string(),
        None => "none".to_string(),
    }
}

/// The scalar methods shared by both serializers, each turned into a text written by `$emit`.
macro_rules! scalar_methods {
    ($emit:ident) => {
        fn serialize_bool(self, v: bool) -> Result {
            self.$emit(format_args!("{v}"))
        }
        fn serialize_i8(self, v: i8) -> Result {
            self.$emit(format_args!("{v}"))
        }
        fn serialize_i16(self, v: i16) -> Result {
            self.$emit(format_args!("{v}"))
        }
        fn serialize_i32(self, v: i32) -> Result {
            self.$emit(format_args!("{v}"))
        }
        fn serialize_i64(self, v: i64) -> Result {
            self.$emit(format_args!("{v}"))
        }
        fn serialize_i128(self, v: i128) -> Result {
            self.$emit(format_args!("{v}"))
        }
        fn serialize_u8(self, v: u8) -> Result {
            self.$emit(format_args!("{v}"))
        }
        fn serialize_u16(self, v: u16) -> Result {
            self.$emit(format_args!("{v}"))
        }
        fn serialize_u32(self, v: u32) -> Result {
            self.$emit(format_args!("{v}"))
        }
        fn serialize_u64(self, v: u64) -> Result {
            self.$emit(format_args!("{v}"))
        }
        fn serialize_u128(self, v: u128) -> Result {
            self.$emit(format_args!("{v}"))
        }
        fn serialize_f32(self, v: f32) -> Result {
            self.$emit(format_args!("{}", float_text(f64::from(v))))
        }
        fn serialize_f64(self, v: f64) -> Result {
            self.$emit(format_args!("{}", float_text(v)))
        }
        fn serialize_char(self, v: char) -> Result {
            self.$emit(format_args!("{:?}", v.to_string()))
        }
        fn serialize_none(self) -> Result {
            self.$emit(format_args!("none"))
        }
        fn serialize_unit(self) -> Result {
            self.$emit(format_args!("none"))
        }
        fn serialize_unit_struct(self, _name: &'static str) -> Result {
            self.$emit(format_args!("none"))
        }
        fn serialize_unit_variant(
            self,
            _name: &'static str,
            _index: u32,
            variant: &'static str,
        ) -> Result {
            self.$emit(format_args!("{variant:?}"))
        }
        fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result {
            value.serialize(self)
        }
        fn serialize_newtype_struct<T: Serialize + ?Sized>(
            self,
            _name: &'static str,
            value: &T,
        ) -> Result {
            value.serialize(self)
        }
    };
}

impl<'o, 'k> ser::Serializer for Block<'o, 'k> {
    type Ok = ();
    type Error = TextError;
    type SerializeSeq = BlockSeq<'o>;
    type SerializeTuple = BlockSeq<'o>;
    type SerializeTupleStruct = BlockSeq<'o>;
    type SerializeTupleVariant = BlockSeq<'o>;
    type SerializeMap = BlockMap<'o>;
    type SerializeStruct = BlockMap<'o>;
    type SerializeStructVariant = BlockMap<'o>;

    scalar_methods!(scalar);

    fn serialize_str(self, v: &str) -> Result {
        self.scalar(format_args!("{v:?}"))
    }

    fn serialize_bytes(self, v: &[u8]) -> Result {
        let mut seq = self.seq();
        for byte in v {
            seq.element(byte)?;
        }
        seq.finish()
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        self.entry(variant, value)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<BlockSeq<'o>> {
        Ok(self.seq())
    }

    fn serialize_tuple(self, _len: usize) -> Result<BlockSeq<'o>> {
        Ok(self.seq())
    }

    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<BlockSeq<'o>> {
        Ok(self.seq())
    }

    fn serialize_tuple_variant(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<BlockSeq<'o>> {
        // `{variant: [...]}` never fits on one line (a structure holding a structure).
        let depth = self.block_start()?;
        let (prefix, heading) = heading_texts(Header::Field(variant));
        Ok(BlockSeq {
            out: self.out,
            depth,
            prefix,
            heading,
            state: SeqState::Undecided,
            count: 0,
        })
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<BlockMap<'o>> {
        Ok(self.map())
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<BlockMap<'o>> {
        Ok(self.map())
    }

    fn serialize_struct_variant(
        mut self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<BlockMap<'o>> {
        // `{variant: {...}}` never fits on one line (a structure holding a structure).
        let depth = self.block_start()?;
        Ok(Block {
            out: self.out,
            depth,
            header: Header::Field(variant),
        }
        .map())
    }
}

impl ser::SerializeSeq for BlockSeq<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }
    fn end(self) -> Result {
        self.finish()
    }
}

impl ser::SerializeTuple for BlockSeq<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }
    fn end(self) -> Result {
        self.finish()
    }
}

impl ser::SerializeTupleStruct for BlockSeq<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }
    fn end(self) -> Result {
        self.finish()
    }
}

impl ser::SerializeTupleVariant for BlockSeq<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }
    fn end(self) -> Result {
        self.finish()
    }
}

impl ser::SerializeMap for BlockMap<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        self.key = Some(key_text(key)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        let key = self.key.take().unwrap_or_default();
        self.field(&key, value)
    }
    fn end(self) -> Result {
        self.finish()
    }
}

impl ser::SerializeStruct for BlockMap<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        self.field(key, value)
    }
    fn end(self) -> Result {
        self.finish()
    }
}

impl ser::SerializeStructVariant for BlockMap<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        self.field(key, value)
    }
    fn end(self) -> Result {
        self.finish()
    }
}

impl<'b> ser::Serializer for Inline<'b> {
    type Ok = ();
    type Error = TextError;
    type SerializeSeq = InlineCompound<'b>;
    type SerializeTuple = InlineCompound<'b>;
    type SerializeTupleStruct = InlineCompound<'b>;
    type SerializeTupleVariant = Impossible<(), TextError>;
    type SerializeMap = InlineMap<'b>;
    type SerializeStruct = InlineCompound<'b>;
    type SerializeStructVariant = Impossible<(), TextError>;

    scalar_methods!(push);

    fn serialize_str(self, v: &str) -> Result {
        // The quoted text is at least as long as the text.
        if self.buf.len() + v.len() > self.limit {
            return Err(TextError::NotInline);
        }
        self.push(format_args!("{v:?}"))
    }

    fn serialize_bytes(self, v: &[u8]) -> Result {
        let limit = self.limit;
        let mut seq = self.compound(Level::Field, '[')?;
        for byte in v {
            seq.element(byte)?;
            if seq.buf.len() > limit {
                return Err(TextError::NotInline);
            }
        }
        seq.close(']')
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result {
        let mut map = self.compound(Level::Structure, '{')?;
        map.field(variant, value)?;
        map.close('}')
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<InlineCompound<'b>> {
        self.compound(Level::Field, '[')
    }

    fn serialize_tuple(self, _len: usize) -> Result<InlineCompound<'b>> {
        self.compound(Level::Field, '[')
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<InlineCompound<'b>> {
        self.compound(Level::Field, '[')
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Impossible<(), TextError>> {
        Err(TextError::NotInline)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<InlineMap<'b>> {
        Ok(InlineMap {
            compound: self.compound(Level::Structure, '{')?,
            key: None,
        })
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<InlineCompound<'b>> {
        self.compound(Level::Structure, '{')
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Impossible<(), TextError>> {
        Err(TextError::NotInline)
    }
}

impl ser::SerializeSeq for InlineCompound<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }
    fn end(self) -> Result {
        self.close(']')
    }
}

impl ser::SerializeTuple for InlineCompound<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }
    fn end(self) -> Result {
        self.close(']')
    }
}

impl ser::SerializeTupleStruct for InlineCompound<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.element(value)
    }
    fn end(self) -> Result {
        self.close(']')
    }
}

impl ser::SerializeStruct for InlineCompound<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result {
        self.field(key, value)
    }
    fn end(self) -> Result {
        self.close('}')
    }
}

/// An inline map: its key held until its value comes.
struct InlineMap<'b> {
    compound: InlineCompound<'b>,
    key: Option<String>,
}

impl ser::SerializeMap for InlineMap<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        self.key = Some(key_text(key)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        let key = self.key.take().unwrap_or_default();
        self.compound.field(&key, value)
    }
    fn end(self) -> Result {
        self.compound.close('}')
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(value: &serde_json::Value, depth: usize) -> String {
        let mut out = Vec::new();
        write_fields(&mut out, value, depth, &[]).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn scalars_small_structures_and_blocks() {
        let value = json!({
            "name": "Game",
            "none": null,
            "flags": ["detail"],
            "empty": [],
            "color": {"r": 255, "g": 0, "b": 0, "a": 255},
            "points": [{"x": 0, "y": 1}, {"x": 2, "y": 3}],
            "nested": {"inner": {"a": 1}},
            "rows": [[1, 2], [3]],
        });
        assert_eq!(
            text(&value, 0),
            "name: \"Game\"\n\
             none: none\n\
             flags: [\"detail\"]\n\
             empty: []\n\
             color: {r: 255, g: 0, b: 0, a: 255}\n\
             points:\n\
             \x20 - {x: 0, y: 1}\n\
             \x20 - {x: 2, y: 3}\n\
             nested:\n\
             \x20 inner: {a: 1}\n\
             rows:\n\
             \x20 - [1, 2]\n\
             \x20 - [3]\n"
        );
    }

    #[test]
    fn a_structure_longer_than_a_line_opens_a_block() {
        let long = "x".repeat(INLINE_WIDTH);
        let value = json!({"items": [{"a": 1, "b": long}, {"a": 2, "b": "short"}]});
        assert_eq!(
            text(&value, 1),
            format!(
                "  items:\n    - #0\n      a: 1\n      b: \"{long}\"\n    - {{a: 2, b: \"short\"}}\n"
            )
        );
        // Exactly the width still fits: `{a: ` + 92 digits-worth of text + `}`.
        let fits = json!({"p": {"a": "y".repeat(INLINE_WIDTH - 7)}});
        assert_eq!(text(&fits, 0).lines().count(), 1);
        let over = json!({"p": {"a": "y".repeat(INLINE_WIDTH - 6)}});
        assert_eq!(text(&over, 0).lines().count(), 2);
    }

    #[test]
    fn enums_as_json_shows_them() {
        #[derive(serde::Serialize)]
        enum Shape {
            Circle { radius: i32 },
            Point,
            Wrapped(i32),
        }
        #[derive(serde::Serialize)]
        struct Holder {
            a: Shape,
            b: Shape,
            c: Shape,
            d: Option<i32>,
            e: f64,
        }
        let holder = Holder {
            a: Shape::Circle { radius: 5 },
            b: Shape::Point,
            c: Shape::Wrapped(7),
            d: Some(3),
            e: 0.5,
        };
        let mut out = Vec::new();
        write_fields(&mut out, &holder, 0, &[]).unwrap();
        let streamed = String::from_utf8(out).unwrap();
        // The same text as the JSON value of it.
        assert_eq!(streamed, text(&serde_json::to_value(&holder).unwrap(), 0));
        assert_eq!(
            streamed,
            "a:\n  Circle: {radius: 5}\nb: \"Point\"\nc: {Wrapped: 7}\nd: 3\ne: 0.5\n"
        );
    }

    #[test]
    fn skipped_root_fields_and_write_errors() {
        let value = json!({"kind": "layer", "a": 1});
        let mut out = Vec::new();
        write_fields(&mut out, &value, 1, &["kind"]).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "  a: 1\n");

        let mut full = [0u8; 4];
        let error = write_fields(&mut &mut full[..], &value, 0, &[]).unwrap_err();
        assert_eq!(error.kind(), io::ErrorKind::WriteZero);
    }
}
