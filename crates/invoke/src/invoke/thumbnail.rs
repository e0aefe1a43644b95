//! A small picture of a PNG artifact for the terminal: decoded with the `png` crate, composited
//! over black, and box-averaged down to a few dozen pixels a side. The screen draws two pixels per
//! cell with `▀`, so pixels come out roughly square.

use std::io::Cursor;

/// Images that would need more memory than this to decode are not previewed (the size line
/// still says what they are).
const DECODE_LIMIT_BYTES: usize = 64 * 1024 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Thumbnail {
    pub width: usize,
    /// Always even: one terminal row holds two pixel rows.
    pub height: usize,
    /// Row-major RGB.
    pub pixels: Vec<[u8; 3]>,
}

impl Thumbnail {
    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        self.pixels.get(y * self.width + x).copied().unwrap_or_default()
    }
}

/// Why a PNG has no thumbnail (the preview says it in place of the picture). It travels in the
/// app's messages, which are cloned and compared: the decoder's error is kept as its words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ThumbnailError {
    #[error("cannot decode the PNG: {0}")]
    Decode(String),
    #[error("the PNG is too large to preview")]
    TooLarge,
    #[error("the PNG has no pixels")]
    NoPixels,
}

impl From<png::DecodingError> for ThumbnailError {
    fn from(error: png::DecodingError) -> ThumbnailError {
        ThumbnailError::Decode(error.to_string())
    }
}

/// A thumbnail of at most `max_width` × `max_height` pixels, or why there is none.
pub fn thumbnail(bytes: &[u8], max_width: usize, max_height: usize) -> Result<Thumbnail, ThumbnailError> {
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), png::Limits { bytes: DECODE_LIMIT_BYTES });
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info()?;
    let size = reader.output_buffer_size().ok_or(ThumbnailError::TooLarge)?;
    let mut buffer = vec![0; size];
    let frame = reader.next_frame(&mut buffer)?;
    let (width, height) = (frame.width as usize, frame.height as usize);
    let channels = frame.color_type.samples();
    let source = |x: usize, y: usize| -> [u8; 3] {
        let at = y * frame.line_size + x * channels;
        let sample = |i: usize| buffer.get(at + i).copied().unwrap_or(0);
        let (rgb, alpha) = match channels {
            1 => ([sample(0); 3], 255),
            2 => ([sample(0); 3], sample(1)),
            3 => ([sample(0), sample(1), sample(2)], 255),
            _ => ([sample(0), sample(1), sample(2)], sample(3)),
        };
        // Over black, which is what most terminals show behind the picture.
        rgb.map(|c| (u16::from(c) * u16::from(alpha) / 255) as u8)
    };
    if width == 0 || height == 0 {
        return Err(ThumbnailError::NoPixels);
    }
    let scale = (width as f64 / max_width.max(1) as f64).max(height as f64 / max_height.max(2) as f64).max(1.0);
    let out_width = ((width as f64 / scale).round() as usize).max(1);
    let out_height = ((height as f64 / scale).round() as usize).max(1).div_ceil(2) * 2;
    let mut pixels = Vec::with_capacity(out_width * out_height);
    for y in 0..out_height {
        let (y0, y1) = span(y, out_height, height);
        for x in 0..out_width {
            let (x0, x1) = span(x, out_width, width);
            let mut sum = [0u64; 3];
            let mut count = 0u64;
            // At most a few thousand samples per output pixel even for huge images: every
            // step-th source pixel is enough for a picture this small.
            let step = ((x1 - x0).max(y1 - y0) / 16).max(1);
            for sy in (y0..y1).step_by(step) {
                for sx in (x0..x1).step_by(step) {
                    let [r, g, b] = source(sx, sy);
                    sum[0] += u64::from(r);
                    sum[1] += u64::from(g);
                    sum[2] += u64::from(b);
                    count += 1;
                }
            }
            pixels.push(sum.map(|s| (s / count.max(1)) as u8));
        }
    }
    Ok(Thumbnail { width: out_width, height: out_height, pixels })
}

/// The source range `[start, end)` that output pixel `i` of `out` covers in `size` pixels
/// (never empty; past the end for the padding row of an odd height it repeats the last row).
fn span(i: usize, out: usize, size: usize) -> (usize, usize) {
    let start = (i * size / out).min(size - 1);
    let end = ((i + 1) * size / out).clamp(start + 1, size);
    (start, end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invoke::mock::png::encode_rgb;

    #[test]
    fn a_small_image_keeps_its_pixels() {
        let png = encode_rgb(2, 2, |x, y| if (x + y) % 2 == 0 { [255, 0, 0] } else { [0, 0, 255] });
        let thumb = thumbnail(&png, 40, 40).unwrap();
        assert_eq!((thumb.width, thumb.height), (2, 2));
        assert_eq!(thumb.pixel(0, 0), [255, 0, 0]);
        assert_eq!(thumb.pixel(1, 0), [0, 0, 255]);
    }

    #[test]
    fn a_large_image_is_averaged_down_keeping_its_shape() {
        let png = encode_rgb(400, 200, |x, _| if x < 200 { [255, 255, 255] } else { [0, 0, 0] });
        let thumb = thumbnail(&png, 40, 40).unwrap();
        assert_eq!((thumb.width, thumb.height), (40, 20));
        assert_eq!(thumb.pixel(0, 0), [255, 255, 255]);
        assert_eq!(thumb.pixel(39, 19), [0, 0, 0]);
    }

    #[test]
    fn an_odd_height_is_padded_to_whole_cells() {
        let png = encode_rgb(3, 3, |_, _| [9, 9, 9]);
        let thumb = thumbnail(&png, 40, 40).unwrap();
        assert_eq!((thumb.width, thumb.height), (3, 4));
        assert_eq!(thumb.pixel(2, 3), [9, 9, 9]);
    }

    #[test]
    fn broken_data_is_an_error_not_a_panic() {
        assert!(thumbnail(b"not a png", 10, 10).is_err());
        let mut png = encode_rgb(8, 8, |_, _| [1, 2, 3]);
        png.truncate(png.len() / 2);
        assert!(thumbnail(&png, 10, 10).is_err());
    }
}
