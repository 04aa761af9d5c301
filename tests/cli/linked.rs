//! What the dynamic loader loads at every start (issue 22). `libgcc_s.so` (the unwinder) and
//! `libm.so` each cost a process 0.1–0.2 ms to load here (docs/performance.md): the unwinder
//! is linked in from GCC's static `libgcc_eh` (build.rs), and `pow`, the one function of
//! `libm.so` a release build calls, is defined in src/main.rs. Read from the binary's ELF
//! sections, as `readelf -d` and `nm -D` show them.

#![cfg(all(target_os = "linux", target_env = "gnu", target_pointer_width = "64"))]

use crate::common::BIN;

#[test]
fn the_program_loads_neither_libgcc_s_nor_libm_for_pow() {
    let elf = Elf(std::fs::read(BIN).unwrap());
    let needed = elf.needed();
    assert!(
        !needed.iter().any(|l| l.starts_with("libgcc_s")),
        "{needed:?}"
    );
    let imported = elf.imported();
    let unwinder: Vec<_> = imported
        .iter()
        .filter(|s| s.starts_with("_Unwind_"))
        .collect();
    assert!(unwinder.is_empty(), "imports {unwinder:?}");
    assert!(!imported.iter().any(|s| s == "pow"), "imports pow");
    // A debug build calls more of libm (its floating point is not folded away).
    if !cfg!(debug_assertions) {
        assert_eq!(needed, ["libc.so.6"]);
    }
}

/// A 64-bit little-endian ELF file.
struct Elf(Vec<u8>);

impl Elf {
    fn u16_at(&self, at: usize) -> usize {
        u16::from_le_bytes(self.0[at..at + 2].try_into().unwrap()) as usize
    }

    fn u64_at(&self, at: usize) -> usize {
        u64::from_le_bytes(self.0[at..at + 8].try_into().unwrap()) as usize
    }

    /// Each section's (type, offset in the file, size, linked section).
    fn sections(&self) -> Vec<(u32, usize, usize, usize)> {
        assert_eq!(
            &self.0[..6],
            b"\x7fELF\x02\x01",
            "a 64-bit little-endian ELF file"
        );
        let (start, size, count) = (self.u64_at(0x28), self.u16_at(0x3a), self.u16_at(0x3c));
        (0..count)
            .map(|i| start + i * size)
            .map(|h| {
                let kind = u32::from_le_bytes(self.0[h + 4..h + 8].try_into().unwrap());
                let link = u32::from_le_bytes(self.0[h + 40..h + 44].try_into().unwrap());
                (
                    kind,
                    self.u64_at(h + 24),
                    self.u64_at(h + 32),
                    link as usize,
                )
            })
            .collect()
    }

    /// The NUL-terminated string at `at` of the string table section `table`.
    fn string(&self, table: usize, at: usize) -> String {
        let start = self.sections()[table].1 + at;
        let end = start + self.0[start..].iter().position(|&b| b == 0).unwrap();
        String::from_utf8_lossy(&self.0[start..end]).into_owned()
    }

    /// The section of a type (`.dynamic` is 6, `.dynsym` 11).
    fn section(&self, kind: u32) -> (usize, usize, usize) {
        let (_, offset, size, link) = *self.sections().iter().find(|s| s.0 == kind).unwrap();
        (offset, size, link)
    }

    /// The `DT_NEEDED` libraries, in order.
    fn needed(&self) -> Vec<String> {
        let (offset, size, strings) = self.section(6);
        (offset..offset + size)
            .step_by(16)
            .filter(|&e| self.u64_at(e) == 1)
            .map(|e| self.string(strings, self.u64_at(e + 8)))
            .collect()
    }

    /// The names of the dynamic symbols the program takes from a library (undefined here).
    fn imported(&self) -> Vec<String> {
        let (offset, size, strings) = self.section(11);
        (offset..offset + size)
            .step_by(24)
            .filter(|&s| self.u16_at(s + 6) == 0)
            .map(|s| {
                self.string(
                    strings,
                    u32::from_le_bytes(self.0[s..s + 4].try_into().unwrap()) as usize,
                )
            })
            .filter(|name| !name.is_empty())
            .collect()
    }
}
