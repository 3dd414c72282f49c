//! Ranking a catalog's tools for a few words: BM25F over each tool's name, title, keywords,
//! toolset and description, in any language written in the Latin alphabet.
//!
//! Discovery mode (see `discovery`) lets an assistant find a tool by describing its task
//! ("quem está devendo há mais de 60 dias", "send a reminder by WhatsApp") instead of reading
//! the whole catalog. Words are folded the same way on both sides — lower case, accents off
//! (`cobrança` = `cobranca`), a light plural strip (`dias` = `dia`, `notificações` =
//! `notificacao`, `deliveries` = `delivery`), and the common words of Portuguese and English
//! dropped — and a query word also meets the index's words that begin like it (`negativar`
//! finds `negativação` at half weight), which covers most inflections without a stemmer per
//! language. The document's `x-mcp.keywords` carry the rest (synonyms, the trade's words).
//!
//! BM25F (Robertson and Zaragoza, "The Probabilistic Relevance Framework", 2009, §3.5):
//! each field's term frequency is normalised by that field's length and weighted, the sum is
//! saturated once, and multiplied by the term's inverse document frequency. Weights favour
//! the fields written to name the tool over its prose.

use std::collections::HashMap;

use mcpgen_catalog::Catalog;
use serde_json::Value;

/// The fields of a tool, with their weights, in [`Field`] order.
const WEIGHTS: [f64; FIELDS] = [3.0, 2.5, 2.0, 1.0, 1.0];
const FIELDS: usize = 5;
/// BM25's saturation and length normalisation (the usual values).
const K1: f64 = 1.2;
const B: f64 = 0.75;
/// What a word that only begins like the query's counts, against an exact match.
const PREFIX_WEIGHT: f64 = 0.5;
/// Letters two words must share at their start to count as the same word inflected.
const PREFIX_LETTERS: usize = 5;

/// The parts of a tool that are searched.
#[derive(Debug, Clone, Copy)]
enum Field {
    /// The tool's name without the catalog's prefix, split at `_`.
    Name = 0,
    Title = 1,
    Keywords = 2,
    /// The toolset's name and description.
    Toolset = 3,
    Description = 4,
}

/// A catalog's tools, indexed once.
#[derive(Debug)]
pub struct Index {
    /// Per tool (catalog order): per field, its length in terms and each term's count.
    tools: Vec<[FieldTerms; FIELDS]>,
    /// Per field, its mean length over the tools.
    mean_length: [f64; FIELDS],
    /// In how many tools each term appears (any field).
    documents: HashMap<String, usize>,
}

#[derive(Debug, Default)]
struct FieldTerms {
    length: usize,
    counts: HashMap<String, usize>,
}

/// A `Tool` object's display title: `title`, else `annotations.title` (where the generator
/// says it), else empty.
pub(crate) fn title(tool: &Value) -> &str {
    [tool.get("title"), tool.pointer("/annotations/title")]
        .into_iter()
        .flatten()
        .find_map(Value::as_str)
        .unwrap_or("")
}

/// One tool found: its index in `Catalog::tools` and how well it matched.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The tool's position in the catalog.
    pub index: usize,
    /// Its BM25F score (higher is better; only positive scores are hits).
    pub score: f64,
}

impl Index {
    /// Index every tool of `catalog` (operations serving prompts get empty fields: they are
    /// never found).
    pub fn new(catalog: &Catalog) -> Index {
        let mut tools = Vec::with_capacity(catalog.tools.len());
        for tool in catalog.tools {
            let mut fields: [FieldTerms; FIELDS] = Default::default();
            if tool.is_tool() {
                let json: Value = serde_json::from_str(tool.tool_json).unwrap_or_default();
                let text = |key: &str| json.get(key).and_then(Value::as_str).unwrap_or("");
                let name = tool
                    .name
                    .strip_prefix(catalog.tool_prefix)
                    .unwrap_or(tool.name);
                let toolset = catalog
                    .toolsets
                    .iter()
                    .find(|t| t.name == tool.toolset)
                    .map_or(String::new(), |t| format!("{} {}", t.name, t.description));
                fields[Field::Name as usize] = FieldTerms::of(name);
                fields[Field::Title as usize] = FieldTerms::of(title(&json));
                fields[Field::Keywords as usize] = FieldTerms::of(&tool.keywords.join(" | "));
                fields[Field::Toolset as usize] = FieldTerms::of(&toolset);
                fields[Field::Description as usize] = FieldTerms::of(text("description"));
            }
            tools.push(fields);
        }
        let mut documents: HashMap<String, usize> = HashMap::new();
        for fields in &tools {
            let mut seen: Vec<&String> = fields.iter().flat_map(|f| f.counts.keys()).collect();
            seen.sort();
            seen.dedup();
            for term in seen {
                *documents.entry(term.clone()).or_default() += 1;
            }
        }
        let mut mean_length = [0.0; FIELDS];
        let count = tools.len().max(1) as f64;
        for (field, mean) in mean_length.iter_mut().enumerate() {
            let total: usize = tools.iter().map(|f| f[field].length).sum();
            *mean = (total as f64 / count).max(1.0);
        }
        Index {
            tools,
            mean_length,
            documents,
        }
    }

