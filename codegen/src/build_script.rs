//! The one step a service's `build.rs` takes: the document (and every file its `$ref`s reach),
//! the optional instructions, prompts and views, generated into `$OUT_DIR/catalog.rs` and
//! `$OUT_DIR/models.rs`, with cargo told what to watch and what the generator warned about.
//!
//! ```no_run
//! // build.rs: `fn main() { ... }` around this line
//! mcpgen::Build::new("openapi.yaml").run();
//! ```
//!
//! Like [`load`](crate::load), this is IO at the edge: it reads files, the environment and
//! writes `$OUT_DIR`; [`generate`](crate::generate) stays pure.

use std::path::{Path, PathBuf};

use crate::{Output, Report, Settings};

/// The environment variable that makes the generator's warnings errors (`1`), read by
/// [`Build::run`] itself: CI sets it, a developer's build only prints them.
pub const DENY_WARNINGS: &str = "MCPGEN_DENY_WARNINGS";

/// A build script's generation: the document's path, then optional inputs.
#[derive(Debug, Clone)]
pub struct Build {
    document: PathBuf,
    instructions: Option<PathBuf>,
    prompts: Option<PathBuf>,
    views: Option<PathBuf>,
    settings: Settings,
    deny_warnings: Option<bool>,
}

impl Build {
    /// Generate from the OpenAPI document at `document` (JSON or YAML, relative to the
    /// package's manifest directory, where cargo runs build scripts).
    pub fn new(document: impl AsRef<Path>) -> Build {
        Build {
            document: document.as_ref().to_owned(),
            instructions: None,
            prompts: None,
            views: None,
            settings: Settings::default(),
            deny_warnings: None,
        }
    }

    /// The MCP `instructions` from this Markdown file (none without it).
    pub fn instructions(mut self, file: impl AsRef<Path>) -> Build {
        self.instructions = Some(file.as_ref().to_owned());
        self
    }

    /// Prompts from the `.md` files of this folder (none when it does not exist).
    pub fn prompts(mut self, folder: impl AsRef<Path>) -> Build {
        self.prompts = Some(folder.as_ref().to_owned());
        self
    }

    /// MCP Apps views from the `.html` files of this folder (none when it does not exist):
    /// an operation's `x-mcp.ui.template` names one of them, which is embedded whole.
    pub fn views(mut self, folder: impl AsRef<Path>) -> Build {
        self.views = Some(folder.as_ref().to_owned());
        self
    }

    /// Everything else [`Settings`] says (the budget, the models' format types, the views'
    /// URI prefix, ...); the instructions, prompts and views given here replace its own.
    pub fn settings(mut self, settings: Settings) -> Build {
        self.settings = settings;
        self
    }

    /// Warnings as errors, whatever [`DENY_WARNINGS`] says.
    pub fn deny_warnings(mut self, deny: bool) -> Build {
        self.deny_warnings = Some(deny);
        self
    }

    /// Generate and write `$OUT_DIR/catalog.rs` and `$OUT_DIR/models.rs`, printing
    /// `cargo::rerun-if-changed` for every file read and `cargo::warning` for every
    /// warning; panics with the whole report (every error with its JSON pointer) when the
    /// document cannot be served, which is how a build script fails. The output, for a
    /// script that wants more of it.
    pub fn run(self) -> Output {
        let out_dir = std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR for build scripts");
        match self.generate(&mut |line| println!("{line}")) {
            Ok(output) => {
                let write = |name: &str, text: &str| {
                    let path = Path::new(&out_dir).join(name);
                    std::fs::write(&path, text)
                        .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
                };
                write("catalog.rs", &output.source);
                write("models.rs", &output.models);
                output
            }
            Err(report) => panic!("{}:\n{report}", self.document.display()),
        }
    }

