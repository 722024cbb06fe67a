import { resolve } from 'node:path';
import { CaptureWriter, defineComponent, runComponent } from '@acp-kit/tools/proxy';
import { packageVersion } from '@acp-kit/protocol/internal';

/** `acp-kit record --out FILE`: a component that records what passes it; ends when the conductor does. */
export async function recordComponentCommand(flags: { out: string }): Promise<number> {
  const writer = new CaptureWriter(resolve(flags.out), { acpKit: packageVersion(), agent: ['(proxy chain)'] });
  const c = runComponent(defineComponent({}), {
    observe: (dir, m) => void writer.frame(dir, JSON.stringify(m)),
  });
  await c.closed;
  writer.close();
  return 0;
}
