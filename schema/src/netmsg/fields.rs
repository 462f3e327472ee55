//! The field types of messages (docs/format-notes.md, "Messages"; DDNet
//! `src/engine/shared/packer.cpp`, `CPacker` and `CUnpacker`): packed ints ([`VarInt`]),
//! NUL-terminated strings ([`NetString`]), and raw bytes, sized by a packed int before them
//! ([`SizedData`]) or of a fixed length ([`Sha256Bytes`]).
//!
//! Each reads byte by byte and says where it fails with a [`FieldError`]. A field that finds no
//! byte at all at its start fails with an I/O end-of-file error instead, so that
//! `binrw::helpers::until_eof` ends a list of fields there, and the message decoder reports
//! the field as missing.

use std::borrow::Cow;
use std::fmt;

use crate::packing::PackedIntError;

use binrw::io::{Read, Seek, Write};
use binrw::{BinRead, BinResult, BinWrite, Endian};
#[cfg(feature = "serde")]
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[cfg(feature = "reference")]
use crate::reference::{OnDisk, Size};

/// Why a field does not read, and where it starts (a byte offset in the message).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldError {
    /// A packed int whose bytes stop before its last byte.
    IntCutOff(u64),
    /// A packed int of more than 5 bytes, or whose fifth byte sets bits past the 32 of an int.
    IntOverlong(u64),
    /// A packed int with more bytes than its value needs (a last byte of 0). DDNet reads it;
    /// it is refused here because writing it back would give other bytes.
    IntNotShortest(u64),
    /// A string whose bytes run to the end of the message without a NUL.
    NoNul(u64),
    /// A size field that is negative or larger than what the message has left.
    DataSize {
        /// Where the data starts (after its size).
        at: u64,
        /// The size given.
        size: i32,
        /// Bytes left in the message.
        left: u64,
    },
    /// Fixed-size raw bytes cut off by the end of the message.
    BytesCutOff {
        /// Where they start.
        at: u64,
        /// How many the field takes.
        needed: u64,
        /// How many the message has left.
        left: u64,
    },
    /// A count field that asks for more elements than the rest of the message can hold (each
    /// takes at least one byte).
    Count {
        /// The count given.
        count: i32,
        /// Bytes left in the message.
        left: u64,
    },
}

impl std::fmt::Display for FieldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FieldError::IntCutOff(at) => write!(f, "the packed int at byte {at} is cut off"),
            FieldError::IntOverlong(at) => write!(
                f,
                "the packed int at byte {at} is longer than an int can be"
            ),
            FieldError::IntNotShortest(at) => write!(
                f,
                "the packed int at byte {at} has more bytes than its value needs"
            ),
            FieldError::NoNul(at) => write!(
                f,
                "the string at byte {at} has no NUL before the end of the message"
            ),
            FieldError::DataSize { at, size, left } => write!(
                f,
                "the data at byte {at} is {size} bytes long, the message has {left} left"
            ),
            FieldError::BytesCutOff { at, needed, left } => write!(
                f,
                "the {needed} bytes at byte {at} are cut off ({left} left)"
            ),
            FieldError::Count { count, left } => write!(
                f,
                "the count {count} is more than the {left} bytes left can hold"
            ),
        }
    }
}

impl std::error::Error for FieldError {}

/// A [`FieldError`] as binrw carries it.
fn fail(pos: u64, error: FieldError) -> binrw::Error {
    binrw::Error::Custom {
        pos,
        err: Box::new(error),
    }
}

/// The error a field gives when the message ends at its start.
fn missing() -> binrw::Error {
    binrw::Error::Io(std::io::ErrorKind::UnexpectedEof.into())
}

/// Reads one byte, or `None` at the end.
fn next_byte<R: Read>(reader: &mut R) -> BinResult<Option<u8>> {
    let mut byte = [0u8];
    loop {
        match reader.read(&mut byte) {
            Ok(0) => return Ok(None),
            Ok(_) => return Ok(Some(byte[0])),
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(binrw::Error::Io(error)),
        }
    }
}

/// Bytes left after the reader's position.
fn bytes_left<R: Read + Seek>(reader: &mut R) -> BinResult<u64> {
    let at = reader.stream_position()?;
    let end = reader.seek(std::io::SeekFrom::End(0))?;
    reader.seek(std::io::SeekFrom::Start(at))?;
    Ok(end.saturating_sub(at))
}

/// A packed int (docs/format-notes.md, "Packed ints"; DDNet `CVariableInt`): 1 to 5 bytes,
/// always in its shortest form.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
#[doc(alias = "CVariableInt")]
pub struct VarInt(pub i32);

impl VarInt {
    /// Most bytes one packed int takes.
    pub const MAX_SIZE: usize = crate::packing::MAX_PACKED_INT;

