#include "engine/query/query_parser.h"

#include "ingest/bounded_id.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <map>

#include "engine/query/query.h"
#include "engine/index/text_index.h"
#include "engine/index/tokenizer.h"

namespace osearch {
namespace {

// A letter, digit or character outside ASCII (punctuation alone is no word to name).
bool has_word_character(std::string_view tok) {
  return std::any_of(tok.begin(), tok.end(), [](char c) { return static_cast<unsigned char>(c) >= 0x80 || std::isalnum(static_cast<unsigned char>(c)); });
}

Xapian::Query and_all(const std::vector<Xapian::Query>& qs) {
  if (qs.empty()) return Xapian::Query();
  if (qs.size() == 1) return qs[0];
  return Xapian::Query(Xapian::Query::OP_AND, qs.begin(), qs.end());
}

Xapian::Query or_all(const std::vector<Xapian::Query>& qs) {
  if (qs.empty()) return Xapian::Query::MatchNothing;
  if (qs.size() == 1) return qs[0];
  return Xapian::Query(Xapian::Query::OP_OR, qs.begin(), qs.end());
}

// project: and model: match as case-insensitive substrings of the indexed values.
Xapian::Query substring_terms(const Xapian::Database& db, std::string_view pfx, const std::string& needle) {
  std::vector<Xapian::Query> qs;
  std::string p(pfx);
  for (auto it = db.allterms_begin(p); it != db.allterms_end(p); ++it) {
    std::string term = *it;
    if (term.find(needle, p.size()) != std::string::npos) qs.emplace_back(term);
  }
  return or_all(qs);
}

// Number of letter/digit runs in a compound ("2.29.1" -> 3).
size_t word_runs(std::string_view s) {
  size_t runs = 0;
  bool in = false;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    bool w = u >= 0x80 || std::isalnum(u) || c == '_';
    if (w && !in) ++runs;
    in = w;
  }
  return runs;
}

// One term per emoji cluster: its whole sequence when it has one ("👍🏽" finds only that tone),
// else its symbol ("👍" finds every tone, since the indexer stores each cluster's parts too).
// The tokenizer emits a sequence before its parts, at the same position.
struct SymbolPicker {
  uint32_t sequence_pos = UINT32_MAX;
  bool operator()(uint32_t pos, TermKind kind) {
    if (kind == TermKind::SymbolSequence) {
      sequence_pos = pos;
      return true;
    }
    return pos != sequence_pos;
  }
};

struct Clause {
  Xapian::Query query;
  std::string field;  // empty for free text
  bool valid = true;  // false: the token had nothing searchable (e.g. only punctuation)
  // A phrase of several words: its words, and the query matching it where positions exist (`query`
  // also takes every message without positions holding all of them: PhraseCheck decides those).
  QueryPhrase phrase;
  Xapian::Query exact;
};

class Parser {
 public:
  Parser(const Xapian::Database& db, ParsedQuery& out) : db_(db), out_(out) {}

  static Clause plain(Xapian::Query q, std::string field = "", bool valid = true) {
    Clause c;
    c.query = std::move(q);
    c.field = std::move(field);
    c.valid = valid;
    return c;
  }

  Clause clause(const std::string& tok) {
    if (tok.size() >= 2 && tok.front() == '"') {
      Clause c;
      c.query = phrase(tok, c.phrase, c.exact);
      c.valid = !c.query.empty();
      return c;
    }
    if (auto colon = tok.find(':'); colon != std::string::npos && colon > 0 && colon + 1 < tok.size()) {
      std::string field = ascii_lower(tok.substr(0, colon));
      std::string value = tok.substr(colon + 1);
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') value = value.substr(1, value.size() - 2);
      if (Xapian::Query q; field_query(field, value, q)) return plain(q, field);
    }
    if (tok.size() > 1 && tok.back() == '*') {
      std::string stem = search_form(tok.substr(0, tok.size() - 1));
      while (!stem.empty() && stem.back() == '*') stem.pop_back();
      if (!stem.empty()) {
        out_.positive_terms.push_back(stem);
        out_.has_free_text = true;
        return plain(wildcard(tok, stem));
      }
    }
    Xapian::Query q = words(tok);
    return plain(q, "", !q.empty());
  }