    /// The tools for which `admit(index)` holds that match `query`, best first (ties in
    /// catalog order), at most `limit`.
    pub fn search(&self, query: &str, limit: usize, admit: impl Fn(usize) -> bool) -> Vec<Hit> {
        let mut words = terms(query);
        words.sort();
        words.dedup();
        // Per query word, the index's words it meets and how much each counts.
        let meets: Vec<Vec<(&str, f64)>> = words
            .iter()
            .map(|word| {
                self.documents
                    .keys()
                    .filter_map(|term| related(word, term).map(|weight| (term.as_str(), weight)))
                    .collect()
            })
            .collect();
        let total = self.tools.len() as f64;
        let idf = |term: &str| {
            let n = self.documents.get(term).copied().unwrap_or(0) as f64;
            (1.0 + (total - n + 0.5) / (n + 0.5)).ln()
        };
        let mut hits: Vec<Hit> = Vec::new();
        for (index, fields) in self.tools.iter().enumerate() {
            if !admit(index) {
                continue;
            }
            let mut score = 0.0;
            for met in &meets {
                // A query word counts once per tool: by the best of the words it meets there.
                let best = met
                    .iter()
                    .map(|(term, weight)| weight * idf(term) * self.saturated(fields, term))
                    .fold(0.0, f64::max);
                score += best;
            }
            if score > 0.0 {
                hits.push(Hit { index, score });
            }
        }
        // Stable: equal scores keep the catalog's order.
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits.truncate(limit);
        hits
    }

    /// BM25F: the weighted, length-normalised frequency of `term` in one tool, saturated.
    fn saturated(&self, fields: &[FieldTerms; FIELDS], term: &str) -> f64 {
        let mut frequency = 0.0;
        for (field, terms) in fields.iter().enumerate() {
            let Some(&count) = terms.counts.get(term) else {
                continue;
            };
            let norm = 1.0 - B + B * terms.length as f64 / self.mean_length[field];
            frequency += WEIGHTS[field] * count as f64 / norm;
        }
        frequency * (K1 + 1.0) / (frequency + K1)
    }
}

impl FieldTerms {
    fn of(text: &str) -> FieldTerms {
        let mut out = FieldTerms::default();
        for term in terms(text) {
            out.length += 1;
            *out.counts.entry(term).or_default() += 1;
        }
        out
    }
}

/// How much the index's `term` counts for the query's `word`: 1 for the same word, less for
/// one that begins with the same [`PREFIX_LETTERS`] letters or more and differs only in an
/// ending of at most three letters (`cobrança`/`cobrar`, `notify`/`notificar`).
fn related(word: &str, term: &str) -> Option<f64> {
    if word == term {
        return Some(1.0);
    }
    let shared = word
        .bytes()
        .zip(term.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let shorter = word.len().min(term.len());
    (shared >= PREFIX_LETTERS && shared + 3 >= shorter).then_some(PREFIX_WEIGHT)
}

/// The searchable terms of `text`: its words (letters and digits; `_` and punctuation split),
/// folded, without the common words, plurals made singular.
pub fn terms(text: &str) -> Vec<String> {
    let folded = fold(text);
    folded
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !is_stop_word(w))
        .map(singular)
        .collect()
}

/// Lower case, without diacritics (the Latin letters of Portuguese, Spanish, French and
/// German; other letters stay as they are).
pub fn fold(text: &str) -> String {
    text.chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' => 'a',
            'ç' => 'c',
            'è' | 'é' | 'ê' | 'ë' => 'e',
            'ì' | 'í' | 'î' | 'ï' => 'i',
            'ñ' => 'n',
            'ò' | 'ó' | 'ô' | 'õ' | 'ö' => 'o',
            'ù' | 'ú' | 'û' | 'ü' => 'u',
            'ý' | 'ÿ' => 'y',
            other => other,
        })
        .collect()
}

/// A folded word without its plural ending, in Portuguese or English: `notificacoes` →
/// `notificacao`, `deliveries` → `delivery`, `dias` → `dia`, `charges` → `charge`. Words of
/// three letters or fewer, and those ending in `ss`, `us` or `is` (`status`, `address`,
/// `canais`), stay. Only these rules, which hold in both languages: the other plurals
/// (`mensagens`, `devedores`) differ from their singular in an ending that [`related`]
/// forgives.
fn singular(word: &str) -> String {
    if word.len() <= 3 || !word.is_ascii() {
        return word.to_string();
    }
    let stem = |cut: usize, add: &str| format!("{}{add}", &word[..word.len() - cut]);
    if word.ends_with("oes") || word.ends_with("aes") {
        stem(3, "ao")
    } else if word.ends_with("ies") && word.len() > 4 {
        stem(3, "y")
    } else if word.ends_with('s')
        && !word.ends_with("ss")
        && !word.ends_with("us")
        && !word.ends_with("is")
    {
        stem(1, "")
    } else {
        word.to_string()
    }
}

