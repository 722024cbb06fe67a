/**
 * Splits a command line into words the way a POSIX shell does for the simple cases users type
 * into `--agent`: whitespace separates words, 'single quotes' are literal, "double quotes" allow
 * \" \\ \$ \` escapes, a backslash outside quotes escapes the next character. No expansion of
 * variables, globs or `~` happens: the words go to `spawn` as they are (no shell is involved).
 *
 * @throws Error naming the problem for an unterminated quote or a trailing backslash.
 */
export function splitCommandLine(line: string): string[] {
  const words: string[] = [];
  let word = '';
  // a word exists even when empty (`''`), so track it separately from its text
  let inWord = false;
  let i = 0;
  while (i < line.length) {
    const c = line.charAt(i);
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error(`unterminated single quote at position ${i + 1} in ${JSON.stringify(line)}`);
      word += line.slice(i + 1, end);
      inWord = true;
      i = end + 1;
    } else if (c === '"') {
      const start = i;
      i++;
      for (;;) {
        if (i >= line.length)
          throw new Error(`unterminated double quote at position ${start + 1} in ${JSON.stringify(line)}`);
        const d = line.charAt(i);
        if (d === '"') break;
        if (d === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line.charAt(i + 1))) {
          if (line[i + 1] !== '\n') word += line[i + 1];
          i += 2;
          continue;
        }
        word += d;
        i++;
      }
      inWord = true;
      i++;
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new Error(`trailing backslash in ${JSON.stringify(line)}`);
      // backslash-newline is a line continuation
      if (line[i + 1] !== '\n') {
        word += line[i + 1];
        inWord = true;
      }
      i += 2;
    } else {
      word += c;
      inWord = true;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Quotes words for display so that {@link splitCommandLine} gives them back. */
export function joinCommandLine(words: readonly string[]): string {
  return words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
}

/** An argv-style command (`-- node agent.js`): its first word and the rest; undefined when there is none. */
export function commandOf(words: readonly string[]): { command: string; args: string[] } | undefined {
  const [command, ...args] = words;
  return command === undefined ? undefined : { command, args };
}
