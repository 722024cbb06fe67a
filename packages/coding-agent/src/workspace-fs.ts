import { stat } from 'node:fs/promises';
import type { AgentSession } from '@acp-kit/agent';
import { Sandbox, type ResolvedPath } from './sandbox.js';
import { errnoCode } from '@acp-kit/agent/internal';

/** Largest file the tools read from local disk (bigger files are refused, not truncated silently). */
export const MAX_FILE_BYTES = 4 * 1024 * 1024;

/**
 * Text file access for the tools. Paths are always checked by the sandbox first. A v1 client that
 * offers `fs/read_text_file` / `fs/write_text_file` is used for reads/writes (it sees unsaved
 * editor buffers and keeps its undo history, ACP-V1-FS-01/02); otherwise the local disk.
 */
export interface WorkspaceFs {
  /** Which operations go through the client. */
  readonly viaClient: { read: boolean; write: boolean };
  readText(path: ResolvedPath, signal?: AbortSignal): Promise<string>;
  /** Like {@link readText} but `null` when the file does not exist. */
  readTextIfExists(path: ResolvedPath, signal?: AbortSignal): Promise<string | null>;
  writeText(path: ResolvedPath, content: string, signal?: AbortSignal): Promise<void>;
}

async function localExists(real: string): Promise<boolean> {
  try {
    await stat(real);
    return true;
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return false;
    throw e;
  }
}

/** Builds the file access for one session. */
export function createWorkspaceFs(
  session: AgentSession,
  sandbox = new Sandbox(session.cwd, session.additionalDirectories),
): WorkspaceFs {
  // local disk goes through the sandbox's verified opens (no check-then-open race, no link escapes)
  const readLocal = async (p: ResolvedPath): Promise<string> => {
    const buf = await sandbox.readFile(p, MAX_FILE_BYTES);
    if (buf.includes(0)) throw new Error(`${p.path} looks like a binary file`);
    return buf.toString('utf8');
  };

  const v1 = session.client.protocolVersion === 1;
  const caps = session.client.capabilities.fs;
  const svc = session.clientServices;
  const readViaClient = v1 && caps?.readTextFile === true && svc.readTextFile ? svc.readTextFile.bind(svc) : undefined;
  const writeViaClient =
    v1 && caps?.writeTextFile === true && svc.writeTextFile ? svc.writeTextFile.bind(svc) : undefined;
  const clientRead = readViaClient !== undefined;
  const clientWrite = writeViaClient !== undefined;

  const readText = async (p: ResolvedPath, signal?: AbortSignal): Promise<string> => {
    if (readViaClient) return readViaClient(p.path, { signal });
    return readLocal(p);
  };

  return {
    viaClient: { read: clientRead, write: clientWrite },
    readText,
    async readTextIfExists(p, signal) {
      if (!readViaClient) return (await localExists(p.real)) ? readLocal(p) : null;
      try {
        return await readViaClient(p.path, { signal });
      } catch (e) {
        // clients report a missing file as an error; tell "missing" from real failures by the disk
        if (!(await localExists(p.real))) return null;
        throw e;
      }
    },
    async writeText(p, content, signal) {
      if (writeViaClient) return writeViaClient(p.path, content, { signal });
      await sandbox.writeFile(p, content);
    },
  };
}
