//! The text form of the dumps: a serde [`Serializer`](serde::Serializer) that writes any
//! serializable value as `key: value` lines, nesting by indentation, straight to a writer.
//!
//! - A scalar, an array of scalars, or a small structure of those (a point, a color, an
//!   envelope point; at most [`INLINE_WIDTH`] characters) goes on one line:
//!   `color: {r: 255, g: 255, b: 255, a: 255}`, `values: [1024, 0, 0, 0]`.
//! - Anything else opens a block: `key:` and its fields one level deeper; an array of
//!   structures lists its elements as `- ` entries, `- #index` for those that need a block.
//! - Strings are quoted with Rust's escapes, absent values are `none`, unit variants their
//!   quoted name; a newtype struct named [`BARE`] holding a string is written unquoted, and
//!   one named by a unit hint of the schema (`twcodec_schema::netobj::common::unit`) holding a
//!   number is written with its value in human units beside it (`1056 (33 tiles)`).
//!
//! Nothing is collected before it is written: an array is written element by element (whether
//! it is an array of scalars is decided by its first element, as arrays of Rust values are
//! alike), and a structure is held back only while it may still fit on one line. Output memory
//! therefore stays small whatever the size of the value, and the time is linear in the output.

use std::fmt::{self, Write as _};
use std::io::{self, Write};

use serde::ser::{self, Impossible, Serialize};

/// The name of a newtype struct whose string the text form writes as it is, without quotes:
/// a value already in human units (`(0, 1) tiles`, `#3 "grass_main"`). Other serializers see
/// the string.
pub(crate) const BARE: &str = "$twcodec::bare";

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
        place: Place {
            depth,
            header: Header::Root { skip },
        },
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

/// Where a value goes: its depth and its header.
#[derive(Debug, Clone, Copy)]
struct Place<'k> {
    depth: usize,
    header: Header<'k>,
}

impl Place<'_> {
    /// Starts the line of an inline value: the indentation, then `key: `, `- ` or nothing.
    fn inline_start(self, out: &mut dyn Write) -> io::Result<()> {
        indent(out, self.depth)?;
        match self.header {
            Header::Root { .. } => Ok(()),
            Header::Field(key) => write!(out, "{key}: "),
            Header::Item(_) => out.write_all(b"- "),
        }
    }

    /// Writes the heading line of a block (nothing at the root); returns the depth of its
    /// contents.
    fn block_start(self, out: &mut dyn Write) -> io::Result<usize> {
        match self.header {
            Header::Root { .. } => return Ok(self.depth),
            Header::Field(key) => {
                indent(out, self.depth)?;
                writeln!(out, "{key}:")?;
            }
            Header::Item(index) => {
                indent(out, self.depth)?;
                writeln!(out, "- #{index}")?;
            }
        }
        Ok(self.depth + 1)
    }

    /// The depth of a block's contents.
    fn child_depth(self) -> usize {
        match self.header {
            Header::Root { .. } => self.depth,
            _ => self.depth + 1,
        }
    }
}

/// A value written at a place, streaming.
struct Block<'o, 'k> {
    out: &'o mut dyn Write,
    place: Place<'k>,
}

