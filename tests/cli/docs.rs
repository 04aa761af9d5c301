//! The README tells the truth: its exit-code table is the program's.

use mastra_ask::exit::TABLE;

#[test]
fn the_readme_exit_code_table_matches_the_code() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let rows: Vec<(i32, String)> = readme
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l
                .trim()
                .trim_matches('|')
                .split(" | ")
                .map(str::trim)
                .collect();
            let code = cells.first()?.parse::<i32>().ok()?;
            Some((code, cells.get(1)?.to_string()))
        })
        .collect();
    let expected: Vec<(i32, String)> = TABLE.iter().map(|(_, c, m)| (*c, m.to_string())).collect();
    assert_eq!(rows, expected);
}
