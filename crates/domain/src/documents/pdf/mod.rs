//! A small PDF builder for the documents we send to debtors: A4 pages in the standard
//! Helvetica fonts, with titles, headings, wrapped paragraphs, label/value blocks, tables
//! that continue across pages with their header repeated, totals, a signature line, QR codes
//! drawn as rectangles with text beside them, codes in Courier that copy back character for
//! character, and a "Página N de M" footer.
//!
//! Text is written as Windows-1252 bytes under WinAnsiEncoding. That is the one single-byte
//! encoding every PDF reader knows for the standard fonts and it covers Portuguese, so no
//! font file has to be embedded (or licensed) while viewers, `pdftotext` and screen readers
//! still see "ç", "ã" and "º". Lines are measured with the fonts' own advance widths (Adobe's
//! AFM metrics, in the tables at the end of this file), which makes wrapping and right
//! alignment exact rather than estimated.
//!
//! Content is laid out first into drawing operations per page and written as PDF only by
//! [`Document::finish`], once the page count that the footer prints is known. Nothing here
//! reads a clock or a file: the same input and creation date give the same bytes.
//!
//! The module is split by job: the layout here, `render` (drawing operations to PDF bytes),
//! `winansi` (the encoding and the fonts' metrics) and, for tests, `reader` (the text a
//! written PDF shows).

#[cfg(test)]
pub(crate) mod reader;
mod render;
mod winansi;

pub use winansi::{encode_win_ansi, text_width};

#[cfg(test)]
pub(crate) use reader::shown_text;
use render::{pdf_date, render, write_font};
use winansi::{BOLD_WIDTHS, MONO_WIDTHS, REGULAR_WIDTHS, bytes_width};

use pdf_writer::{Finish, Name, Pdf, Rect, Ref, TextStr};
use time::OffsetDateTime;

use crate::pix::qr::{QUIET_ZONE, QrCode};

/// A4 width in PostScript points (1/72 inch).
pub const PAGE_WIDTH: f32 = 595.0;
/// A4 height in PostScript points.
pub const PAGE_HEIGHT: f32 = 842.0;
/// Left and right margin, about 2 cm.
pub const MARGIN_X: f32 = 56.0;
/// Width available to content between the margins.
pub const CONTENT_WIDTH: f32 = PAGE_WIDTH - 2.0 * MARGIN_X;
/// Where content starts on every page.
const CONTENT_TOP: f32 = PAGE_HEIGHT - 56.0;
/// Content never goes below this line: the footer lives underneath.
const CONTENT_BOTTOM: f32 = 72.0;

/// Space after a paragraph or block, in points.
const BLOCK_GAP: f32 = 6.0;
/// Space above a heading that does not open a page.
const HEADING_GAP: f32 = 10.0;
/// Horizontal padding inside table cells.
const CELL_PAD_X: f32 = 4.0;
/// Vertical padding inside table cells.
const CELL_PAD_Y: f32 = 3.0;
/// A cell longer than this is cut with "…", so that any row fits on one page.
const MAX_CELL_LINES: usize = 6;
/// Gap between a label and its value in key/value blocks and totals.
const LABEL_GAP: f32 = 12.0;

/// Gray levels (0 black, 1 white).
const INK: f32 = 0.0;
const MUTED: f32 = 0.35;
const HAIRLINE: f32 = 0.75;
const HEADER_FILL: f32 = 0.9;

/// One of the standard fonts we use; none is embedded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Font {
    /// Helvetica.
    Regular,
    /// Helvetica-Bold.
    Bold,
    /// Courier, for codes read or typed character by character.
    Mono,
}

impl Font {
    fn resource_name(self) -> Name<'static> {
        match self {
            Font::Regular => Name(b"F1"),
            Font::Bold => Name(b"F2"),
            Font::Mono => Name(b"F3"),
        }
    }

    fn base_font(self) -> Name<'static> {
        match self {
            Font::Regular => Name(b"Helvetica"),
            Font::Bold => Name(b"Helvetica-Bold"),
            Font::Mono => Name(b"Courier"),
        }
    }

    /// Advance widths in thousandths of the font size, indexed by Windows-1252 code.
    fn widths(self) -> &'static [u16; 256] {
        match self {
            Font::Regular => &REGULAR_WIDTHS,
            Font::Bold => &BOLD_WIDTHS,
            Font::Mono => &MONO_WIDTHS,
        }
    }
}

/// Horizontal alignment of text in its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Flush left (text).
    Left,
    /// Flush right (amounts, dates).
    Right,
    /// Centred.
    Center,
}

/// A table column: its header, its share of the table width and how its cells align.
#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    /// Header text, shown in bold on every page the table spans.
    pub title: String,
    /// Relative share of the content width; shares are normalised, so percentages or any
    /// other positive weights work.
    pub width: f32,
    /// Alignment of the header and the cells.
    pub align: Align,
}

impl Column {
    /// A column with the given title, width share and alignment.
    pub fn new(title: impl Into<String>, width: f32, align: Align) -> Column {
        Column {
            title: title.into(),
            width,
            align,
        }
    }
}

