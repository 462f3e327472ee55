//! The chat of a demo (`twcodec demo chat`): every chat line, server message and broadcast,
//! with the time since the first tick and the speaker's name at that moment.
//!
//! ```no_run
//! use twcodec::demo::Demo;
//!
//! let demo = Demo::open("match.demo")?;
//! for line in twcodec_tools::chat::lines(&demo) {
//!     println!("{}", line?); // [00:12.40] nameless tee: hello
//! }
//! # Ok::<(), twcodec::Error>(())
//! ```
//!
//! Names come from the snapshots' client info objects (0.6 `obj_client_info`, the 0.7 demo
//! recorder's `obj_de_client_info`) and from 0.7's client info and demo enter messages, as
//! of the tick of the line; a player who left keeps the last name seen, and a client id never
//! named shows as `#3`. DDNet's `demo_extract_chat` drops the lines of players whose name it
//! has not seen and reads only 0.6 demos; this reads both protocols and drops nothing.
//!
//! A message that does not decode is an error item naming its chunk, tick and offset; the
//! iterator goes on after it. A chunk that cannot be read ends it.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use serde::Serialize;

use twcodec::demo::{ticks_to_seconds, Demo, Replay};
use twcodec::netmsg::Protocol as MessageProtocol;
use twcodec::snap::objects::{SnapObject, SnapObjectKind};
use twcodec::snap::{Protocol, Snapshot};
use twcodec::Error;
use twcodec_schema::netmsg::NetMessage;
use twcodec_schema::netobj::common::Weapon;

/// What a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    /// To everyone.
    Chat,
    /// To the speaker's team.
    Team,
    /// A whisper the recording player sent (`to` is the addressee).
    WhisperSent,
    /// A whisper the recording player received (`from` is the speaker).
    WhisperReceived,
    /// A 0.7 whisper between two players.
    Whisper,
    /// Said by the server (client id -1).
    Server,
    /// A broadcast (shown in the middle of the screen), one line of it.
    Broadcast,
    /// With events: a player entered (0.7 demos and client info messages).
    Join,
    /// With events: a player left (`text`: the reason).
    Leave,
    /// With events: a kill (`client_id` the victim, `target` the killer, `text` the
    /// weapon).
    Kill,
}

/// What [`lines_with`] gives besides chat.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ChatOptions {
    /// Joins, leaves and kills too, from the messages that announce them.
    pub events: bool,
}

/// Builder methods: `ChatOptions::default().events(..)`, each setting the field of its name.
impl ChatOptions {
    /// Sets [`ChatOptions::events`].
    pub fn events(self, events: bool) -> ChatOptions {
        ChatOptions { events, ..self }
    }
}

/// One line of chat.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatLine {
    /// The tick it came in.
    pub tick: i32,
    /// Seconds since the demo's first tick.
    pub time: f64,
    /// What it is.
    pub kind: LineKind,
    /// The speaker's client id (for a whisper sent: the addressee's), none for server
    /// messages and broadcasts.
    pub client_id: Option<i32>,
    /// The name of that client at the time (`#3` when never named).
    pub name: Option<String>,
    /// A 0.7 whisper's addressee, by name.
    pub target: Option<String>,
    /// The text (invalid UTF-8 replaced).
    pub text: String,
}