    /// Appends the packed form.
    pub fn pack(self, out: &mut Vec<u8>) {
        crate::packing::pack_int(self.0, out);
    }
}

impl fmt::Debug for VarInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

impl fmt::Display for VarInt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl From<i32> for VarInt {
    fn from(value: i32) -> VarInt {
        VarInt(value)
    }
}

impl From<VarInt> for i32 {
    fn from(value: VarInt) -> i32 {
        value.0
    }
}

#[cfg(feature = "reference")]
impl OnDisk for VarInt {
    fn size() -> Size {
        Size::Range {
            min: 1,
            max: VarInt::MAX_SIZE as u64,
        }
    }
}

impl BinRead for VarInt {
    type Args<'a> = ();

    fn read_options<R: Read + Seek>(reader: &mut R, _: Endian, (): ()) -> BinResult<VarInt> {
        let start = reader.stream_position()?;
        // Up to the longest an int can be, then back to where it ends.
        let mut bytes = [0u8; VarInt::MAX_SIZE];
        let mut read = 0;
        while read < bytes.len() {
            match next_byte(reader)? {
                Some(byte) => bytes[read] = byte,
                None => break,
            }
            read += 1;
        }
        if read == 0 {
            return Err(missing());
        }
        let (value, len) = match crate::packing::unpack_int(&bytes[..read]) {
            Ok(unpacked) => unpacked,
            Err(PackedIntError::Truncated) => {
                return Err(fail(start, FieldError::IntCutOff(start)))
            }
            Err(PackedIntError::Overlong) => {
                return Err(fail(start, FieldError::IntOverlong(start)))
            }
        };
        reader.seek(std::io::SeekFrom::Start(start + len as u64))?;
        if len > 1 && bytes.get(len - 1) == Some(&0) {
            return Err(fail(start, FieldError::IntNotShortest(start)));
        }
        Ok(VarInt(value))
    }
}

impl BinWrite for VarInt {
    type Args<'a> = ();

    fn write_options<W: Write + Seek>(&self, writer: &mut W, _: Endian, (): ()) -> BinResult<()> {
        let mut bytes = Vec::with_capacity(VarInt::MAX_SIZE);
        self.pack(&mut bytes);
        writer.write_all(&bytes)?;
        Ok(())
    }
}

/// A NUL-terminated string (DDNet `CUnpacker::GetString`), its bytes kept as sent: DDNet's
/// receiver sanitises (control characters to spaces, leading spaces skipped, per field), this
/// type does not. [`NetString::to_string_lossy`] gives the text.
///
/// In JSON it is a string when its bytes are UTF-8, else an array of bytes.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct NetString(pub Vec<u8>);

impl NetString {
    /// The bytes, without the NUL.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// The text, with invalid UTF-8 replaced by U+FFFD.
    pub fn to_string_lossy(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.0)
    }
}

impl fmt::Debug for NetString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.to_string_lossy(), f)
    }
}

impl From<&str> for NetString {
    fn from(text: &str) -> NetString {
        NetString(text.as_bytes().to_vec())
    }
}

#[cfg(feature = "reference")]
impl OnDisk for NetString {
    fn size() -> Size {
        Size::Custom {
            function: "its NUL".into(),
        }
    }
}

impl BinRead for NetString {
    type Args<'a> = ();

    fn read_options<R: Read + Seek>(reader: &mut R, _: Endian, (): ()) -> BinResult<NetString> {
        let start = reader.stream_position()?;
        let mut bytes = Vec::new();
        loop {
            match next_byte(reader)? {
                Some(0) => return Ok(NetString(bytes)),
                Some(byte) => bytes.push(byte),
                None if bytes.is_empty() => return Err(missing()),
                None => return Err(fail(start, FieldError::NoNul(start))),
            }
        }
    }
}

impl BinWrite for NetString {
    type Args<'a> = ();

    fn write_options<W: Write + Seek>(&self, writer: &mut W, _: Endian, (): ()) -> BinResult<()> {
        // A NUL inside would end the string early when read back: cut there, as DDNet's packer
        // copies up to the first NUL.
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(self.0.len());
        writer.write_all(&self.0[..end])?;
        writer.write_all(&[0])?;
        Ok(())
    }
}

#[cfg(feature = "serde")]
impl Serialize for NetString {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(&self.0) {
            Ok(text) => serializer.serialize_str(text),
            Err(_) => self.0.serialize(serializer),
        }
    }
}

#[cfg(feature = "serde")]
impl<'de> Deserialize<'de> for NetString {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<NetString, D::Error> {
        #[cfg_attr(feature = "serde", derive(serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(untagged))]
        enum Form {
            Text(String),
            Bytes(Vec<u8>),
        }
        Ok(match Form::deserialize(deserializer)? {
            Form::Text(text) => NetString(text.into_bytes()),
            Form::Bytes(bytes) => NetString(bytes),
        })
    }
}

