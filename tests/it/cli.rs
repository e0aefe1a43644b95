//! The real binary: `list`, `list --json`, `check`, `check --json`, exit codes, stdin, and the
//! real-world corpus (`TOOLDECK_CORPUS`) (skipped where there is none; see support/corpus.rs).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

#[path = "support/corpus.rs"]
mod corpus_dir;

fn tooldeck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tooldeck")).args(args).output().expect("the binary runs")
}

fn tooldeck_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_tooldeck"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("stdout is UTF-8")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn code(output: &Output) -> i32 {
    output.status.code().expect("exited normally, not by a signal")
}

fn json_out(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}\nstderr:\n{}", stdout(output), stderr(output)))
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

fn arg(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// `checked N files: M tools, E errors, W warnings` → (N, M, E, W).
fn summary(line: &str) -> (usize, usize, usize, usize) {
    let numbers: Vec<usize> =
        line.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect();
    assert!(line.starts_with("checked "), "not a summary line: {line:?}");
    assert_eq!(numbers.len(), 4, "not a summary line: {line:?}");
    for word in [" file", " tool", " error", " warning"] {
        assert!(line.contains(word), "{word} missing in {line:?}");
    }
    (numbers[0], numbers[1], numbers[2], numbers[3])
}

const BAD: &str = r#"{"tools": [
  {"name": "bad", "inputSchema": {"type": "object", "properties": {"a": {"type": 5}}}},
  {"name": "fine", "inputSchema": {"type": "object"}}
]}"#;

mod list {
    use super::*;

    #[test]
    fn no_paths_prints_the_sample_tools_table() {
        let output = tooldeck(&["list"]);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        let text = stdout(&output);
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
        assert_eq!(header, ["ID", "TITLE", "FORMAT", "PARAMS", "SOURCE"]);
        let rows: Vec<&str> = lines.collect();
        assert!(rows.len() >= 21, "at least three sample tools per format: {text}");
        for id in ["search_products", "maps.showMapAtAddressAndZoom", "weather", "search"] {
            assert!(
                rows.iter().any(|r| r.split_whitespace().next() == Some(id)),
                "sample tool {id} missing from:\n{text}"
            );
        }
        let formats = ["jsonschema", "openai", "mcp", "genaiscript", "gloodata", "otc", "marketplace"];
        for format in formats {
            assert!(rows.iter().any(|r| r.split_whitespace().any(|w| w == format)), "no {format} sample:\n{text}");
        }
        // Each row ends with its source, `sample-tools/<folder>/<file>:<line>`.
        for row in &rows {
            let source = row.split_whitespace().last().unwrap();
            assert!(source.starts_with("sample-tools/"), "{row}");
            let line = source.rsplit(':').next().unwrap();
            assert!(line.parse::<usize>().is_ok_and(|l| l >= 1), "{row}");
        }
        // The gloodata documentation's tool: 2 parameters, gloodata.
        let map = rows.iter().find(|r| r.starts_with("maps.showMapAtAddressAndZoom")).unwrap();
        let cells: Vec<&str> = map.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
        assert_eq!(&cells[1..4], ["Show Map at Address and Zoom", "gloodata", "2"], "{map}");
        assert!(stderr(&output).is_empty(), "the samples load cleanly: {}", stderr(&output));
    }

    /// With no command the app starts; without a terminal it says what to use instead.
    #[test]
    fn no_command_without_a_terminal_points_to_list() {
        let output = tooldeck(&[]);
        assert_eq!(code(&output), 2);
        assert!(stderr(&output).contains("needs a terminal"), "{}", stderr(&output));
        assert!(stderr(&output).contains("tooldeck list"), "{}", stderr(&output));
        assert!(stdout(&output).is_empty());
    }

    #[test]
    fn unknown_theme_is_a_usage_error_naming_the_themes() {
        let output = tooldeck(&["--theme", "solarised"]);
        assert_eq!(code(&output), 2);
        assert!(stderr(&output).contains("high-contrast"), "{}", stderr(&output));
    }