/// Font, size and line height of one kind of text.
#[derive(Debug, Clone, Copy)]
struct Style {
    font: Font,
    size: f32,
    leading: f32,
    gray: f32,
}

const TITLE: Style = Style {
    font: Font::Bold,
    size: 16.0,
    leading: 22.0,
    gray: INK,
};
const HEADING: Style = Style {
    font: Font::Bold,
    size: 11.0,
    leading: 16.0,
    gray: INK,
};
const BODY: Style = Style {
    font: Font::Regular,
    size: 10.0,
    leading: 14.0,
    gray: INK,
};
const BODY_BOLD: Style = Style {
    font: Font::Bold,
    ..BODY
};
const NOTE: Style = Style {
    font: Font::Regular,
    size: 8.5,
    leading: 11.5,
    gray: MUTED,
};
const CELL: Style = Style {
    font: Font::Regular,
    size: 8.5,
    leading: 11.0,
    gray: INK,
};
const CELL_HEADER: Style = Style {
    font: Font::Bold,
    ..CELL
};
const CODE: Style = Style {
    font: Font::Mono,
    size: 8.0,
    leading: 10.0,
    gray: INK,
};
const FOOTER: Style = Style {
    font: Font::Regular,
    size: 8.0,
    leading: 10.0,
    gray: MUTED,
};

/// A drawing operation on a page, in points from the bottom-left corner.
#[derive(Debug, Clone, PartialEq)]
enum Op {
    /// Text whose baseline starts at (`x`, `y`), already encoded as Windows-1252.
    Text {
        x: f32,
        y: f32,
        font: Font,
        size: f32,
        gray: f32,
        bytes: Vec<u8>,
    },
    /// A horizontal line.
    Rule {
        x1: f32,
        x2: f32,
        y: f32,
        width: f32,
        gray: f32,
    },
    /// A filled rectangle (table header background, a QR code's modules).
    Fill {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        gray: f32,
    },
}

/// A document being laid out. Every method appends below what is already there and starts
/// a new page when the next piece does not fit.
#[derive(Debug, Clone)]
pub struct Document {
    title: String,
    created: OffsetDateTime,
    pages: Vec<Vec<Op>>,
    /// Top of the free space on the last page, in points from the bottom edge.
    y: f32,
}

impl Document {
    /// An empty one-page document. `title` goes to the document info and to every page's
    /// footer; `created` is the CreationDate, passed in so that output is reproducible.
    pub fn new(title: &str, created: OffsetDateTime) -> Document {
        Document {
            title: title.to_string(),
            created,
            pages: vec![Vec::new()],
            y: CONTENT_TOP,
        }
    }

    /// The document's main title, large and bold.
    pub fn title(&mut self, text: &str) -> &mut Self {
        self.block(text, TITLE, Align::Left);
        self
    }

    /// A section heading, kept on the same page as the two lines that follow it.
    pub fn heading(&mut self, text: &str) -> &mut Self {
        if !self.at_page_top() {
            self.y -= HEADING_GAP;
        }
        self.ensure(HEADING.leading + 2.0 * BODY.leading);
        for line in wrap(text, HEADING.font, HEADING.size, CONTENT_WIDTH) {
            self.ensure(HEADING.leading);
            self.line(&line, HEADING, MARGIN_X, CONTENT_WIDTH, Align::Left);
        }
        self.y -= 2.0;
        self
    }

    /// Body text wrapped to the content width; `\n` starts a new line.
    pub fn paragraph(&mut self, text: &str) -> &mut Self {
        self.paragraph_aligned(text, Align::Left)
    }

    /// Body text wrapped to the content width, each line aligned as asked.
    pub fn paragraph_aligned(&mut self, text: &str, align: Align) -> &mut Self {
        self.block(text, BODY, align);
        self
    }

    /// Small gray text, for letterhead details and fine print.
    pub fn note(&mut self, text: &str) -> &mut Self {
        self.block(text, NOTE, Align::Left);
        self
    }

    /// Bold labels in a column on the left, their values wrapped on the right; `\n` in a
    /// value (an address) starts a new line. A pair is kept on one page when it fits.
    pub fn key_values(&mut self, pairs: &[(&str, &str)]) -> &mut Self {
        let widest = pairs
            .iter()
            .map(|(label, _)| text_width(label, BODY_BOLD.font, BODY_BOLD.size))
            .fold(0.0, f32::max);
        let label_width = (widest + LABEL_GAP).min(CONTENT_WIDTH * 0.35);
        let value_width = CONTENT_WIDTH - label_width;
        for (label, value) in pairs {
            let labels = wrap(
                label,
                BODY_BOLD.font,
                BODY_BOLD.size,
                label_width - LABEL_GAP,
            );
            let values = wrap(value, BODY.font, BODY.size, value_width);
            let rows = labels.len().max(values.len());
            self.ensure(rows as f32 * BODY.leading);
            for i in 0..rows {
                self.ensure(BODY.leading);
                let top = self.y;
                if let Some(label) = labels.get(i) {
                    self.text(label, BODY_BOLD, MARGIN_X, label_width, Align::Left, top);
                }
                if let Some(value) = values.get(i) {
                    let x = MARGIN_X + label_width;
                    self.text(value, BODY, x, value_width, Align::Left, top);
                }
                self.y -= BODY.leading;
            }
        }
        self.y -= BLOCK_GAP;
        self
    }

