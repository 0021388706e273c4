// Upstream's own JavaScript (sam-paech/slop-score, read in place) on texts given as a JSON
// list on stdin: prints, per text, every metric calculateMetrics publishes and the count of
// not-x-but-y matches. Usage: node upstream_metrics.mjs SLOP_SCORE_FOLDER < texts.json
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = process.argv[2];
const url = (p) => pathToFileURL(join(root, p)).href;
const { wordsOnlyLower, alphaTokens } = await import(url('js/utils.js'));
const metrics = await import(url('js/metrics.js'));
const { extractContrastMatches } = await import(url('js/contrast-detector.js'));

globalThis.fetch = async (p) => {
  const content = readFileSync(join(root, p), 'utf-8');
  return { ok: true, json: async () => JSON.parse(content) };
};
await metrics.loadSlopSets();

// The leaderboard's own helpers, not exported by generate-leaderboard.mjs: taken from its text.
const board = readFileSync(join(root, 'generate-leaderboard.mjs'), 'utf-8');
const start = board.indexOf('function calculateLexicalDiversity');
const end = board.indexOf('// Calculate metrics for a text sample');
const helpers = new Function(board.slice(start, end) + `
  return { calculateLexicalDiversity, calculateFleschKincaid, calculateAverageSentenceLength,
           calculateAverageParagraphLength, calculateDialogueFrequency };`)();

const quiet = () => {};
for (const k of ['group', 'groupEnd', 'log', 'warn', 'error']) console[k] = quiet;

const texts = JSON.parse(readFileSync(0, 'utf-8'));
const out = texts.map((text) => {
  const toks = alphaTokens(wordsOnlyLower(text));
  const slop = metrics.computeSlopIndex(toks, false);
  const content = metrics.contentTokens(toks);
  const b = metrics.rankOveruseWithCounts(metrics.makeNgrams(content, 2), new Map(), 40);
  const t = metrics.rankOveruseWithCounts(metrics.makeNgrams(content, 3), new Map(), 40);
  const rep = content.length > 0
    ? ((b.reduce((s, r) => s + r[2], 0) + t.reduce((s, r) => s + r[2], 0)) / content.length) * 1000 : 0;
  const contrast = extractContrastMatches(text);
  const lex = helpers.calculateLexicalDiversity(toks);
  return {
    tokens: toks,
    slop_list_matches_per_1k_words: slop.wordScore,
    slop_trigram_matches_per_1k_words: slop.trigramScore,
    ngram_repetition_score: rep,
    not_x_but_y_count: contrast.length,
    not_x_but_y_patterns: contrast.map((m) => m.pattern_name),
    not_x_but_y_per_1k_chars: text.length > 0 ? (contrast.length / text.length) * 1000 : 0,
    mattr_500: lex.mattr_500,
    type_token_ratio: lex.type_token_ratio,
    vocab_level: helpers.calculateFleschKincaid(text),
    avg_sentence_length: helpers.calculateAverageSentenceLength(text),
    avg_paragraph_length: helpers.calculateAverageParagraphLength(text),
    dialogue_frequency: helpers.calculateDialogueFrequency(text),
    chars: text.length,
  };
});
process.stdout.write(JSON.stringify(out));
