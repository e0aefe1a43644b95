//! Colour themes: `themes/*.toml` (built into the binary) or a user's file, parsed into a [`Theme`]
//! and turned into [`Styles`], one ratatui `Style` per UI role. The file format is documented at
//! the top of `themes/default.toml`.

use std::ops::Range;
use std::path::{MAIN_SEPARATOR, Path};

use include_dir::{Dir, include_dir};
use ratatui::style::{Color, Modifier, Style};
use toml::Spanned;
use toml::de::{DeString, DeTable, DeValue};

static THEMES: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/themes");

/// The theme used when none is chosen, and the source of every role a theme leaves out.
pub const DEFAULT_THEME: &str = "default";

// One list of roles drives the file keys, the `Styles` fields and their order, so they cannot
// drift apart.
macro_rules! roles {
    ($($(#[doc = $doc:literal])+ $name:ident,)+) => {
        /// Role names as written in theme files, in the order of the role fields of [`Styles`].
        pub const ROLES: &[&str] = &[$(stringify!($name)),+];

        /// The styles the renderer draws with, one per role, plus a few derived ones. Build it
        /// with [`load`].
        #[derive(Debug, Clone, PartialEq, Eq)]
        pub struct Styles {
            $($(#[doc = $doc])+ pub $name: Style,)+
            /// `text` over the `background` colour: fill the whole frame with this first.
            pub base: Style,
            /// Colours are off (`NO_COLOR`): only modifiers remain, so the renderer may want to
            /// add a textual cue (a `>` marker, say) where it would otherwise rely on colour.
            pub no_color: bool,
        }

        impl Styles {
            fn from_roles(roles: [Style; ROLES.len()], no_color: bool) -> Self {
                let [$($name),+] = roles;
                Styles { $($name,)+ base: Style::new(), no_color }
            }

            #[cfg(test)]
            fn roles(&self) -> [Style; ROLES.len()] {
                [$(self.$name),+]
            }
        }
    };
}

roles! {
    /// Background colour of the whole screen (in its `bg`).
    background,
    /// Ordinary text.
    text,
    /// Help text, fields left unset, secondary information.
    muted,
    /// Borders of panes without the focus.
    border,
    /// Border of the pane with the focus.
    border_focused,
    /// Pane titles.
    title,
    /// The selected row of a list (reversed when colours are off).
    selection,
    /// The marker of a required field.
    required,
    /// Errors.
    error,
    /// Warnings.
    warning,
    /// Success: "ready", a call that returned.
    ok,
    /// A field pre-filled from the schema's default.
    default_value,
    /// Key names in the hint line.
    key_hint,
    /// The gloodata tile line.
    tile,
    /// JSON object keys.
    json_key,
    /// JSON strings.
    json_string,
    /// JSON numbers.
    json_number,
    /// JSON `true`, `false` and `null`.
    json_bool_null,
    /// Spinner and other highlights.
    accent,
}

impl Styles {
    /// The border style for a pane.
    pub fn border(&self, focused: bool) -> Style {
        if focused { self.border_focused } else { self.border }
    }
}

impl Default for Styles {
    /// The built-in default theme, with colours. Tests check that it parses, so this cannot fail.
    fn default() -> Self {
        Theme::builtin(DEFAULT_THEME).unwrap_or_default().styles(false)
    }
}

/// Roles where a bare colour means the background: their foreground is rarely what one sets.
const BG_ROLES: &[&str] = &["background", "selection"];

const MODIFIERS: &[(&str, Modifier)] = &[
    ("bold", Modifier::BOLD),
    ("dim", Modifier::DIM),
    ("italic", Modifier::ITALIC),
    ("underlined", Modifier::UNDERLINED),
    ("reversed", Modifier::REVERSED),
];

const COLOUR_HELP: &str = "use a name like \"red\", \"#rrggbb\" or 0-255";

/// What went wrong loading a theme. `origin` is the file as the user named it, or `<name>.toml`
/// for a built-in theme; lines are 1-based.
#[derive(Debug, thiserror::Error)]
pub enum ThemeError {
    #[error("unknown theme {name:?} (available: {}; or give a path to a .toml file)", available.join(", "))]
    UnknownTheme { name: String, available: Vec<&'static str> },
    #[error("cannot read theme {path}: {error}")]
    Read { path: String, error: std::io::Error },
    /// Not valid TOML, or a modifier that is not `true`/`false`.
    #[error("{origin}:{line}: {message}")]
    Invalid { origin: String, line: usize, message: String },
    /// `key` is the role, or `role.key` inside a role's table.
    #[error("{origin}:{line}: unknown key {key:?} (known: {})", known.join(", "))]
    UnknownKey { origin: String, line: usize, key: String, known: Vec<&'static str> },
    /// `value` is the offending TOML exactly as written (a string keeps its quotes).
    #[error("{origin}:{line}: {value} is not a colour for {key:?} ({COLOUR_HELP})")]
    BadColour { origin: String, line: usize, key: String, value: String },
}

/// Loads the theme `name_or_path` (`None`: the default one) and turns it into styles. A value
/// containing a path separator or ending in `.toml` is read from disk; anything else names a
/// built-in theme. `no_color` drops every colour (pass whether `NO_COLOR` is set and non-empty).
pub fn load(name_or_path: Option<&str>, no_color: bool) -> Result<Styles, ThemeError> {
    let theme = match name_or_path {
        None => Theme::builtin(DEFAULT_THEME)?,
        Some(p) if p.contains('/') || p.contains(MAIN_SEPARATOR) || p.ends_with(".toml") => {
            Theme::from_file(Path::new(p))?
        }
        Some(name) => Theme::builtin(name)?,
    };
    Ok(theme.styles(no_color))
}

/// Names of the built-in themes, sorted.
pub fn builtin_names() -> Vec<&'static str> {
    let mut names: Vec<_> = THEMES
        .files()
        .filter(|f| f.path().extension().is_some_and(|e| e == "toml"))
        .filter_map(|f| f.path().file_stem()?.to_str())
        .collect();
    names.sort_unstable();
    names
}

/// One theme file as parsed: the roles it sets, each as colours plus modifiers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Theme {
    roles: [Option<Spec>; ROLES.len()],
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Spec {
    fg: Option<Color>,
    bg: Option<Color>,
    modifiers: Modifier,
}

/// The largest theme file read.
const MAX_THEME_BYTES: u64 = 1024 * 1024;

impl Theme {
    /// The built-in theme `name` (see [`builtin_names`]).
    pub fn builtin(name: &str) -> Result<Self, ThemeError> {
        let file = format!("{name}.toml");
        let source = THEMES.get_file(&file).and_then(|f| f.contents_utf8());
        let source =
            source.ok_or_else(|| ThemeError::UnknownTheme { name: name.to_string(), available: builtin_names() })?;
        Self::parse(source, &file)
    }

    /// Reads and parses a theme file; errors name the file as `path` spells it.
    pub fn from_file(path: &Path) -> Result<Self, ThemeError> {
        let origin = path.display().to_string();
        let read = |error| ThemeError::Read { path: origin.clone(), error };
        // A theme is a few KiB: `/dev/zero`, a FIFO or a huge file is refused, not read.
        let bytes = crate::files::read_bounded(path, MAX_THEME_BYTES).map_err(read)?;
        let source = String::from_utf8(bytes)
            .map_err(|_| read(std::io::Error::new(std::io::ErrorKind::InvalidData, "it is not UTF-8 text")))?;
        Self::parse(&source, &origin)
    }

    /// Parses theme TOML; `origin` names it in errors. Roles left out stay unset here and fall back
    /// to the default theme in [`Theme::styles`].
    pub fn parse(source: &str, origin: &str) -> Result<Self, ThemeError> {
        let cx = Cx { source, origin, lines: crate::text::LineIndex::new(source) };
        let doc = DeTable::parse(source).map_err(|e| {
            let (origin, line) = cx.at(&e.span().unwrap_or_default());
            ThemeError::Invalid { origin, line, message: e.message().to_string() }
        })?;
        let mut theme = Theme::default();
        for (key, value) in in_file_order(doc.get_ref()) {
            let Some(i) = ROLES.iter().position(|r| *r == key.get_ref().as_ref()) else {
                let ((origin, line), key) = (cx.at(&key.span()), key.get_ref().to_string());
                return Err(ThemeError::UnknownKey { origin, line, key, known: ROLES.to_vec() });
            };
            theme.roles[i] = Some(cx.role(ROLES[i], value)?);
        }
        Ok(theme)
    }

    /// Resolves every role (a role this theme lacks comes whole from the default theme) into styles.
    pub fn styles(&self, no_color: bool) -> Styles {
        let fallback = Theme::builtin(DEFAULT_THEME).unwrap_or_default();
        let roles = std::array::from_fn(|i| {
            let spec = self.roles[i].or(fallback.roles[i]).unwrap_or_default();
            let style = Style::new().add_modifier(spec.modifiers);
            if no_color {
                return style;
            }
            let style = spec.fg.map_or(style, |c| style.fg(c));
            spec.bg.map_or(style, |c| style.bg(c))
        });
        let mut styles = Styles::from_roles(roles, no_color);
        if no_color {
            // Without colours these are the only cues left for where the selection and focus are.
            styles.selection = styles.selection.add_modifier(Modifier::REVERSED);
            styles.border_focused = styles.border_focused.add_modifier(Modifier::BOLD);
        }
        styles.base = styles.background.patch(styles.text);
        styles
    }
}

// The parsed table is sorted by key; errors should report the first mistake in the file instead.
fn in_file_order<'t, 'i>(table: &'t DeTable<'i>) -> Vec<(&'t Spanned<DeString<'i>>, &'t Spanned<DeValue<'i>>)> {
    let mut entries: Vec<_> = table.iter().collect();
    entries.sort_by_key(|(key, _)| key.span().start);
    entries
}

/// The source being parsed, for turning spans into error locations.
struct Cx<'a> {
    source: &'a str,
    origin: &'a str,
    lines: crate::text::LineIndex<'a>,
}

impl Cx<'_> {
    /// The origin and 1-based line of `span`, the first fields of every located error.
    fn at(&self, span: &Range<usize>) -> (String, usize) {
        (self.origin.to_string(), self.lines.line_col(span.start).0)
    }

    fn raw(&self, span: &Range<usize>) -> String {
        self.source.get(span.clone()).unwrap_or("?").to_string()
    }

    fn role(&self, role: &str, value: &Spanned<DeValue<'_>>) -> Result<Spec, ThemeError> {
        let DeValue::Table(table) = value.get_ref() else {
            let colour = Some(self.colour(role, value)?);
            let bg = BG_ROLES.contains(&role);
            return Ok(Spec { fg: colour.filter(|_| !bg), bg: colour.filter(|_| bg), ..Spec::default() });
        };
        let mut spec = Spec::default();
        for (key, value) in in_file_order(table) {
            let qualified = format!("{role}.{}", key.get_ref());
            match key.get_ref().as_ref() {
                "fg" => spec.fg = Some(self.colour(&qualified, value)?),
                "bg" => spec.bg = Some(self.colour(&qualified, value)?),
                name => {
                    let Some(&(_, modifier)) = MODIFIERS.iter().find(|(m, _)| *m == name) else {
                        let known = ["fg", "bg"].into_iter().chain(MODIFIERS.iter().map(|(m, _)| *m)).collect();
                        let (origin, line) = self.at(&key.span());
                        return Err(ThemeError::UnknownKey { origin, line, key: qualified, known });
                    };
                    match value.get_ref() {
                        DeValue::Boolean(true) => spec.modifiers |= modifier,
                        DeValue::Boolean(false) => {}
                        _ => {
                            let (origin, line) = self.at(&value.span());
                            let message = format!("{qualified} must be true or false, not {}", self.raw(&value.span()));
                            return Err(ThemeError::Invalid { origin, line, message });
                        }
                    }
                }
            }
        }
        Ok(spec)
    }

    fn colour(&self, key: &str, value: &Spanned<DeValue<'_>>) -> Result<Color, ThemeError> {
        let colour = match value.get_ref() {
            DeValue::String(s) => s.parse::<Color>().ok(),
            DeValue::Integer(i) => u8::from_str_radix(i.as_str(), i.radix()).ok().map(Color::Indexed),
            _ => None,
        };
        colour.ok_or_else(|| {
            let (origin, line) = self.at(&value.span());
            ThemeError::BadColour { origin, line, key: key.to_string(), value: self.raw(&value.span()) }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_themes_parse_and_set_every_role() {
        let names = builtin_names();
        for expected in ["default", "light", "high-contrast"] {
            assert!(names.contains(&expected), "{names:?}");
        }
        for name in names {
            let theme = Theme::builtin(name).unwrap_or_else(|e| panic!("{e}"));
            assert!(theme.roles.iter().all(Option::is_some), "{name} leaves roles to the default");
            assert!(load(Some(name), false).is_ok());
        }
        assert_eq!(load(None, false).unwrap(), Styles::default());
    }

    #[test]
    fn colours_and_modifiers() {
        let src = "text = \"#ff8000\"\nmuted = 244\nborder = \"lightblue\"\nbackground = \"black\"\n\n[title]\nfg = \"12\"\nbold = true\nitalic = false\n";
        let styles = Theme::parse(src, "t.toml").unwrap().styles(false);
        assert_eq!(styles.text, Style::new().fg(Color::Rgb(0xff, 0x80, 0)));
        assert_eq!(styles.muted, Style::new().fg(Color::Indexed(244)));
        assert_eq!(styles.border, Style::new().fg(Color::LightBlue));
        assert_eq!(styles.background, Style::new().bg(Color::Black));
        assert_eq!(styles.base, Style::new().fg(Color::Rgb(0xff, 0x80, 0)).bg(Color::Black));
        assert_eq!(styles.title, Style::new().fg(Color::Indexed(12)).add_modifier(Modifier::BOLD));
    }

    #[test]
    fn unknown_key_names_line_and_key() {
        let err = Theme::parse("# mine\ntext = \"red\"\n\nbordr = \"blue\"\n", "mytheme.toml").unwrap_err();
        let msg = err.to_string();
        assert!(msg.starts_with("mytheme.toml:4: unknown key \"bordr\" (known: background, text,"), "{msg}");
        assert!(msg.contains("border_focused"), "{msg}");

        let err = Theme::parse("text = \"red\"\ntitle = { fg = \"red\", bld = true }\n", "m.toml").unwrap_err();
        assert!(err.to_string().starts_with("m.toml:2: unknown key \"title.bld\" (known: fg, bg, bold,"), "{err}");
    }

    #[test]
    fn bad_colour_names_line_and_value() {
        let err = Theme::parse("text = \"red\"\n\nerror = \"#12345\"\n", "mytheme.toml").unwrap_err();
        assert_eq!(
            err.to_string(),
            "mytheme.toml:3: \"#12345\" is not a colour for \"error\" (use a name like \"red\", \"#rrggbb\" or 0-255)"
        );
        let err = Theme::parse("[selection]\nfg = \"red\"\nbg = 256\n", "m.toml").unwrap_err();
        assert!(err.to_string().starts_with("m.toml:3: 256 is not a colour for \"selection.bg\""), "{err}");
        let err = Theme::parse("title = { bold = \"yes\" }", "m.toml").unwrap_err();
        assert_eq!(err.to_string(), "m.toml:1: title.bold must be true or false, not \"yes\"");
        let err = Theme::parse("text = \"red\"\ntext = \"blue\"\n", "m.toml").unwrap_err();
        assert!(err.to_string().starts_with("m.toml:2: "), "{err}");
    }

    #[test]
    fn no_color_strips_colours_but_keeps_cues() {
        for name in builtin_names() {
            let styles = load(Some(name), true).unwrap();
            assert!(styles.no_color);
            for style in styles.roles().into_iter().chain([styles.base]) {
                assert_eq!((style.fg, style.bg), (None, None), "{name}: {style:?}");
            }
            assert!(styles.selection.add_modifier.contains(Modifier::REVERSED), "{name}");
            assert!(styles.border(true).add_modifier.contains(Modifier::BOLD), "{name}");
        }
        // Modifiers the theme asked for survive.
        assert!(load(None, true).unwrap().error.add_modifier.contains(Modifier::BOLD));
    }

    #[test]
    fn loads_from_a_path_or_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine.toml");
        std::fs::write(&path, "error = \"#ff0000\"\n").unwrap();
        let styles = load(Some(path.to_str().unwrap()), false).unwrap();
        assert_eq!(styles.error, Style::new().fg(Color::Rgb(255, 0, 0)));

        std::fs::write(&path, "error = \"nope\"\n").unwrap();
        let msg = load(Some(path.to_str().unwrap()), false).unwrap_err().to_string();
        assert!(msg.starts_with(&format!("{}:1: \"nope\" is not a colour", path.display())), "{msg}");

        let missing = dir.path().join("missing.toml");
        let err = load(Some(missing.to_str().unwrap()), false).unwrap_err();
        assert!(matches!(err, ThemeError::Read { .. }), "{err}");

        let msg = load(Some("solarised"), false).unwrap_err().to_string();
        assert!(msg.starts_with("unknown theme \"solarised\" (available: default, high-contrast, light"), "{msg}");
    }

    #[test]
    fn partial_theme_falls_back_to_default() {
        let styles = Theme::parse("error = \"#ff0000\"\nselection = \"blue\"\n", "p.toml").unwrap().styles(false);
        let default = Styles::default();
        assert_eq!(styles.error, Style::new().fg(Color::Rgb(255, 0, 0)));
        assert_eq!(styles.selection, Style::new().bg(Color::Blue));
        assert_eq!(styles.title, default.title);
        assert_eq!(styles.json_key, default.json_key);
        assert_eq!(styles.base, default.base);
    }
}