 private:
  // The prefix's kWildcardMaxTerms most frequent terms (ties: the first in term order) as one
  // synonym, which is what OP_WILDCARD with WILDCARD_LIMIT_MOST_FREQUENT means, but chosen once over
  // the whole index: Xapian chose per database, and walked the prefix's terms again on every pass.
  // The count of the prefix's terms (a cut is reported) comes from the same walk.
  Xapian::Query wildcard(const std::string& tok, const std::string& stem) {
    WildcardExpansion w;
    w.pattern = tok;
    using Entry = std::pair<Xapian::doccount, std::string>;
    const auto better = [](const Entry& a, const Entry& b) {
      return a.first != b.first ? a.first > b.first : a.second < b.second;
    };
    std::vector<Entry> kept;  // a heap whose front is the worst kept term
    for (auto it = db_.allterms_begin(stem), end = db_.allterms_end(stem); it != end; ++it) {
      if (w.terms == kWildcardCountLimit) {
        w.more_terms = true;
        break;
      }
      ++w.terms;
      Entry e{it.get_termfreq(), *it};
      if (kept.size() < kWildcardMaxTerms) {
        kept.push_back(std::move(e));
        std::push_heap(kept.begin(), kept.end(), better);
      } else if (better(e, kept.front())) {
        std::pop_heap(kept.begin(), kept.end(), better);
        kept.back() = std::move(e);
        std::push_heap(kept.begin(), kept.end(), better);
      }
    }
    w.used = kept.size();
    out_.wildcards.push_back(std::move(w));
    std::sort(kept.begin(), kept.end(), [](const Entry& a, const Entry& b) { return a.second < b.second; });
    std::vector<Xapian::Query> terms;
    terms.reserve(kept.size());
    for (auto& [freq, term] : kept) terms.emplace_back(std::move(term));
    return synonym_tree(std::move(terms));
  }

  bool field_query(const std::string& field, const std::string& value, Xapian::Query& q) {
    std::string v = ascii_lower(value);
    if (field == "project") {
      q = substring_terms(db_, prefix::kProject, v);
    } else if (field == "model") {
      q = substring_terms(db_, prefix::kModel, v);
    } else if (field == "session") {
      // Session ids are stored bounded (ingest/bounded_id.h): a full long id must be bounded alike.
      q = Xapian::Query(Xapian::Query::OP_WILDCARD, boolean_term(prefix::kSession, bounded_id(value)));
    } else if (field == "role") {
      q = Xapian::Query(boolean_term(prefix::kRole, v));
    } else if (field == "tool") {
      q = Xapian::Query(boolean_term(prefix::kTool, v));
    } else if (field == "branch") {
      q = Xapian::Query(boolean_term(prefix::kBranch, v));
    } else if (field == "agent") {
      q = Xapian::Query(boolean_term(prefix::kAgent, v));
    } else if (field == "type") {
      q = Xapian::Query(boolean_term(prefix::kType, v));
    } else {
      return false;  // "http://…", "C:\…": not a field, treat as text
    }
    return true;
  }

  // Free text: identifiers (compounds) are looked up whole; otherwise all words must match.
  // CJK runs use their bigrams (a single character uses its unigram).
  Xapian::Query words(const std::string& tok) {
    std::vector<std::string> compounds, plain, bigrams, unigrams, symbols;
    SymbolPicker pick;
    tokenizer_.run(tok, [&](std::string_view t, uint32_t pos, TermKind kind) {
      switch (kind) {
        case TermKind::Compound: compounds.emplace_back(t); break;
        case TermKind::Word: plain.emplace_back(t); break;
        case TermKind::CjkBigram: bigrams.emplace_back(t); break;
        case TermKind::CjkUnigram: unigrams.emplace_back(t); break;
        case TermKind::Symbol:
        case TermKind::SymbolSequence:
          if (pick(pos, kind)) symbols.emplace_back(t);
          break;
        case TermKind::Part: break;  // the document holds them; the query names the identifier
        case TermKind::Gap: break;
      }
    });
    // A compound the index does not hold whole (a file name or UUID inside a longer path, a partial
    // path) falls back to all of its words.
    // Only when every part of it is itself indexed: "2.29.1" must not shrink to "29".
    bool whole = !compounds.empty() && (std::all_of(compounds.begin(), compounds.end(), [&](const std::string& c) {
      return db_.term_exists(c);
    }) || plain.size() < word_runs(compounds.front()));
    std::vector<Xapian::Query> qs;
    auto term = [&](const std::string& t) {
      out_.positive_terms.push_back(t);
      return Xapian::Query(t);
    };
    if (whole) {
      for (const auto& t : compounds) qs.push_back(term(t));
    } else {
      for (const auto& w : plain) qs.push_back(word_or_unwrapped(w, term));
      auto& cjk = bigrams.empty() ? unigrams : bigrams;
      for (const auto& t : cjk) qs.push_back(term(t));
    }
    for (const auto& t : symbols) qs.push_back(term(t));  // emoji never sit inside a compound
    if (!qs.empty()) out_.has_free_text = true;
    return and_all(qs);
  }