/// Raw bytes after a packed int giving their number (DDNet `CUnpacker::GetRaw` after
/// `GetInt`): the parts of snapshots and of the map.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(transparent))]
pub struct SizedData(pub Vec<u8>);

impl fmt::Debug for SizedData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "<{} bytes>", self.0.len())
    }
}

#[cfg(feature = "reference")]
impl OnDisk for SizedData {
    fn size() -> Size {
        Size::Custom {
            function: "its size int".into(),
        }
    }
}

impl BinRead for SizedData {
    type Args<'a> = ();

    fn read_options<R: Read + Seek>(
        reader: &mut R,
        endian: Endian,
        (): (),
    ) -> BinResult<SizedData> {
        let VarInt(size) = VarInt::read_options(reader, endian, ())?;
        let at = reader.stream_position()?;
        let left = bytes_left(reader)?;
        let len = u64::try_from(size)
            .ok()
            .filter(|&len| len <= left)
            .ok_or_else(|| fail(at, FieldError::DataSize { at, size, left }))?;
        let mut data = vec![0; len as usize];
        reader.read_exact(&mut data)?;
        Ok(SizedData(data))
    }
}

impl BinWrite for SizedData {
    type Args<'a> = ();

    fn write_options<W: Write + Seek>(
        &self,
        writer: &mut W,
        endian: Endian,
        (): (),
    ) -> BinResult<()> {
        let size = i32::try_from(self.0.len()).map_err(|_| binrw::Error::AssertFail {
            pos: 0,
            message: format!("{} bytes of data do not fit a packed int", self.0.len()),
        })?;
        VarInt(size).write_options(writer, endian, ())?;
        writer.write_all(&self.0)?;
        Ok(())
    }
}

