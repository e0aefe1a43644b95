//! Case files: the YAML outline (its ranges inside the text, in order) and the case reader, on
//! any text; the first byte picks how the file is named (YAML, JSON, JSON5).
#![no_main]

use libfuzzer_sys::fuzz_target;
use tooldeck::cases::file::{CaseFile, parse_into};
use tooldeck::cases::outline::{fragment, outline, without_cases};
use tooldeck::text::LineIndex;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    if let Some(o) = outline(&text) {
        let (start, end) = o.cases;
        assert!(start <= end && end <= text.len(), "{o:?}");
        let lines = LineIndex::new(&text);
        let mut previous = start;
        for &(item_start, item_end) in &o.items {
            assert!(previous <= item_start && item_start <= item_end && item_end <= end, "{o:?}");
            previous = item_end;
            let _ = fragment(&lines, (item_start, item_end));
        }
        let _ = without_cases(&text, o.cases);
    }
    let label = ["c.yaml", "c.yml", "c.json", "c.json5"][usize::from(pick % 4)];
    let mut file = CaseFile::default();
    parse_into(&mut file, label, &text);
    let count = file.case_count();
    let (cases, problems) = file.read_all();
    assert!(cases.len() <= count);
    for problem in problems {
        assert!(problem.line >= 1 && problem.column >= 1, "{problem:?}");
    }
});
