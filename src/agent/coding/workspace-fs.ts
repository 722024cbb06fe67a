import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { AgentSession } from '../types.js';
import type { ResolvedPath } from './sandbox.js';

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
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

async function readLocal(p: ResolvedPath): Promise<string> {
  let st;
  try {
    st = await stat(p.real);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new Error(`file not found: ${p.path}`);
    throw e;
  }
  if (st.isDirectory()) throw new Error(`${p.path} is a directory (use list_files)`);
  if (st.size > MAX_FILE_BYTES) throw new Error(`${p.path} is too large to read (${st.size} bytes, limit ${MAX_FILE_BYTES})`);
  const buf = await readFile(p.real);
  if (buf.includes(0)) throw new Error(`${p.path} looks like a binary file`);
  return buf.toString('utf8');
}

/** Builds the file access for one session. */
export function createWorkspaceFs(session: AgentSession): WorkspaceFs {
  const v1 = session.client.protocolVersion === 1;
  const caps = session.client.capabilities.fs;
  const svc = session.clientServices;
  const clientRead = v1 && caps?.readTextFile === true && typeof svc.readTextFile === 'function';
  const clientWrite = v1 && caps?.writeTextFile === true && typeof svc.writeTextFile === 'function';

  const readText = async (p: ResolvedPath, signal?: AbortSignal): Promise<string> => {
    if (clientRead) return svc.readTextFile!(p.path, { signal });
    return readLocal(p);
  };

  return {
    viaClient: { read: clientRead, write: clientWrite },
    readText,
    async readTextIfExists(p, signal) {
      if (!clientRead) return (await localExists(p.real)) ? readLocal(p) : null;
      try {
        return await svc.readTextFile!(p.path, { signal });
      } catch (e) {
        // clients report a missing file as an error; tell "missing" from real failures by the disk
        if (!(await localExists(p.real))) return null;
        throw e;
      }
    },
    async writeText(p, content, signal) {
      if (clientWrite) return svc.writeTextFile!(p.path, content, { signal });
      await mkdir(dirname(p.real), { recursive: true });
      await writeFile(p.real, content, 'utf8');
    },
  };
}
