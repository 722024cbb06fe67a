import type { Meta, UnknownKind } from './json.js';

export type PlanEntryPriority = 'high' | 'medium' | 'low' | (string & {});
/** `cancelled` is v2 only (ACP-V2-PLAN-05). */
export type PlanEntryStatus = 'pending' | 'in_progress' | 'completed' | 'cancelled' | (string & {});

export interface PlanEntry {
  content: string;
  priority: PlanEntryPriority;
  status: PlanEntryStatus;
  _meta?: Meta | null;
}

/**
 * The id v1's single, unnamed plan has in the neutral model (the plan-variants RFD
 * suggests `"main"` for v1<->v2 adapters).
 */
export const V1_PLAN_ID = 'main';

/** A plan's full snapshot (ACP-V1-PLAN-03, ACP-V2-PLAN-03). */
export type PlanContent =
  | { type: 'items'; planId: string; entries: PlanEntry[]; _meta?: Meta | null }
  | { type: UnknownKind; planId: string; [key: string]: unknown };
