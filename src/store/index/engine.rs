//! The full-text engine: a tantivy index of every message, one document per
//! message, its text tokenized into the same words the direct scan uses.

use crate::store::error::{Result, StoreError};
use crate::store::index::directory::PrivateDirectory;
use crate::store::index::hit::Hit;
use crate::store::index::query::SearchQuery;
use crate::store::index::snippet::{passage, snippet};
use crate::store::index::text::Searchable;
use crate::store::index::words::{Word, indexed_form, word_iter, words};
use std::path::{Path, PathBuf};
use tantivy::collector::{Count, TopDocs};
use tantivy::query::{BooleanQuery, Occur, PhrasePrefixQuery, PhraseQuery, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::tokenizer::{TextAnalyzer, Token, TokenStream, Tokenizer};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// The name the word tokenizer is registered under.
const TOKENIZER: &str = "loki_words";
/// Memory the writer may use while indexing (split between its threads).
const WRITER_MEMORY: usize = 64 << 20;

/// The fields of a message document.
#[derive(Clone, Copy, Debug)]
struct Fields {
    session: Field,
    context: Field,
    message: Field,
    role: Field,
    sequence: Field,
    text: Field,
}

fn schema() -> (Schema, Fields) {
    let mut builder = Schema::builder();
    let text = TextOptions::default()
        .set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
        .set_stored();
    let fields = Fields {
        session: builder.add_text_field("session", STRING | STORED),
        context: builder.add_text_field("context", STORED),
        message: builder.add_text_field("message", STORED),
        role: builder.add_text_field("role", STRING | STORED),
        sequence: builder.add_i64_field("sequence", STORED),
        text: builder.add_text_field("text", text),
    };
    (builder.build(), fields)
}

/// An open index.
pub struct Engine {
    index: Index,
    reader: IndexReader,
    fields: Fields,
    dir: PathBuf,
}

/// Which commit of the index a reader sees.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Commit {
    /// The payload it was made with (None: not by us, or none yet).
    pub payload: Option<String>,
    /// Messages it holds.
    pub documents: u64,
}

/// Why the index could not be used as it is.
#[derive(Debug)]
pub enum OpenError {
    /// Made by another version (a different schema): rebuild it.
    Incompatible(String),
    /// Anything else (damaged files, I/O).
    Broken(String),
}