/// Words that say nothing of a task, folded: Portuguese, then English.
const STOP_WORDS: [&[&str]; 2] = [
    &[
        "a", "o", "as", "os", "um", "uma", "uns", "umas", "de", "do", "da", "dos", "das", "e",
        "ou", "em", "no", "na", "nos", "nas", "ao", "aos", "para", "pra", "pro", "por", "pelo",
        "pela", "pelos", "pelas", "com", "sem", "que", "se", "ha", "mais", "menos", "muito", "meu",
        "minha", "meus", "minhas", "seu", "sua", "seus", "suas", "esse", "essa", "este", "esta",
        "isso", "isto", "aquele", "aquela", "qual", "quais", "quem", "como", "onde", "quando",
        "ja", "nao", "sim", "eu", "ele", "ela", "eles", "elas", "voce", "me", "te", "lhe", "todo",
        "toda", "todos", "todas", "tem", "ter", "foi", "ser", "sao", "estao", "quero", "preciso",
        "favor", "agora", "hoje",
    ],
    &[
        "the", "an", "of", "to", "for", "from", "by", "in", "on", "at", "and", "or", "is", "are",
        "was", "were", "be", "been", "this", "that", "these", "those", "it", "its", "with", "my",
        "our", "your", "i", "we", "you", "they", "do", "does", "did", "can", "could", "would",
        "should", "please", "how", "what", "which", "who", "whom", "all", "any", "some", "want",
        "need", "about", "into", "than", "then", "there", "here", "now", "today",
    ],
];

fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.iter().any(|words| words.contains(&word))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_catalog::CATALOG;

    #[test]
    fn words_are_folded_split_and_made_singular_the_same_on_both_sides() {
        let table = [
            ("Cobranças vencidas", vec!["cobranca", "vencida"]),
            (
                "quem está devendo há mais de 60 dias",
                vec!["devendo", "60", "dia"],
            ),
            (
                "send a reminder by WhatsApp",
                vec!["send", "reminder", "whatsapp"],
            ),
            ("notificações e mensagens", vec!["notificacao", "mensagen"]),
            (
                "dunning_charges_notify",
                vec!["dunning", "charge", "notify"],
            ),
            (
                "deliveries, devedores, tokens",
                vec!["delivery", "devedore", "token"],
            ),
            ("status address canais", vec!["status", "address", "canais"]),
            ("SEGUNDA VIA do boleto!", vec!["segunda", "via", "boleto"]),
            ("", vec![]),
        ];
        for (text, expected) in table {
            assert_eq!(terms(text), expected, "{text}");
        }
    }

    #[test]
    fn a_word_meets_the_words_that_begin_like_it_and_differ_only_at_the_end() {
        assert_eq!(related("negativar", "negativar"), Some(1.0));
        assert_eq!(related("negativar", "negativacao"), Some(PREFIX_WEIGHT));
        assert_eq!(related("notify", "notificar"), Some(PREFIX_WEIGHT));
        assert_eq!(related("cobrar", "cobranca"), Some(PREFIX_WEIGHT));
        assert_eq!(related("list", "listar"), None, "too short to guess");
        assert_eq!(related("pagamento", "pagar"), None, "four letters shared");
        assert_eq!(
            related("transacao", "transferencia"),
            None,
            "too long an ending"
        );
        assert_eq!(related("devedor", "devedore"), Some(PREFIX_WEIGHT));
    }

    #[test]
    fn the_keywords_name_title_and_description_find_a_tool_and_admit_filters() {
        let index = Index::new(&CATALOG);
        let names = |query: &str, admit: &dyn Fn(usize) -> bool| -> Vec<&str> {
            index
                .search(query, 10, admit)
                .iter()
                .map(|h| CATALOG.tools[h.index].name)
                .collect()
        };
        let all = |_: usize| true;
        // A keyword, accents and case aside.
        assert_eq!(names("EXCLUIR", &all), ["things_delete"]);
        assert_eq!(names("a remocao", &all), ["things_delete"]);
        assert_eq!(
            names("remover", &all),
            Vec::<&str>::new(),
            "no word in common"
        );
        // The description and the toolset's description.
        assert_eq!(names("read another thing", &all)[0], "others_get");
        // Nothing the filter leaves out is found.
        let reads = |i: usize| CATALOG.tools[i].read_only;
        assert_eq!(names("excluir", &reads), Vec::<&str>::new());
        assert!(names("", &all).is_empty());
        assert!(names("the of a", &all).is_empty());
        assert_eq!(index.search("thing", 1, all).len(), 1);
    }
}