impl<'o, 'k> Block<'o, 'k> {
    /// A scalar's line.
    fn scalar(self, text: fmt::Arguments<'_>) -> Result {
        self.place.inline_start(self.out)?;
        self.out.write_fmt(text)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    fn seq(self) -> BlockSeq<'o, 'k> {
        BlockSeq {
            out: self.out,
            place: self.place,
            // At the root, elements are always listed, one per line.
            state: match self.place.header {
                Header::Root { .. } => SeqState::Listed,
                _ => SeqState::Undecided,
            },
            count: 0,
        }
    }

    fn map(self) -> BlockMap<'o, 'k> {
        let (state, skip) = match self.place.header {
            Header::Root { skip } => (MapState::Block, skip),
            _ => (MapState::Trying(String::new(), Vec::new()), &[][..]),
        };
        BlockMap {
            out: self.out,
            place: self.place,
            state,
            skip,
            key: String::new(),
        }
    }

    /// The block of an enum variant with content, `{variant: ...}`, which never fits on one
    /// line (a structure holding a structure): the heading, and the variant as its field.
    fn variant(self, variant: &'static str) -> Result<Block<'o, 'k>> {
        let depth = self.place.block_start(self.out)?;
        Ok(Block {
            out: self.out,
            place: Place {
                depth,
                header: Header::Field(variant),
            },
        })
    }
}

/// The text of a scalar, or `None` for a compound value.
fn scalar_text<T: Serialize + ?Sized>(value: &T) -> Result<Option<String>> {
    inline(value, usize::MAX, Level::Scalar)
}

/// The inline text of a value in at most `limit` characters, or `None` when it does not fit
/// or is more than `level` allows.
fn inline<T: Serialize + ?Sized>(value: &T, limit: usize, level: Level) -> Result<Option<String>> {
    let mut text = String::new();
    match value.serialize(Inline {
        buf: &mut text,
        limit,
        level,
    }) {
        Ok(()) => Ok(Some(text)),
        Err(TextError::NotInline) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Writes an array element by element: on one line when it holds scalars (decided by the
/// first), else one `- ` entry per element.
struct BlockSeq<'o, 'k> {
    out: &'o mut dyn Write,
    place: Place<'k>,
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

impl BlockSeq<'_, '_> {
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        let index = self.count;
        self.count += 1;
        match self.state {
            SeqState::Undecided => match scalar_text(value)? {
                Some(text) => {
                    self.place.inline_start(self.out)?;
                    write!(self.out, "[{text}")?;
                    self.state = SeqState::Inline;
                }
                None => {
                    self.place.block_start(self.out)?;
                    self.state = SeqState::Listed;
                    self.listed(index, value)?;
                }
            },
            SeqState::Inline => {
                // Arrays of Rust values are alike; an odd compound element still goes on
                // the line, as far as it fits.
                let text = match scalar_text(value)? {
                    Some(text) => text,
                    None => inline(value, INLINE_WIDTH, Level::Structure)?
                        .unwrap_or_else(|| "...".into()),
                };
                write!(self.out, ", {text}")?;
            }
            SeqState::Listed => self.listed(index, value)?,
        }
        Ok(())
    }

    fn listed<T: Serialize + ?Sized>(&mut self, index: usize, value: &T) -> Result {
        value.serialize(Block {
            out: &mut *self.out,
            place: Place {
                depth: self.place.child_depth(),
                header: Header::Item(index),
            },
        })
    }

    fn finish(self) -> Result {
        match self.state {
            SeqState::Undecided => {
                self.place.inline_start(self.out)?;
                self.out.write_all(b"[]\n")?;
            }
            SeqState::Inline => self.out.write_all(b"]\n")?,
            SeqState::Listed => {}
        }
        Ok(())
    }
}

/// Writes a structure: held back as one line of `key: text` pieces while it may fit on one
/// line, then as a block with one field per line.
struct BlockMap<'o, 'k> {
    out: &'o mut dyn Write,
    place: Place<'k>,
    state: MapState,
    skip: &'static [&'static str],
    /// The key of a map entry whose value comes next.
    key: String,
}

enum MapState {
    /// The fields so far as `key: text, key: text` (the line without its braces), and where
    /// each piece ends.
    Trying(String, Vec<usize>),
    /// Written as a block.
    Block,
}

impl BlockMap<'_, '_> {
    /// Longest `key: text, ...` that still fits on a line within its braces.
    const LINE: usize = INLINE_WIDTH - 2;

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result {
        if self.skip.contains(&key) {
            return Ok(());
        }
        if let MapState::Trying(line, ends) = &mut self.state {
            let start = line.len();
            if !ends.is_empty() {
                line.push_str(", ");
            }
            line.push_str(key);
            line.push_str(": ");
            let fits = value.serialize(Inline {
                buf: &mut *line,
                limit: Self::LINE,
                level: Level::Field,
            });
            match fits {
                Ok(()) if line.len() <= Self::LINE => {
                    ends.push(line.len());
                    return Ok(());
                }
                Ok(()) | Err(TextError::NotInline) => {
                    line.truncate(start);
                    self.open_block()?;
                }
                Err(error) => return Err(error),
            }
        }
        value.serialize(Block {
            out: &mut *self.out,
            place: Place {
                depth: self.place.child_depth(),
                header: Header::Field(key),
            },
        })
    }

    /// Writes the heading line and the fields held back so far, one per line.
    fn open_block(&mut self) -> Result {
        let MapState::Trying(line, ends) = std::mem::replace(&mut self.state, MapState::Block)
        else {
            return Ok(());
        };
        let depth = self.place.block_start(self.out)?;
        let mut start = 0;
        for end in ends {
            indent(self.out, depth)?;
            writeln!(self.out, "{}", &line[start..end])?;
            start = end + 2;
        }
        Ok(())
    }

    fn finish(self) -> Result {
        if let MapState::Trying(line, _) = self.state {
            self.place.inline_start(self.out)?;
            writeln!(self.out, "{{{line}}}")?;
        }
        Ok(())
    }
}

/// What an inline value may be, from the least to the most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Level {
    /// A map key: a scalar, strings bare where they need no escapes.
    Key,
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

/// Sets `buf` to the text of a map key: strings as they are (quoted only where they need
/// escapes), numbers and booleans as text.
fn key_text<T: Serialize + ?Sized>(key: &T, buf: &mut String) -> Result {
    buf.clear();
    key.serialize(Inline {
        buf,
        limit: usize::MAX,
        level: Level::Key,
    })
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
            name: &'static str,
            value: &T,
        ) -> Result {
            if name == BARE {
                if let Ok(serde_json::Value::String(text)) = serde_json::to_value(value) {
                    return self.$emit(format_args!("{text}"));
                }
            }
            if let Some(human) = crate::units::unit_hint(name, value) {
                return self.$emit(format_args!("{human}"));
            }
            value.serialize(self)
        }
    };
}

impl<'o, 'k> ser::Serializer for Block<'o, 'k> {
    type Ok = ();
    type Error = TextError;
    type SerializeSeq = BlockSeq<'o, 'k>;
    type SerializeTuple = BlockSeq<'o, 'k>;
    type SerializeTupleStruct = BlockSeq<'o, 'k>;
    type SerializeTupleVariant = BlockSeq<'o, 'k>;
    type SerializeMap = BlockMap<'o, 'k>;
    type SerializeStruct = BlockMap<'o, 'k>;
    type SerializeStructVariant = BlockMap<'o, 'k>;

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
        // `{variant: value}` fits on one line when the value is a scalar.
        let mut map = self.map();
        map.field(variant, value)?;
        map.finish()
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<BlockSeq<'o, 'k>> {
        Ok(self.seq())
    }

