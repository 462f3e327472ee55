//! Game and system messages as one line each (`twcodec demo messages`, the demo dump).

use std::io::{self, Write};

use serde_json::Value;
use twcodec_schema::netmsg::NetMessage;

/// One line for a message: its name, then its fields as `name=value`, strings quoted, bytes
/// in hex, absent optional fields and empty tails left out:
///
/// ```text
/// sv_chat team=0 client_id=0 message="hello"
/// sv_kill_msg killer=0 victim=0 weapon=-2 mode_special=0
/// unknown game message 27: 01 02
/// ```
pub fn write_message(message: &NetMessage, out: &mut dyn Write) -> io::Result<()> {
    if let NetMessage::Unknown(unknown) = message {
        let what = if unknown.system { "system" } else { "game" };
        write!(out, "unknown {what} message {}:", unknown.id)?;
        for byte in &unknown.payload {
            write!(out, " {byte:02x}")?;
        }
        return Ok(());
    }
    out.write_all(message.name().as_bytes())?;
    // Every registered type serializes to an object of its fields; fields keep their order.
    let Ok(Value::Object(fields)) = serde_json::to_value(message) else {
        return Ok(());
    };
    for (name, value) in fields.iter().filter(|(name, _)| *name != "kind") {
        write!(out, " {name}=")?;
        let bytes = matches!(name.as_str(), "unknown_tail" | "data" | "sha256");
        write_value(out, value, bytes)?;
    }
    Ok(())
}

/// [`write_message`] into a string.
pub fn message_line(message: &NetMessage) -> String {
    super::to_string(|out| write_message(message, out))
}

/// A field's value: numbers as they are, strings quoted with escapes, lists in brackets
/// (`bytes`: in hex, without separators).
fn write_value(out: &mut dyn Write, value: &Value, bytes: bool) -> io::Result<()> {
    match value {
        Value::String(text) => write!(out, "{text:?}"),
        Value::Array(values) if bytes => {
            for value in values {
                write!(out, "{:02x}", value.as_u64().unwrap_or_default())?;
            }
            Ok(())
        }
        Value::Array(values) => {
            out.write_all(b"[")?;
            for (i, value) in values.iter().enumerate() {
                if i > 0 {
                    out.write_all(b", ")?;
                }
                write_value(out, value, false)?;
            }
            out.write_all(b"]")
        }
        other => write!(out, "{other}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use twcodec::netmsg::{decode_padded, Protocol};

    #[test]
    fn one_line_per_message() {
        let line =
            |bytes: &[u8]| message_line(&decode_padded(bytes, Protocol::Teeworlds07).unwrap());
        assert_eq!(
            line(&[0x28, 0x01, 0x00, 0x00]),
            r#"sv_client_drop client_id=1 reason="" silent=0"#
        );
        assert_eq!(
            line(&[0x0A, 0x00, 0x00, 0x41, 0x00, 0x00, 0x00, 0x00]),
            "sv_kill_msg killer=0 victim=0 weapon=-2 mode_special=0"
        );
        assert_eq!(
            line(&[0xBE, 0x01, 0x05, 0x00]),
            "unknown game message 63: 05"
        );
    }
}
