//! The terminal's theme as an MCP App's host context gives it: the spec's CSS variables
//! (`--color-background-primary`...) and `light` or `dark`, so the view in the browser looks
//! like the terminal it was opened from. A role whose colour is the terminal's own (`reset`),
//! or every colour with `NO_COLOR`, falls back to tooldeck's default dark palette.

use ratatui::style::{Color, Style};

use crate::apps::HostStyle;
use crate::theme::Styles;

/// The host style for `styles`.
pub(super) fn host_style(styles: &Styles) -> HostStyle {
    let fallback = HostStyle::default();
    let default = |name: &str| fallback.get(name).map(str::to_string);
    let background = styles.background.bg.and_then(rgb);
    let text = styles.text.fg.and_then(rgb);
    let (bg, fg) = match (background, text) {
        (Some(bg), Some(fg)) => (bg, fg),
        (Some(bg), None) if light(bg) => (bg, (0x1f, 0x23, 0x28)),
        (Some(bg), None) => (bg, (0xcd, 0xd6, 0xf4)),
        (None, _) => return with_roles(fallback, styles),
    };
    let hex_bg = hex(bg);
    let variables = vec![
        ("--color-background-primary".to_string(), hex_bg.clone()),
        ("--color-background-secondary".to_string(), hex(mix(bg, fg, 0.08))),
        ("--color-background-tertiary".to_string(), hex(mix(bg, fg, 0.14))),
        ("--color-background-inverse".to_string(), hex(fg)),
        ("--color-text-primary".to_string(), hex(fg)),
        ("--color-text-inverse".to_string(), hex_bg),
        ("--color-text-secondary".to_string(), hex(mix(fg, bg, 0.3))),
    ];
    let mut style = HostStyle { theme: if light(bg) { "light" } else { "dark" }.into(), variables };
    for name in ["--color-border-primary", "--color-ring-primary"] {
        if let Some(value) = default(name) {
            style.variables.push((name.into(), value));
        }
    }
    with_roles(style, styles)
}

/// `style` with the colours the theme's roles name: secondary text, borders, the focus ring,
/// and the info, danger, warning and success colours.
fn with_roles(mut style: HostStyle, styles: &Styles) -> HostStyle {
    let fg = |s: Style| s.fg.and_then(rgb).map(hex);
    let roles = [
        ("--color-text-secondary", fg(styles.muted)),
        ("--color-border-primary", fg(styles.border)),
        ("--color-ring-primary", fg(styles.border_focused)),
        ("--color-text-info", fg(styles.accent)),
        ("--color-text-danger", fg(styles.error)),
        ("--color-text-warning", fg(styles.warning)),
        ("--color-text-success", fg(styles.ok)),
    ];
    for (name, value) in roles {
        let Some(value) = value else { continue };
        match style.variables.iter_mut().find(|(k, _)| k == name) {
            Some((_, old)) => *old = value,
            None => style.variables.push((name.to_string(), value)),
        }
    }
    style
}

/// A colour as red, green and blue: the xterm palette's values for names and indexes.
fn rgb(colour: Color) -> Option<(u8, u8, u8)> {
    const BASIC: [(u8, u8, u8); 16] = [
        (0x00, 0x00, 0x00),
        (0xcd, 0x00, 0x00),
        (0x00, 0xcd, 0x00),
        (0xcd, 0xcd, 0x00),
        (0x00, 0x00, 0xee),
        (0xcd, 0x00, 0xcd),
        (0x00, 0xcd, 0xcd),
        (0xe5, 0xe5, 0xe5),
        (0x7f, 0x7f, 0x7f),
        (0xff, 0x00, 0x00),
        (0x00, 0xff, 0x00),
        (0xff, 0xff, 0x00),
        (0x5c, 0x5c, 0xff),
        (0xff, 0x00, 0xff),
        (0x00, 0xff, 0xff),
        (0xff, 0xff, 0xff),
    ];
    let index = match colour {
        Color::Reset => return None,
        Color::Rgb(r, g, b) => return Some((r, g, b)),
        Color::Indexed(n) => n,
        Color::Black => 0,
        Color::Red => 1,
        Color::Green => 2,
        Color::Yellow => 3,
        Color::Blue => 4,
        Color::Magenta => 5,
        Color::Cyan => 6,
        Color::Gray => 7,
        Color::DarkGray => 8,
        Color::LightRed => 9,
        Color::LightGreen => 10,
        Color::LightYellow => 11,
        Color::LightBlue => 12,
        Color::LightMagenta => 13,
        Color::LightCyan => 14,
        Color::White => 15,
    };
    Some(match index {
        0..=15 => BASIC[usize::from(index)],
        16..=231 => {
            let level = |n: u8| if n == 0 { 0 } else { 55 + n * 40 };
            let n = index - 16;
            (level(n / 36), level(n / 6 % 6), level(n % 6))
        }
        _ => {
            let grey = 8 + (index - 232) * 10;
            (grey, grey, grey)
        }
    })
}

fn hex((r, g, b): (u8, u8, u8)) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Whether a background is light: its relative luminance past the middle.
fn light((r, g, b): (u8, u8, u8)) -> bool {
    0.2126 * f32::from(r) + 0.7152 * f32::from(g) + 0.0722 * f32::from(b) > 140.0
}

/// `a` moved `amount` of the way to `b`.
fn mix(a: (u8, u8, u8), b: (u8, u8, u8), amount: f32) -> (u8, u8, u8) {
    let one = |x: u8, y: u8| (f32::from(x) + (f32::from(y) - f32::from(x)) * amount).round().clamp(0.0, 255.0) as u8;
    (one(a.0, b.0), one(a.1, b.1), one(a.2, b.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn theme(name: &str) -> Styles {
        crate::theme::Theme::builtin(name).expect("a built-in theme").styles(false)
    }

    #[test]
    fn the_light_theme_gives_its_own_colours() {
        let style = host_style(&theme("light"));
        assert_eq!(style.theme, "light");
        assert_eq!(style.get("--color-background-primary"), Some("#fafafa"));
        assert_eq!(style.get("--color-text-primary"), Some("#1f2328"));
        assert_eq!(style.get("--color-text-danger"), Some("#cf222e"));
        assert_eq!(style.get("--color-ring-primary"), Some("#0969da"));
    }

    #[test]
    fn the_terminals_own_background_falls_back_to_the_dark_palette() {
        let style = host_style(&theme("default"));
        assert_eq!(style.theme, "dark");
        assert_eq!(style.get("--color-background-primary"), Some("#1e1e2e"));
        // The roles the default theme names by colour still come through (cyan focus).
        assert_eq!(style.get("--color-ring-primary"), Some("#00cdcd"));
        let plain = host_style(&crate::theme::Theme::builtin("light").unwrap().styles(true));
        assert_eq!(plain, HostStyle::default(), "NO_COLOR: no colour of the theme's");
    }
}