/// Defines a field of a fixed number of raw bytes, shown in hex.
macro_rules! fixed_bytes {
    ($(#[doc = $doc:literal])* $name:ident, $len:literal) => {
        $(#[doc = $doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash)]
        #[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
        #[cfg_attr(feature = "serde", serde(transparent))]
        pub struct $name(pub [u8; $len]);

        impl Default for $name {
            fn default() -> $name {
                $name([0; $len])
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                for byte in self.0 {
                    write!(f, "{byte:02x}")?;
                }
                Ok(())
            }
        }

        #[cfg(feature = "reference")]
        impl OnDisk for $name {
            fn size() -> Size {
                Size::fixed($len)
            }
        }

        impl BinRead for $name {
            type Args<'a> = ();

            fn read_options<R: Read + Seek>(reader: &mut R, _: Endian, (): ()) -> BinResult<$name> {
                let mut bytes = [0; $len];
                read_fixed(reader, &mut bytes)?;
                Ok($name(bytes))
            }
        }

        impl BinWrite for $name {
            type Args<'a> = ();

            fn write_options<W: Write + Seek>(
                &self,
                writer: &mut W,
                _: Endian,
                (): (),
            ) -> BinResult<()> {
                writer.write_all(&self.0)?;
                Ok(())
            }
        }
    };
}

fixed_bytes! {
    /// The 32 raw bytes of a SHA-256 (a map's).
    Sha256Bytes, 32
}

fixed_bytes! {
    /// The 16 raw bytes of a UUID (DDNet's ping and pong ids).
    UuidBytes, 16
}

/// Fills `bytes` from the reader: missing at the end of the message, cut off when fewer are
/// left.
fn read_fixed<R: Read + Seek>(reader: &mut R, bytes: &mut [u8]) -> BinResult<()> {
    let at = reader.stream_position()?;
    let left = bytes_left(reader)?;
    let needed = bytes.len() as u64;
    if left == 0 {
        return Err(missing());
    }
    if left < needed {
        return Err(fail(at, FieldError::BytesCutOff { at, needed, left }));
    }
    reader.read_exact(bytes)?;
    Ok(())
}

/// Reads an int that newer senders append (DDNet `CUnpacker::GetIntOrDefault`): `None` at the
/// end of the message, else the int (which must then read).
#[binrw::parser(reader, endian)]
pub fn optional_int() -> BinResult<Option<VarInt>> {
    if bytes_left(reader)? == 0 {
        return Ok(None);
    }
    VarInt::read_options(reader, endian, ()).map(Some)
}

/// Reads a string that newer senders append: `None` at the end of the message, else the
/// string (which must then read).
#[binrw::parser(reader, endian)]
pub fn optional_string() -> BinResult<Option<NetString>> {
    if bytes_left(reader)? == 0 {
        return Ok(None);
    }
    NetString::read_options(reader, endian, ()).map(Some)
}

/// Reads `count` strings, after checking that the rest of the message can hold them (each
/// takes at least its NUL), so that a large count allocates nothing.
#[binrw::parser(reader, endian)]
pub fn counted_strings(count: i32) -> BinResult<Vec<NetString>> {
    let at = reader.stream_position()?;
    let left = bytes_left(reader)?;
    let count = u64::try_from(count.max(0)).unwrap_or(0);
    if count > left {
        return Err(fail(
            at,
            FieldError::Count {
                count: count as i32,
                left,
            },
        ));
    }
    (0..count)
        .map(|_| NetString::read_options(reader, endian, ()))
        .collect()
}

/// Reads `count` packed ints when the message says how many (`Some`), else every int up to
/// the end of the message.
#[binrw::parser(reader, endian)]
pub fn ints_counted_or_rest(count: Option<usize>) -> BinResult<Vec<VarInt>> {
    match count {
        Some(count) => (0..count)
            .map(|_| VarInt::read_options(reader, endian, ()))
            .collect(),
        None => binrw::helpers::until_eof(reader, endian, ()),
    }
}

#[cfg(test)]
mod tests {
    use binrw::io::Cursor;

    use super::*;

    fn read<T: for<'a> BinRead<Args<'a> = ()>>(bytes: &[u8]) -> BinResult<T> {
        T::read_options(&mut Cursor::new(bytes), Endian::Little, ())
    }

    fn write<T: for<'a> BinWrite<Args<'a> = ()>>(value: &T) -> Vec<u8> {
        let mut cursor = Cursor::new(Vec::new());
        value
            .write_options(&mut cursor, Endian::Little, ())
            .unwrap();
        cursor.into_inner()
    }

    fn field_error(error: binrw::Error) -> FieldError {
        error.custom_err::<FieldError>().unwrap().clone()
    }

    #[test]
    fn packed_ints() {
        // Values and bytes as DDNet's CVariableInt::Pack writes them.
        let cases: [(i32, &[u8]); 6] = [
            (0, &[0x00]),
            (63, &[0x3F]),
            (64, &[0x80, 0x01]),
            (-1, &[0x40]),
            (-65, &[0xC0, 0x01]),
            (i32::MIN, &[0xFF, 0xFF, 0xFF, 0xFF, 0x0F]),
        ];
        for (value, bytes) in cases {
            assert_eq!(read::<VarInt>(bytes).unwrap(), VarInt(value));
            assert_eq!(write(&VarInt(value)), bytes);
        }
        assert!(read::<VarInt>(&[]).unwrap_err().is_eof());
        let error = |bytes: &[u8]| field_error(read::<VarInt>(bytes).unwrap_err());
        assert_eq!(error(&[0x80]), FieldError::IntCutOff(0));
        assert_eq!(
            error(&[0x80, 0x80, 0x80, 0x80, 0x10]),
            FieldError::IntOverlong(0)
        );
        // 1 in two bytes: DDNet reads it, writing it back would give one byte.
        assert_eq!(error(&[0x81, 0x00]), FieldError::IntNotShortest(0));
    }

    #[cfg(feature = "serde")]
    #[test]
    fn strings_keep_their_bytes() {
        let string: NetString = read(b"a\x01\xffb\0rest").unwrap();
        assert_eq!(string.bytes(), b"a\x01\xffb");
        assert_eq!(string.to_string_lossy(), "a\u{1}\u{fffd}b");
        assert_eq!(write(&string), b"a\x01\xffb\0");
        assert_eq!(read::<NetString>(b"\0").unwrap(), NetString::default());
        assert!(read::<NetString>(b"").unwrap_err().is_eof());
        assert_eq!(
            field_error(read::<NetString>(b"abc").unwrap_err()),
            FieldError::NoNul(0)
        );
        assert_eq!(
            serde_json::to_string(&NetString::from("hi")).unwrap(),
            r#""hi""#
        );
        let bytes = NetString(vec![0xff, 0x41]);
        let json = serde_json::to_string(&bytes).unwrap();
        assert_eq!(json, "[255,65]");
        assert_eq!(serde_json::from_str::<NetString>(&json).unwrap(), bytes);
    }

    #[test]
    fn sized_data() {
        let data: SizedData = read(&[3, 7, 8, 9]).unwrap();
        assert_eq!(data.0, [7, 8, 9]);
        assert_eq!(write(&data), [3, 7, 8, 9]);
        assert_eq!(
            field_error(read::<SizedData>(&[4, 7, 8, 9]).unwrap_err()),
            FieldError::DataSize {
                at: 1,
                size: 4,
                left: 3
            }
        );
        assert_eq!(
            field_error(read::<SizedData>(&[0x40]).unwrap_err()),
            FieldError::DataSize {
                at: 1,
                size: -1,
                left: 0
            }
        );
    }
}