    /// A table across the content width. The header row is bold on a gray band and is
    /// repeated at the top of every page the table continues on. Missing cells are blank
    /// and cells beyond the columns are ignored.
    pub fn table(&mut self, columns: &[Column], rows: &[Vec<String>]) -> &mut Self {
        let layout = TableLayout::new(columns);
        let header: Vec<String> = columns.iter().map(|c| c.title.clone()).collect();
        let header = layout.cells(&header, CELL_HEADER);
        let first_height = rows
            .first()
            .map_or(0.0, |row| row_height(&layout.cells(row, CELL)));
        self.ensure(row_height(&header) + first_height);
        self.table_header(&layout, &header);
        for row in rows {
            let cells = layout.cells(row, CELL);
            let height = row_height(&cells);
            if !self.fits(height) {
                self.new_page();
                self.table_header(&layout, &header);
            }
            self.table_row(&layout, &cells, CELL);
            self.rule(MARGIN_X, MARGIN_X + CONTENT_WIDTH, 0.5, HAIRLINE);
        }
        self.y -= BLOCK_GAP;
        self
    }

    /// Labels and bold values flush with the right margin, under a table's last column.
    pub fn totals(&mut self, pairs: &[(&str, &str)]) -> &mut Self {
        let value_width = pairs
            .iter()
            .map(|(_, value)| text_width(value, BODY_BOLD.font, BODY_BOLD.size))
            .fold(0.0, f32::max);
        let right = MARGIN_X + CONTENT_WIDTH - CELL_PAD_X;
        let label_right = right - value_width - LABEL_GAP;
        self.ensure(pairs.len() as f32 * BODY.leading);
        for (label, value) in pairs {
            self.ensure(BODY.leading);
            let top = self.y;
            self.text(
                label,
                BODY,
                MARGIN_X,
                label_right - MARGIN_X,
                Align::Right,
                top,
            );
            let x = right - value_width;
            self.text(value, BODY_BOLD, x, value_width, Align::Right, top);
            self.y -= BODY.leading;
        }
        self.y -= BLOCK_GAP;
        self
    }

    /// A signature: room to sign, a centred line, and the signer's lines centred below.
    pub fn signature(&mut self, lines: &[&str]) -> &mut Self {
        const ROOM: f32 = 42.0;
        const LINE_WIDTH: f32 = 240.0;
        self.ensure(ROOM + lines.len() as f32 * BODY.leading);
        self.y -= ROOM;
        let center = MARGIN_X + CONTENT_WIDTH / 2.0;
        self.rule(
            center - LINE_WIDTH / 2.0,
            center + LINE_WIDTH / 2.0,
            0.75,
            INK,
        );
        self.y -= 2.0;
        for line in lines {
            self.line(line, BODY, MARGIN_X, CONTENT_WIDTH, Align::Center);
        }
        self.y -= BLOCK_GAP;
        self
    }

    /// A thin line across the content width, to set off a letterhead.
    pub fn separator(&mut self) -> &mut Self {
        self.y -= 2.0;
        self.rule(MARGIN_X, MARGIN_X + CONTENT_WIDTH, 0.75, HAIRLINE);
        self.y -= BLOCK_GAP + 2.0;
        self
    }

    /// Start a new page unless the next `height` points fit, so that a heading stays with
    /// the block it introduces (a QR code) rather than ending a page alone.
    pub fn keep_together(&mut self, height: f32) -> &mut Self {
        self.ensure(height);
        self
    }

    /// One empty line of body text.
    pub fn spacer(&mut self) -> &mut Self {
        self.y -= BODY.leading;
        self
    }

    /// Number of pages laid out so far.
    pub fn page_count(&self) -> usize {
        self.pages.len()
    }

    /// A QR code `side` points wide, its quiet zone included, at the left margin, each run
    /// of dark modules one black rectangle; `title` (bold) and `lines` are set beside it,
    /// from its top. Code and text stay on one page; the cursor moves below the taller.
    pub fn qr_code(&mut self, qr: &QrCode, side: f32, title: &str, lines: &[&str]) -> &mut Self {
        const GAP: f32 = 12.0;
        let x = MARGIN_X + side + GAP;
        let width = CONTENT_WIDTH - side - GAP;
        let mut beside = Vec::new();
        for line in wrap(title, BODY_BOLD.font, BODY_BOLD.size, width) {
            beside.push((line, BODY_BOLD));
        }
        for text in lines {
            for line in wrap(text, BODY.font, BODY.size, width) {
                beside.push((line, BODY));
            }
        }
        let text_height = beside.len() as f32 * BODY.leading;
        self.ensure(side.max(text_height));
        let top = self.y;
        let module = side / qr.side() as f32;
        let origin = MARGIN_X + QUIET_ZONE as f32 * module;
        for run in qr.runs() {
            self.push(Op::Fill {
                x: origin + run.x as f32 * module,
                y: top - (QUIET_ZONE + run.y + 1) as f32 * module,
                w: run.len as f32 * module,
                h: module,
                gray: INK,
            });
        }
        // The text starts level with the code's first dark row, not with its quiet zone.
        let mut line_top = top - QUIET_ZONE as f32 * module + 2.0;
        for (line, style) in &beside {
            self.text(line, *style, x, width, Align::Left, line_top);
            line_top -= style.leading;
        }
        self.y = top - side.max(text_height);
        self.y -= BLOCK_GAP;
        self
    }