impl Engine {
    /// Opens the index in `dir` (a slot made safe by `slot::prepare`),
    /// creating an empty one if there is none.
    pub fn open(dir: &Path) -> std::result::Result<Engine, OpenError> {
        let (schema, fields) = schema();
        let directory =
            PrivateDirectory::open(dir).map_err(|e| OpenError::Broken(e.to_string()))?;
        let index = Index::open_or_create(directory, schema).map_err(|e| match e {
            tantivy::TantivyError::SchemaError(why) => OpenError::Incompatible(why),
            other => OpenError::Broken(other.to_string()),
        })?;
        index
            .tokenizers()
            .register(TOKENIZER, TextAnalyzer::from(WordsTokenizer));
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e: tantivy::TantivyError| OpenError::Broken(e.to_string()))?;
        Ok(Engine {
            index,
            reader,
            fields,
            dir: dir.to_path_buf(),
        })
    }

    /// The writer, or None when another process is writing the index.
    pub fn writer(&self) -> Result<Option<IndexWriter>> {
        match self.index.writer_with_num_threads(2, WRITER_MEMORY) {
            Ok(writer) => Ok(Some(writer)),
            Err(tantivy::TantivyError::LockFailure(..)) => Ok(None),
            Err(e) => Err(self.error("open a writer for", e)),
        }
    }

    /// Adds the messages of a session (after deleting what it had).
    pub fn replace_session(
        &self,
        writer: &IndexWriter,
        session_id: &str,
        messages: &[Searchable],
    ) -> Result<()> {
        writer.delete_term(Term::from_field_text(self.fields.session, session_id));
        for m in messages {
            let mut doc = TantivyDocument::default();
            doc.add_text(self.fields.session, session_id);
            doc.add_text(self.fields.context, &m.context_id);
            doc.add_text(self.fields.message, &m.message_id);
            doc.add_text(self.fields.role, &m.role);
            if let Some(seq) = m.sequence {
                doc.add_i64(self.fields.sequence, seq);
            }
            doc.add_text(self.fields.text, &m.text);
            writer
                .add_document(doc)
                .map_err(|e| self.error("add to", e))?;
        }
        Ok(())
    }

    /// Removes a session's messages.
    pub fn delete_session(&self, writer: &IndexWriter, session_id: &str) {
        writer.delete_term(Term::from_field_text(self.fields.session, session_id));
    }

    /// Makes what the writer did visible (to this process after
    /// [`Engine::reload`], to others when they open the index), as the
    /// commit named `payload`: the manifest saved after it names it too.
    pub fn commit(&self, writer: &mut IndexWriter, payload: &str) -> Result<()> {
        let mut prepared = writer
            .prepare_commit()
            .map_err(|e| self.error("commit", e))?;
        prepared.set_payload(payload);
        prepared.commit().map_err(|e| self.error("commit", e))?;
        Ok(())
    }

    /// Sees the latest commit.
    pub fn reload(&self) -> Result<()> {
        self.reader.reload().map_err(|e| self.error("reload", e))
    }

    /// Sees the latest commit, and says which it is: its payload and its
    /// documents. None when a commit landed while looking (ask again).
    pub fn reload_and_name(&self) -> Result<Option<Commit>> {
        let metas = self
            .index
            .load_metas()
            .map_err(|e| self.error("read the commit of", e))?;
        self.reload()?;
        let searcher = self.reader.searcher();
        let seen = |pairs: &mut Vec<(String, u32)>| {
            pairs.sort();
            pairs.clone()
        };
        let mut wanted: Vec<(String, u32)> = metas
            .segments
            .iter()
            .map(|m| (m.id().uuid_string(), m.num_docs()))
            .collect();
        let mut loaded: Vec<(String, u32)> = searcher
            .segment_readers()
            .iter()
            .map(|r| (r.segment_id().uuid_string(), r.num_docs()))
            .collect();
        if seen(&mut wanted) != seen(&mut loaded) {
            return Ok(None);
        }
        Ok(Some(Commit {
            payload: metas.payload,
            documents: searcher.num_docs(),
        }))
    }

    /// Messages matching `query` (in `session` only, when given): the best
    /// `limit` by relevance, and how many matched in all. Session names and
    /// times are filled in by the caller.
    pub fn search(
        &self,
        query: &SearchQuery,
        session: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<Hit>, usize)> {
        let searcher = self.reader.searcher();
        let built = self.query(query, session, &searcher);
        let (top, mut total) = searcher
            .search(
                built.as_ref(),
                &(TopDocs::with_limit(limit.max(1)).order_by_score(), Count),
            )
            .map_err(|e| self.error("search", e))?;
        let mut hits = Vec::with_capacity(top.len());
        for (score, address) in top {
            let doc: TantivyDocument = searcher
                .doc(address)
                .map_err(|e| self.error("read a document of", e))?;
            let text_of = |field: Field| {
                doc.get_first(field)
                    .and_then(|v| v.as_str())
                    .unwrap_or("")
                    .to_string()
            };
            let text = text_of(self.fields.text);
            let found: Vec<Word> = words(&text);
            let texts: Vec<String> = found.iter().map(|w| w.text.clone()).collect();
            if !query.matches(&texts) {
                // Only a word longer than the index keeps can match by its
                // first characters alone.
                total = total.saturating_sub(1);
                continue;
            }
            let matched = query.matched_positions(&texts);
            let shown = snippet(&text, &found, &matched);
            let passage = passage(&text, &found, &matched);
            hits.push(Hit {
                agent: Default::default(),
                session_id: text_of(self.fields.session),
                session_name: String::new(),
                context_id: text_of(self.fields.context),
                message_id: text_of(self.fields.message),
                role: text_of(self.fields.role),
                sequence: doc.get_first(self.fields.sequence).and_then(|v| v.as_i64()),
                snippet: shown.text,
                highlights: shown.highlights,
                passage,
                score,
                last_used_at: 0.0,
            });
        }
        Ok((hits, total))
    }

    fn query(
        &self,
        query: &SearchQuery,
        session: Option<&str>,
        searcher: &tantivy::Searcher,
    ) -> Box<dyn Query> {
        let text = self.fields.text;
        let term = |word: &str| Term::from_field_text(text, indexed_form(word));
        let last = query.clauses.len() - 1;
        let mut parts: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (i, clause) in query.clauses.iter().enumerate() {
            let terms: Vec<Term> = clause.iter().map(|w| term(w)).collect();
            let prefixed = terms.last().filter(|_| query.prefix_last && i == last);
            let built: Box<dyn Query> = if let Some(tail) = prefixed {
                // Every word the prefix starts: a cap would leave messages
                // out (one letter can start tens of thousands of words).
                let expansions = prefix_expansions(searcher, tail);
                let mut prefix = PhrasePrefixQuery::new(terms);
                prefix.set_max_expansions(expansions);
                Box::new(prefix)
            } else if terms.len() == 1 {
                Box::new(TermQuery::new(
                    terms[0].clone(),
                    IndexRecordOption::WithFreqs,
                ))
            } else {
                Box::new(PhraseQuery::new(terms))
            };
            parts.push((Occur::Must, built));
        }
        if let Some(role) = query.role {
            parts.push((Occur::Must, exact(self.fields.role, role.as_str())));
        }
        if let Some(id) = session {
            parts.push((Occur::Must, exact(self.fields.session, id)));
        }
        Box::new(BooleanQuery::new(parts))
    }

    fn error(&self, action: &str, e: tantivy::TantivyError) -> StoreError {
        StoreError::Failed(format!(
            "cannot {action} the search index in {}: {e}",
            self.dir.display()
        ))
    }
}

