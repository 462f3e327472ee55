//! Game and system messages: decoded from the bytes a packet chunk or a demo's message chunk
//! holds, and encoded back (docs/format-notes.md, "Messages"; the layouts and the registry of
//! message types are in [`crate::schema::netmsg`]).
//!
//! ```no_run
//! use twcodec::demo::Demo;
//!
//! let demo = Demo::open("match.demo")?;
//! for message in demo.messages() {
//!     // A message that does not decode is reported, and the next one read.
//!     let message = match message {
//!         Ok(message) => message,
//!         Err(error) => {
//!             eprintln!("{error}");
//!             continue;
//!         }
//!     };
//!     if let Some(chat) = message.message.chat() {
//!         println!("tick {:?}: {}: {}", message.chunk.tick, chat.client_id, chat.text());
//!     }
//! }
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! # Padding in demos
//!
//! A demo stores a message as ints: the recorder pads its bytes with zeros to a multiple of 4
//! (DDNet `CDemoRecorder::Write`), and the player hands the padded bytes to the game, whose
//! reader ignores what is left after the fields. The length before padding is not stored, so
//! [`decode_padded`] takes the shortest reading: it drops up to 3 final zero bytes, as many as
//! the message still decodes without. Writing pads again ([`encode_padded`]), which gives back
//! the bytes read. The one thing the padding hides is a last field that is optional or a list
//! (a race finish's `record_server`, tuning values) and is 0 within the last 4 bytes: it reads
//! as absent; written back, the bytes are the same.
//!
//! # Checks
//!
//! - [`decode`]: the header is a whole packed int, and for id 0 a 16-byte UUID follows; the
//!   fields of a known kind are all there: packed ints whole and in their shortest form (DDNet
//!   reads longer forms, which no sender writes; refused, so that writing gives back what was
//!   read), strings NUL-terminated, sized data within the message. Field values are not
//!   checked ([`NetMessage::check`] lists those outside their ranges).
//! - [`decode_padded`]: the same, for one of the readings above.
//! - [`Chunk::message`](crate::demo::Chunk::message): the chunk is a message chunk, its payload
//!   decodes to ints (see [`crate::demo`]), and the message decodes.

pub use twcodec_schema::netmsg::{
    ChatLine, MessageHeader, MessageId, MessageKind, NetMessage, NetString, Protocol, RangeWarning,
    UnknownMessage, VarInt,
};
use twcodec_schema::netmsg::{MessageError, MessageProblem};

use crate::error::ErrorKind;
use crate::{snap, Error};

impl From<snap::Protocol> for Protocol {
    fn from(protocol: snap::Protocol) -> Protocol {
        match protocol {
            snap::Protocol::Ddnet06 => Protocol::Ddnet06,
            snap::Protocol::Teeworlds07 => Protocol::Teeworlds07,
        }
    }
}

/// Decodes a message from exactly its bytes, as a packet chunk holds it. Errors give the
/// message, the field and the byte offset in the message.
pub fn decode(bytes: &[u8], protocol: Protocol) -> Result<NetMessage, Error> {
    NetMessage::read(bytes, protocol).map_err(to_error)
}

/// Decodes a message as a demo stores it, padded with zeros to a multiple of 4 bytes (see
/// [Padding in demos](self#padding-in-demos)). Bytes that are not a multiple of 4 long are
/// decoded as they are.
pub fn decode_padded(bytes: &[u8], protocol: Protocol) -> Result<NetMessage, Error> {
    let zeros = if bytes.len() % 4 == 0 {
        bytes.iter().rev().take(3).take_while(|&&b| b == 0).count()
    } else {
        0
    };
    for cut in (1..=zeros).rev() {
        if let Ok(message) = NetMessage::read(&bytes[..bytes.len() - cut], protocol) {
            return Ok(message);
        }
    }
    decode(bytes, protocol)
}

/// A message's bytes in `protocol`. Fails for a message that `protocol` does not have (a 0.7
/// client info in 0.6), and for data longer than a packed int can give.
pub fn encode(message: &NetMessage, protocol: Protocol) -> Result<Vec<u8>, Error> {
    message.write(protocol).map_err(to_error)
}

/// A message's bytes as a demo stores them: [`encode`], padded with zeros to a multiple of 4.
pub fn encode_padded(message: &NetMessage, protocol: Protocol) -> Result<Vec<u8>, Error> {
    let mut bytes = encode(message, protocol)?;
    bytes.resize(bytes.len().next_multiple_of(4), 0);
    Ok(bytes)
}

/// The error of the schema's reader or writer.
fn to_error(error: MessageError) -> Error {
    let kind = match error.problem {
        MessageProblem::NotInProtocol(_) | MessageProblem::Write(_) => ErrorKind::InvalidEdit,
        _ => ErrorKind::Malformed,
    };
    Error::new(kind, error.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_is_the_shortest_reading_that_decodes() {
        let protocol = Protocol::Teeworlds07;
        // 0.7 Sv_ClientDrop: id 20, client 1, reason "", silent 0: 4 bytes, no padding; each
        // shorter reading misses a field.
        let drop = [0x28, 0x01, 0x00, 0x00];
        let message = decode_padded(&drop, protocol).unwrap();
        assert_eq!(message.name(), "sv_client_drop");
        assert_eq!(encode_padded(&message, protocol).unwrap(), drop);
        // Sv_KillMsg (0.7 id 5) then 3 zeros of padding.
        let kill = [0x0A, 0x00, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00];
        let message = decode_padded(&kill, protocol).unwrap();
        assert_eq!(message.name(), "sv_kill_msg");
        assert_eq!(encode_padded(&message, protocol).unwrap(), kill);
        // An unknown message keeps its payload without the padding.
        let unknown = decode_padded(&[0xBE, 0x01, 0x05, 0x00], protocol).unwrap();
        assert!(matches!(&unknown, NetMessage::Unknown(u) if u.payload == [5]));
        assert_eq!(
            encode_padded(&unknown, protocol).unwrap(),
            [0xBE, 0x01, 0x05, 0x00]
        );
    }

    #[test]
    fn errors_are_malformed_input_or_impossible_writes() {
        let error = decode_padded(&[0x06, 0x00, 0x00, 0x41], Protocol::Ddnet06).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::Malformed);
        assert_eq!(
            error.to_string(),
            "sv_chat, field `message`: the string at byte 3 has no NUL before the end of the \
             message"
        );
        let info = NetMessage::SvClientInfo7(Default::default());
        let error = encode(&info, Protocol::Ddnet06).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidEdit);
        assert_eq!(
            error.to_string(),
            "sv_client_info has no id in the 0.6/DDNet protocol"
        );
    }
}