    /// A code to copy or type (a Pix "copia e cola"): Courier, cut into lines of as many
    /// characters as the width holds, wherever that falls, so that the lines put back
    /// together are the code, its spaces included. Kept on one page when it fits.
    pub fn code(&mut self, text: &str) -> &mut Self {
        let per_line = (CONTENT_WIDTH / text_width("0", CODE.font, CODE.size)).floor() as usize;
        let chars: Vec<char> = text.chars().collect();
        let lines: Vec<String> = chars
            .chunks(per_line.max(1))
            .map(|chunk| chunk.iter().collect())
            .collect();
        self.ensure(lines.len() as f32 * CODE.leading);
        for line in &lines {
            self.ensure(CODE.leading);
            self.line(line, CODE, MARGIN_X, CONTENT_WIDTH, Align::Left);
        }
        self.y -= BLOCK_GAP;
        self
    }

    /// Write the PDF: pages with their footers, the fonts, and the document info.
    pub fn finish(self) -> Vec<u8> {
        let total = self.pages.len();
        let mut pdf = Pdf::new();
        let catalog_id = Ref::new(1);
        let tree_id = Ref::new(2);
        let info_id = Ref::new(3);
        let fonts = [
            (Font::Regular, Ref::new(4)),
            (Font::Bold, Ref::new(5)),
            (Font::Mono, Ref::new(6)),
        ];
        // Page i is object 7 + 2i and its content stream the object right after it.
        let page_ids: Vec<Ref> = (0..total).map(|i| Ref::new(7 + 2 * i as i32)).collect();

        pdf.catalog(catalog_id)
            .pages(tree_id)
            .lang(TextStr("pt-BR"));
        pdf.pages(tree_id)
            .kids(page_ids.iter().copied())
            .count(total as i32);
        for (index, ops) in self.pages.iter().enumerate() {
            let page_id = page_ids[index];
            let content_id = Ref::new(page_id.get() + 1);
            let mut page = pdf.page(page_id);
            page.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH, PAGE_HEIGHT))
                .parent(tree_id)
                .contents(content_id);
            let mut resources = page.resources();
            let mut font_dict = resources.fonts();
            for (font, id) in fonts {
                font_dict.pair(font.resource_name(), id);
            }
            font_dict.finish();
            resources.finish();
            page.finish();
            let footer = footer(&self.title, index + 1, total);
            pdf.stream(content_id, &render(ops.iter().chain(&footer)));
        }
        for (font, id) in fonts {
            write_font(&mut pdf, id, font);
        }
        pdf.document_info(info_id)
            .title(TextStr(&self.title))
            .producer(TextStr("Kobana Dunning"))
            .creation_date(pdf_date(self.created));
        pdf.finish()
    }

    fn fits(&self, height: f32) -> bool {
        self.y - height >= CONTENT_BOTTOM
    }

    fn at_page_top(&self) -> bool {
        self.y >= CONTENT_TOP
    }

    fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = CONTENT_TOP;
    }

    /// Start a new page unless `height` fits; a fresh page takes whatever comes, so a piece
    /// taller than a page cannot loop.
    fn ensure(&mut self, height: f32) {
        if !self.fits(height) && !self.at_page_top() {
            self.new_page();
        }
    }

    fn push(&mut self, op: Op) {
        self.pages
            .last_mut()
            .expect("a document always has a page")
            .push(op);
    }

    /// Wrapped text, one line after another, breaking pages between lines.
    fn block(&mut self, text: &str, style: Style, align: Align) {
        for line in wrap(text, style.font, style.size, CONTENT_WIDTH) {
            self.ensure(style.leading);
            self.line(&line, style, MARGIN_X, CONTENT_WIDTH, align);
        }
        self.y -= BLOCK_GAP;
    }

    /// One line of text at the cursor, which then moves down by the line height.
    fn line(&mut self, text: &str, style: Style, x: f32, width: f32, align: Align) {
        let top = self.y;
        self.text(text, style, x, width, align, top);
        self.y -= style.leading;
    }

    /// Text aligned in the box that starts at `x`, is `width` wide and has its top at
    /// `top`; the box is one line high.
    fn text(&mut self, text: &str, style: Style, x: f32, width: f32, align: Align, top: f32) {
        let bytes = encode_win_ansi(text);
        let used = bytes_width(&bytes, style.font, style.size);
        let x = match align {
            Align::Left => x,
            Align::Right => x + width - used,
            Align::Center => x + (width - used) / 2.0,
        };
        self.push(Op::Text {
            x,
            y: baseline(top, style),
            font: style.font,
            size: style.size,
            gray: style.gray,
            bytes,
        });
    }

    /// A horizontal line at the cursor.
    fn rule(&mut self, x1: f32, x2: f32, width: f32, gray: f32) {
        let y = self.y;
        self.push(Op::Rule {
            x1,
            x2,
            y,
            width,
            gray,
        });
    }

    fn table_header(&mut self, layout: &TableLayout, cells: &[Vec<String>]) {
        let height = row_height(cells);
        self.push(Op::Fill {
            x: MARGIN_X,
            y: self.y - height,
            w: CONTENT_WIDTH,
            h: height,
            gray: HEADER_FILL,
        });
        self.table_row(layout, cells, CELL_HEADER);
        self.rule(MARGIN_X, MARGIN_X + CONTENT_WIDTH, 0.75, MUTED);
    }

    fn table_row(&mut self, layout: &TableLayout, cells: &[Vec<String>], style: Style) {
        let top = self.y - CELL_PAD_Y;
        for (column, lines) in cells.iter().enumerate() {
            let (x, width, align) = layout.cell_box(column);
            for (i, line) in lines.iter().enumerate() {
                let line_top = top - i as f32 * style.leading;
                self.text(line, style, x, width, align, line_top);
            }
        }
        self.y -= row_height(cells);
    }
}

