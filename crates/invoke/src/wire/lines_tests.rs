use super::*;

/// Every line `decoder` cuts from `input`, fed `chunk` bytes at a time, the end included.
fn lines_of(mut decoder: LineDecoder, input: &[u8], chunk: usize) -> Vec<Line> {
    let mut buffer = BytesMut::new();
    let mut lines = Vec::new();
    for piece in input.chunks(chunk.max(1)) {
        buffer.extend_from_slice(piece);
        while let Some(line) = decoder.decode(&mut buffer).unwrap() {
            lines.push(line);
        }
    }
    while let Some(line) = decoder.decode_eof(&mut buffer).unwrap() {
        lines.push(line);
    }
    lines
}

fn texts(lines: &[Line]) -> Vec<&[u8]> {
    lines.iter().map(|line| &line.bytes[..]).collect()
}

/// A reader that gives at most one byte a read, and fails every other read the way a socket
/// whose wait ran out does.
struct Trickle<'a> {
    input: &'a [u8],
    wait: bool,
}

impl Read for Trickle<'_> {
    fn read(&mut self, into: &mut [u8]) -> io::Result<usize> {
        self.wait = !self.wait;
        if self.wait {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        let Some((first, rest)) = self.input.split_first() else { return Ok(0) };
        into[0] = *first;
        self.input = rest;
        Ok(1)
    }
}

#[test]
fn short_lines_crlf_and_empty_lines() {
    for chunk in [1, 2, 3, 100] {
        let lines = lines_of(LineDecoder::cutting(16), b"one\r\ntwo\n\n\r\nthree\n", chunk);
        assert_eq!(texts(&lines), [&b"one"[..], b"two", b"", b"", b"three"], "chunks of {chunk}");
        assert!(lines.iter().all(|line| line.is_whole() && line.newline));
        assert_eq!(lines[0].size, 3, "the \\r is no part of the line");
    }
}

#[test]
fn a_line_exactly_at_the_cap_is_whole_with_or_without_its_cr() {
    for chunk in [1, 4, 100] {
        let lines = lines_of(LineDecoder::skipping(4), b"abcd\nabcd\r\nabcde\n", chunk);
        assert_eq!(texts(&lines), [&b"abcd"[..], b"abcd", b""], "chunks of {chunk}");
        assert!(lines[0].is_whole() && lines[1].is_whole());
        assert_eq!((lines[2].size, lines[2].is_whole()), (5, false));
    }
}

#[test]
fn a_line_past_the_cap_keeps_its_start_or_nothing_and_the_next_line_reads() {
    let input = b"0123456789abcdef\r\nnext\n0123456789\r\r\n";
    for chunk in [1, 3, 7, 100] {
        let cut = lines_of(LineDecoder::cutting(8), input, chunk);
        assert_eq!(texts(&cut), [&b"01234567"[..], b"next", b"01234567"], "chunks of {chunk}");
        assert_eq!(cut.iter().map(|line| line.size).collect::<Vec<_>>(), [16, 4, 11], "chunks of {chunk}");
        assert!(!cut[0].is_whole() && cut[1].is_whole() && !cut[2].is_whole());
        let skipped = lines_of(LineDecoder::skipping(8), input, chunk);
        assert_eq!(texts(&skipped), [&b""[..], b"next", b""], "chunks of {chunk}");
        assert_eq!(skipped.iter().map(|line| line.size).collect::<Vec<_>>(), [16, 4, 11]);
    }
}

#[test]
fn the_end_without_a_newline_is_a_last_line() {
    for chunk in [1, 100] {
        let lines = lines_of(LineDecoder::cutting(4), b"one\ntail", chunk);
        assert_eq!(texts(&lines), [&b"one"[..], b"tail"]);
        assert!(lines[0].newline && !lines[1].newline && lines[1].is_whole());
        let long = lines_of(LineDecoder::cutting(4), b"one\nlong tail\r", chunk);
        assert_eq!((&long[1].bytes[..], long[1].size, long[1].newline), (&b"long"[..], 9, false));
    }
    assert!(lines_of(LineDecoder::cutting(4), b"", 1).is_empty());
    assert_eq!(lines_of(LineDecoder::cutting(4), b"one\n", 1).len(), 1, "no empty line after the last \\n");
}

#[test]
fn the_decoder_knows_a_line_passed_the_cap_before_it_ends() {
    let mut decoder = LineDecoder::skipping(4);
    let mut buffer = BytesMut::from(&b"ok\nabcdef"[..]);
    assert_eq!(&decoder.decode(&mut buffer).unwrap().unwrap().bytes[..], b"ok");
    assert!(decoder.decode(&mut buffer).unwrap().is_none());
    assert!(decoder.past_cap() && buffer.is_empty(), "nothing of the long line is held");
}

#[test]
fn a_100_mb_line_never_holds_more_than_the_cap() {
    const CAP: usize = 1024 * 1024;
    const CHUNK: usize = 64 * 1024;
    let chunk = vec![b'x'; CHUNK];
    let total = 100 * 1024 * 1024;
    for mut decoder in [LineDecoder::cutting(CAP), LineDecoder::skipping(CAP)] {
        let mut buffer = BytesMut::new();
        let mut most = 0;
        for _ in 0..total / CHUNK {
            buffer.extend_from_slice(&chunk);
            assert!(decoder.decode(&mut buffer).unwrap().is_none());
            most = most.max(buffer.capacity());
        }
        assert!(most <= 2 * (CAP + CHUNK), "the buffer grew to {most} bytes");
        buffer.extend_from_slice(b"\nnext\n");
        let long = decoder.decode(&mut buffer).unwrap().unwrap();
        assert_eq!(long.size, total);
        assert!(long.bytes.len() == CAP || long.bytes.is_empty());
        assert_eq!(&decoder.decode(&mut buffer).unwrap().unwrap().bytes[..], b"next");
    }
}

#[test]
fn a_blocking_reader_one_byte_at_a_time_with_waits_between_loses_nothing() {
    let input = b"first\r\n0123456789\nlast";
    let mut lines = BlockingLines::new(Trickle { input, wait: false }, LineDecoder::skipping(8));
    let mut read = Vec::new();
    let mut waits = 0;
    loop {
        match lines.next_line() {
            Ok(Some(line)) => read.push(line),
            Ok(None) => break,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => waits += 1,
            Err(e) => panic!("{e}"),
        }
    }
    assert!(waits > input.len() / 2);
    assert_eq!(texts(&read), [&b"first"[..], b"", b"last"]);
    assert_eq!((read[1].size, read[2].newline), (10, false));
    assert!(lines.next_line().unwrap().is_none(), "the end stays the end");
}

#[test]
fn the_cap_may_change_between_lines() {
    let mut lines = BlockingLines::new(&b"about me\na longer line\n"[..], LineDecoder::skipping(4));
    assert!(!lines.next_line().unwrap().unwrap().is_whole());
    lines.decoder_mut().set_cap(100);
    assert_eq!(&lines.next_line().unwrap().unwrap().bytes[..], b"a longer line");
}

#[tokio::test]
async fn async_readers_take_it_through_framed_read() {
    use futures_util::StreamExt;
    let framed = tokio_util::codec::FramedRead::new(&b"one\r\n0123456789\ntail"[..], LineDecoder::cutting(4));
    let lines: Vec<Line> = framed.map(Result::unwrap).collect().await;
    assert_eq!(texts(&lines), [&b"one"[..], b"0123", b"tail"]);
    assert_eq!((lines[1].size, lines[2].newline), (10, false));
}
