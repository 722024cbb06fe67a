/**
 * The text of a JSON value a transport received and did not parse: a hop that only routes a
 * message (a proxy chain's conductor, a pass-through component) forwards it as it came, and the
 * writer splices the text into the outgoing line instead of `JSON.stringify` of a parsed copy.
 * `value` parses it on first use; `toJSON` keeps any `JSON.stringify` of a message that holds one
 * correct (it writes the parsed value).
 */
export class RawJson {
  private parsed: unknown;
  private isParsed = false;

  /**
   * @param text valid JSON text of an object or array (checked by the scanner that made it)
   * @param fields for an object, where its direct members are: name, value start, value end (offsets in `text`)
   */
  constructor(
    readonly text: string,
    readonly fields?: readonly RawField[],
  ) {}

  /** The parsed value (parsed once, on first use). */
  get value(): unknown {
    if (!this.isParsed) {
      this.parsed = JSON.parse(this.text);
      this.isParsed = true;
    }
    return this.parsed;
  }

  toJSON(): unknown {
    return this.value;
  }
}

/** One direct member of a {@link RawJson} object: its name and the span of its value's text. */
export interface RawField {
  readonly name: string;
  readonly start: number;
  readonly end: number;
}

/** `v` itself, or the parsed value when it is a {@link RawJson} (what handlers that look inside need). */
export function plainJson(v: unknown): unknown {
  return v instanceof RawJson ? v.value : v;
}

/**
 * A whole message already written as JSON text, for a transport that writes text (the stdio
 * transport writes `text` as it is). A hop that forwards a message nothing inspects builds its line
 * from the received text and hands it over like this, without an object to stringify. `toJSON` keeps
 * any other transport correct: `JSON.stringify` writes the parsed message.
 */
export class RawMessage {
  /** @param text one JSON-RPC message as JSON text, on one line (no newline in it) */
  constructor(readonly text: string) {}

  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}