/// Column edges of a table, from the columns' width shares.
#[derive(Debug)]
struct TableLayout {
    /// Left edge of each column plus the right edge of the last one.
    edges: Vec<f32>,
    aligns: Vec<Align>,
}

impl TableLayout {
    fn new(columns: &[Column]) -> TableLayout {
        let total: f32 = columns.iter().map(|c| c.width.max(0.0)).sum();
        let mut edges = vec![MARGIN_X];
        let mut sum = 0.0;
        for column in columns {
            sum += column.width.max(0.0);
            let share = if total > 0.0 { sum / total } else { 0.0 };
            edges.push(MARGIN_X + CONTENT_WIDTH * share);
        }
        TableLayout {
            edges,
            aligns: columns.iter().map(|c| c.align).collect(),
        }
    }

    /// The text box inside the padding of a column: left x, width and alignment.
    fn cell_box(&self, column: usize) -> (f32, f32, Align) {
        let left = self.edges[column] + CELL_PAD_X;
        let right = self.edges[column + 1] - CELL_PAD_X;
        (left, (right - left).max(0.0), self.aligns[column])
    }

    /// Each cell of `row` wrapped to its column, one entry per column.
    fn cells(&self, row: &[String], style: Style) -> Vec<Vec<String>> {
        (0..self.aligns.len())
            .map(|column| {
                let text = row.get(column).map_or("", String::as_str);
                let (_, width, _) = self.cell_box(column);
                let lines = wrap(text, style.font, style.size, width);
                truncate_lines(lines, MAX_CELL_LINES, style, width)
            })
            .collect()
    }
}

fn row_height(cells: &[Vec<String>]) -> f32 {
    let lines = cells.iter().map(Vec::len).max().unwrap_or(0).max(1);
    lines as f32 * CELL.leading + 2.0 * CELL_PAD_Y
}

/// Keep at most `max` lines, ending the last kept one with "…" when something was cut.
fn truncate_lines(mut lines: Vec<String>, max: usize, style: Style, width: f32) -> Vec<String> {
    if lines.len() <= max {
        return lines;
    }
    lines.truncate(max);
    if let Some(last) = lines.last_mut() {
        let mut cut: String = last.clone();
        while !cut.is_empty() && text_width(&format!("{cut}…"), style.font, style.size) > width {
            cut.pop();
        }
        *last = format!("{}…", cut.trim_end());
    }
    lines
}

/// Baseline of a line whose box has its top at `top`: the glyphs' extent (ascender 0.718,
/// descender 0.207 of the size in Helvetica) is centred in the line height.
fn baseline(top: f32, style: Style) -> f32 {
    top - style.leading / 2.0 - (0.718 - 0.207) / 2.0 * style.size
}

/// The footer of page `page` of `total`: a hairline, the title on the left and the page
/// number on the right.
fn footer(title: &str, page: usize, total: usize) -> Vec<Op> {
    let label = format!("Página {page} de {total}");
    let label_bytes = encode_win_ansi(&label);
    let label_width = bytes_width(&label_bytes, FOOTER.font, FOOTER.size);
    let title_room = CONTENT_WIDTH - label_width - LABEL_GAP;
    let title = truncate_lines(
        wrap(title, FOOTER.font, FOOTER.size, title_room),
        1,
        FOOTER,
        title_room,
    );
    let y = 40.0;
    let text = |x: f32, bytes: Vec<u8>| Op::Text {
        x,
        y,
        font: FOOTER.font,
        size: FOOTER.size,
        gray: FOOTER.gray,
        bytes,
    };
    vec![
        Op::Rule {
            x1: MARGIN_X,
            x2: MARGIN_X + CONTENT_WIDTH,
            y: 54.0,
            width: 0.5,
            gray: HAIRLINE,
        },
        text(
            MARGIN_X,
            encode_win_ansi(title.first().map_or("", String::as_str)),
        ),
        text(MARGIN_X + CONTENT_WIDTH - label_width, label_bytes),
    ]
}

