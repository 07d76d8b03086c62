// The scripts' sentences in the reader's language. The server puts the catalog's translations of them in the page
// (<script type="application/json" id="words">); a sentence it has no translation for is said in English.

const element = document.getElementById("words");
const words = element ? JSON.parse(element.textContent) : {};

/** The page's language, as `lang` on <html> says it. */
export const language = document.documentElement.lang || "en";

const plurals = new Intl.PluralRules(language);

function written(value) {
  return typeof value === "number" ? value.toLocaleString(language) : String(value);
}

function fill(pattern, values) {
  return pattern.replace(/\{(\d+)\}/g, (placeholder, index) => (index < values.length ? written(values[index]) : placeholder));
}

/** An English sentence in the reader's language, with `{0}`, `{1}`… replaced by the values. */
export function t(english, ...values) {
  return fill(words[english]?.[0] || english, values);
}

/** A sentence that counts: `one` and `other` are the English forms, `{0}` is the count, which picks the form. */
export function tn(count, one, other, ...values) {
  const forms = words[one];
  const form = plurals.select(count) === "one" ? 0 : 1;
  const english = form === 0 ? one : other;
  return fill(forms?.[form] || english, [count, ...values]);
}

// Words with two meanings name theirs, as gettext's msgctxt: tc(context, english). The key joins them as
// gettext does, with U+0004.
const inContext = (context, english) => `${context}\u0004${english}`;

/** `t` for words in one of their meanings. */
export function tc(context, english, ...values) {
  return fill(words[inContext(context, english)]?.[0] || english, values);
}

/** `tn` for words in one of their meanings. */
export function tnc(context, count, one, other, ...values) {
  const forms = words[inContext(context, one)];
  const form = plurals.select(count) === "one" ? 0 : 1;
  return fill(forms?.[form] || (form === 0 ? one : other), [count, ...values]);
}
