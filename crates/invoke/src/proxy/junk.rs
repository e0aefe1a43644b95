//! The one warning on stderr for a server that prints to stdout what is not JSON-RPC (the classic
//! `console.log`): every client fails on such a line, and nothing else would say why.

use std::io;

use crate::wire::{Frame, FrameSink, NOT_JSON_RPC, Side, Warn};

pub struct JunkWarner {
    warn: Warn,
    warned: bool,
}

impl JunkWarner {
    pub fn new(warn: Warn) -> JunkWarner {
        JunkWarner { warn, warned: false }
    }
}

impl FrameSink for JunkWarner {
    fn accept(&mut self, frame: &Frame) -> io::Result<()> {
        if !self.warned && frame.from == Side::Server && frame.breaks_clients() {
            self.warned = true;
            let text = String::from_utf8_lossy(&frame.raw);
            let text = crate::text::truncate(&text, 80);
            (self.warn)(&format!(
                "the server wrote a line to stdout that is {NOT_JSON_RPC} ({}); it passed as it came (said once)",
                crate::text::visible(&text)
            ));
        }
        Ok(())
    }

    fn name(&self) -> String {
        "the stdout check".into()
    }
}