    fn serialize_tuple(self, _len: usize) -> Result<BlockSeq<'o, 'k>> {
        Ok(self.seq())
    }

    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<BlockSeq<'o, 'k>> {
        Ok(self.seq())
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<BlockSeq<'o, 'k>> {
        Ok(self.variant(variant)?.seq())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<BlockMap<'o, 'k>> {
        Ok(self.map())
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<BlockMap<'o, 'k>> {
        Ok(self.map())
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<BlockMap<'o, 'k>> {
        Ok(self.variant(variant)?.map())
    }
}

/// The `Serialize*` traits of sequences (seq, tuple, tuple struct, tuple variant): each
/// element through `element`, the end through `$end`.
macro_rules! sequence_impls {
    ($ty:ty, |$this:ident| $end:expr; $($trait:ident :: $method:ident),+) => {$(
        impl ser::$trait for $ty {
            type Ok = ();
            type Error = TextError;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
                self.element(value)
            }
            fn end(self) -> Result {
                let $this = self;
                $end
            }
        }
    )+};
}

/// The `Serialize*` traits of structures (struct, struct variant): each field through
/// `field`, the end through `$end`.
macro_rules! structure_impls {
    ($ty:ty, |$this:ident| $end:expr; $($trait:ident),+) => {$(
        impl ser::$trait for $ty {
            type Ok = ();
            type Error = TextError;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result {
                self.field(key, value)
            }
            fn end(self) -> Result {
                let $this = self;
                $end
            }
        }
    )+};
}

sequence_impls!(BlockSeq<'_, '_>, |seq| seq.finish();
    SerializeSeq::serialize_element, SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field, SerializeTupleVariant::serialize_field);
structure_impls!(BlockMap<'_, '_>, |map| map.finish(); SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for BlockMap<'_, '_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        key_text(key, &mut self.key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        // Taken for the call and put back, so that its buffer serves the next key.
        let key = std::mem::take(&mut self.key);
        let result = self.field(&key, value);
        self.key = key;
        result
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
        let start = self.buf.len();
        let _ = write!(self.buf, "{v:?}");
        // A key is bare when quoting escaped nothing.
        if self.level == Level::Key && self.buf.len() == start + v.len() + 2 {
            self.buf.truncate(start);
            self.buf.push_str(v);
        }
        match self.buf.len() > self.limit {
            true => Err(TextError::NotInline),
            false => Ok(()),
        }
    }

    fn serialize_bytes(self, v: &[u8]) -> Result {
        let mut seq = self.compound(Level::Field, '[')?;
        for byte in v {
            seq.element(byte)?;
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
            key: String::new(),
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

sequence_impls!(InlineCompound<'_>, |compound| compound.close(']');
    SerializeSeq::serialize_element, SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field);
structure_impls!(InlineCompound<'_>, |compound| compound.close('}'); SerializeStruct);

/// An inline map: its key held until its value comes.
struct InlineMap<'b> {
    compound: InlineCompound<'b>,
    key: String,
}

impl ser::SerializeMap for InlineMap<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        key_text(key, &mut self.key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        self.compound.field(&self.key, value)
    }
    fn end(self) -> Result {
        self.compound.close('}')
    }
}

/// The fields of `value` (a struct or a map) as `key: value` texts, each value inline however
/// long, leaving out the fields named in `skip`: what a caller lays out on lines of its own
/// (the snapshot objects of `snap decode`). `None` for anything else.
pub(crate) fn field_texts<T: Serialize + ?Sized>(
    value: &T,
    skip: &'static [&'static str],
) -> Option<Vec<String>> {
    let mut fields = Vec::new();
    value
        .serialize(FieldTexts {
            fields: &mut fields,
            skip,
            key: String::new(),
        })
        .ok()?;
    Some(fields)
}

/// Collects [`field_texts`].
struct FieldTexts<'f> {
    fields: &'f mut Vec<String>,
    skip: &'static [&'static str],
    key: String,
}

impl FieldTexts<'_> {
    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result {
        if self.skip.contains(&key) {
            return Ok(());
        }
        let text = match inline(value, usize::MAX, Level::Field)? {
            Some(text) => text,
            None => inline(value, usize::MAX, Level::Structure)?.ok_or(TextError::NotInline)?,
        };
        self.fields.push(format!("{key}: {text}"));
        Ok(())
    }
}

