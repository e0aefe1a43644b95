//! A minimal PNG encoder for the demo server's image artifact: 8-bit RGB, no filtering, and zlib
//! "stored" (uncompressed) deflate blocks. That is enough for any decoder to read, needs no image
//! or compression crate, and the output is the same for the same input, so tests can rely on it.

/// A `width` × `height` image where `pixel(x, y)` gives each pixel's RGB colour.
pub fn encode_rgb(width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
    // Each scanline is a filter-type byte (0: none) followed by the row's pixels.
    let mut raw = Vec::with_capacity(height as usize * (1 + width as usize * 3));
    for y in 0..height {
        raw.push(0);
        for x in 0..width {
            raw.extend_from_slice(&pixel(x, y));
        }
    }
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    // Bit depth 8, colour type 2 (RGB), compression 0, filter 0, no interlace.
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);

    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", &zlib_stored(&raw));
    chunk(&mut png, b"IEND", &[]);
    png
}

/// Length, type, data, then the CRC of type and data, as the PNG spec lays a chunk out.
fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    let len = u32::try_from(data.len()).expect("PNG chunks hold less than 4 GiB");
    out.extend_from_slice(&len.to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// A zlib stream of stored deflate blocks (each at most 65,535 bytes), ending with the Adler-32
/// of the data.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    const MAX_BLOCK: usize = 65_535;
    let blocks = data.len().div_ceil(MAX_BLOCK).max(1);
    let mut out = Vec::with_capacity(data.len() + blocks * 5 + 6);
    // CMF 0x78: deflate with a 32K window; FLG 0x01 makes CMF·256 + FLG a multiple of 31.
    out.extend_from_slice(&[0x78, 0x01]);
    let mut rest = data;
    loop {
        let take = rest.len().min(MAX_BLOCK);
        let (block, tail) = rest.split_at(take);
        let last = tail.is_empty();
        // BFINAL in bit 0, BTYPE 00 (stored); the rest of the byte is padding.
        out.push(u8::from(last));
        let len = u16::try_from(take).expect("a stored block holds at most 65,535 bytes");
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
        rest = tail;
        if last {
            break;
        }
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

/// CRC-32 (ISO-HDLC, the one PNG and zlib's gzip use), table-driven; the table is built at compile
/// time.
pub fn crc32(data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut n = 0;
        while n < 256 {
            let mut c = n as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
                k += 1;
            }
            table[n] = c;
            n += 1;
        }
        table
    };
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in data {
        crc = TABLE[((crc ^ u32::from(byte)) & 0xFF) as usize] ^ (crc >> 8);
    }
    crc ^ 0xFFFF_FFFF
}

fn adler32(data: &[u8]) -> u32 {
    const MOD: u32 = 65_521;
    let (mut a, mut b) = (1u32, 0u32);
    // 5552 is the largest run whose sums cannot overflow a u32 before the modulo.
    for run in data.chunks(5552) {
        for &byte in run {
            a += u32::from(byte);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
    }

    #[test]
    fn adler32_matches_the_standard_check_value() {
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
    }

    #[test]
    fn stored_blocks_split_at_65535_and_mark_the_last() {
        let data = vec![7u8; 70_000];
        let z = zlib_stored(&data);
        assert_eq!(&z[..2], &[0x78, 0x01]);
        assert_eq!((0x78u32 * 256 + 1) % 31, 0);
        assert_eq!(z[2], 0, "first block is not final");
        assert_eq!(u16::from_le_bytes([z[3], z[4]]), 65_535);
        let second = 2 + 5 + 65_535;
        assert_eq!(z[second], 1, "second block is final");
        assert_eq!(u16::from_le_bytes([z[second + 1], z[second + 2]]), 4_465);
        assert_eq!(z.len(), 2 + 5 + 65_535 + 5 + (70_000 - 65_535) + 4);
        let empty = zlib_stored(&[]);
        assert_eq!(empty, [0x78, 0x01, 0x01, 0x00, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]);
    }

    #[test]
    fn png_has_signature_ihdr_and_valid_chunk_crcs() {
        let png = encode_rgb(3, 2, |_, _| [255, 0, 0]);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let mut at = 8;
        let mut kinds = Vec::new();
        while at < png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
            let body = &png[at + 4..at + 8 + len];
            let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
            assert_eq!(crc, crc32(body));
            kinds.push(String::from_utf8_lossy(&body[..4]).into_owned());
            at += 12 + len;
        }
        assert_eq!(kinds, ["IHDR", "IDAT", "IEND"]);
        assert_eq!(&png[16..24], &[0, 0, 0, 3, 0, 0, 0, 2]);
        assert_eq!(&png[24..29], &[8, 2, 0, 0, 0]);
    }
}
