import type { RowTuple } from './api.js';
import { RowStore } from './row-store.js';

/** Pixel height of one timeline row (the list is virtualised on it). */
export const ROW_H = 24;
/** Rows rendered above and below the viewport. */
export const OVERSCAN = 6;
export const KINDS = ['request', 'notification', 'response', 'error', 'invalid'] as const;

/** One line of the timeline: a frame, or a run of chunk frames collapsed into one. */
export interface DisplayRow {
  /** index into the rows of the first frame */
  first: number;
  /** indexes of every frame of the row (one unless collapsed) */
  members: Int32Array<ArrayBuffer>;
}

/** The frames of one source as the page holds them. */
export interface Data {
  /** string table and rows grow in place; `version` tells memos they changed */
  strings: string[];
  store: RowStore;
  finished: boolean;
  /** every frame so far is validated and decoded (the session view can be asked for) */
  analysisComplete: boolean;
  version: number;
}

export const emptyData = (): Data => ({
  strings: [],
  store: new RowStore(),
  finished: false,
  analysisComplete: false,
  version: 0,
});

/** A `rows` event of the server's stream (src/inspector/server.ts). */
export interface RowsEvent {
  rows: RowTuple[];
  changed: RowTuple[];
  strings: string[];
  finished?: boolean;
  analysisComplete?: boolean;
}

/** What a row or a list item calls to select frames: their seqs and the one to show in the detail. */
export type OnSelect = (seqs: number[], focus?: number) => void;