    #[test]
    fn json_has_exactly_the_documented_keys() {
        let output = tooldeck(&["list", "--json"]);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        let tools = json_out(&output);
        let tools = tools.as_array().expect("an array");
        assert!(tools.len() >= 21);
        let required = [
            "id",
            "name",
            "title",
            "description",
            "format",
            "source",
            "input_schema",
            "output_schema",
            "ui",
            "examples",
            "requirements",
        ];
        for tool in tools {
            let object = tool.as_object().expect("each tool is an object");
            let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
            if object.contains_key("annotations") {
                let format = tool["format"].as_str().unwrap();
                assert!(["mcp", "openai"].contains(&format), "annotations on a {format} tool: {tool}");
                keys.retain(|k| *k != "annotations");
            }
            let mut expected = required.to_vec();
            keys.sort_unstable();
            expected.sort_unstable();
            assert_eq!(keys, expected, "{}", tool["id"]);
            let source = tool["source"].as_object().unwrap();
            assert_eq!(source.keys().map(String::as_str).collect::<Vec<_>>(), ["path", "line"]);
            assert!(source["path"].as_str().unwrap().starts_with("sample-tools/"));
            assert!(source["line"].as_u64().unwrap() >= 1);
            assert_eq!(tool["input_schema"]["type"], "object", "{}", tool["id"]);
            assert!(tool["examples"].is_array());
            assert!(tool["requirements"]["authorization"].is_array());
            assert!(tool["requirements"]["secrets"].is_array());
        }
        let ids: Vec<&str> = tools.iter().map(|t| t["id"].as_str().unwrap()).collect();
        let mut unique = ids.clone();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), ids.len(), "ids are unique: {ids:?}");
        // Annotations do appear where the samples have them.
        assert!(tools.iter().any(|t| t.get("annotations").is_some()));
    }

    #[test]
    fn json_of_the_seed_tools() {
        let tools = json_out(&tooldeck(&["list", "--json"]));
        let by_id = |id: &str| tools.as_array().unwrap().iter().find(|t| t["id"] == id).cloned().unwrap();
        let map = by_id("maps.showMapAtAddressAndZoom");
        assert_eq!(map["format"], "gloodata");
        assert_eq!(map["name"], "showMapAtAddressAndZoom");
        assert_eq!(map["ui"]["tile"]["prefix"], "Show Map");
        assert_eq!(map["ui"]["tile"]["args"][0]["name"], "address");
        assert_eq!(map["ui"]["tile"]["args"][0]["prefix"], "Of");
        assert!(map["examples"].as_array().unwrap().iter().all(Value::is_string));
        let products = by_id("search_products");
        assert_eq!(products["input_schema"]["required"], serde_json::json!(["query"]));
        assert_eq!(products["input_schema"]["properties"]["priceRange"]["type"], "object");
        // A tool needing OAuth2 authorization is among the samples.
        assert!(tools.as_array().unwrap().iter().any(|t| {
            t["requirements"]["authorization"]
                .as_array()
                .unwrap()
                .iter()
                .any(|a| a["scopes"].as_array().is_some_and(|s| !s.is_empty()))
        }));
    }

    #[test]
    fn stdin_with_a_dash() {
        let input = r#"{"tools": [{"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}]}"#;
        let output = tooldeck_stdin(&["list", "--json", "-"], input);
        assert_eq!(code(&output), 0, "{}", stderr(&output));
        let tools = json_out(&output);
        assert_eq!(tools.as_array().unwrap().len(), 1);
        assert_eq!(tools[0]["id"], "echo");
        assert_eq!(tools[0]["format"], "mcp");
        assert_eq!(tools[0]["source"], serde_json::json!({"path": "<stdin>", "line": 1}));
    }

    #[test]
    fn format_override() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "f.json", r#"{"name": "f", "parameters": {"type": "object"}}"#);
        let auto = json_out(&tooldeck(&["list", "--json", arg(&path)]));
        assert_eq!(auto[0]["format"], "jsonschema");
        let forced = json_out(&tooldeck(&["list", "--json", "--format", "openai", arg(&path)]));
        assert_eq!(forced[0]["format"], "openai");
    }

    #[test]
    fn problems_go_to_stderr_and_list_still_succeeds() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "bad.json", BAD);
        let output = tooldeck(&["list", "--json", arg(&path)]);
        assert_eq!(code(&output), 0);
        let tools = json_out(&output);
        assert_eq!(tools.as_array().unwrap().len(), 1);
        assert_eq!(tools[0]["id"], "fine");
        assert!(stderr(&output).contains("1 error"), "{}", stderr(&output));
        assert!(stderr(&output).contains("tooldeck check"), "{}", stderr(&output));
    }

    #[test]
    fn escape_sequences_never_reach_the_terminal() {
        let dir = tempfile::tempdir().unwrap();
        let text = r#"{"tools": [{"name": "x\u001b[2J", "title": "t\u001b]0;owned\u0007", "inputSchema": {"type": 7}},
  {"name": "y\u001b[31m", "title": "red\u009b1m", "inputSchema": {"type": "object"}}]}"#;
        let path = write(dir.path(), "evil\u{1b}[1m.json", text);
        for args in [vec!["list"], vec!["check"]] {
            let mut args = args.clone();
            args.push(arg(&path));
            let output = tooldeck(&args);
            let text = stdout(&output);
            assert!(!text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\u{9b}'), "{text:?}");
            assert!(text.contains('␛'), "escapes are shown visibly: {text:?}");
        }
    }
}