impl fmt::Display for ChatLine {
    /// `[mm:ss.cc] name: text`, `[mm:ss.cc] [team] name: text`, `[mm:ss.cc] *** text`,
    /// `[mm:ss.cc] [whisper] -> name: text`, `[mm:ss.cc] [broadcast] text`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let centis = (self.time * 100.0).round() as i64;
        let (minutes, seconds, centis) = (centis / 6000, centis / 100 % 60, centis % 100);
        write!(f, "[{minutes:02}:{seconds:02}.{centis:02}] ")?;
        let name = self.name.as_deref().unwrap_or("");
        match self.kind {
            LineKind::Chat => write!(f, "{name}: {}", self.text),
            LineKind::Team => write!(f, "[team] {name}: {}", self.text),
            LineKind::WhisperSent => write!(f, "[whisper] -> {name}: {}", self.text),
            LineKind::WhisperReceived => write!(f, "[whisper] <- {name}: {}", self.text),
            LineKind::Whisper => write!(
                f,
                "[whisper] {name} -> {}: {}",
                self.target.as_deref().unwrap_or(""),
                self.text
            ),
            LineKind::Server => write!(f, "*** {}", self.text),
            LineKind::Broadcast => write!(f, "[broadcast] {}", self.text),
            LineKind::Join => write!(f, "--> {name} joined"),
            LineKind::Leave if self.text.is_empty() => write!(f, "<-- {name} left"),
            LineKind::Leave => write!(f, "<-- {name} left ({})", self.text),
            LineKind::Kill => {
                let killer = self.target.as_deref().unwrap_or("");
                match killer == name {
                    true => write!(f, "{name} died ({})", self.text),
                    false => write!(f, "{killer} killed {name} ({})", self.text),
                }
            }
        }
    }
}

/// The chat of `demo`, in order.
pub fn lines(demo: &Demo) -> ChatLines<'_> {
    lines_with(demo, ChatOptions::default())
}

/// The chat of `demo`, in order, with what `options` add.
pub fn lines_with(demo: &Demo, options: ChatOptions) -> ChatLines<'_> {
    ChatLines {
        options,
        replay: demo.replay(),
        protocol: demo.protocol(),
        names: HashMap::new(),
        learned: None,
        first_tick: None,
        pending: Vec::new().into_iter(),
        done: false,
    }
}

/// The chat of a demo ([`lines`]).
pub struct ChatLines<'d> {
    options: ChatOptions,
    replay: Replay<'d>,
    protocol: Protocol,
    /// The last name seen for each client id.
    names: HashMap<i32, String>,
    /// The snapshot the names were last read from.
    learned: Option<Arc<Snapshot>>,
    first_tick: Option<i32>,
    pending: std::vec::IntoIter<Result<ChatLine, Error>>,
    done: bool,
}

