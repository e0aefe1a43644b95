//! PNG pictures for the demo server's image artifact: 8-bit RGB, written by the `png` crate (the
//! same crate reads them back for thumbnails). Stored without compression, as the demo server
//! always served them: a 64×64 map stays 12 KiB, enough for a fetch to show its progress, and the
//! output is the same for the same input, so tests can rely on its size.

/// A `width` × `height` image where `pixel(x, y)` gives each pixel's RGB colour. PNG has no empty
/// images, so a zero side is drawn as one pixel.
pub fn encode_rgb(width: u32, height: u32, pixel: impl Fn(u32, u32) -> [u8; 3]) -> Vec<u8> {
    let (width, height) = (width.max(1), height.max(1));
    let mut raw = Vec::with_capacity(height as usize * width as usize * 3);
    for y in 0..height {
        for x in 0..width {
            raw.extend_from_slice(&pixel(x, y));
        }
    }
    // Writing to a Vec cannot fail, and `raw` holds exactly width × height pixels: an error here
    // would be a bug in the encoder, and an empty answer is as much as a demo image needs then.
    encode(width, height, &raw).unwrap_or_default()
}

fn encode(width: u32, height: u32, rgb: &[u8]) -> Result<Vec<u8>, png::EncodingError> {
    let mut png = Vec::new();
    let mut encoder = png::Encoder::new(&mut png, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_compression(png::Compression::NoCompression);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(png)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The chunk types in order, checking each chunk's length fits.
    fn chunks(png: &[u8]) -> Vec<String> {
        let mut at = 8;
        let mut kinds = Vec::new();
        while at < png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
            assert!(at + 12 + len <= png.len(), "chunk at {at} runs past the end");
            kinds.push(String::from_utf8_lossy(&png[at + 4..at + 8]).into_owned());
            at += 12 + len;
        }
        kinds
    }

    #[test]
    fn png_has_signature_ihdr_and_the_pixels() {
        let png = encode_rgb(3, 2, |x, y| [x as u8 * 100, y as u8 * 200, 7]);
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(chunks(&png), ["IHDR", "IDAT", "IEND"]);
        assert_eq!(&png[16..24], &[0, 0, 0, 3, 0, 0, 0, 2]);
        assert_eq!(&png[24..29], &[8, 2, 0, 0, 0]);

        let mut reader = png::Decoder::new(std::io::Cursor::new(&png)).read_info().unwrap();
        let mut pixels = vec![0; reader.output_buffer_size().unwrap()];
        let frame = reader.next_frame(&mut pixels).unwrap();
        assert_eq!((frame.width, frame.height, frame.color_type), (3, 2, png::ColorType::Rgb));
        let expected: Vec<u8> = (0..2u8).flat_map(|y| (0..3u8).flat_map(move |x| [x * 100, y * 200, 7])).collect();
        assert_eq!(&pixels[..frame.buffer_size()], expected.as_slice());
    }

    #[test]
    fn same_input_same_bytes_and_no_empty_images() {
        let draw = |x: u32, y: u32| [(x * 3) as u8, (y * 5) as u8, 9];
        assert_eq!(encode_rgb(64, 64, draw), encode_rgb(64, 64, draw));
        // Signature, IHDR, one IDAT of zlib-stored scanlines (a filter byte each), IEND.
        assert_eq!(encode_rgb(64, 64, draw).len(), 8 + 25 + 12 + (2 + 5 + 64 * (1 + 64 * 3) + 4) + 12);
        let dot = encode_rgb(0, 0, |_, _| [1, 2, 3]);
        assert_eq!(&dot[16..24], &[0, 0, 0, 1, 0, 0, 0, 1]);
    }
}