mod check {
    use super::*;

    #[test]
    fn samples_check_clean() {
        let output = tooldeck(&["check"]);
        assert_eq!(code(&output), 0, "{}{}", stdout(&output), stderr(&output));
        let text = stdout(&output);
        let last = text.lines().last().unwrap();
        let (files, tools, errors, _warnings) = summary(last);
        assert!(files >= 7, "{last}");
        assert!(tools >= 21, "{last}");
        assert_eq!(errors, 0, "{text}");
        assert!(last.contains(" 0 errors, "), "{last}");
        let listed = json_out(&tooldeck(&["list", "--json"]));
        assert_eq!(tools, listed.as_array().unwrap().len());
    }

    #[test]
    fn a_bad_file_exits_1_with_a_compiler_style_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "bad.json", BAD);
        let output = tooldeck(&["check", arg(&path)]);
        assert_eq!(code(&output), 1, "{}", stdout(&output));
        let text = stdout(&output);
        let prefix = format!("{}:2:", path.display());
        let line = text.lines().find(|l| l.starts_with(&prefix)).unwrap_or_else(|| panic!("no {prefix} line:\n{text}"));
        // path:line:col: error: message
        let rest = &line[prefix.len()..];
        let (column, rest) = rest.split_once(':').unwrap();
        assert!(column.parse::<usize>().is_ok_and(|c| c > 1), "{line}");
        assert!(rest.starts_with(" error: "), "{line}");
        assert!(rest.contains("tool \"bad\""), "{line}");
        assert_eq!(summary(text.lines().last().unwrap()), (1, 1, 1, 0), "{text}");
        assert_eq!(text.lines().last().unwrap(), "checked 1 file: 1 tool, 1 error, 0 warnings");
    }

    #[test]
    fn warnings_alone_exit_0() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "sloppy.json", r#"{"name": "s", "parameters": {"type": "dict"}}"#);
        let output = tooldeck(&["check", arg(&path)]);
        assert_eq!(code(&output), 0, "{}", stdout(&output));
        let text = stdout(&output);
        assert!(text.lines().any(|l| l.starts_with(&format!("{}:1:", path.display())) && l.contains(": warning: ")));
        assert_eq!(text.lines().last().unwrap(), "checked 1 file: 1 tool, 0 errors, 1 warning");
    }

    #[test]
    fn a_missing_path_exits_1() {
        let output = tooldeck(&["check", "/nonexistent/tooldeck/x.json"]);
        assert_eq!(code(&output), 1);
        assert!(stdout(&output).contains("/nonexistent/tooldeck/x.json: error: cannot open"), "{}", stdout(&output));
    }

    #[test]
    fn json_shape() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "bad.json", BAD);
        write(dir.path(), "sloppy.json", r#"{"name": "s", "parameters": {"type": "dict"}}"#);
        let output = tooldeck(&["check", "--json", arg(dir.path())]);
        assert_eq!(code(&output), 1);
        let report = json_out(&output);
        let object = report.as_object().unwrap();
        assert_eq!(object.keys().map(String::as_str).collect::<Vec<_>>(), ["tools", "errors", "warnings"]);
        assert_eq!(report["tools"], 2);
        for (key, count) in [("errors", 1), ("warnings", 1)] {
            let list = report[key].as_array().unwrap();
            assert_eq!(list.len(), count, "{report:#}");
            for item in list {
                let mut keys: Vec<&str> = item.as_object().unwrap().keys().map(String::as_str).collect();
                keys.sort_unstable();
                assert_eq!(keys, ["column", "line", "message", "path"], "{item}");
                assert!(item["line"].as_u64().unwrap() >= 1);
                assert!(item["column"].as_u64().unwrap() >= 1);
            }
        }
        assert!(report["errors"][0]["path"].as_str().unwrap().ends_with("bad.json"));
        assert_eq!(report["errors"][0]["line"], 2);
        assert!(report["warnings"][0]["path"].as_str().unwrap().ends_with("sloppy.json"));
    }

    #[test]
    fn json_on_the_samples() {
        let output = tooldeck(&["check", "--json"]);
        assert_eq!(code(&output), 0);
        let report = json_out(&output);
        assert_eq!(report["errors"], serde_json::json!([]));
        assert!(report["tools"].as_u64().unwrap() >= 21);
        assert!(report["warnings"].is_array());
    }

    #[test]
    fn stdin_with_a_dash() {
        let output = tooldeck_stdin(&["check", "-"], "{\"tools\": [\n  {\"name\": \"a\"");
        assert_eq!(code(&output), 1);
        let text = stdout(&output);
        assert!(text.starts_with("<stdin>:2:"), "{text}");
        assert!(text.contains(": error: "), "{text}");
        assert!(text.contains("never closed"), "{text}");
    }

    #[test]
    fn hostile_files_never_crash_the_binary() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "deep.json", &"[".repeat(100_000));
        write(dir.path(), "deep-objects.json", &r#"{"a":"#.repeat(100_000));
        write(dir.path(), "empty.json", "");
        std::fs::write(dir.path().join("binary.json"), [0u8, 159, 146, 150, 0, 1]).unwrap();
        std::fs::write(dir.path().join("latin1.json"), b"{\"a\": \"\xE9\"}").unwrap();
        write(dir.path(), "good.json", r#"{"name": "ok", "parameters": {}}"#);
        let output = tooldeck(&["check", "--json", arg(dir.path())]);
        assert_eq!(code(&output), 1, "{}", stderr(&output));
        let report = json_out(&output);
        assert_eq!(report["tools"], 1);
        assert_eq!(report["errors"].as_array().unwrap().len(), 5, "{report:#}");
    }
}

