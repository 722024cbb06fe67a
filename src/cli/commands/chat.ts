import type { ChatFlags } from '../program.js';
import { usageError } from '../errors.js';

export async function chatCommand(_flags: ChatFlags): Promise<number> {
  throw usageError('chat is not implemented yet');
}
