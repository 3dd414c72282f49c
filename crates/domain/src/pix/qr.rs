//! A BR Code as a QR code: the module matrix (made by Nayuki's `qrcodegen`, error correction
//! level M, as PSPs print theirs), its dark modules as horizontal runs, and the same runs as
//! an SVG for the API. The PDFs draw the runs as filled rectangles
//! (`documents::pdf::Document::qr_code`), so every form of the code is vector and comes from
//! one matrix.

use qrcodegen::{QrCode as Matrix, QrCodeEcc};

/// Light modules around the code, as ISO/IEC 18004 asks for a reader to find it.
pub const QUIET_ZONE: usize = 4;

/// The module matrix of one text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QrCode {
    size: usize,
    dark: Vec<bool>,
}

/// A horizontal run of dark modules: `len` modules from column `x` of row `y`, counted
/// without the quiet zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Run {
    pub x: usize,
    pub y: usize,
    pub len: usize,
}

impl QrCode {
    /// The QR code of `text` at error correction M, in the smallest version that holds it;
    /// `None` when no version does (a BR Code is a few hundred characters, far below).
    pub fn encode(text: &str) -> Option<QrCode> {
        let matrix = Matrix::encode_text(text, QrCodeEcc::Medium).ok()?;
        let size = usize::try_from(matrix.size()).ok()?;
        let dark = (0..size)
            .flat_map(|y| (0..size).map(move |x| (x, y)))
            .map(|(x, y)| matrix.get_module(x as i32, y as i32))
            .collect();
        Some(QrCode { size, dark })
    }

    /// Modules on a side, without the quiet zone.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Modules on a side with the quiet zone on both sides: what a drawing must make room for.
    pub fn side(&self) -> usize {
        self.size + 2 * QUIET_ZONE
    }

    /// Whether the module at column `x`, row `y` is dark.
    pub fn is_dark(&self, x: usize, y: usize) -> bool {
        x < self.size && y < self.size && self.dark[y * self.size + x]
    }

    /// The dark modules, row by row, as runs: a few hundred rectangles instead of a
    /// thousand squares, and no seams between neighbours in a viewer that anti-aliases.
    pub fn runs(&self) -> Vec<Run> {
        let mut runs = Vec::new();
        for y in 0..self.size {
            let mut x = 0;
            while x < self.size {
                if !self.is_dark(x, y) {
                    x += 1;
                    continue;
                }
                let start = x;
                while x < self.size && self.is_dark(x, y) {
                    x += 1;
                }
                runs.push(Run {
                    x: start,
                    y,
                    len: x - start,
                });
            }
        }
        runs
    }

    /// An SVG of the code, quiet zone included, one unit per module: a white square and
    /// one black path of the runs. No script, no external reference.
    pub fn svg(&self) -> String {
        let side = self.side();
        let mut path = String::new();
        for run in self.runs() {
            path.push_str(&format!(
                "M{} {}h{}v1h-{}z",
                run.x + QUIET_ZONE,
                run.y + QUIET_ZONE,
                run.len,
                run.len
            ));
        }
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {side} {side}\" \
             shape-rendering=\"crispEdges\"><rect width=\"{side}\" height=\"{side}\" \
             fill=\"#fff\"/><path fill=\"#000\" d=\"{path}\"/></svg>"
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MANUAL_STATIC: &str = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D";

    #[test]
    fn a_br_code_fits_a_small_version_at_level_m() {
        let qr = QrCode::encode(MANUAL_STATIC).unwrap();
        // 125 bytes in byte mode: version 7 (45 modules) holds up to 122 at M, version 8
        // (49 modules) up to 152.
        assert_eq!(qr.size(), 49);
        assert_eq!(qr.side(), 57);
    }

    #[test]
    fn the_runs_cover_exactly_the_dark_modules() {
        let qr = QrCode::encode(MANUAL_STATIC).unwrap();
        let mut covered = vec![false; qr.size() * qr.size()];
        for run in qr.runs() {
            assert!(run.len > 0 && run.x + run.len <= qr.size());
            for x in run.x..run.x + run.len {
                assert!(!covered[run.y * qr.size() + x], "runs overlap");
                covered[run.y * qr.size() + x] = true;
            }
        }
        for y in 0..qr.size() {
            for x in 0..qr.size() {
                assert_eq!(covered[y * qr.size() + x], qr.is_dark(x, y), "({x}, {y})");
            }
        }
        // The finder pattern's top row: seven dark modules from the corner.
        assert_eq!(qr.runs()[0], Run { x: 0, y: 0, len: 7 });
    }

    #[test]
    fn the_svg_draws_the_runs_inside_the_quiet_zone_and_nothing_else() {
        let qr = QrCode::encode(MANUAL_STATIC).unwrap();
        let svg = qr.svg();
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 57 57\""));
        assert!(
            svg.contains("<path fill=\"#000\" d=\"M4 4h7v1h-7z"),
            "{svg}"
        );
        assert_eq!(svg.matches('z').count(), qr.runs().len());
        assert!(!svg.contains("<script") && !svg.contains("href"));
    }
}