/// Greedy word wrap of `text` to lines at most `width` points wide; `\n` forces a break and
/// a word wider than the line is split between characters.
pub fn wrap(text: &str, font: Font, size: f32, width: f32) -> Vec<String> {
    let mut lines = Vec::new();
    for hard_line in text.split('\n') {
        let mut current = String::new();
        for word in hard_line.split_whitespace() {
            let candidate = if current.is_empty() {
                word.to_string()
            } else {
                format!("{current} {word}")
            };
            if text_width(&candidate, font, size) <= width {
                current = candidate;
                continue;
            }
            if !current.is_empty() {
                lines.push(std::mem::take(&mut current));
            }
            current = split_long_word(word, font, size, width, &mut lines);
        }
        lines.push(current);
    }
    lines
}

/// Push the full-width pieces of `word` to `lines` and return the rest.
fn split_long_word(
    word: &str,
    font: Font,
    size: f32,
    width: f32,
    lines: &mut Vec<String>,
) -> String {
    let mut piece = String::new();
    for c in word.chars() {
        piece.push(c);
        if text_width(&piece, font, size) > width && piece.chars().count() > 1 {
            piece.pop();
            lines.push(std::mem::take(&mut piece));
            piece.push(c);
        }
    }
    piece
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    const CREATED: OffsetDateTime = datetime!(2026-11-29 14:30:00 -3);

    /// The text operations of one page: x, baseline, font and bytes.
    fn texts(doc: &Document, page: usize) -> Vec<(f32, f32, Font, f32, Vec<u8>)> {
        doc.pages[page]
            .iter()
            .filter_map(|op| match op {
                Op::Text {
                    x,
                    y,
                    font,
                    size,
                    bytes,
                    ..
                } => Some((*x, *y, *font, *size, bytes.clone())),
                _ => None,
            })
            .collect()
    }

    fn contains(haystack: &[u8], needle: &[u8]) -> bool {
        haystack.windows(needle.len()).any(|w| w == needle)
    }

    fn amounts_table(rows: usize) -> Document {
        let columns = [
            Column::new("Descrição", 3.0, Align::Left),
            Column::new("Valor", 1.0, Align::Right),
        ];
        let rows: Vec<Vec<String>> = (0..rows)
            .map(|i| vec![format!("Parcela {i}"), "R$ 1.234,56".to_string()])
            .collect();
        let mut doc = Document::new("Extrato", CREATED);
        doc.title("Extrato de débitos").table(&columns, &rows);
        doc
    }

    #[test]
    fn a_finished_document_is_a_pdf_from_header_to_eof_marker() {
        let bytes = amounts_table(3).finish();
        assert!(bytes.starts_with(b"%PDF-"));
        assert!(bytes.trim_ascii_end().ends_with(b"%%EOF"));
    }

    #[test]
    fn fonts_are_the_standard_helveticas_under_win_ansi_encoding() {
        let bytes = amounts_table(1).finish();
        for needle in [
            &b"/BaseFont /Helvetica\n"[..],
            b"/BaseFont /Helvetica-Bold",
            b"/BaseFont /Courier",
            b"/Encoding /WinAnsiEncoding",
            b"/MediaBox [0 0 595 842]",
        ] {
            assert!(
                contains(&bytes, needle),
                "{}",
                String::from_utf8_lossy(needle)
            );
        }
        assert!(!contains(&bytes, b"/FontFile"), "no font is embedded");
    }

    fn fills(doc: &Document, page: usize) -> Vec<(f32, f32, f32, f32)> {
        doc.pages[page]
            .iter()
            .filter_map(|op| match op {
                Op::Fill { x, y, w, h, gray } if *gray == INK => Some((*x, *y, *w, *h)),
                _ => None,
            })
            .collect()
    }

    const BR_CODE: &str = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D";

    #[test]
    fn a_qr_code_is_one_black_rectangle_per_run_inside_its_square_with_text_beside() {
        let qr = QrCode::encode(BR_CODE).unwrap();
        let mut doc = Document::new("Extrato", CREATED);
        doc.title("Extrato");
        let top = doc.y;
        let side = 114.0;
        doc.qr_code(&qr, side, "Mensalidade", &["Valor R$ 10,00"]);
        let rects = fills(&doc, 0);
        assert_eq!(rects.len(), qr.runs().len());
        let module = side / qr.side() as f32;
        // The first run is the finder pattern's top row, just inside the quiet zone.
        let (x, y, w, h) = rects[0];
        assert!((x - (MARGIN_X + 4.0 * module)).abs() < 0.001, "{x}");
        assert!((y - (top - 5.0 * module)).abs() < 0.001, "{y}");
        assert!((w - 7.0 * module).abs() < 0.001 && (h - module).abs() < 0.001);
        for (x, y, w, h) in rects {
            assert!(x >= MARGIN_X + 4.0 * module - 0.001 && x + w <= MARGIN_X + side);
            assert!(y >= top - side && y + h <= top - 4.0 * module + 0.001);
        }
        let beside = texts(&doc, 0);
        let title = encode_win_ansi("Mensalidade");
        let (tx, _, font, _, _) = beside.iter().find(|t| t.4 == title).unwrap();
        assert_eq!((*tx, *font), (MARGIN_X + side + 12.0, Font::Bold));
        assert!(doc.y <= top - side, "the cursor moves below the code");
    }

    #[test]
    fn a_code_is_cut_into_courier_lines_that_join_back_into_it_spaces_included() {
        let code = BR_CODE.repeat(2);
        let mut doc = Document::new("T", CREATED);
        doc.code(&code);
        let lines = texts(&doc, 0);
        assert_eq!(lines.len(), 3, "100 characters a line");
        let mut joined = Vec::new();
        for (x, _, font, size, bytes) in &lines {
            assert_eq!((*x, *font), (MARGIN_X, Font::Mono));
            assert!(bytes_width(bytes, *font, *size) <= CONTENT_WIDTH);
            joined.extend_from_slice(bytes);
        }
        assert_eq!(joined, code.as_bytes());
        assert!(shown_text(&doc.finish()).concat().contains(BR_CODE));
        // A space where a line ends stays at its end, not lost to the break.
        let mut doc = Document::new("T", CREATED);
        doc.code(&format!("{} b", "a".repeat(99)));
        let lines = texts(&doc, 0);
        assert_eq!(lines[0].4, format!("{} ", "a".repeat(99)).into_bytes());
        assert_eq!(lines[1].4, b"b");
    }

    #[test]
    fn document_info_has_title_producer_and_creation_date() {
        let bytes = Document::new("Extrato", CREATED).finish();
        for needle in [
            &b"/Title (Extrato)"[..],
            b"/Producer (Kobana Dunning)",
            b"/CreationDate (D:20261129143000-03'00)",
        ] {
            assert!(
                contains(&bytes, needle),
                "{}",
                String::from_utf8_lossy(needle)
            );
        }
    }

    #[test]
    fn a_long_table_continues_on_new_pages_with_its_header_repeated() {
        let doc = amounts_table(120);
        // 17 pt per row in 714 pt of content: 40-odd rows a page.
        assert_eq!(doc.page_count(), 3);
        let header = encode_win_ansi("Descrição");
        for page in 0..doc.page_count() {
            let headers = texts(&doc, page)
                .into_iter()
                .filter(|(_, _, font, _, bytes)| *font == Font::Bold && *bytes == header)
                .count();
            assert_eq!(headers, 1, "page {page}");
        }
        let last = encode_win_ansi("Parcela 119");
        assert!(texts(&doc, 2).iter().any(|t| t.4 == last));
        let shown = shown_text(&doc.finish());
        for footer in ["Página 1 de 3", "Página 2 de 3", "Página 3 de 3"] {
            assert!(shown.iter().any(|t| t == footer), "{footer}");
        }
    }

    #[test]
    fn no_row_crosses_into_the_footer() {
        let doc = amounts_table(120);
        for page in 0..doc.page_count() {
            for (_, y, _, size, _) in texts(&doc, page) {
                assert!(y - 0.207 * size >= CONTENT_BOTTOM, "page {page} y {y}");
            }
        }
    }

    #[test]
    fn right_aligned_amounts_end_at_the_column_edge() {
        let doc = amounts_table(5);
        let amount = encode_win_ansi("R$ 1.234,56");
        let edge = MARGIN_X + CONTENT_WIDTH - CELL_PAD_X;
        let cells: Vec<_> = texts(&doc, 0)
            .into_iter()
            .filter(|t| t.4 == amount)
            .collect();
        assert_eq!(cells.len(), 5);
        for (x, _, font, size, bytes) in cells {
            let end = x + bytes_width(&bytes, font, size);
            assert!((end - edge).abs() < 0.01, "ends at {end}, edge {edge}");
        }
    }

    #[test]
    fn long_paragraphs_wrap_within_the_content_width() {
        let sentence = "Informamos que constam em aberto os débitos relacionados abaixo. ";
        let text = sentence.repeat(12);
        let mut doc = Document::new("Carta", CREATED);
        doc.paragraph(&text);
        let lines = texts(&doc, 0);
        assert!(lines.len() >= 8, "{} lines", lines.len());
        for (x, _, font, size, bytes) in &lines {
            assert_eq!(*x, MARGIN_X);
            assert!(bytes_width(bytes, *font, *size) <= CONTENT_WIDTH);
        }
        let words: Vec<u8> = lines
            .iter()
            .map(|t| t.4.clone())
            .collect::<Vec<_>>()
            .join(&b' ');
        assert_eq!(words, encode_win_ansi(text.trim_end()));
    }

    #[test]
    fn wrap_breaks_between_words_and_splits_only_overlong_ones() {
        // Helvetica 10 pt: "aaaa" is 22.24 pt, a space 2.78 pt.
        let cases: &[(&str, f32, &[&str])] = &[
            ("aaaa aaaa", 50.0, &["aaaa aaaa"]),
            ("aaaa aaaa", 30.0, &["aaaa", "aaaa"]),
            ("aaaa   aaaa", 30.0, &["aaaa", "aaaa"]),
            ("aaaaaaaa", 30.0, &["aaaaa", "aaa"]),
            ("um\ndois", 100.0, &["um", "dois"]),
            ("", 100.0, &[""]),
        ];
        for (text, width, expected) in cases {
            assert_eq!(
                wrap(text, Font::Regular, 10.0, *width),
                *expected,
                "{text:?}"
            );
        }
    }

    #[test]
    fn text_width_uses_the_afm_advance_widths() {
        let cases = [
            ("R$ 1.234,56", Font::Regular, 10.0, 54.48),
            ("Total", Font::Regular, 10.0, 22.23),
            ("Total", Font::Bold, 10.0, 23.89),
            ("Ç", Font::Bold, 1000.0, 722.0),
            ("ã", Font::Regular, 1000.0, 556.0),
            ("✓", Font::Regular, 1000.0, 556.0),
        ];
        for (text, font, size, expected) in cases {
            let width = text_width(text, font, size);
            assert!((width - expected).abs() < 0.001, "{text}: {width}");
        }
    }

    #[test]
    fn portuguese_text_encodes_to_windows_1252() {
        let cases: &[(&str, &[u8])] = &[
            ("Conceição Araújo", b"Concei\xe7\xe3o Ara\xfajo"),
            (
                "ÁÀÂÃÉÊÍÓÔÕÚÜÇ",
                b"\xc1\xc0\xc2\xc3\xc9\xca\xcd\xd3\xd4\xd5\xda\xdc\xc7",
            ),
            (
                "áàâãéêíóôõúüç",
                b"\xe1\xe0\xe2\xe3\xe9\xea\xed\xf3\xf4\xf5\xfa\xfc\xe7",
            ),
            ("nº 1ª §2", b"n\xba 1\xaa \xa72"),
            ("€ – — “ok” •", b"\x80 \x96 \x97 \x93ok\x94 \x95"),
            // Decomposed accents, as some systems send them, are joined first.
            ("Conceic\u{327}a\u{303}o", b"Concei\xe7\xe3o"),
            ("A\u{301}", b"\xc1"),
        ];
        for (text, expected) in cases {
            assert_eq!(encode_win_ansi(text), *expected, "{text}");
        }
    }

    #[test]
    fn parentheses_and_backslashes_survive_the_pdf_string_syntax() {
        let text = "Parcela (1/2) \\ a)b( – ok";
        let mut doc = Document::new("T", CREATED);
        doc.paragraph(text);
        assert!(shown_text(&doc.finish()).iter().any(|t| t == text));
    }

    #[test]
    fn characters_outside_windows_1252_become_question_marks() {
        let cases: &[(&str, &[u8])] = &[
            ("✓ ok", b"? ok"),
            ("日本", b"??"),
            ("x\u{301}", b"x?"),
            ("bell\u{7}", b"bell?"),
            ("tab\there", b"tab here"),
            ("😀", b"?"),
        ];
        for (text, expected) in cases {
            assert_eq!(encode_win_ansi(text), *expected, "{text:?}");
        }
    }

    #[test]
    fn every_footer_names_the_document_and_counts_pages() {
        let ops = footer("Extrato de débitos", 2, 3);
        let texts: Vec<&[u8]> = ops
            .iter()
            .filter_map(|op| match op {
                Op::Text { bytes, .. } => Some(bytes.as_slice()),
                _ => None,
            })
            .collect();
        assert_eq!(
            texts,
            [
                encode_win_ansi("Extrato de débitos").as_slice(),
                encode_win_ansi("Página 2 de 3").as_slice()
            ]
        );
    }

    #[test]
    fn overlong_cells_are_cut_with_an_ellipsis() {
        let columns = [Column::new("Descrição", 1.0, Align::Left)];
        let rows = vec![vec!["palavra ".repeat(400)]];
        let mut doc = Document::new("T", CREATED);
        doc.table(&columns, &rows);
        let cell_lines: Vec<_> = texts(&doc, 0)
            .into_iter()
            .filter(|t| t.2 == Font::Regular)
            .collect();
        assert_eq!(cell_lines.len(), MAX_CELL_LINES);
        assert!(cell_lines[MAX_CELL_LINES - 1].4.ends_with(&[0x85]));
    }

    #[test]
    fn output_is_deterministic_for_the_same_input_and_date() {
        assert_eq!(amounts_table(60).finish(), amounts_table(60).finish());
        let mut later = Document::new("Extrato", datetime!(2026-11-30 9:00 -3));
        later.title("Extrato de débitos");
        let mut first = Document::new("Extrato", CREATED);
        first.title("Extrato de débitos");
        assert_ne!(first.finish(), later.finish());
    }
}