  // "_csrf_token" also finds csrf_token (the indexer stores every identifier without its leading
  // and trailing underscores too, so "csrf_token" finds _csrf_token by itself).
  template <typename Term>
  static Xapian::Query word_or_unwrapped(const std::string& w, Term& term) {
    size_t b = w.find_first_not_of('_'), e = w.find_last_not_of('_');
    if (b == std::string::npos || (b == 0 && e + 1 == w.size()) || e + 1 - b < 2) return term(w);
    return Xapian::Query(Xapian::Query::OP_OR, term(w), term(w.substr(b, e + 1 - b)));
  }

  // Positions exist for prose only; elsewhere Xapian can only find all the words, and the deciders
  // check the phrase on the text (engine/query/phrase_check.h). `phrase_out`/`exact_out`: set for a
  // phrase of several positions.
  Xapian::Query phrase(const std::string& tok, QueryPhrase& phrase_out, Xapian::Query& exact_out) {
    std::string inner = tok.substr(1, tok.back() == '"' ? tok.size() - 2 : tok.size() - 1);
    std::vector<std::string> terms, fillers;
    std::vector<uint32_t> positions;
    SymbolPicker pick;
    const uint32_t span = tokenizer_.run(inner, [&](std::string_view t, uint32_t pos, TermKind kind) {
      if (kind == TermKind::Word || kind == TermKind::CjkUnigram ||
          ((kind == TermKind::Symbol || kind == TermKind::SymbolSequence) && pick(pos, kind))) {
        terms.emplace_back(t);
        positions.push_back(pos);
      } else if (kind == TermKind::Gap) {
        if (fillers.size() <= pos) fillers.resize(pos + 1);
        fillers[pos] = t;
      }
    });
    // Only words without a term ("a b", "1.4"): nothing the index holds stands for them. (The
    // identifier 1.4 is a term, but the phrase also stands in 3.1.4, where it is not: refused, not
    // answered in part. Unquoted, 1.4 is the identifier.)
    if (terms.empty()) return Xapian::Query();
    std::vector<Xapian::Query> qs;
    for (const auto& t : terms) {
      qs.emplace_back(t);
      out_.positive_terms.push_back(t);
    }
    out_.has_free_text = true;
    // Positions as the indexer gives them: a word of one character takes one but is no term, so
    // "create a new file" spans four positions with three words, and "python 3" two with one: the
    // text decides what stands in a gap.
    QueryPhrase phrase(std::move(terms), std::move(positions), span, std::move(fillers));
    if (qs.size() == 1) {  // one word: it selects, and the text decides what stands in a gap
      if (phrase.has_gaps()) {
        phrase_out = std::move(phrase);
        exact_out = qs[0];
      }
      return qs[0];
    }
    exact_out = Xapian::Query(Xapian::Query::OP_PHRASE, qs.begin(), qs.end(), phrase.word_span());
    phrase_out = std::move(phrase);
    Xapian::Query loose(Xapian::Query::OP_FILTER, and_all(qs), Xapian::Query(std::string(prefix::kNoPositions)));
    return Xapian::Query(Xapian::Query::OP_OR, exact_out, loose);
  }

  const Xapian::Database& db_;
  ParsedQuery& out_;
  Tokenizer tokenizer_{true};  // (a phrase keeps the words of its gaps)
};

}  // namespace

// Nested kFanout wide: Xapian 1.4 sets up an OR of n postings lists in
// O(n^2) per database and pass (256 terms: 1 ms; nested 16 x 16: 0.3 ms), for the same matches,
// wdf and weights.
Xapian::Query synonym_tree(std::vector<Xapian::Query> qs) {
  constexpr size_t kFanout = 16;
  if (qs.empty()) return Xapian::Query::MatchNothing;
  while (qs.size() > kFanout) {
    std::vector<Xapian::Query> groups;
    for (size_t i = 0; i < qs.size(); i += kFanout) {
      const auto first = qs.begin() + static_cast<std::ptrdiff_t>(i);
      const auto last = qs.begin() + static_cast<std::ptrdiff_t>(std::min(qs.size(), i + kFanout));
      groups.push_back(last - first == 1 ? *first : Xapian::Query(Xapian::Query::OP_SYNONYM, first, last));
    }
    qs = std::move(groups);
  }
  return qs.size() == 1 ? qs[0] : Xapian::Query(Xapian::Query::OP_SYNONYM, qs.begin(), qs.end());
}