impl ChatLines<'_> {
    fn name(&self, client_id: i32) -> String {
        (self.names.get(&client_id).cloned()).unwrap_or_else(|| format!("#{client_id}"))
    }

    /// The names a snapshot gives: only its client info items are decoded, and a snapshot
    /// a tick shares with the one before (no delta changed it) is not read again.
    fn learn_from_snapshot(&mut self, snapshot: &Arc<Snapshot>) {
        if (self.learned.as_ref()).is_some_and(|last| Arc::ptr_eq(last, snapshot)) {
            return;
        }
        self.learned = Some(Arc::clone(snapshot));
        for item in snapshot.items() {
            let kind = self.protocol.object_kind(item.type_id());
            let Some(kind @ (SnapObjectKind::ClientInfo | SnapObjectKind::DeClientInfo7)) = kind
            else {
                continue;
            };
            let name = match SnapObject::decode(kind, item.data) {
                Ok(SnapObject::ClientInfo(info)) => info.name.bytes(),
                Ok(SnapObject::DeClientInfo7(info)) => info.name.bytes(),
                _ => continue,
            };
            if !name.is_empty() {
                let name = String::from_utf8_lossy(&name).into_owned();
                self.names.insert(i32::from(item.id()), name);
            }
        }
    }

    /// The lines of one message, learning names from client info messages.
    fn message_lines(&mut self, message: &NetMessage, tick: i32, time: f64) -> Vec<ChatLine> {
        let line = |kind, client_id: Option<i32>, name: Option<String>, text: String| ChatLine {
            tick,
            time,
            kind,
            client_id,
            name,
            target: None,
            text,
        };
        let events = self.options.events;
        match message {
            NetMessage::SvClientInfo7(info) => {
                let name = info.name.to_string_lossy().into_owned();
                let id = info.client_id.0;
                let new = self.names.insert(id, name.clone()).is_none();
                // A client info of a player not seen before, and not silent, is a join.
                match events && new && info.silent.0 == 0 && info.local.0 == 0 {
                    true => vec![line(LineKind::Join, Some(id), Some(name), String::new())],
                    false => Vec::new(),
                }
            }
            NetMessage::DeClientEnter7(enter) => {
                let name = enter.name.to_string_lossy().into_owned();
                let id = enter.client_id.0;
                self.names.insert(id, name.clone());
                match events {
                    true => vec![line(LineKind::Join, Some(id), Some(name), String::new())],
                    false => Vec::new(),
                }
            }
            NetMessage::DeClientLeave7(leave) if events => {
                let reason = leave.reason.to_string_lossy().into_owned();
                let name = leave.name.to_string_lossy().into_owned();
                vec![line(
                    LineKind::Leave,
                    Some(leave.client_id.0),
                    Some(name),
                    reason,
                )]
            }
            NetMessage::SvClientDrop7(drop) if events && drop.silent.0 == 0 => {
                let id = drop.client_id.0;
                let reason = drop.reason.to_string_lossy().into_owned();
                vec![line(LineKind::Leave, Some(id), Some(self.name(id)), reason)]
            }
            NetMessage::SvKillMsg(kill) if events => {
                let (victim, killer) = (kill.victim.0, kill.killer.0);
                let mut entry = line(
                    LineKind::Kill,
                    Some(victim),
                    Some(self.name(victim)),
                    weapon_name(kill.weapon.0),
                );
                entry.target = Some(self.name(killer));
                vec![entry]
            }
            NetMessage::SvBroadcast(broadcast) => (broadcast.message.to_string_lossy())
                .split('\n')
                .filter(|part| !part.is_empty())
                .map(|part| line(LineKind::Broadcast, None, None, part.to_string()))
                .collect(),
            message => {
                let Some(chat) = message.chat() else {
                    return Vec::new();
                };
                let text = chat.text().into_owned();
                let id = chat.client_id;
                if chat.is_from_server() {
                    return vec![line(LineKind::Server, None, None, text)];
                }
                let kind = match (chat.team, chat.mode) {
                    (Some(2), _) => LineKind::WhisperSent,
                    (Some(3), _) => LineKind::WhisperReceived,
                    (_, Some(3)) => LineKind::Whisper,
                    _ if chat.is_team() => LineKind::Team,
                    _ => LineKind::Chat,
                };
                let mut entry = line(kind, Some(id), Some(self.name(id)), text);
                if kind == LineKind::Whisper {
                    entry.target = chat.target_id.map(|target| self.name(target));
                }
                vec![entry]
            }
        }
    }
}

/// A kill message's weapon by name (the schema's [`Weapon`]); the negative numbers are the
/// game's own causes.
fn weapon_name(weapon: i32) -> String {
    match Weapon::from_i32(weapon) {
        Weapon(-3) => "left or changed team".into(),
        Weapon(-2) => "self kill".into(),
        Weapon(-1) => "world".into(),
        unknown @ Weapon(other) if !unknown.is_known() => format!("weapon {other}"),
        known => format!("{known:?}").to_lowercase(),
    }
}

impl Iterator for ChatLines<'_> {
    type Item = Result<ChatLine, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(line) = self.pending.next() {
                return Some(line);
            }
            if self.done {
                return None;
            }
            let frame = match self.replay.next() {
                None => {
                    self.done = true;
                    continue;
                }
                Some(Err(error)) => {
                    self.done = true;
                    return Some(Err(error));
                }
                Some(Ok(frame)) => frame,
            };
            let first = *self.first_tick.get_or_insert(frame.tick);
            let time = ticks_to_seconds(frame.tick.saturating_sub(first));
            if let Some(snapshot) = &frame.snapshot {
                self.learn_from_snapshot(snapshot);
            }
            let mut lines = Vec::new();
            let protocol = MessageProtocol::from(self.protocol);
            for chunk in &frame.messages {
                match chunk.message(protocol) {
                    Ok(message) => lines.extend(
                        self.message_lines(&message, frame.tick, time)
                            .into_iter()
                            .map(Ok),
                    ),
                    Err(error) => lines.push(Err(error)),
                }
            }
            self.pending = lines.into_iter();
        }
    }
}