impl<'f> ser::Serializer for FieldTexts<'f> {
    type Ok = ();
    type Error = TextError;
    type SerializeSeq = Impossible<(), TextError>;
    type SerializeTuple = Impossible<(), TextError>;
    type SerializeTupleStruct = Impossible<(), TextError>;
    type SerializeTupleVariant = Impossible<(), TextError>;
    type SerializeMap = FieldTexts<'f>;
    type SerializeStruct = FieldTexts<'f>;
    type SerializeStructVariant = Impossible<(), TextError>;

    scalar_methods!(refuse);

    fn serialize_str(self, _v: &str) -> Result {
        Err(TextError::NotInline)
    }

    fn serialize_bytes(self, _v: &[u8]) -> Result {
        Err(TextError::NotInline)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result {
        Err(TextError::NotInline)
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(TextError::NotInline)
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple> {
        Err(TextError::NotInline)
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(TextError::NotInline)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(TextError::NotInline)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self> {
        Ok(self)
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self> {
        Ok(self)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(TextError::NotInline)
    }
}

impl FieldTexts<'_> {
    /// What [`field_texts`] refuses: anything but a structure.
    fn refuse(self, _text: fmt::Arguments<'_>) -> Result {
        Err(TextError::NotInline)
    }
}

structure_impls!(FieldTexts<'_>, |_fields| Ok(()); SerializeStruct);

impl ser::SerializeMap for FieldTexts<'_> {
    type Ok = ();
    type Error = TextError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result {
        key_text(key, &mut self.key)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result {
        let key = std::mem::take(&mut self.key);
        let result = self.field(&key, value);
        self.key = key;
        result
    }
    fn end(self) -> Result {
        Ok(())
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
    fn keys_are_bare_unless_they_need_escapes() {
        let value = json!({"counts": {"13": 100, "a\"b": 1}, "m": {"x y": [1]}});
        assert_eq!(
            text(&value, 0),
            "counts: {13: 100, \"a\\\"b\": 1}\nm: {x y: [1]}\n"
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
