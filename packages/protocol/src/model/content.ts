import type { Meta, UnknownKind } from './json.js';

/** Optional hints on content (audience, priority, last modified). */
export interface Annotations {
  audience?: Array<'user' | 'assistant' | (string & {})> | null;
  lastModified?: string | null;
  priority?: number | null;
  _meta?: Meta | null;
}

export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations | null;
  _meta?: Meta | null;
}

export interface ImageContent {
  type: 'image';
  /** base64 */
  data: string;
  mimeType: string;
  uri?: string | null;
  annotations?: Annotations | null;
  _meta?: Meta | null;
}

export interface AudioContent {
  type: 'audio';
  /** base64 */
  data: string;
  mimeType: string;
  annotations?: Annotations | null;
  _meta?: Meta | null;
}

export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  mimeType?: string | null;
  title?: string | null;
  description?: string | null;
  size?: number | null;
  /** v2 only; dropped when encoding v1. */
  icons?: Array<{
    src: string;
    mimeType?: string | null;
    sizes?: string[] | null;
    theme?: string | null;
    _meta?: Meta | null;
  }> | null;
  annotations?: Annotations | null;
  _meta?: Meta | null;
}

export type EmbeddedResourceContents =
  | { uri: string; text: string; mimeType?: string | null; _meta?: Meta | null }
  | { uri: string; blob: string; mimeType?: string | null; _meta?: Meta | null };

export interface EmbeddedResource {
  type: 'resource';
  resource: EmbeddedResourceContents;
  annotations?: Annotations | null;
  _meta?: Meta | null;
}

/**
 * A content block whose `type` this version of acp-kit does not know (kept raw, ACP-V2-CONT-01).
 * `type` is typed {@link UnknownKind} (`never`) so `b.type === 'text'` narrows to {@link TextContent};
 * reach this member with {@link isUnknownContentBlock} and read its type with `String(b.type)`.
 */
export interface UnknownContentBlock {
  type: UnknownKind;
  [key: string]: unknown;
}

/** Content blocks (ACP-ALL-CONT-03): identical shape in v1 and v2 apart from v2 `icons`. */
export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

/** A content block as received: a known block or an unknown one preserved raw. */
export type AnyContentBlock = ContentBlock | UnknownContentBlock;

const KNOWN_CONTENT_TYPES: ReadonlySet<string> = new Set<ContentBlock['type']>([
  'text',
  'image',
  'audio',
  'resource_link',
  'resource',
]);

/** True for the content types this version of acp-kit knows. */
export function isKnownContentBlock(b: AnyContentBlock): b is ContentBlock {
  return KNOWN_CONTENT_TYPES.has(b.type);
}

/** True for a content block of a type this version of acp-kit does not know (kept raw). */
export function isUnknownContentBlock(b: AnyContentBlock): b is UnknownContentBlock {
  return !KNOWN_CONTENT_TYPES.has(b.type);
}

/** Convenience: a text block. */
export function text(value: string): TextContent {
  return { type: 'text', text: value };
}
