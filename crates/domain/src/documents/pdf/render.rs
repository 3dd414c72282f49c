//! Drawing operations to PDF bytes: each page's content stream, the standard fonts under
//! WinAnsiEncoding with their widths, the document's dates.

use pdf_writer::{Content, Name, Pdf, Ref, Str};
use time::OffsetDateTime;

use super::{Font, Op};

/// A page's content stream. Colours are set only when they change.
pub(super) fn render<'a>(ops: impl Iterator<Item = &'a Op>) -> Vec<u8> {
    let mut content = Content::new();
    let mut fill: Option<f32> = None;
    let mut set_fill = |content: &mut Content, gray: f32| {
        if fill != Some(gray) {
            content.set_fill_gray(gray);
            fill = Some(gray);
        }
    };
    for op in ops {
        match op {
            Op::Text {
                x,
                y,
                font,
                size,
                gray,
                bytes,
            } => {
                set_fill(&mut content, *gray);
                content
                    .begin_text()
                    .set_font(font.resource_name(), *size)
                    .next_line(*x, *y)
                    .show(Str(bytes))
                    .end_text();
            }
            Op::Rule {
                x1,
                x2,
                y,
                width,
                gray,
            } => {
                content
                    .set_stroke_gray(*gray)
                    .set_line_width(*width)
                    .move_to(*x1, *y)
                    .line_to(*x2, *y)
                    .stroke();
            }
            Op::Fill { x, y, w, h, gray } => {
                set_fill(&mut content, *gray);
                content.rect(*x, *y, *w, *h).fill_nonzero();
            }
        }
    }
    content.finish().to_vec()
}

/// A standard Type1 font under WinAnsiEncoding. The widths are written too: base-14 fonts
/// may omit them, but with them a viewer that substitutes another font still spaces the
/// glyphs exactly as we laid them out.
pub(super) fn write_font(pdf: &mut Pdf, id: Ref, font: Font) {
    pdf.type1_font(id)
        .base_font(font.base_font())
        .encoding_predefined(Name(b"WinAnsiEncoding"))
        .first_char(32)
        .last_char(255)
        .widths(font.widths()[32..].iter().map(|&w| f32::from(w)));
}

pub(super) fn pdf_date(t: OffsetDateTime) -> pdf_writer::Date {
    let (offset_hours, offset_minutes, _) = t.offset().as_hms();
    pdf_writer::Date::new(t.year().clamp(0, 9999) as u16)
        .month(u8::from(t.month()))
        .day(t.day())
        .hour(t.hour())
        .minute(t.minute())
        .second(t.second())
        .utc_offset_hour(offset_hours)
        .utc_offset_minute(offset_minutes.unsigned_abs())
}
