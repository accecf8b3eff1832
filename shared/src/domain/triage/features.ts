import { conceptsOf } from './concepts';

/**
 * What the linear model sees of a message. Texts are short, misspelt and written in many voices, so a bag
 * of exact words is brittle ("leaking", "leaked", "leaks" are three unrelated words to it): each word also
 * gives its stem. Word pairs keep a little order ("no heat" is not "heat"). The domain concepts
 * (concepts.ts) tie together words the corpus never pairs, and pairs of concepts let a linear model see
 * conjunctions it cannot form itself: water alone is a dripping tap, water with "now" is a ceiling coming
 * down. Character n-grams were tried and dropped: on cross-validation of the training split they cost
 * 1–2 points of accuracy and tripled the model (`npm run triage:cv`). So were word clusters of pretrained
 * vectors (`c:<cluster>` per word, seeded k-means of 20,000 words into 256–4,096 clusters, two granularities,
 * cluster pairs, cluster dropout in training; code in commit 3aae875): at most +0.3 point on grouped
 * cross-validation with the neighbours, and fewer emergencies found (docs/ARCHITECTURE.md, triage, eighth
 * session).
 */

/** Emoji and symbols that carry meaning in texts become words, so they are features like any other. */
const SYMBOLS: Array<[RegExp, string]> = [
  [/[🔥]/gu, ' fire '],
  [/[💧🌊💦]/gu, ' water '],
  [/[🚨🆘⚠]/gu, ' alarm '],
  [/[😱😭😩😳🙀]/gu, ' distress '],
  [/[👍👌🙏😊🙂😀😄❤♥]/gu, ' happy '],
  [/\$\s?\d[\d,.]*/g, ' money '],
  [/\b\d{1,2}(:\d{2})?\s?(am|pm)\b/gi, ' clocktime '],
  [/https?:\/\/\S+|www\.\S+/gi, ' weblink '],
  [/\S+@\S+\.\w+/g, ' emailaddr '],
  [/!{2,}/g, ' exclaim '],
  // People "coming and going" or "in and out" are a busy building, not water or smoke "coming in": one word,
  // so "coming" keeps its emergency weight only where something is coming through.
  [/\b(com(e|es|ing) and go(es|ing)?|comings and goings|in and out( of)?)\b/gi, ' foottraffic '],
  [/\?/g, ' qmark '],
];

export function words(text: string): string[] {
  let t = text;
  for (const [re, word] of SYMBOLS) t = t.replace(re, word);
  return t
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/['’]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .replace(/\d+/g, (d) => (d.length >= 3 ? ' num ' : d))
    .trim()
    .split(/\s+/)
    .filter(Boolean);
}

/** The distinct features of a text: `w:` words, `s:` stems, `b:` word pairs, `z:` concepts and concept pairs. */
export function featuresOf(text: string): string[] {
  const out = new Set<string>();
  const ws = words(text);
  ws.forEach((w, i) => {
    out.add(`w:${w}`);
    out.add(`s:${stem(w)}`);
    if (i > 0) out.add(`b:${ws[i - 1]}_${w}`);
  });
  const tags = conceptsOf(text);
  for (const tag of tags) out.add(`z:${tag}`);
  for (const a of tags) for (const b of tags) if (a < b) out.add(`z:${a}+${b}`);
  return [...out];
}

/** A light suffix stripper: "leaking", "leaked", "leaks" all give "leak". */
export function stem(w: string): string {
  if (w.length <= 4) return w;
  return w.replace(/(ingly|edly|ing|ed|es|s|ly|er|y)$/, '').replace(/(.)\1$/, '$1');
}