/// How many words of the index start with `prefix`, in the segment holding
/// the most (tantivy takes a number of expansions, and sets room aside for
/// as many, so "every word" must be counted).
fn prefix_expansions(searcher: &tantivy::Searcher, prefix: &Term) -> u32 {
    let start = prefix.serialized_value_bytes();
    // The first byte string after every one starting with `start`.
    let mut end = start.to_vec();
    while end.last() == Some(&0xFF) {
        end.pop();
    }
    if let Some(last) = end.last_mut() {
        *last += 1;
    }
    let mut most = 1;
    for reader in searcher.segment_readers() {
        let Ok(inverted) = reader.inverted_index(prefix.field()) else {
            continue;
        };
        let mut range = inverted.terms().range().ge(start);
        if !end.is_empty() {
            range = range.lt(&end);
        }
        let Ok(mut stream) = range.into_stream() else {
            continue;
        };
        let mut count: u32 = 0;
        while stream.advance() {
            count = count.saturating_add(1);
        }
        most = most.max(count);
    }
    most
}

/// A filter on a field holding exact values.
fn exact(field: Field, value: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, value),
        IndexRecordOption::Basic,
    ))
}

/// tantivy's view of [`words`]: the index and the direct scan split text
/// the same way, so both find the same messages.
#[derive(Clone)]
struct WordsTokenizer;

/// The words of one text, handed to tantivy one by one as they are found.
struct WordsStream<'a> {
    words: Box<dyn Iterator<Item = Word> + 'a>,
    token: Token,
    position: usize,
}

impl Tokenizer for WordsTokenizer {
    type TokenStream<'a> = WordsStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordsStream<'a> {
        WordsStream {
            words: Box::new(word_iter(text)),
            token: Token::default(),
            position: 0,
        }
    }
}

impl TokenStream for WordsStream<'_> {
    fn advance(&mut self) -> bool {
        let Some(word) = self.words.next() else {
            return false;
        };
        let text = match indexed_form(&word.text).len() {
            len if len < word.text.len() => word.text[..len].to_string(),
            _ => word.text,
        };
        self.token = Token {
            offset_from: word.from,
            offset_to: word.to,
            position: self.position,
            text,
            position_length: 1,
        };
        self.position += 1;
        true
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}
