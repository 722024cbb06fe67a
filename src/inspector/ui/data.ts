import type { RowTuple } from './api.js';

/** Pixel height of one timeline row (the list is virtualised on it). */
export const ROW_H = 24;
/** Rows rendered above and below the viewport. */
export const OVERSCAN = 6;
export const KINDS = ['request', 'notification', 'response', 'error', 'invalid'] as const;

/** One line of the timeline: a frame, or a run of chunk frames collapsed into one. */
export interface DisplayRow {
  /** index into rows of the first frame */
  first: number;
  /** indexes of every frame of the row (one unless collapsed) */
  members: number[];
}

/** The frames of one source as the page holds them. */
export interface Data {
  /** string table and rows grow in place; `version` tells memos they changed */
  strings: string[];
  rows: RowTuple[];
  finished: boolean;
  /** every frame so far is validated and decoded (the session view can be asked for) */
  analysisComplete: boolean;
  index: Map<number, number>;
  version: number;
}

export const emptyData = (): Data => ({ strings: [], rows: [], finished: false, analysisComplete: false, index: new Map(), version: 0 });

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