std::string WildcardExpansion::describe() const {
  return "wildcard '" + pattern + "' used the " + std::to_string(used) + " most frequent of its " +
         (more_terms ? "more than " : "") + std::to_string(terms) + " terms";
}

std::vector<std::string> split_query_tokens(const std::string& text) {
  std::vector<std::string> toks;
  std::string cur;
  bool in_quote = false;
  for (char c : text) {
    if (c == '"') {
      cur.push_back(c);
      if (in_quote) {
        toks.push_back(cur);
        cur.clear();
      }
      in_quote = !in_quote;
    } else if (!in_quote && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      if (!cur.empty()) toks.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) toks.push_back(cur);
  return toks;
}

ParsedQuery parse_keyword_query(const std::string& text, const Xapian::Database& db) {
  ParsedQuery out;
  Parser parser(db, out);
  std::vector<Xapian::Query> musts, nots;
  // Per must: its phrase's words when it is one phrase of several words, until an OR joins it.
  std::vector<QueryPhrase> must_phrases;
  std::map<std::string, std::vector<Xapian::Query>> filters;  // OR within a field, AND across fields
  bool pending_or = false, pending_not = false;
  for (std::string tok : split_query_tokens(text)) {
    if (tok == "OR" || tok == "|") {
      pending_or = !musts.empty();
      continue;
    }
    if (tok == "AND" || tok == "&&") continue;
    if (tok == "NOT") {
      pending_not = true;
      continue;
    }
    bool neg = pending_not;
    pending_not = false;
    if (tok.size() > 1 && tok[0] == '-') {
      neg = true;
      tok.erase(0, 1);
    }
    size_t before = out.positive_terms.size();
    Clause c = parser.clause(tok);
    if (neg) out.positive_terms.resize(before);  // a negated word is never "matched"
    if (!c.valid) {
      // Nothing searchable: a word of one character or one too long for a term, or punctuation. A
      // word is named in the answer; an OR before it joins nothing ("foo OR a bar" is foo AND bar).
      if (has_word_character(tok)) out.ignored_words.push_back(neg ? "-" + tok : tok);
      pending_or = false;
      continue;
    }
    if (neg) {
      // A negated phrase excludes where positions prove it; elsewhere PhraseCheck reads the text
      // (all its words somewhere is not the phrase: excluding those would lose matches). A phrase
      // with gaps proves nothing by its window ("create new file" fits the one of "create a new
      // file"): PhraseCheck decides every document then.
      if (!c.phrase.empty()) {
        if (!c.phrase.has_gaps()) nots.push_back(c.exact);
        out.forbidden_phrases.push_back(c.phrase);
      } else {
        nots.push_back(c.query);
      }
    } else if (!c.field.empty()) {
      filters[c.field].push_back(c.query);
    } else if (pending_or) {
      musts.back() = Xapian::Query(Xapian::Query::OP_OR, musts.back(), c.query);
      // Either side may match: a phrase there is not required, and stays "all its words" where
      // there are no positions (said in the answer: ParsedQuery::loose_phrases).
      if (!must_phrases.back().empty() || !c.phrase.empty()) out.loose_phrases = true;
      must_phrases.back() = QueryPhrase();
    } else {
      musts.push_back(c.query);
      must_phrases.push_back(c.phrase);
    }
    pending_or = false;
  }
  for (auto& p : must_phrases)
    if (!p.empty()) out.required_phrases.push_back(std::move(p));
  if (musts.empty() && filters.empty() && nots.empty())
    throw BadInput("usage", "nothing searchable in query '" + text +
                                "': give at least one word (words of one character, or over 64 bytes, are not "
                                "indexed; an identifier such as 1.4 is found unquoted)");
  Xapian::Query q = musts.empty() ? Xapian::Query::MatchAll : and_all(musts);
  if (!filters.empty()) {
    std::vector<Xapian::Query> groups;
    for (auto& [field, qs] : filters) groups.push_back(or_all(qs));
    q = Xapian::Query(Xapian::Query::OP_FILTER, q, and_all(groups));
  }
  if (!nots.empty()) q = Xapian::Query(Xapian::Query::OP_AND_NOT, q, or_all(nots));
  out.query = q;
  return out;
}

}  // namespace osearch