mod usage {
    use super::*;

    #[test]
    fn unknown_flag_exits_2() {
        for args in [&["list", "--bogus"][..], &["check", "--nope"], &["frobnicate", "x", "--what"]] {
            let output = tooldeck(args);
            assert_eq!(code(&output), 2, "{args:?}: {}", stderr(&output));
            assert!(stdout(&output).is_empty());
            assert!(!stderr(&output).is_empty());
        }
    }

    #[test]
    fn unknown_format_exits_2() {
        for command in ["list", "check"] {
            let output = tooldeck(&[command, "--format", "nope"]);
            assert_eq!(code(&output), 2);
            let message = stderr(&output);
            assert!(message.contains("nope"), "{message}");
            assert!(message.contains("genaiscript"), "the known formats are listed: {message}");
        }
    }

    #[test]
    fn help_exits_0() {
        let output = tooldeck(&["--help"]);
        assert_eq!(code(&output), 0);
        let text = stdout(&output);
        assert!(text.contains("list") && text.contains("check"), "{text}");
    }
}

mod corpus {
    use super::*;

    const EXPECTED: [(&str, usize); 7] = [
        ("arcade", 5),
        ("genaiscript", 15),
        ("gloodata", 60),
        ("marketplace", 6),
        ("mcp", 117),
        ("openai", 79),
        ("otc", 5),
    ];

