/**
 * Repeated keys in JSON text. `JSON.parse` keeps the last value of a key an object repeats, without
 * a word, where strict readers refuse the text or keep the first: two readers of one signed
 * document would then disagree on what it says. Pure.
 */

/**
 * The first key some object of `text` holds twice, compared as decoded (`"a"` and `"\u0061"` are
 * one key); null when none does. `text` must be JSON that `JSON.parse` accepts.
 */
export function duplicateKey(text: string): string | null {
  // Per open container, innermost last: the keys it holds so far, or null for an array.
  const open: (Set<string> | null)[] = [];
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (keyNext) {
        const key = JSON.parse(text.slice(i, end + 1)) as string;
        const keys = open[open.length - 1]!;
        if (keys.has(key)) return key;
        keys.add(key);
        keyNext = false;
      }
      i = end;
    } else if (c === '{') {
      open.push(new Set());
      keyNext = true;
    } else if (c === '[') {
      open.push(null);
    } else if (c === '}' || c === ']') {
      open.pop();
      keyNext = false;
    } else if (c === ',') {
      keyNext = open[open.length - 1] !== null;
    }
  }
  return null;
}

/** The index of the quote that closes the string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i;
}
