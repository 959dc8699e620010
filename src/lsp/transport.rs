//! The stdio transport: `Content-Length` framing around lsp-server's messages. lsp-server's own
//! stdio reader stops the connection at the first payload that is not a message; a client bug
//! (or a hostile peer) must not take the server down, so a bad payload is answered where it has
//! an id, logged otherwise, and reading goes on. A frame larger than `MAX_FRAME` is skipped
//! without being held in memory.

use std::io::{self, BufRead, Read};
use std::thread;

use crossbeam_channel::{Receiver, Sender, unbounded};
use lsp_server::{ErrorCode, Message, Notification, RequestId, Response};
use lsp_types::notification::{LogMessage, Notification as _};
use lsp_types::{LogMessageParams, MessageType};

/// The largest message read: a 50 MB buffer opened whole (JSON-escaped) fits with room.
pub const MAX_FRAME: usize = 256 << 20;

/// The server's ends of the stdio connection.
pub struct Stdio {
    pub sender: Sender<Message>,
    pub receiver: Receiver<Message>,
}

pub fn stdio() -> io::Result<Stdio> {
    let (to_client, outgoing) = unbounded::<Message>();
    let (incoming, from_client) = unbounded::<Message>();
    thread::Builder::new()
        .name("lsp-writer".into())
        .spawn(move || {
            let mut stdout = io::stdout().lock();
            for message in outgoing {
                // The client went away: nothing left to tell it.
                if message.write(&mut stdout).is_err() {
                    break;
                }
            }
        })?;
    let replies = to_client.clone();
    // Never joined: it blocks on stdin, which the client may keep open after `exit`.
    thread::Builder::new()
        .name("lsp-reader".into())
        .spawn(move || read_all(&mut io::stdin().lock(), &incoming, &replies))?;
    Ok(Stdio {
        sender: to_client,
        receiver: from_client,
    })
}

/// Reads frames until end of input or `exit`, handing messages on and answering bad ones.
pub fn read_all(input: &mut impl BufRead, incoming: &Sender<Message>, replies: &Sender<Message>) {
    loop {
        let body = match read_frame(input) {
            Ok(Some(Frame::Body(body))) => body,
            Ok(Some(Frame::TooLarge(len))) => {
                log(
                    replies,
                    format!("a message of {len} bytes was skipped (the limit is {MAX_FRAME})"),
                );
                continue;
            }
            Ok(None) => return,
            Err(e) => {
                log(
                    replies,
                    format!("the connection's framing is broken ({e}); stopping"),
                );
                return;
            }
        };
        match serde_json::from_slice::<Message>(&body) {
            // lsp-server reads any object with an id and no method as a response; one with
            // neither a result nor an error is a request that lost its method.
            Ok(Message::Response(r)) if r.result.is_none() && r.error.is_none() => {
                answer_malformed(&body, "a message with an id needs a method", replies)
            }
            Ok(message) => {
                let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
                if incoming.send(message).is_err() || exit {
                    return;
                }
            }
            Err(e) => answer_malformed(&body, &e.to_string(), replies),
        }
    }
}

enum Frame {
    Body(Vec<u8>),
    TooLarge(usize),
}

fn read_frame(input: &mut impl BufRead) -> io::Result<Option<Frame>> {
    let mut length = None;
    let mut line = String::new();
    loop {
        line.clear();
        // A header line is short; one without an end is not a header.
        let read = input.by_ref().take(1024).read_line(&mut line)?;
        if read == 0 {
            return Ok(None);
        }
        let header = line.trim_end_matches(['\r', '\n']);
        if header.is_empty() {
            break;
        }
        let Some((name, value)) = header.split_once(':') else {
            return Err(io::Error::other(format!("`{header}` is not a header")));
        };
        if name.eq_ignore_ascii_case("content-length") {
            let parsed = value.trim().parse::<usize>();
            length = Some(parsed.map_err(|_| io::Error::other("a bad Content-Length"))?);
        }
    }
    let length = length.ok_or_else(|| io::Error::other("a message without Content-Length"))?;
    if length > MAX_FRAME {
        io::copy(&mut input.by_ref().take(length as u64), &mut io::sink())?;
        return Ok(Some(Frame::TooLarge(length)));
    }
    let mut body = vec![0; length];
    input.read_exact(&mut body)?;
    Ok(Some(Frame::Body(body)))
}

/// A payload that is not a message: answered with `InvalidRequest` when it carries an id the
/// client can match, logged when it does not (JSON-RPC's null id has no form in lsp-server).
fn answer_malformed(body: &[u8], error: &str, replies: &Sender<Message>) {
    let id = serde_json::from_slice::<serde_json::Value>(body)
        .ok()
        .and_then(|value| match value.get("id")? {
            serde_json::Value::Number(n) => n
                .as_i64()
                .and_then(|n| i32::try_from(n).ok())
                .map(RequestId::from),
            serde_json::Value::String(s) => Some(RequestId::from(s.clone())),
            _ => None,
        });
    let message = format!("not a JSON-RPC message: {error}");
    match id {
        Some(id) => {
            let response = Response::new_err(id, ErrorCode::InvalidRequest as i32, message);
            let _ = replies.send(response.into());
        }
        None => log(replies, message),
    }
}

pub fn log(replies: &Sender<Message>, message: String) {
    let params = LogMessageParams {
        typ: MessageType::WARNING,
        message,
    };
    let _ = replies.send(Notification::new(LogMessage::METHOD.into(), params).into());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> (Vec<Message>, Vec<Message>) {
        let (incoming, got) = unbounded();
        let (replies, answered) = unbounded();
        read_all(&mut io::Cursor::new(input.to_vec()), &incoming, &replies);
        (got.try_iter().collect(), answered.try_iter().collect())
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn a_bad_payload_is_answered_and_reading_goes_on() {
        let input = [
            frame(r#"{"jsonrpc":"2.0","id":7,"params":{}}"#),
            frame("{not json"),
            frame(r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#),
        ]
        .concat();
        let (got, answered) = frames(input.as_bytes());
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(answered.len(), 2, "{answered:?}");
        let Message::Response(response) = &answered[0] else {
            panic!("{answered:?}")
        };
        assert_eq!(response.id, RequestId::from(7));
        assert!(response.error.is_some());
    }

    #[test]
    fn an_oversized_frame_is_skipped_unread() {
        let header = format!("Content-Length: {}\r\n\r\n", MAX_FRAME + 1);
        let (got, answered) = frames(header.as_bytes());
        assert!(got.is_empty());
        // Logged, then the (short) input ends.
        assert_eq!(answered.len(), 1, "{answered:?}");
    }

    #[test]
    fn framing_without_a_length_stops_cleanly() {
        let (got, answered) = frames(b"Content-Type: x\r\n\r\n{}");
        assert!(got.is_empty());
        assert_eq!(answered.len(), 1);
    }
}