    #[test]
    fn each_folder_loads_without_errors() {
        let Some(root) = corpus_dir::find() else { return };
        for (folder, tools) in EXPECTED {
            let path = root.join(folder);
            let output = tooldeck(&["check", "--json", arg(&path)]);
            let report = json_out(&output);
            assert_eq!(report["errors"], serde_json::json!([]), "{folder}: {report:#}");
            assert_eq!(code(&output), 0, "{folder}");
            assert_eq!(report["tools"], tools, "{folder}");
        }
    }

    #[test]
    fn the_whole_corpus_lists() {
        let Some(root) = corpus_dir::find() else { return };
        let output = tooldeck(&["list", "--json", arg(&root)]);
        assert_eq!(code(&output), 0);
        let tools = json_out(&output);
        let tools = tools.as_array().unwrap();
        let expected: usize = EXPECTED.iter().map(|(_, n)| n).sum();
        assert!(tools.len() >= expected, "{} tools, expected at least {expected}", tools.len());
        for (folder, count) in EXPECTED {
            let prefix = format!("{}/{folder}/", root.display());
            let here = tools.iter().filter(|t| t["source"]["path"].as_str().unwrap().starts_with(&prefix)).count();
            assert_eq!(here, count, "{folder}");
        }
        let check = tooldeck(&["check", "--json", arg(&root)]);
        assert_eq!(code(&check), 0);
        assert_eq!(json_out(&check)["errors"], serde_json::json!([]));
    }

    /// The 1.4 MB Arcade definition and the 117 MCP tools load with their real features.
    #[test]
    fn corpus_features() {
        let Some(root) = corpus_dir::find() else { return };
        let mcp = json_out(&tooldeck(&["list", "--json", arg(&root.join("mcp"))]));
        assert!(mcp.as_array().unwrap().iter().all(|t| t["format"] == "mcp"));
        assert!(mcp.as_array().unwrap().iter().any(|t| t.get("annotations").is_some()));
        let otc = json_out(&tooldeck(&["list", "--json", arg(&root.join("otc"))]));
        let gmail = otc.as_array().unwrap().iter().find(|t| t["id"] == "Gmail.GetEmails@1.2.0").expect("Gmail tool");
        assert_eq!(gmail["requirements"]["authorization"][0]["id"], "google");
        let gloodata = json_out(&tooldeck(&["list", "--json", arg(&root.join("gloodata"))]));
        assert!(gloodata.as_array().unwrap().iter().all(|t| t["id"].as_str().unwrap().contains('.')));
    }

    /// The two ways the folder can be missing: unset, the tests skip; set, they must fail.
    #[test]
    fn a_missing_corpus_skips_unless_the_variable_asks_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("corpus");
        assert_eq!(corpus_dir::locate(None, &missing), Ok(None));
        let error = corpus_dir::locate(Some(missing.into()), dir.path()).unwrap_err();
        assert!(error.contains(corpus_dir::VARIABLE) && error.contains("is not a folder"), "{error}");
        assert!(corpus_dir::locate(Some("".into()), dir.path()).is_err(), "an empty variable is still set");
    }

    #[test]
    fn the_variable_wins_over_the_default() {
        let default = tempfile::tempdir().unwrap();
        let chosen = tempfile::tempdir().unwrap();
        assert_eq!(corpus_dir::locate(None, default.path()), Ok(Some(default.path().to_path_buf())));
        let found = corpus_dir::locate(Some(chosen.path().into()), default.path());
        assert_eq!(found, Ok(Some(chosen.path().to_path_buf())));
    }
}