    /// What [`run`](Build::run) does but the writing: each line for cargo goes to `cargo`.
    pub fn generate(&self, cargo: &mut dyn FnMut(String)) -> Result<Output, Report> {
        cargo(format!("cargo::rerun-if-env-changed={DENY_WARNINGS}"));
        let loaded = crate::load(&self.document)?;
        for file in &loaded.files {
            cargo(format!("cargo::rerun-if-changed={}", file.display()));
        }
        let mut settings = self.settings.clone();
        if let Some(file) = &self.instructions {
            cargo(format!("cargo::rerun-if-changed={}", file.display()));
            settings.instructions = std::fs::read_to_string(file)
                .map_err(|e| Report::single("", format!("cannot read {}: {e}", file.display())))?;
        }
        if let Some(folder) = &self.prompts {
            // A folder that does not exist is not named: cargo would rerun the script on
            // every build.
            if folder.exists() {
                cargo(format!("cargo::rerun-if-changed={}", folder.display()));
            }
            settings.prompts = crate::read_prompts(folder).map_err(|e| {
                Report::single("", format!("cannot read {}: {e}", folder.display()))
            })?;
        }
        if let Some(folder) = &self.views {
            if folder.exists() {
                cargo(format!("cargo::rerun-if-changed={}", folder.display()));
            }
            settings.views = crate::read_views(folder).map_err(|e| {
                Report::single("", format!("cannot read {}: {e}", folder.display()))
            })?;
        }
        let deny = self
            .deny_warnings
            .unwrap_or_else(|| std::env::var(DENY_WARNINGS).as_deref() == Ok("1"));
        let mut output = crate::generate(&loaded.document, &settings)?;
        output.warnings.splice(0..0, loaded.warnings);
        let output = if deny {
            crate::deny_warnings(output)?
        } else {
            output
        };
        for warning in &output.warnings {
            cargo(format!("cargo::warning={warning}"));
        }
        Ok(output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("api.yaml"),
            "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /items:\n    get:\n      operationId: items_list\n      responses: {'200': {description: ok}}\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn a_service_without_prompts_or_instructions_generates_and_names_what_it_read() {
        let dir = folder();
        let mut lines = Vec::new();
        let output = Build::new(dir.path().join("api.yaml"))
            .prompts(dir.path().join("prompts"))
            .deny_warnings(false)
            .generate(&mut |line| lines.push(line))
            .unwrap();
        assert_eq!(output.operations.len(), 1);
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("cargo::rerun-if-changed=") && l.ends_with("api.yaml"))
        );
        assert!(!lines.iter().any(|l| l.contains("prompts")), "{lines:?}");
        assert!(lines.contains(&format!("cargo::rerun-if-env-changed={DENY_WARNINGS}")));
    }

    #[test]
    fn a_views_folder_is_read_embedded_and_watched() {
        let dir = folder();
        std::fs::write(
            dir.path().join("api.yaml"),
            "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /items:\n    get:\n      operationId: items_list\n      x-mcp: {ui: {template: items.html}}\n      responses: {'200': {description: ok}}\n",
        )
        .unwrap();
        let views = dir.path().join("views");
        std::fs::create_dir(&views).unwrap();
        std::fs::write(
            views.join("items.html"),
            "<!doctype html><head><title>Items</title></head>",
        )
        .unwrap();
        // Not a view: only `.html` files are read.
        std::fs::write(views.join("notes.txt"), "not a view").unwrap();
        let mut lines = Vec::new();
        let output = Build::new(dir.path().join("api.yaml"))
            .views(&views)
            .deny_warnings(true)
            .generate(&mut |line| lines.push(line))
            .unwrap();
        assert_eq!(output.views.len(), 1);
        // Embedded as written, sealed with its own policy first in <head>.
        let html = &output.views[0].html;
        assert!(
            html.starts_with("<!doctype html><head>\n<meta http-equiv=\"Content-Security-Policy\"")
                && html.ends_with("\"><title>Items</title></head>"),
            "{html}"
        );
        assert!(lines.contains(&format!("cargo::rerun-if-changed={}", views.display())));
        let missing = Build::new(dir.path().join("api.yaml"))
            .views(dir.path().join("nowhere"))
            .generate(&mut |_| {})
            .unwrap_err();
        assert!(
            missing.to_string().contains("x-mcp/ui/template"),
            "{missing}"
        );
    }

    #[test]
    fn warnings_are_printed_or_refused() {
        let dir = folder();
        // A type OpenAPI does not know is dropped, with a warning.
        std::fs::write(
            dir.path().join("api.yaml"),
            "openapi: 3.0.3\ninfo: {title: T, version: '1'}\npaths:\n  /items:\n    get:\n      operationId: items_list\n      parameters: [{name: q, in: query, schema: {type: text}}]\n      responses: {'200': {description: ok}}\n",
        )
        .unwrap();
        let mut lines = Vec::new();
        let build = Build::new(dir.path().join("api.yaml"));
        build
            .clone()
            .deny_warnings(false)
            .generate(&mut |line| lines.push(line))
            .unwrap();
        assert!(
            lines.iter().any(|l| l.starts_with("cargo::warning=")),
            "{lines:?}"
        );
        let refused = build.deny_warnings(true).generate(&mut |_| {}).unwrap_err();
        assert!(!refused.errors.is_empty());
    }

    #[test]
    fn a_missing_document_is_a_report_naming_it() {
        let report = Build::new("/nowhere/api.yaml")
            .generate(&mut |_| {})
            .unwrap_err();
        assert!(report.to_string().contains("/nowhere/api.yaml"), "{report}");
    }
}
